package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Passive utilization (interface counters, as SNMP MAs read them) by a measurement point
 * on the router, checked against a background flow of known rate (issue 4).
 */
class LabUtilizationTruthTest {

    @Test
    void utilizationOfTheRoutersOutgoingInterfaceReadsTheBackgroundRate() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            String rAddress = lab.addManagementLink(lab.router(1));
            LabServices router = LabServices.startServiceOnly(lab, lab.router(1), rAddress, "lab-r1");
            lab.startIn(lab.b(), List.of("iperf3", "-s", "-B", lab.bAddress(), "-p", "5201"), "iperf3-server");
            lab.awaitListening(lab.b(), 5201, 10_000);
            // 40 Mbit/s of 1400-byte UDP payloads for longer than the sample below.
            lab.startIn(lab.a(), List.of("iperf3", "-c", lab.bAddress(), "-p", "5201", "-u", "-b", "40M", "-l", "1400",
                    "-t", "12"), "iperf3-client");
            Thread.sleep(1500); // let the flow settle before sampling
            Nmwg r = Nmwg.parse(router.post(LabServices.utilizationRequest(lab.r1TowardB(),
                    "timeDuration", "5", "interval", "1")));
            // The interface counts whole frames less the FCS: payload + UDP 8 + IP 20 + Ethernet 14.
            double expected = 40.0 * (1400 + 42) / 1400;
            double out = r.figure("outMbps");
            assertTrue(Math.abs(out - expected) <= expected * 0.05, "R1 out " + out + " Mbit/s, background " + expected);
            assertEquals(6, r.figure("samples"), 0.0);
            assertEquals(0, r.figure("outErrors"), 0.0);
            assertTrue(r.figure("inMbps") < 1, "almost nothing comes back from B: " + r.figure("inMbps"));
        }
    }
}
