package org.nmws.service.measure;

import org.nmws.service.observation.Endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class EndpointTest {
    @Test
    void ipv4Ipv6AndHostNamesAreRecognised() {
        assertEquals("ipv4", Endpoint.parse("10.0.0.2", null).type());
        assertEquals("ipv6", Endpoint.parse("[2001:db8::1]", "ipv6").type());
        assertEquals("2001:db8::1", Endpoint.parse("[2001:db8::1]", "ipv6").host());
        assertEquals("hostname", Endpoint.parse("ellis.internet2.edu", "hostname").type());
    }

    @Test
    void aDeclaredTypeThatDisagreesWithTheTextIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("example.org", "ipv4"));
        assertEquals("endpoint 'example.org' is declared ipv4 but is hostname", e.getMessage());
    }

    @Test
    void shellMetacharactersAndOutOfRangeOctetsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("a.b; rm -rf /", null));
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("10.0.0.256", null));
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("  ", null));
    }
}
