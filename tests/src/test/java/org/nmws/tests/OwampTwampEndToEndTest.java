package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * OWAMP and TWAMP end to end (issue 22): a client asks the real service over SOAP for one-way
 * delay with protocol=OWAMP and for round trips with protocol=TWAMP; the service runs the
 * engine's client through JNI against a real nmprobe-owampd, open and authenticated with a
 * key id from its own key file, answers with real figures, and keeps them in the archive
 * where a SetupDataRequest reads them back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OwampTwampEndToEndTest {
    private static final String FIGURE = "http://nmws.org/ns/result/1.0/";
    private static final String OWAMP_SUMMARY = "http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921/";
    private Path dataDir;
    private OwampServer server;
    private Service service;

    @BeforeAll
    void start() throws Exception {
        dataDir = Files.createTempDirectory("nmws-owamp");
        Path keys = dataDir.resolve("keys.pfs");
        Files.writeString(keys, "alice 00112233445566778899aabbccddeeff\n");
        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
        server = OwampServer.start("--key-file", keys.toString(), "--modes", "open,authenticated,encrypted,mixed");
        service = Service.start(dataDir, "--nmws.key-file=" + keys);
    }

    @AfterAll
    void stop() throws Exception {
        if (service != null) {
            service.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String request(String eventType, int port, String params) {
        return "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
                + "type=\"MeasurementRequest\" id=\"mr1\"><nmwg:metadata id=\"m1\"><nmwg:subject id=\"s1\"><nmwgt:endPointPair>"
                + "<nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>" + eventType + "</nmwg:eventType><nmwg:parameters id=\"p1\">"
                + "<nmwg:parameter name=\"port\">" + port + "</nmwg:parameter>"
                + "<nmwg:parameter name=\"interval\">0.002</nmwg:parameter>" + params
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>";
    }

    private static String param(String name, Object value) {
        return "<nmwg:parameter name=\"" + name + "\">" + value + "</nmwg:parameter>";
    }

    @Test
    void oneWayDelayOverOwampInOpenAndAuthenticatedModes() throws Exception {
        for (String mode : new String[] {"open", "authenticated"}) {
            Element m = Service.validatedMessage(service.soap11(request("path.delay.oneWay", server.owampPort,
                    param("protocol", "OWAMP") + param("count", 100) + param("mode", mode)
                            + (mode.equals("open") ? "" : param("keyId", "alice")))).body());
            assertEquals("MeasurementResponse", m.getAttribute("type"), "mode " + mode);
            assertEquals(100, figure(m, "sent"), 0.0, mode);
            assertEquals(100, figure(m, "received"), 0.0, mode);
            assertEquals(0, figure(m, "lossPercent"), 0.0, mode);
            double owd = figure(m, "medianDelayMs");
            assertTrue(owd > 0 && owd < 20, "loopback one-way delay " + owd + " ms in mode " + mode);
            assertTrue(figure(m, "oneWayUncertaintyMs") > 0, "both clocks' errors are stated");
            assertEquals(1, m.getElementsByTagNameNS(OWAMP_SUMMARY, "datum").getLength(), "owamp's summary datum");
        }
        // the results were kept: a stored-data request with protocol=OWAMP reads them back
        Element stored = Service.validatedMessage(service.soap11(
                "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
                + "type=\"SetupDataRequest\" id=\"sd\"><nmwg:metadata id=\"m1\"><nmwg:subject id=\"s1\"><nmwgt:endPointPair>"
                + "<nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>path.delay.oneWay</nmwg:eventType><nmwg:parameters id=\"p1\">" + param("protocol", "OWAMP")
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>").body());
        assertEquals("SetupDataResponse", stored.getAttribute("type"));
        NodeList medians = figures(stored, "medianDelayMs");
        assertTrue(medians.getLength() >= 2, "both sessions stored: " + medians.getLength());
    }

    /** owping -f's direction: the server sends, the point receives; the path is kept from the server to here. */
    @Test
    void oneWayDelayFromTheServerWithDirectionFrom() throws Exception {
        Element m = Service.validatedMessage(service.soap11(request("path.delay.oneWay", server.owampPort,
                param("protocol", "OWAMP") + param("count", 50) + param("direction", "from"))).body());
        assertEquals("MeasurementResponse", m.getAttribute("type"), m.getTextContent());
        assertEquals(50, figure(m, "received"), 0.0);
        double owd = figure(m, "medianDelayMs");
        assertTrue(owd > 0 && owd < 20, "loopback one-way delay from the server " + owd + " ms");
        String log = server.logText();
        assertTrue(log.contains("this end sends"), "the server sent the session: " + log);
    }

    @Test
    void roundTripsOverTwampInOpenAndMixedModes() throws Exception {
        for (String mode : new String[] {"open", "mixed"}) {
            Element m = Service.validatedMessage(service.soap11(request("path.delay.roundTrip", server.twampPort,
                    param("protocol", "TWAMP") + param("count", 100) + param("mode", mode)
                            + (mode.equals("open") ? "" : param("keyId", "alice")))).body());
            assertEquals("MeasurementResponse", m.getAttribute("type"), "mode " + mode);
            assertEquals(100, figure(m, "sent"), 0.0, mode);
            assertEquals(100, figure(m, "received"), 0.0, mode);
            double rtt = figure(m, "medianRtt");
            assertTrue(rtt > 0 && rtt < 20, "loopback TWAMP round trip " + rtt + " ms in mode " + mode);
            double fwd = figure(m, "medianForwardMs");
            double bwd = figure(m, "medianBackwardMs");
            assertTrue(fwd >= 0 && bwd >= 0 && fwd + bwd <= 2 * rtt + 0.05, fwd + " + " + bwd + " vs " + rtt);
        }
    }

    @Test
    void aKeyIdTheServerDoesNotKnowIsAMeasurementErrorThatSaysWhy() throws Exception {
        Element m = Service.validatedMessage(service.soap11(request("path.delay.roundTrip", server.twampPort,
                param("protocol", "TWAMP") + param("count", 5) + param("mode", "authenticated")
                        + param("keyId", "mallory"))).body());
        String eventType = m.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent();
        assertTrue(eventType.startsWith("error."), "refused: " + eventType);
        String text = m.getTextContent();
        assertTrue(text.contains("mallory"), "the answer names the key id it lacks: " + text);
    }

    private static double figure(Element m, String name) {
        NodeList l = figures(m, name);
        assertTrue(l.getLength() > 0, "no figure " + name);
        return Double.parseDouble(((Element) l.item(0)).getAttribute("value"));
    }

    private static NodeList figures(Element m, String name) {
        NodeList all = m.getElementsByTagNameNS(FIGURE, "figure");
        java.util.List<Element> out = new java.util.ArrayList<>();
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            if (name.equals(e.getAttribute("name"))) {
                out.add(e);
            }
        }
        return new NodeList() {
            @Override
            public org.w3c.dom.Node item(int index) {
                return index < out.size() ? out.get(index) : null;
            }

            @Override
            public int getLength() {
                return out.size();
            }
        };
    }
}
