package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Kinds added on top of the kinds table, and the engine's reason carried to the client, end
 * to end through the real service, JNI and responder: a STAMP test to the responder's
 * standard reflector, and a test to a busy responder answered error.mp.busy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StampAndBusyEndToEndTest {
    private static final String FIGURE = "http://nmws.org/ns/result/1.0/";
    private Path dataDir;
    private Responder responder;
    private Service service;
    private int stampPort;

    @BeforeAll
    void start() throws Exception {
        dataDir = Files.createTempDirectory("nmws-stamp");
        stampPort = Responder.freePort();
        // The busy test holds a silent session: a 10 s idle timeout keeps it held (the default ends it after 1 s).
        responder = Responder.start("127.0.0.1", List.of("--stamp-port", Integer.toString(stampPort), "--idle-timeout", "10"));
        service = Service.start(dataDir, "--nmws.responder-port=" + responder.port);
    }

    @AfterAll
    void stop() throws Exception {
        if (service != null) {
            service.close();
        }
        if (responder != null) {
            responder.close();
        }
    }

    @Test
    void aStampTestToTheResponderReflectorReturnsRoundTripAndBothOneWayDelays() throws Exception {
        Element m = Service.validatedMessage(service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 50,
                "<nmwg:parameter name=\"protocol\">STAMP</nmwg:parameter>"
                        + "<nmwg:parameter name=\"port\">" + stampPort + "</nmwg:parameter>")).body());
        assertEquals("MeasurementResponse", m.getAttribute("type"));
        double sent = figure(m, "sent");
        double received = figure(m, "received");
        assertEquals(50, sent, 0.0);
        assertEquals(50, received, 0.0);
        double rtt = figure(m, "medianRtt");
        assertTrue(rtt > 0 && rtt < 10, "loopback STAMP round trip " + rtt + " ms");
        // one clock at both ends: the one-way delays are small and add up to about the round trip
        double fwd = figure(m, "medianForwardMs");
        double bwd = figure(m, "medianBackwardMs");
        assertTrue(fwd >= 0 && bwd >= 0 && fwd + bwd < 3 * rtt + 0.05, fwd + " + " + bwd + " vs " + rtt);
        assertTrue(figure(m, "oneWayUncertaintyMs") > 0);
        assertTrue(unitOf(m, "medianForwardMs").equals("ms"), "units come from the kind's table");
    }

    /**
     * Issue 25, goal 4: a reflector preempted mid-test (SIGSTOP for 60 ms, as a loaded host
     * does) is reported as host stalls, with each frame's host part kept, and not as path delay.
     */
    @Test
    void aReflectorStoppedMidTestIsReportedAsHostStallsNotPathDelay() throws Exception {
        Thread pauser = new Thread(() -> {
            try {
                Thread.sleep(700); // the session is open and frames flow by then
                responder.pause(java.time.Duration.ofMillis(60));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        pauser.start();
        // 800 frames 2 ms apart: 1.6 s, the stop in the middle
        Element m = Service.validatedMessage(service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 800, "")
                .replace("<nmwg:parameter name=\"interval\">0.005</nmwg:parameter>",
                        "<nmwg:parameter name=\"interval\">0.002</nmwg:parameter>")).body());
        pauser.join();
        assertEquals("MeasurementResponse", m.getAttribute("type"));
        assertEquals(800, pinger(m, "received"), 0.0);
        double stalls = pinger(m, "stalls");
        // the frames sent during the stop (about 30) waited for the reflector
        assertTrue(stalls >= 10, "stalls " + stalls);
        assertTrue(pinger(m, "maxHost") >= 40, "the longest hold covers most of the stop: " + pinger(m, "maxHost"));
        assertTrue(pinger(m, "maxRtt") >= 40, "maxRtt " + pinger(m, "maxRtt"));
        // without the stop the path is loopback's: the p99 of RTT less host part stays small
        assertTrue(pinger(m, "p99PathRtt") < 5, "p99PathRtt " + pinger(m, "p99PathRtt") + " p99Rtt " + pinger(m, "p99Rtt"));
    }

    @Test
    void aClosedLoopRoundTripRunsThroughTheServiceAndSaysSo() throws Exception {
        Element m = Service.validatedMessage(service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 200,
                "<nmwg:parameter name=\"closedLoop\">true</nmwg:parameter>"
                        + "<nmwg:parameter name=\"timeout\">0.05</nmwg:parameter>")
                .replace("<nmwg:parameter name=\"interval\">0.005</nmwg:parameter>",
                        "<nmwg:parameter name=\"interval\">0</nmwg:parameter>")).body());
        assertEquals("MeasurementResponse", m.getAttribute("type"));
        assertEquals(200, pinger(m, "received"), 0.0);
        NodeList params = m.getElementsByTagNameNS("http://ggf.org/ns/nmwg/base/2.0/", "parameter");
        boolean said = false;
        for (int i = 0; i < params.getLength(); i++) {
            Element p = (Element) params.item(i);
            said |= "closedLoop".equals(p.getAttribute("name")) && "true".equals(p.getTextContent().trim());
        }
        assertTrue(said, "the answer's parameters say the test was a closed loop");
    }

    /** A round trip's summary value, by name (pinger:datum name/value). */
    private static double pinger(Element m, String name) {
        NodeList l = m.getElementsByTagNameNS("http://ggf.org/ns/nmwg/tools/pinger/2.0/", "datum");
        for (int i = 0; i < l.getLength(); i++) {
            Element e = (Element) l.item(i);
            if (name.equals(e.getAttribute("name"))) {
                return Double.parseDouble(e.getAttribute("value"));
            }
        }
        throw new AssertionError("no pinger datum " + name);
    }

    @Test
    void aTestToABusyResponderIsErrorMpBusy() throws Exception {
        // Another client holds the responder with an open session (a long, slow rr test).
        try (Socket holder = new Socket()) {
            holder.connect(new InetSocketAddress("127.0.0.1", responder.port), 2000);
            OutputStream out = holder.getOutputStream();
            out.write("NMP/1 SESSION kind=rr frames=1000 size=64 interval_ns=10000000 timeout_ms=1000\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] b = new byte[256];
            int n = holder.getInputStream().read(b);
            assertTrue(n > 0 && new String(b, 0, n, StandardCharsets.US_ASCII).startsWith("NMP/1 OK"),
                    "the holder's session is open");
            Element m = Service.validatedMessage(service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 5,
                    "")).body());
            String eventType = m.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent();
            assertEquals("error.mp.busy", eventType, "a busy responder is a busy error, not a failed measurement");
        }
    }

    @Test
    void aRequestForAPathInUseIsAnsweredBusyAtOnceWithWhenToRetry() throws Exception {
        // A test of about 3 s holds the path; a second one to the same destination does not wait for it.
        java.util.concurrent.CompletableFuture<String> first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 600, "")).body();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertBusyWhile(first);
        } finally {
            first.get(60, java.util.concurrent.TimeUnit.SECONDS); // the path is free again for the other tests
        }
        assertEquals("path.delay.roundTrip", Service.validatedMessage(first.get())
                .getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent());
    }

    private void assertBusyWhile(java.util.concurrent.CompletableFuture<String> first) throws Exception {
        // Once the first test reports progress, the busy answer can say when it will be over.
        while (!first.isDone() && !service.get("/api/tests").body().matches("(?s).*\"done\":[1-9].*")) {
            Thread.sleep(20);
        }
        String busy = null;
        while (busy == null && !first.isDone()) {
            Element m = Service.validatedMessage(service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "")).body());
            String eventType = m.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent();
            if ("error.mp.busy".equals(eventType)) {
                busy = m.getTextContent();
            } else {
                Thread.sleep(20); // the first had not taken the path yet: this one ran; try again
            }
        }
        assertTrue(busy != null, "a request while the path was in use was answered busy");
        assertTrue(!first.isDone(), "the busy answer came while the first test still ran, not after it");
        java.util.regex.Matcher retry = java.util.regex.Pattern.compile("retry in (\\d+) s").matcher(busy);
        assertTrue(retry.find(), busy);
        assertTrue(Integer.parseInt(retry.group(1)) <= 10, "retry estimated from the running test's progress: " + busy);
    }

    private static double figure(Element m, String name) {
        return Double.parseDouble(figureElement(m, name).getAttribute("value"));
    }

    private static String unitOf(Element m, String name) {
        return figureElement(m, name).getAttribute("units");
    }

    private static Element figureElement(Element m, String name) {
        NodeList l = m.getElementsByTagNameNS(FIGURE, "figure");
        for (int i = 0; i < l.getLength(); i++) {
            Element e = (Element) l.item(i);
            if (name.equals(e.getAttribute("name"))) {
                return e;
            }
        }
        throw new AssertionError("no figure " + name + " in the answer");
    }
}
