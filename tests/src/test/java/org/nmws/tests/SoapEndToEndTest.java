package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.client.NmwsClient;
import org.nmws.client.nmwg.Message;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The foundation, end to end: the real service on a random port, a real responder
 * process, SOAP 1.1 and 1.2 from the client generated from the WSDL and from raw HTTP,
 * real round-trip tests through JNI, results kept in SQLite and read back.
 */
class SoapEndToEndTest extends LiveServiceTest {
    static final String ENV = "http://nmws.org/ns/environment/1.0/";
    static final String PINGER = "http://ggf.org/ns/nmwg/tools/pinger/2.0/";
    static final String PING = "http://ggf.org/ns/nmwg/tools/ping/2.0/";
    static final String RESULT = "http://ggf.org/ns/nmwg/result/2.0/";

    @Test
    void theGeneratedSoap11ClientGetsAnEcho() {
        Message reply = NmwsClient.soap11(service.baseUrl).echo();
        assertEquals("EchoResponse", reply.getType());
        assertEquals(List.of("success.echo"), NmwsClient.eventTypes(reply));
    }

    @Test
    void aRoundTripTestOverSoap11MeasuresTheResponderAndIsStored() {
        Instant before = Instant.now();
        NmwsClient client = NmwsClient.soap11(service.baseUrl);
        Message reply = client.roundTrip("127.0.0.1", Map.of("count", "20", "interval", "0.005", "packetSize", "100"));
        assertEquals("MeasurementResponse", reply.getType());
        assertEquals(List.of(NmwsClient.ROUND_TRIP), NmwsClient.eventTypes(reply));
        NmwsClient.Response r = new NmwsClient.Response(reply);
        assertEquals("20", r.figure("sent"));
        assertEquals("20", r.figure("received"));
        assertEquals("0", r.figure("lossPercent"));
        double minRtt = Double.parseDouble(r.figure("minRtt"));
        assertTrue(minRtt > 0 && minRtt < 50, "loopback minRtt " + minRtt + " ms");
        assertTrue(Double.parseDouble(r.figure("maxRtt")) >= Double.parseDouble(r.figure("medianRtt")));
        assertTrue(Double.parseDouble(r.figure("medianRtt")) >= minRtt);

        Message stored = client.storedRoundTrips("127.0.0.1", before, Instant.now(), false);
        List<String> minRtts = new ArrayList<>();
        for (Element e : new NmwsClient.Response(stored).datums()) {
            if ("minRtt".equals(e.getAttribute("name"))) {
                minRtts.add(e.getAttribute("value"));
            }
        }
        assertTrue(minRtts.contains(r.figure("minRtt")), "stored " + minRtts + " holds " + r.figure("minRtt"));
    }

    @Test
    void aRoundTripTestOverSoap12CarriesItsEnvironmentAndPerFrameData() throws Exception {
        HttpResponse<String> resp = service.soap12(measurementRequest("127.0.0.1", 10, "<nmwg:parameter name=\"raw\">true</nmwg:parameter>"));
        assertEquals(200, resp.statusCode(), resp.body());
        assertTrue(resp.headers().firstValue("Content-Type").orElse("").startsWith("application/soap+xml"));
        Element message = Service.validatedMessage(resp.body());
        assertEquals("MeasurementResponse", message.getAttribute("type"));
        NodeList frames = message.getElementsByTagNameNS(PING, "datum");
        assertEquals(10, frames.getLength());
        for (int i = 0; i < frames.getLength(); i++) {
            Element f = (Element) frames.item(i);
            assertEquals(Integer.toString(i), f.getAttribute("seqNum"));
            assertEquals("64", f.getAttribute("numBytes"));
            double rtt = Double.parseDouble(f.getAttribute("value"));
            assertTrue(rtt > 0 && rtt < 1000, "frame " + i + " rtt " + rtt + " ms: answered within the 1 s timeout");
        }
        Element env = (Element) message.getElementsByTagNameNS(ENV, "environment").item(0);
        assertNotNull(env, "environment present");
        NodeList hosts = env.getElementsByTagNameNS(ENV, "host");
        assertEquals(2, hosts.getLength());
        Element src = (Element) hosts.item(0);
        assertEquals("src", src.getAttribute("role"));
        assertEquals("127.0.0.1", src.getAttribute("address"));
        assertFalse(src.getAttribute("kernel").isBlank());
        Element nic = (Element) src.getElementsByTagNameNS(ENV, "interface").item(0);
        assertEquals("lo", nic.getAttribute("name"));
        assertTrue(Integer.parseInt(nic.getAttribute("mtu")) > 0);
        Element clock = (Element) src.getElementsByTagNameNS(ENV, "clock").item(0);
        assertFalse(clock.getAttribute("source").isBlank());
        assertFalse(clock.getAttribute("synchronized").isBlank(), "adjtimex says whether the clock is synchronised");
        assertTrue(Long.parseLong(clock.getAttribute("maxErrorUs")) >= 0);
        assertTrue(Long.parseLong(clock.getAttribute("estErrorUs")) >= 0);
        Element tool = (Element) env.getElementsByTagNameNS(ENV, "tool").item(0);
        assertEquals("nmprobe", tool.getAttribute("name"));
        assertFalse(tool.getAttribute("version").isBlank());
        assertEquals("dst", ((Element) hosts.item(1)).getAttribute("role"));
    }

