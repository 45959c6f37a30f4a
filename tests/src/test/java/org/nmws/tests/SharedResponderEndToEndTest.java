package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * Light tests sharing a far end (issue 24: background-class tests run beside others as their
 * class allows). The responder serves two shared sessions at once ({@code --sessions 2}); another
 * client (the nmprobe CLI, as another point would) holds one while the service measures. A
 * round trip is background class and asks for a shared session, so it runs beside a shared
 * test; beside an exclusive one it is busy, as before.
 */
class SharedResponderEndToEndTest extends LiveServiceTest {
    private static final Path CLI = Path.of(System.getProperty("nmws.cli.bin", "../native-probe/target/native/bin/nmprobe"));

    @Override
    List<String> responderOptions() {
        return List.of("--sessions", "2");
    }

    /** Another client's 1.5 s round trip, shared or not, started and given time to open its session. */
    private Process holder(boolean shared) throws Exception {
        Process p = new ProcessBuilder(CLI.toString(), "rr", "--host", "127.0.0.1", "--port", Integer.toString(responder.port),
                "--count", "150", "--interval-us", "10000", "--shared", shared ? "1" : "0")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Thread.sleep(300);
        assertTrue(p.isAlive(), "the other client's test runs");
        return p;
    }

    @Test
    void aRoundTripRunsBesideAnotherClientsSharedTest() throws Exception {
        Process other = holder(true);
        try {
            Element m = Service.validatedMessage(service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 20, "")).body());
            assertEquals("MeasurementResponse", m.getAttribute("type"), "not busy: the responder shares");
            assertTrue(other.isAlive(), "it ran while the other client's test did");
        } finally {
            assertTrue(other.waitFor(10, TimeUnit.SECONDS));
        }
        assertEquals(0, other.exitValue(), "the other client's test completed too");
    }

    @Test
    void aRoundTripBesideAnExclusiveTestIsBusy() throws Exception {
        Process other = holder(false);
        try {
            Element m = Service.validatedMessage(service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 20, "")).body());
            String eventType = m.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent();
            assertEquals("error.mp.busy", eventType, "an exclusive test holds the responder alone");
        } finally {
            assertTrue(other.waitFor(10, TimeUnit.SECONDS));
        }
        assertEquals(0, other.exitValue());
    }
}
