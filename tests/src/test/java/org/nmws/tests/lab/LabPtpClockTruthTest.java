package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * One-way delays carry the uncertainty of both clocks, and a clock that PTP measures is read
 * from ptp4l (linuxptp) itself. A and B run ptp4l over a timing link of their own (software
 * timestamps; A is the grandmaster, B a slave that measures without steering, so the host clock
 * the whole lab shares is left alone). The truth for B's clock is what linuxptp's own pmc
 * reads from B's ptp4l; for A, that it is the grandmaster.
 */
class LabPtpClockTruthTest {

    @Test
    void oneWayDelaysCarryBothClocksPtpErrorsAgainstTheirGrandmaster() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            lab.delayLine(10_000, false);
            Path dir = Files.createTempDirectory("nmws-ptp");
            NetLab.sh("ip", "link", "add", "ptpa", "netns", lab.a(), "type", "veth", "peer", "name", "ptpb", "netns", lab.b());
            lab.inNs(lab.a(), "ip", "addr", "add", "10.199.0.1/24", "dev", "ptpa");
            lab.inNs(lab.b(), "ip", "addr", "add", "10.199.0.2/24", "dev", "ptpb");
            lab.inNs(lab.a(), "ip", "link", "set", "ptpa", "up");
            lab.inNs(lab.b(), "ip", "link", "set", "ptpb", "up");
            Path sockA = dir.resolve("ptp-a");
            Path sockB = dir.resolve("ptp-b");
            Files.writeString(dir.resolve("a.cfg"), "[global]\nuds_address " + sockA + "\n");
            // free_running: B measures its offset from A but never steers the clock all namespaces share
            Files.writeString(dir.resolve("b.cfg"), "[global]\nuds_address " + sockB + "\nfree_running 1\n");
            lab.startIn(lab.a(), List.of("ptp4l", "-f", dir.resolve("a.cfg").toString(), "-i", "ptpa", "-S", "-4", "-m"), "ptp4l-a");
            lab.startIn(lab.b(), List.of("ptp4l", "-f", dir.resolve("b.cfg").toString(), "-i", "ptpb", "-S", "-4", "-s", "-m"),
                    "ptp4l-b");
            String gm = awaitSlave(lab, sockB);

            LabServices svc = LabServices.start(lab, List.of("--ptp-socket", sockB.toString()),
                    "--nmws.clock.ptp-socket=" + sockA);
            Nmwg r = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.oneWay",
                    "count", "500", "packetSize", "200", "interval", "0.001", "timeout", "1")));
            String pmcAfter = pmc(lab, sockB);

            // Both ends follow A's clock: A is the grandmaster, B is measured against it.
            assertEquals("ptp:" + gm, r.clock("src", "reference"), r.text());
            assertEquals("0", r.clock("src", "errorNs"), "the grandmaster has no error against itself");
            assertEquals("MASTER", r.clock("src", "ptpPortState"));
            assertEquals("ptp:" + gm, r.clock("dst", "reference"), r.text());
            long bError = Long.parseLong(r.clock("dst", "errorNs"));
            // B's error is |offsetFromMaster| + meanPathDelay as pmc reads them (software stamps on a
            // veth: a few us, varying from one sync to the next)
            long pmcError = Math.abs(value(pmcAfter, "offsetFromMaster")) + value(pmcAfter, "meanPathDelay");
            assertTrue(bError > 0 && bError < 200_000, "B's error " + bError + " ns");
            // pmc reads a moment later: a sync or two on, the offset moves by a microsecond or so
            assertTrue(Math.abs(bError - pmcError) <= Math.max(5_000, pmcError / 2), "B's error " + bError + " ns, pmc reads "
                    + pmcError);
            double uncertainty = r.figure("oneWayUncertaintyMs");
            assertEquals(bError / 1e6, uncertainty, 1e-6, "uncertainty = A's 0 + B's error");
            assertEquals(uncertainty / 1e3, r.figure("maxError"), 1e-9, "owamp's maxError carries it in seconds");
            // Without PTP this VM's unsynchronised kernel clocks would state 16 s each; and the
            // delays themselves, taken on the one clock the lab shares, are the line's 10 ms.
            double median = r.figure("medianDelayMs");
            assertTrue(median >= 9.9 && median <= 10.6, "median one-way delay " + median + " ms");

            // B's STAMP reflector states the same PTP error in its packets
            Nmwg st = Nmwg.parse(svc.post(LabServices.measurementRequest(lab.bAddress(), "path.delay.roundTrip",
                    "protocol", "STAMP", "port", "862", "count", "50", "interval", "0.005", "timeout", "2")));
            double reflectorError = st.figure("reflectorErrorMs");
            assertTrue(reflectorError > 0 && reflectorError < 0.5, "reflector error " + reflectorError + " ms: " + st.text());
            // and it is B's PTP error as B's responder stated it a moment before (issue 21: the bound
            // alone let any 0-0.5 ms pass), within the same sync-to-sync drift allowed against pmc
            // and the error estimate's rounding up (RFC 4656 4.1.2: an 8-bit multiplier)
            long reflectorNs = Math.round(reflectorError * 1e6);
            assertTrue(reflectorNs >= bError / 2 && Math.abs(reflectorNs - bError) <= Math.max(5_000, bError / 2),
                    "the reflector's stated error " + reflectorNs + " ns against B's PTP error " + bError + " ns");
            assertTrue(st.figure("oneWayUncertaintyMs") < 0.5, st.text());
        }
    }

    /** Waits until B's ptp4l measures against a grandmaster; returns the grandmaster's identity. */
    private static String awaitSlave(NetLab lab, Path sock) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        String out = "";
        while (System.nanoTime() < deadline) {
            out = pmc(lab, sock);
            Matcher gm = Pattern.compile("gmIdentity\\s+(\\S+)").matcher(out);
            if (out.contains("gmPresent                  true") && gm.find() && value(out, "meanPathDelay") > 0) {
                return gm.group(1);
            }
            Thread.sleep(1000);
        }
        throw new AssertionError("B's ptp4l found no grandmaster within 60 s:\n" + out);
    }

    private static String pmc(NetLab lab, Path sock) throws Exception {
        String b = lab.b();
        return lab.inNs(b, "pmc", "-u", "-s", sock.toString(), "-b", "0", "GET TIME_STATUS_NP", "GET CURRENT_DATA_SET");
    }

    private static long value(String pmc, String name) {
        Matcher m = Pattern.compile(name + "\\s+(-?[0-9.]+)").matcher(pmc);
        assertTrue(m.find(), name + " in " + pmc);
        return Math.round(Double.parseDouble(m.group(1)));
    }
}
