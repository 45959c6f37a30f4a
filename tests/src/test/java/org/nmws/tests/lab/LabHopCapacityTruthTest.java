package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** Capacity hop by hop (Trace-Rate's way) through the service, behind a bucket on the second link (issue 4). */
class LabHopCapacityTruthTest {

    @Test
    void capacityPerHopFindsTheBucketBetweenTheTwoRouters() throws Exception {
        try (NetLab lab = NetLab.create(2)) {
            lab.tbf(100, "200000"); // on R1 toward R2: hops 2 and 3 are behind it, hop 1 is not
            LabServices svc = LabServices.start(lab);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.bandwidth.capacity",
                    "perHop", "true", "maxTtl", "8")));
            assertEquals(3, r.figure("hopCount"), 0.0);
            assertEquals(List.of(lab.routerAddress(1), lab.routerAddress(2), lab.bAddress()), route(r));
            double hop1 = r.figure("hop1CapacityFrameMbps");
            assertTrue(hop1 > 300, "hop 1 is a veth link, far above the bucket: " + hop1);
            for (int hop = 2; hop <= 3; hop++) {
                double c = r.figure("hop" + hop + "CapacityFrameMbps");
                assertTrue(Math.abs(c - 100) <= 5, "hop " + hop + ": " + c + " Mbit/s of frames, tbf 100");
            }
            assertEquals(100, r.figure("bottleneckFrameMbps"), 5);
            for (int hop = 1; hop <= 3; hop++) {
                assertEquals(0, r.figure("hop" + hop + "EndsOnly"), 0.0, "hop " + hop + " answers every probe here");
            }
        }
    }

    @Test
    void routersThatRateLimitIcmpAreMeasuredWithEndsOnlyTrains() throws Exception {
        try (NetLab lab = NetLab.create(2)) {
            lab.tbf(100, "200000");
            lab.defaultIcmpRateLimits(); // a burst of 6 answers, then 1 a second: a 64-frame train never comes back whole
            LabServices svc = LabServices.start(lab);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.bandwidth.capacity",
                    "perHop", "true", "maxTtl", "8")));
            assertEquals(3, r.figure("hopCount"), 0.0);
            assertEquals(1, r.figure("hop1EndsOnly"), 0.0, "R1 rate-limits: measured with ends-only trains");
            assertEquals(1, r.figure("hop2EndsOnly"), 0.0, "R2 rate-limits, found on its own trains");
            assertEquals(List.of(lab.routerAddress(1), lab.routerAddress(2), lab.bAddress()), route(r),
                    "B's hop, unanswered in ends-only trains, keeps the address the hop list saw");
            double c = r.figure("hop2CapacityFrameMbps");
            assertTrue(Math.abs(c - 100) <= 5, "hop 2 behind the bucket: " + c + " Mbit/s of frames, tbf 100");
            assertTrue(r.figure("hop1CapacityFrameMbps") > 300, "hop 1 is a veth link, far above the bucket");
            assertEquals(100, r.figure("bottleneckFrameMbps"), 5);
        }
    }

    @Test
    void aTestThatWouldRunPastTheDurationLimitIsStoppedAndFreesThePath() throws Exception {
        try (NetLab lab = NetLab.create(2)) {
            lab.defaultIcmpRateLimits(); // ends-only trains: about a minute for the whole path
            // Stopped at the limit plus its margin (5 s + 10 s), well before it would end.
            LabServices svc = LabServices.start(lab, "--nmws.limits.max-duration=PT5S");
            long t0 = System.nanoTime();
            String answer = svc.post(LabServices.measurementRequest(lab.bAddress(), "path.bandwidth.capacity",
                    "perHop", "true", "maxTtl", "8"));
            double stoppedAfter = (System.nanoTime() - t0) / 1e9;
            assertTrue(answer.contains("error.mp.measurement") && answer.contains("ran past nmws.limits.max-duration"),
                    answer);
            // the stop is the limit's: at its 15 s (limit and margin), not before it and not at the test's own minute
            assertTrue(stoppedAfter >= 14.5 && stoppedAfter < 30, "stopped after " + stoppedAfter + " s, expected about 15");
            Nmwg rtt = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.roundTrip",
                    "count", "5", "interval", "0.01")));
            assertEquals(5, rtt.figure("received"), 0.0, "the path's lock was released");
        }
    }

    private static List<String> route(Nmwg r) {
        NodeList hops = r.doc().getElementsByTagNameNS("http://nmws.org/ns/environment/1.0/", "hop");
        List<String> route = new ArrayList<>();
        for (int i = 0; i < hops.getLength(); i++) {
            route.add(((Element) hops.item(i)).getAttribute("address"));
        }
        return route;
    }
}
