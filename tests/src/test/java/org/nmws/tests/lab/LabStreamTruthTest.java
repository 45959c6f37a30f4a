package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * UDP stream measurements (UDPmon's) through the service, checked against the configured
 * truth of the namespace lab: capacity and bottleneck buffer (tbf), loss (nft), one-way
 * delay and reordering (the delay line). Tolerances are those of issue 3.
 */
class LabStreamTruthTest {

    @Test
    void achievableUdpThroughATokenBucketOfOneHundredMegabitsReadsNinetySevenPointTwo() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            int limitBytes = 200_000;
            lab.tbf(100, Integer.toString(limitBytes));
            LabServices svc = LabServices.start(lab);
            // 1472-byte frames offered at 150 Mbit/s of user data: above what the bucket lets through
            // even when the lab's shared vCPUs stretch the sender's spacing by a fifth (at 120 the
            // sender was sometimes held to 98.8, flagged senderLimited, and the bucket never overflowed).
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.bandwidth.achievable.UDP",
                    "count", "8000", "packetSize", "1472", "bandwidthLimit", "150M")));
            double rate = r.figure("receiverUserMbps");
            // tbf counts whole frames: 100e6 / (1514 * 8) frames/s of 1472 bytes = 97.2 Mbit/s of user data.
            assertTrue(Math.abs(rate - 97.2) <= 97.2 * 0.03, "received " + rate + " Mbit/s, expected 97.2 +- 3%");
            assertEquals(rate * 1e6, r.figure("throughput"), 1.0, "the iperf datum carries the same rate in bit/s");
            double buffer = r.figure("bufferBytes");
            assertTrue(buffer >= limitBytes * 0.5 && buffer <= limitBytes * 1.5,
                    "bottleneck buffer estimate " + buffer + " bytes, tbf limit " + limitBytes);
            assertEquals(0, r.figure("hostLost"), 0.0, "the loss is the bottleneck's, not the receiving host's");
            // What was asked is stated beside what was sent, and a sender that fell short is flagged.
            double offered = r.figure("offeredUserMbps");
            assertTrue(Math.abs(offered - 150) <= 1.5, "offered " + offered + " Mbit/s, asked 150");
            double sent = r.figure("senderUserMbps");
            assertEquals(sent < offered * 0.97 ? 1 : 0, r.figure("senderLimited"), 0.0,
                    "sent " + sent + " of " + offered + " Mbit/s asked");
        }
    }

    @Test
    void oneFrameInAHundredDroppedReadsExactlyOnePercentWithNoHostLoss() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.dropEveryNth(100);
            LabServices svc = LabServices.start(lab);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.loss.oneWay",
                    "count", "3000", "packetSize", "1000", "interval", "0.0001")));
            assertEquals(3000, r.figure("sent"), 0.0);
            assertEquals(30, r.figure("lost"), 0.0, "exactly every 100th frame");
            assertEquals(1.0, r.figure("lossPercent"), 1e-9);
            assertEquals(0, r.figure("hostLost"), 0.0);
            assertEquals(30, r.figure("networkLost"), 0.0);
            assertEquals(100, r.figure("lossMeanIntervalFrames"), 1e-9, "a loss every 100 frames");
        }
    }

    @Test
    void aTenMillisecondDelayLineReadsTenMillisecondsOneWay() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.delayLine(10_000, false);
            LabServices svc = LabServices.start(lab);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "http://ggf.org/ns/nmwg/tools/owamp/2.0",
                    "count", "500", "packetSize", "200", "interval", "0.001", "timeout", "1")));
            double median = r.figure("medianDelayMs");
            assertTrue(median >= 9.9 && median <= 10.6, "one-way delay median " + median + " ms, expected 9.9..10.6");
            assertTrue(r.figure("minDelayMs") >= 9.9, "no frame can beat the delay line");
            assertEquals(r.figure("minDelayMs") / 1e3, r.figure("min_delay"), 1e-9, "the owamp summary carries seconds");
        }
    }

    @Test
    void everyTenthFrameHeldBackIsReportedAsReorderedWithTheExtentTheHoldImplies() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            // Every 10th frame held back until the 3 behind it have passed: extent 3, exactly.
            lab.reorderLine(1_000, 10, 3);
            LabServices svc = LabServices.start(lab);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.reordering.oneWay",
                    "count", "1005", "packetSize", "200", "interval", "0.0002", "timeout", "1")));
            assertEquals(0, r.figure("lost"), 0.0);
            assertEquals(100, r.figure("outOfOrder"), 0.0, "every 10th of 1005 frames, each overtaken");
            assertEquals(3, r.figure("reorderingMaxExtent"), 0.0);
            assertEquals(100 / 1005.0, r.figure("reorderedRatio"), 1e-6);
        }
    }

    @Test
    void everyTenthFrameDelayedOnePointFiveMillisecondsMoreReadsTheJitterAndIpdvThatImplies() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            // 1 ms for every frame and 1.5 ms more for every 10th; frames 3 ms apart never reorder.
            lab.jitterLine(1_000, 10, 1_500);
            LabServices svc = LabServices.start(lab);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.jitter.oneWay",
                    "count", "1000", "packetSize", "200", "interval", "0.003", "timeout", "1")));
            assertEquals(0, r.figure("lost"), 0.0);
            assertEquals(0, r.figure("outOfOrder"), 0.0);
            // One frame in 10 is late, so the 95th percentile is a late one and the median is not.
            double jitter = r.figure("jitterMs");
            assertTrue(jitter >= 1.45 && jitter <= 1.65, "jitter (p95 - median) " + jitter + " ms, expected 1.5");
            // RFC 3393: each late frame makes one pair of +1.5 ms and one of -1.5 ms among 999 pairs.
            double ipdv = r.figure("meanAbsIpdvMs");
            double truth = 2 * 100 * 1.5 / 999;
            assertTrue(ipdv >= truth - 0.01 && ipdv <= truth + 0.05, "mean |IPDV| " + ipdv + " ms, expected " + truth);
            // The spread of one-way delays is the 1.5 ms hold: read at the 99th percentile (a late
            // frame) over the minimum, since the delay line itself wakes late now and then on a busy
            // VM, and one such frame (CI saw 3.05 ms once) would make max - min its own lateness.
            double spread = r.figure("p99DelayMs") - r.figure("minDelayMs");
            double full = r.figure("maxDelayMs") - r.figure("minDelayMs");
            assertTrue(spread >= 1.5 && spread <= 1.8, "p99 - min one-way delay " + spread + " ms, expected 1.5"
                    + " (max - min " + full + ")");
            assertTrue(full >= spread, "max - min " + full);
        }
    }
}