    @Test
    void rawFramesReadBackPackedOverSoapHoldTheValuesTheDatumsCarried() throws Exception {
        // issue 25: the packed form (rawForm=packed) written straight to the SOAP response
        Element measured = Service.validatedMessage(service.soap11(measurementRequest("127.0.0.1", 12,
                "<nmwg:parameter name=\"raw\">true</nmwg:parameter>")).body());
        NodeList datums = measured.getElementsByTagNameNS(PING, "datum");
        assertEquals(12, datums.getLength());
        String key = null;
        NodeList params = measured.getElementsByTagNameNS("http://ggf.org/ns/nmwg/base/2.0/", "parameter");
        for (int i = 0; i < params.getLength(); i++) {
            if ("maKey".equals(((Element) params.item(i)).getAttribute("name"))) {
                key = params.item(i).getTextContent().trim();
            }
        }
        assertNotNull(key, "the answer carries the result's maKey");
        String ask = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"SetupDataRequest\" id=\"q\">"
                + "<nmwg:metadata id=\"m\"><nmwg:key id=\"k\"><nmwg:parameters id=\"kp\"><nmwg:parameter name=\"maKey\">" + key
                + "</nmwg:parameter></nmwg:parameters></nmwg:key><nmwg:parameters id=\"p\"><nmwg:parameter name=\"raw\">true"
                + "</nmwg:parameter><nmwg:parameter name=\"rawForm\">packed</nmwg:parameter></nmwg:parameters></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";
        Element packed = Service.validatedMessage(service.soap11(ask).body());
        assertEquals(0, packed.getElementsByTagNameNS(PING, "datum").getLength(), "no datum per frame");
        java.util.Map<String, String[]> columns = new java.util.HashMap<>();
        NodeList series = packed.getElementsByTagNameNS("http://nmws.org/ns/result/1.0/", "series");
        for (int i = 0; i < series.getLength(); i++) {
            Element e = (Element) series.item(i);
            columns.put(e.getAttribute("name"), e.getTextContent().trim().split(" "));
        }
        // the frames' columns; a test that a busy host stalled also marks its frames (sample.hostNanos)
        java.util.Set<String> frameColumns = java.util.Set.of("frame.seqNum", "frame.sendOffsetNs", "frame.valueNs",
                "frame.numBytes", "frame.ttl");
        java.util.Set<String> others = new java.util.HashSet<>(columns.keySet());
        others.removeAll(frameColumns);
        assertTrue(columns.keySet().containsAll(frameColumns) && java.util.Set.of("sample.hostNanos").containsAll(others),
                columns.keySet().toString());
        for (int i = 0; i < 12; i++) {
            Element d = (Element) datums.item(i);
            assertEquals(d.getAttribute("seqNum"), columns.get("frame.seqNum")[i]);
            assertEquals(d.getAttribute("numBytes"), columns.get("frame.numBytes")[i]);
            assertEquals(Math.round(Double.parseDouble(d.getAttribute("value")) * 1e6), Long.parseLong(columns.get("frame.valueNs")[i]),
                    "frame " + i + ": the datum's RTT in ms is the column's in ns");
        }
    }

