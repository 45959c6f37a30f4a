package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * OWAMP and TWAMP through the service against nmprobe-owampd in B, checked against the lab's
 * truth (issue 22): over a 10 ms delay line OWAMP's one-way delays read 10 ms within the UDP
 * stream's bounds and TWAMP's round trips equal rr's within 5 %; one packet in 100 dropped
 * reads exactly 1 % loss.
 */
class LabOwampTwampTruthTest {

    private static Process owampd(NetLab lab) throws Exception {
        Path bin = Path.of(System.getProperty("nmws.owampd.bin", "../native-probe/target/native/bin/nmprobe-owampd"));
        if (!Files.isExecutable(bin)) {
            throw new IllegalStateException("build nmprobe-owampd first: " + bin.toAbsolutePath());
        }
        // the standard control ports, test ports away from the STAMP reflector's UDP 862
        Process p = lab.startIn(lab.b(), List.of(bin.toAbsolutePath().toString(), "-b", lab.bAddress(),
                "--test-ports", "9000-9099"), "owampd");
        lab.awaitListening(lab.b(), 861, 10_000);
        lab.awaitListening(lab.b(), 862, 10_000);
        return p;
    }

    @Test
    void overATenMillisecondDelayLineOwampReadsTenOneWayAndTwampTheRoundTripOfRr() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.delayLine(10_000, true); // UDP only: the control connections are not delayed
            LabServices svc = LabServices.start(lab);
            owampd(lab);
            Nmwg ow = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.oneWay",
                    "protocol", "OWAMP", "port", "861", "count", "500", "packetPadding", "100", "interval", "0.001",
                    "timeout", "1")));
            assertEquals(500, ow.figure("received"), 0.0, ow.text());
            double owd = ow.figure("medianDelayMs");
            assertTrue(owd >= 9.9 && owd <= 10.6, "OWAMP one-way delay median " + owd + " ms, expected 9.9..10.6");
            assertTrue(ow.figure("minDelayMs") >= 9.9, "no packet can beat the delay line");

            Nmwg rr = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.roundTrip",
                    "count", "200", "interval", "0.005", "timeout", "2")));
            Nmwg tw = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.roundTrip",
                    "protocol", "TWAMP", "port", "862", "count", "200", "interval", "0.005", "timeout", "2")));
            assertEquals(200, tw.figure("received"), 0.0, tw.text());
            double twamp = tw.figure("medianRtt");
            double median = rr.figure("medianRtt");
            assertTrue(Math.abs(twamp - median) <= 0.05 * median, "TWAMP medianRtt " + twamp + " ms against rr's " + median);
            for (String dir : new String[] {"medianForwardMs", "medianBackwardMs"}) {
                double d = tw.figure(dir);
                assertTrue(d >= 9.9 && d <= 10.6, "TWAMP " + dir + " " + d + " ms, expected 9.9..10.6");
            }
        }
    }

    /**
     * Direction against truth: UDP from A to B held 10 ms, B to A not at all. OWAMP towards B
     * (direction to) reads 10 ms, OWAMP from B (direction from: the server sends, this point
     * receives) reads the undelayed way; TWAMP splits its round trip the same way.
     */
    @Test
    void overAOneWayDelayLineEachDirectionReadsItsOwnDelay() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.delayLine(10_000, false, "udp");
            LabServices svc = LabServices.start(lab);
            owampd(lab);
            Nmwg to = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.oneWay",
                    "protocol", "OWAMP", "port", "861", "count", "300", "interval", "0.002", "timeout", "1")));
            Nmwg from = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.oneWay",
                    "protocol", "OWAMP", "port", "861", "count", "300", "interval", "0.002", "timeout", "1", "direction", "from")));
            assertEquals(300, to.figure("received"), 0.0, to.text());
            assertEquals(300, from.figure("received"), 0.0, from.text());
            double toward = to.figure("medianDelayMs");
            double back = from.figure("medianDelayMs");
            assertTrue(toward >= 9.9 && toward <= 10.6, "OWAMP to B " + toward + " ms, expected 9.9..10.6");
            assertTrue(back >= 0 && back <= 0.6, "OWAMP from B " + back + " ms, expected the undelayed 0..0.6");

            Nmwg tw = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.roundTrip",
                    "protocol", "TWAMP", "port", "862", "count", "200", "interval", "0.005", "timeout", "2")));
            double forward = tw.figure("medianForwardMs");
            double backward = tw.figure("medianBackwardMs");
            assertTrue(forward >= 9.9 && forward <= 10.6, "TWAMP forward " + forward + " ms, expected 9.9..10.6");
            assertTrue(backward >= 0 && backward <= 0.6, "TWAMP backward " + backward + " ms, expected 0..0.6");
        }
    }

    @Test
    void oneOwampPacketInAHundredDroppedReadsExactlyOnePercentLoss() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.dropEveryNth(100);
            LabServices svc = LabServices.start(lab);
            owampd(lab);
            Nmwg ow = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.loss.oneWay",
                    "protocol", "OWAMP", "port", "861", "count", "2000", "interval", "0.0005", "timeout", "1")));
            assertEquals(2000, ow.figure("sent"), 0.0, ow.text());
            assertEquals(20, ow.figure("lost"), 0.0, "exactly every 100th test packet");
            assertEquals(1.0, ow.figure("lossPercent"), 1e-9);
        }
    }
}
