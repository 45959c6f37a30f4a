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

    @Test
    void theResolversOldNumericFormsAreNeitherAddressesNorNames() {
        // issue 21: 127.1, 0177.0.0.1 (octal) and 2130706433 passed as host names and the resolver made them 127.0.0.1
        for (String numeric : java.util.List.of("127.1", "0177.0.0.1", "2130706433", "1.2.3.4.5", "10.0.0.1.")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Endpoint.parse(numeric, null));
            assertEquals("'" + numeric + "' is neither an IP address nor a host name", e.getMessage());
        }
        assertEquals("'010.0.0.1' is not an IPv4 address (four decimal numbers 0-255, no leading zeros)",
                assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("010.0.0.1", null)).getMessage());
        assertEquals("hostname", Endpoint.parse("host1.example", null).type());
        assertEquals("hostname", Endpoint.parse("3com.com", null).type());
    }

    @Test
    void aTextShapedLikeIpv6MustBeAnIpv6Literal() {
        for (String bad : java.util.List.of("::ffff:", "127.0.0.1:99999", "1:2:3:4:5:6:7:8:9", ":::")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Endpoint.parse(bad, null));
            assertEquals("'" + bad + "' is not an IPv6 address", e.getMessage());
        }
        assertEquals("ipv6", Endpoint.parse("::ffff:127.0.0.1", null).type());
        assertEquals("ipv6", Endpoint.parse("fe80::1", null).type());
    }
}