    @Test
    void theGeneratedSoap12ClientRunsAOneWayStreamAndGetsTheOwampSummary() {
        Message reply = NmwsClient.soap12(service.baseUrl).measure("127.0.0.1", "path.delay.oneWay",
                Map.of("count", "300", "packetSize", "500", "interval", "0.0002"));
        assertEquals(List.of("path.delay.oneWay"), NmwsClient.eventTypes(reply));
        Element summary = null;
        for (Element e : new NmwsClient.Response(reply).datums()) {
            if ("http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921/".equals(e.getNamespaceURI())) {
                summary = e;
            }
        }
        assertNotNull(summary, "the owamp summary datum");
        assertEquals("300", summary.getAttribute("sent"));
        assertEquals("0", summary.getAttribute("loss"));
        double min = Double.parseDouble(summary.getAttribute("min_delay"));
        assertTrue(min > 0 && min < 0.05, "loopback one-way delay " + min + " s");
    }

    @Test
    void middlewareGetsDestinationsRankedByTheCostOfATransferFromMeasuredThroughput() throws Exception {
        Message tcp = NmwsClient.soap11(service.baseUrl).measure("127.0.0.1", "path.bandwidth.achievable.TCP",
                Map.of("timeDuration", "0.5"));
        assertEquals(List.of("path.bandwidth.achievable.TCP"), NmwsClient.eventTypes(tcp));
        HttpResponse<String> resp = service.get("/api/cost?dst=192.0.2.7&dst=127.0.0.1&bytes=1e9");
        assertEquals(200, resp.statusCode(), resp.body());
        com.fasterxml.jackson.databind.JsonNode ranked = new com.fasterxml.jackson.databind.ObjectMapper().readTree(resp.body());
        assertEquals("127.0.0.1", ranked.get(0).get("dst").asText(), resp.body());
        assertEquals("achievable-tcp", ranked.get(0).get("basis").asText());
        double rate = ranked.get(0).get("rateMbps").asDouble();
        assertEquals(8e9 / (rate * 1e6), ranked.get(0).get("seconds").asDouble(), 0.01);
        assertEquals("none", ranked.get(1).get("basis").asText(), "an unmeasured destination ranks last");
        assertEquals(400, service.get("/api/cost?dst=127.0.0.1&bytes=-5").statusCode());
        assertEquals(400, service.get("/api/cost?dst=127.0.0.1&bytes=1e9&maxAge=PT100000000000H").statusCode(),
                "a window reaching before the epoch is a bad request, not a server error");
    }

    @Test
    void aTcpTestWithRawDataReturnsItsTcpInfoSamples() throws Exception {
        String request = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
                + "type=\"MeasurementRequest\" id=\"t1\"><nmwg:metadata id=\"m1\"><nmwg:subject id=\"s1\"><nmwgt:endPointPair>"
                + "<nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>path.bandwidth.achievable.TCP.multiStream</nmwg:eventType><nmwg:parameters id=\"p1\">"
                + "<nmwg:parameter name=\"streams\">2</nmwg:parameter><nmwg:parameter name=\"timeDuration\">0.5</nmwg:parameter>"
                + "<nmwg:parameter name=\"sampleInterval\">0.05</nmwg:parameter><nmwg:parameter name=\"raw\">true</nmwg:parameter>"
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>";
        Element message = Service.validatedMessage(service.post("/nmwg", request, "application/xml", null).body());
        NodeList samples = message.getElementsByTagNameNS("http://nmws.org/ns/result/1.0/", "tcpInfo");
        assertTrue(samples.getLength() >= 4, "TCP_INFO sampled over 0.5 s at 50 ms on 2 streams: " + samples.getLength());
        java.util.Set<String> streams = new java.util.HashSet<>();
        for (int i = 0; i < samples.getLength(); i++) {
            Element t = (Element) samples.item(i);
            streams.add(t.getAttribute("stream"));
            assertTrue(Long.parseLong(t.getAttribute("cwndSegments")) > 0);
            assertTrue(Long.parseLong(t.getAttribute("srttUs")) > 0);
        }
        assertEquals(java.util.Set.of("0", "1"), streams);
        NodeList intervals = message.getElementsByTagNameNS("http://ggf.org/ns/nmwg/tools/iperf/2.0/", "datum");
        assertTrue(intervals.getLength() > 2, "one iperf datum per sample interval besides the total");
    }

    @Test
    void aPerfsonarStyleRawPostIsAcceptedAsSent() throws Exception {
        HttpResponse<String> resp = service.soap11("<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
                + "type=\"EchoRequest\" id=\"e1\"><nmwg:metadata id=\"m1\"><nmwg:eventType>"
                + "http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>");
        assertEquals(200, resp.statusCode(), resp.body());
        Element message = Service.validatedMessage(resp.body());
        assertEquals("EchoResponse", message.getAttribute("type"));
        assertEquals("e1", message.getAttribute("messageIdRef"));
    }

