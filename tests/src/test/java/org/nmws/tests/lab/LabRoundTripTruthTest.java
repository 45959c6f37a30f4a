package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Round-trip measurements through the service, checked against what the lab was built
 * to do: a delay line of 10 ms each way, and exactly one UDP packet in 100 dropped.
 */
class LabRoundTripTruthTest {

    @Test
    void roundTripThroughATenMillisecondDelayLineEachWayReadsTwentyMilliseconds() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.delayLine(10_000, true);
            LabServices svc = LabServices.start(lab);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.roundTrip",
                    "count", "200", "interval", "0.005", "timeout", "2")));
            assertEquals("path.delay.roundTrip", r.eventTypes().get(0), r.text());
            assertEquals(200, r.figure("received"), 0.0);
            double median = r.figure("medianRtt");
            double min = r.figure("minRtt");
            assertTrue(min >= 19.8, "minRtt " + min + " ms: two 10 ms delays cannot be beaten");
            assertTrue(median >= 19.8 && median <= 21.2, "medianRtt " + median + " ms, expected 19.8..21.2");
        }
    }

    @Test
    void oneUdpPacketInAHundredDroppedReadsExactlyOnePercentLoss() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.dropEveryNth(100);
            LabServices svc = LabServices.start(lab);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.loss.roundTrip",
                    "count", "1000", "interval", "0.001")));
            assertEquals(1000, r.figure("sent"), 0.0);
            assertEquals(990, r.figure("received"), 0.0, "every 100th request dropped, exactly");
            assertEquals(1.0, r.figure("lossPercent"), 1e-9);
        }
    }
}
