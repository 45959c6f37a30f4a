package org.nmws.service.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PathKeyTest {
    @Test
    void namesOfTheSameAddressShareOnePathLock() {
        // review: the lock was keyed by the text the client sent
        assertEquals("127.0.0.1", MeasurementService.pathKey("127.0.0.1"));
        assertEquals(MeasurementService.pathKey("127.0.0.1"), MeasurementService.pathKey("LOCALHOST"));
        assertEquals("0:0:0:0:0:0:0:1", MeasurementService.pathKey("::1"));
    }

    @Test
    void anUnresolvableNameKeysByItsLowerCaseSelf() {
        assertEquals("no-such-host.invalid", MeasurementService.pathKey("No-Such-Host.INVALID"));
    }
}