    @Test
    void theWsdlIsServedWithBothBindings() throws Exception {
        HttpResponse<String> resp = service.get("/services/MeasurementService?wsdl");
        assertEquals(200, resp.statusCode());
        assertTrue(resp.body().contains("MeasurementSoap11Binding"), resp.body());
        assertTrue(resp.body().contains("MeasurementSoap12Binding"));
    }

    @Test
    void badInputGetsErrorResultsAndTheServiceKeepsServing() throws Exception {
        assertError(service.soap11("<nmwg:message xmlns:nmwg=\"http://example.org/not-nmwg\" type=\"EchoRequest\"/>"),
                "error.common.parse_error");
        assertError(service.soap11("<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"TeleportRequest\"/>"),
                "error.common.action_not_supported");
        assertError(service.soap11("<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"SetupDataRequest\">"
                + "<nmwg:data id=\"d\" metadataIdRef=\"absent\"/></nmwg:message>"), "error.common.structure");
        assertError(service.post("/nmwg", "this is not XML at all", "application/xml", null), "error.common.parse_error");
        assertError(service.post("/nmwg", "<a xmlns=\"urn:x\"/>", "application/xml", null), "error.common.parse_error");

        // Not XML inside a SOAP envelope is an envelope-level failure: a SOAP fault, not a crash.
        HttpResponse<String> fault = service.post("/services/MeasurementService", "not xml", "text/xml", "");
        assertEquals(500, fault.statusCode());
        assertTrue(fault.body().contains("Fault"), fault.body());

        // review: CXF read any envelope whole; the service's 4 MiB limit now holds for SOAP too.
        String huge = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"EchoRequest\"><nmwg:metadata id=\"m\">"
                + "<nmwg:eventType>" + "x".repeat(5 * 1024 * 1024) + "</nmwg:eventType></nmwg:metadata></nmwg:message>";
        HttpResponse<String> tooBig = service.soap11(huge);
        // issue 21: refused before CXF reads it, as 413 with a Client fault (a client's mistake, never soap:Server).
        assertEquals(413, tooBig.statusCode(), "an oversized envelope is refused as too large");
        assertTrue(tooBig.body().contains("<faultcode>soap:Client</faultcode><faultstring>request body exceeds the limit of 4194304"
                + " bytes (nmws.xml.max-bytes)</faultstring>") && tooBig.body().length() < 10_000, tooBig.body());

        assertEquals(List.of("success.echo"), NmwsClient.eventTypes(NmwsClient.soap11(service.baseUrl).echo()));
    }

    @Test
    void aDoctypeWithAnExternalEntityIsRefusedAndTheEntityIsNeverFetched() throws Exception {
        try (ServerSocket trap = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            trap.setSoTimeout(500);
            String doctype = "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY x SYSTEM \"http://127.0.0.1:"
                    + trap.getLocalPort() + "/secret\">]>";
            String nmwg = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"EchoRequest\">&x;</nmwg:message>";
            assertError(service.post("/nmwg", doctype + nmwg, "application/xml", null), "error.common.parse_error");
            HttpResponse<String> soap = service.post("/services/MeasurementService", doctype
                    + "<S:Envelope xmlns:S=\"" + Service.SOAP11 + "\"><S:Body>" + nmwg + "</S:Body></S:Envelope>",
                    "text/xml", "http://ggf.org/ns/nmwg/base/2.0/message/");
            assertEquals(500, soap.statusCode(), "a DTD in the envelope is a SOAP fault");
            assertFalse(soap.body().contains("secret"));
            assertThrows(SocketTimeoutException.class, trap::accept, "the service must not fetch the entity");
        }
        assertEquals(List.of("success.echo"), NmwsClient.eventTypes(NmwsClient.soap11(service.baseUrl).echo()));
    }

