package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Capacity (packet trains) and available bandwidth (rate scan) through the service,
 * against a 100 Mbit/s token bucket with and without a 40 Mbit/s background flow (issue 4).
 */
class LabBandwidthTruthTest {

    @Test
    void capacityReadsTheBucketRateAndAvailableBandwidthWhatABackgroundFlowLeaves() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.tbf(100, "200000");
            LabServices svc = LabServices.start(lab);
            Nmwg cap = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.bandwidth.capacity")));
            double frame = cap.figure("capacityFrameMbps");
            // 5 %, tighter than the 15 %: every run so far read 100.00-100.11.
            assertTrue(Math.abs(frame - 100) <= 5, "capacity " + frame + " Mbit/s of frames, tbf 100 Mbit/s");
            double user = cap.figure("capacityMbps");
            assertTrue(Math.abs(user - 97.2) <= 97.2 * 0.05, "capacity " + user + " Mbit/s of user data, expected 97.2");
            assertTrue(cap.figure("trainsUsed") >= 10, "most trains usable: " + cap.figure("trainsUsed"));

            lab.startIn(lab.b(), List.of("iperf3", "-s", "-B", lab.bAddress(), "-p", "5202"), "iperf3-server");
            lab.awaitListening(lab.b(), 5202, 10_000);
            lab.startIn(lab.a(), List.of("iperf3", "-c", lab.bAddress(), "-p", "5202", "-u", "-b", "40M", "-l", "1400",
                    "-t", "40"), "iperf3-client");
            Thread.sleep(1000);
            Nmwg avail = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.bandwidth.available",
                    "bandwidthLimit", "150M")));
            double available = avail.figure("availableMbps");
            // 97.2 Mbit/s of 1472-byte user data fit the bucket; the background takes 40.
            assertTrue(Math.abs(available - 57.2) <= 57.2 * 0.15, "available " + available + " Mbit/s, expected 57.2 +- 15%");
            assertTrue(avail.figure("steps") >= 3, "a curve, not a single point");
        }
    }
}
