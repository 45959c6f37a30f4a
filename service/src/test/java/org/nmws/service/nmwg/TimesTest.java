package org.nmws.service.nmwg;

import org.nmws.service.observation.Times;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class TimesTest {

    @Test
    void unixSecondsAndIso8601AreTheSameInstant() {
        assertEquals(Instant.parse("2026-11-21T10:00:00.25Z"), Times.parse("t", "1795255200.25"));
        assertEquals(Instant.parse("2026-11-21T10:00:00Z"), Times.parse("t", "2026-11-21T11:00:00+01:00"));
    }

    @Test
    void onlyTimesTheArchiveCanHoldAreAccepted() {
        assertEquals(Times.MAX, Times.parse("t", Times.MAX.toString()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Times.parse("endTime", "9999-12-31T23:59:59Z"));
        assertTrue(e.getMessage().startsWith("time parameter 'endTime' is '9999-12-31T23:59:59Z': outside"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Times.parse("t", "999999999999"));
        assertThrows(IllegalArgumentException.class, () -> Times.parse("t", "yesterday"));
        assertThrows(IllegalArgumentException.class, () -> Times.parse("t", " "));
    }
}