    @Test
    void aLatencyScanOverFrameSizesFitsALineThroughThePerSizeMinima() throws Exception {
        HttpResponse<String> resp = service.post("/nmwg", measurementRequest("127.0.0.1", 50,
                "<nmwg:parameter name=\"packetSizes\">64,512,1472</nmwg:parameter>"), "application/xml", null);
        Element message = Service.validatedMessage(resp.body());
        Map<String, Double> f = new java.util.HashMap<>();
        NodeList figures = message.getElementsByTagNameNS("http://nmws.org/ns/result/1.0/", "figure");
        for (int i = 0; i < figures.getLength(); i++) {
            Element e = (Element) figures.item(i);
            f.put(e.getAttribute("name"), Double.parseDouble(e.getAttribute("value")));
        }
        assertEquals(150, f.get("sent"), 0.0, resp.body());
        for (int size : new int[] {64, 512, 1472}) {
            double min = f.get("size" + size + "MinRttMs");
            assertTrue(min > 0 && min < 50, size + " bytes: min RTT " + min + " ms");
            assertTrue(f.get("size" + size + "MedianRttMs") >= min);
        }
        assertTrue(Double.isFinite(f.get("slopeUsPerByte")));
        double r2 = f.get("fitR2Ratio");
        assertTrue(r2 >= 0 && r2 <= 1, "r^2 " + r2);
    }

    @Test
    void aLongTestShowsItsProgressAndCanBeCancelled() throws Exception {
        java.util.concurrent.CompletableFuture<HttpResponse<String>> reply = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return service.post("/nmwg", measurementRequest("127.0.0.1", 5000, ""), "application/xml", null);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        String id = null;
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (id == null && System.nanoTime() < deadline) {
            for (com.fasterxml.jackson.databind.JsonNode t : json.readTree(service.get("/api/tests").body())) {
                if (t.get("done").asInt() > 0 && t.get("total").asInt() == 5000) {
                    assertEquals("127.0.0.1", t.get("dst").asText());
                    id = t.get("id").asText();
                }
            }
            Thread.sleep(50);
        }
        assertNotNull(id, "the running test is listed with progress");
        HttpResponse<String> cancel = service.delete("/api/tests/" + id);
        assertEquals(202, cancel.statusCode());
        HttpResponse<String> resp = reply.get(20, java.util.concurrent.TimeUnit.SECONDS);
        Element message = Service.validatedMessage(resp.body());
        assertEquals("error.mp.measurement", message.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent());
        String datum = message.getElementsByTagNameNS(RESULT, "datum").item(0).getTextContent();
        assertTrue(datum.contains("was cancelled before it ended"), datum);
        assertEquals(404, service.delete("/api/tests/" + id).statusCode(), "a finished test is gone from the list");
    }

    static void assertError(HttpResponse<String> resp, String code) {
        assertEquals(200, resp.statusCode(), "a protocol error is a normal NMWG response: " + resp.body());
        Element message = Service.validatedMessage(resp.body());
        NodeList ets = message.getElementsByTagNameNS(Service.NMWG, "eventType");
        assertEquals(code, ets.item(0).getTextContent().trim(), resp.body());
        String datum = message.getElementsByTagNameNS(RESULT, "datum").item(0).getTextContent();
        assertFalse(datum.isBlank());
        assertFalse(datum.contains("Exception") || datum.contains("\tat "), "no stack trace: " + datum);
    }

    @Test
    void aSoapBodyWithTwoElementsIsAClientFaultThatNamesNoJavaInternals() throws Exception {
        String two = "<nmwg:message xmlns:nmwg=\"" + Service.NMWG + "\" type=\"EchoRequest\" id=\"a\"/>"
                + "<nmwg:message xmlns:nmwg=\"" + Service.NMWG + "\" type=\"EchoRequest\" id=\"b\"/>";
        HttpResponse<String> resp = service.soap11(two);
        assertEquals(500, resp.statusCode(), resp.body());
        assertTrue(resp.body().contains("Client") && resp.body().contains("exactly one element"), resp.body());
        assertFalse(resp.body().contains("null") || resp.body().contains("Cannot invoke"), resp.body());
        assertEquals(200, service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 2, "")).statusCode(),
                "the service keeps serving");
    }

    static String measurementRequest(String dst, int count, String extraParams) {
        return "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
                + "type=\"MeasurementRequest\" id=\"mr1\"><nmwg:metadata id=\"m1\"><nmwg:subject id=\"s1\"><nmwgt:endPointPair>"
                + "<nmwgt:dst type=\"ipv4\" value=\"" + dst + "\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p1\">"
                + "<nmwg:parameter name=\"count\">" + count + "</nmwg:parameter>"
                + "<nmwg:parameter name=\"interval\">0.005</nmwg:parameter>" + extraParams
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>";
    }
}
