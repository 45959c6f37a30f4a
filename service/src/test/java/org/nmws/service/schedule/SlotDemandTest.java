package org.nmws.service.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.service.measure.TestClass;

/** The slot a run asks its far end for, and the fit check's arithmetic (issue 24). */
class SlotDemandTest {

    private static Schedule s(String name, Map<String, String> p, int periodS, TestClass c) {
        return new Schedule(1, name, "a", "path.delay.roundTrip", "10.0.0.3", p, Duration.ofSeconds(periodS), Duration.ZERO,
                Instant.EPOCH, null, c, true);
    }

    @Test
    void beforeItsFirstRunASlotIsWhatTheParametersSayPlusSetUp() {
        assertEquals(Duration.ofMillis(3000), SlotDemand.estimate(s("r", Map.of("count", "50", "interval", "0.05"), 8,
                TestClass.BACKGROUND), null));
        assertEquals(Duration.ofMillis(6500), SlotDemand.estimate(s("t", Map.of("timeDuration", "6"), 10,
                TestClass.EXCLUSIVE), null));
        // 2500 frames of 1000 B at 8 Mbit/s: 2.5 s
        assertEquals(Duration.ofMillis(3000), SlotDemand.estimate(s("u", Map.of("count", "2500", "packetSize", "1000",
                "bandwidthLimit", "8M"), 10, TestClass.EXCLUSIVE), null));
        assertEquals(Duration.ofSeconds(2), SlotDemand.estimate(s("x", Map.of(), 10, TestClass.NORMAL), null));
        assertEquals(Duration.ofMillis(550), SlotDemand.estimate(s("y", Map.of("count", "5", "interval", "0.01"), 10,
                TestClass.NORMAL), null));
    }

    @Test
    void aClosedLoopIsBookedAtItsLongestEveryFrameWaitedFor() {
        // 20 frames 10 ms apart, each may wait 0.1 s: 2.2 s, + 0.5 s set-up; "1" reads as true, as the kind reads it
        assertEquals(Duration.ofMillis(2700), SlotDemand.estimate(s("l", Map.of("count", "20", "interval", "0.01",
                "timeout", "0.1", "closedLoop", "1"), 60, TestClass.BACKGROUND), null));
        // without a timeout, the round trip's default second a frame
        assertEquals(Duration.ofMillis(20_700), SlotDemand.estimate(s("m", Map.of("count", "20", "interval", "0.01",
                "closedLoop", "true"), 60, TestClass.BACKGROUND), null));
        assertEquals(Duration.ofMillis(700), SlotDemand.estimate(s("o", Map.of("count", "20", "interval", "0.01"), 60,
                TestClass.BACKGROUND), null));
    }

    @Test
    void afterARunItIsThatRunsLengthWithAQuarterMoreAndNeverMoreThanItsPeriod() {
        assertEquals(Duration.ofMillis(2700), SlotDemand.estimate(s("r", Map.of(), 8, TestClass.BACKGROUND), Duration.ofMillis(2000)));
        assertEquals(Duration.ofSeconds(60), SlotDemand.estimate(s("c", Map.of(), 60, TestClass.NORMAL), Duration.ofSeconds(59)));
        // a five-frame round trip of 60 ms holds 275 ms; a run of 10 ms the floor, 250 ms
        assertEquals(Duration.ofMillis(275), SlotDemand.estimate(s("y", Map.of(), 10, TestClass.NORMAL), Duration.ofMillis(60)));
        assertEquals(Duration.ofMillis(250), SlotDemand.estimate(s("z", Map.of(), 10, TestClass.NORMAL), Duration.ofMillis(10)));
    }

    @Test
    void schedulesThatNeedMoreThanAFarEndsTimeAreNamedWithTheirDemands() {
        Schedule bw1 = s("bw-1", Map.of("timeDuration", "6"), 10, TestClass.EXCLUSIVE);
        Schedule bw2 = s("bw-2", Map.of("timeDuration", "6"), 10, TestClass.EXCLUSIVE);
        Schedule rtt = s("rtt", Map.of("count", "50", "interval", "0.05"), 8, TestClass.BACKGROUND);
        assertNull(SlotDemand.overBooked("h:8700", List.of(bw1, rtt), x -> null, true));
        assertEquals("no time available at h:8700: exclusive tests bw-1 (6.5 s every 10.0 s), bw-2 (6.5 s every 10.0 s) "
                + "need 130 % of its time (its responder serves one test at a time); lengthen a period or move a schedule",
                SlotDemand.overBooked("h:8700", List.of(bw1, rtt, bw2), x -> null, true));
        // all classes: 65 % + 37.5 % (102.5, written 102)
        assertEquals("no time available at h:8700: bw-1 (6.5 s every 10.0 s), rtt (3.0 s every 8.0 s) need 102 % of its "
                + "time (its responder serves one test at a time); lengthen a period or move a schedule",
                SlotDemand.overBooked("h:8700", List.of(bw1, rtt), x -> null, false));
        // light tests sharing the responder four at a time need a quarter of their length: 65 % + 9.4 %
        assertNull(SlotDemand.overBooked("h:8700", List.of(bw1, rtt), x -> null, false, 4));
        Schedule rtt2 = s("rtt-2", Map.of("count", "100", "interval", "0.05"), 8, TestClass.BACKGROUND);
        Schedule rtt3 = s("rtt-3", Map.of("count", "100", "interval", "0.05"), 8, TestClass.BACKGROUND);
        // 65 % + (37.5 + 68.75 + 68.75) / 4 % = 108.75 %, and an exclusive test is not shared
        assertEquals("no time available at h:8700: bw-1 (6.5 s every 10.0 s), rtt (3.0 s every 8.0 s), rtt-2 (5.5 s every 8.0 s),"
                + " rtt-3 (5.5 s every 8.0 s) need 109 % of its time (its responder taken to serve 4 light tests at once, as"
                + " nmws.limits.shared-tests-per-path says (start it with --sessions 4), an exclusive one alone); lengthen a period"
                + " or move a schedule",
                SlotDemand.overBooked("h:8700", List.of(bw1, rtt, rtt2, rtt3), x -> null, false, 4));
        // the far end said it serves one session at a time: this point's 4 do not help, 65 % + 37.5 %
        assertEquals("no time available at h:8700: bw-1 (6.5 s every 10.0 s), rtt (3.0 s every 8.0 s) need 102 % of its time"
                + " (its responder serves 1 session at once, as it said when last asked, and this point runs 4 light tests to"
                + " one path at once (nmws.limits.shared-tests-per-path): one test at a time); lengthen a period or move a"
                + " schedule", SlotDemand.overBooked("h:8700", List.of(bw1, rtt), x -> null, false, 4, 1));
        // it said 8, and this point runs 4: four at a time, as without its word
        assertNull(SlotDemand.overBooked("h:8700", List.of(bw1, rtt), x -> null, false, 4, 8));
        assertTrue(SlotDemand.overBooked("h:8700", List.of(bw1, rtt, rtt2, rtt3), x -> null, false, 4, 8)
                .contains("its responder serves 8 sessions at once, as it said when last asked, and this point runs 4 light"
                        + " tests to one path at once (nmws.limits.shared-tests-per-path): 4 light tests at once"));
    }
}
