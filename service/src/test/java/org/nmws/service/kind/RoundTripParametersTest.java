package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundTripParametersTest {
    private static RoundTripParameters parse(Map<String, String> p) {
        return RoundTripParameters.parse(p, 8700, 1000, Duration.ofSeconds(60));
    }

    @Test
    void defaultsApplyWhenNothingIsGiven() {
        RoundTripParameters p = parse(Map.of());
        assertEquals(new RoundTripParameters(10, 64, 0.1, 0, 1.0, 8700, false, false), p);
    }

    @Test
    void timeDurationSetsTheCountWhenNoCountIsGiven() {
        assertEquals(50, parse(Map.of("timeDuration", "5", "interval", "0.1")).count());
        assertEquals(7, parse(Map.of("timeDuration", "5", "count", "7")).count());
    }

    @Test
    void outOfRangeValuesAreRefusedWithTheirName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(Map.of("count", "0")));
        assertEquals("parameter count is 0: must be 1..1000", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> parse(Map.of("packetSize", "abc")));
        assertEquals("parameter packetSize is 'abc': expected an integer 32..9000", e.getMessage());
    }

    @Test
    void aTestLongerThanTheServiceLimitIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse(Map.of("count", "1000", "interval", "1")));
        assertEquals("count 1000 x interval 1.000 s + timeout 1.000 s = 1001.0 s exceeds this service's limit of 60 s",
                e.getMessage());
    }

    @Test
    void everyParameterIsReportedByItsNmwgName() {
        assertEquals("{count=3, packetSize=100, interval=0.5, ttl=9, timeout=2, port=9000, protocol=UDP}",
                parse(Map.of("count", "3", "packetSize", "100", "interval", "0.5", "ttl", "9", "timeout", "2",
                        "port", "9000")).asNmwg().toString());
    }

    @Test
    void aDurationThatWouldNeedMoreFramesThanAllowedIsRefusedNotShortened() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse(Map.of("timeDuration", "50", "interval", "0.01")));
        assertEquals("timeDuration 50 s at interval 0.01 s is 5000 frames: more than this service's limit of 1000",
                e.getMessage());
    }

    @Test
    void flagsAreTrueOrFalseAndAnythingElseIsRefused() {
        assertEquals(true, parse(Map.of("raw", "TRUE")).raw());
        assertEquals(true, parse(Map.of("raw", "1")).raw());
        assertEquals(false, parse(Map.of("raw", " false ")).raw());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(Map.of("raw", "yes")));
        assertEquals("parameter raw is 'yes': expected true or false", e.getMessage());
    }
}
