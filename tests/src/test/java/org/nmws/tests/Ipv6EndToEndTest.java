package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** Tests to an IPv6 destination through the service: a responder on ::1, subjects of type ipv6. */
class Ipv6EndToEndTest {

    @Test
    void roundTripStreamAndTcpToAnIpv6ResponderReadIpv6Figures() throws Exception {
        try (Responder responder = Responder.start("::1");
             Service service = Service.start(Files.createTempDirectory("nmws-ipv6"), "--nmws.responder-port=" + responder.port)) {
            Map<String, Double> rtt = figures(service, "path.delay.roundTrip",
                    "<nmwg:parameter name=\"count\">20</nmwg:parameter><nmwg:parameter name=\"interval\">0.002</nmwg:parameter>");
            assertEquals(20, rtt.get("received"), 0.0);
            assertTrue(rtt.get("minRtt") > 0 && rtt.get("minRtt") < 50, "min RTT " + rtt.get("minRtt") + " ms");

            Map<String, Double> owd = figures(service, "path.delay.oneWay",
                    "<nmwg:parameter name=\"count\">500</nmwg:parameter><nmwg:parameter name=\"packetSize\">1000</nmwg:parameter>"
                    + "<nmwg:parameter name=\"interval\">0.0002</nmwg:parameter>");
            assertEquals(500, owd.get("sent"), 0.0);
            // Wire rate over user rate is (payload + 86) / payload for IPv6 (66 for IPv4).
            assertEquals(1086.0 / 1000, owd.get("senderWireMbps") / owd.get("senderUserMbps"), 1e-6);

            Map<String, Double> tcp = figures(service, "path.bandwidth.achievable.TCP",
                    "<nmwg:parameter name=\"timeDuration\">1</nmwg:parameter>");
            assertTrue(tcp.get("throughputMbps") > 0, "TCP over ::1 moved data");
            assertEquals(3, responder.sessions(), "each test was one session with the IPv6 responder");
        }
    }

    private static Map<String, Double> figures(Service service, String eventType, String params) throws Exception {
        String request = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
                + "xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" type=\"MeasurementRequest\" id=\"r\">"
                + "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv6\" value=\"::1\"/>"
                + "</nmwgt:endPointPair></nmwg:subject><nmwg:eventType>" + eventType + "</nmwg:eventType>"
                + "<nmwg:parameters id=\"p\">" + params + "</nmwg:parameters></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";
        String body = service.post("/nmwg", request, "application/xml", null).body();
        Element message = Service.validatedMessage(body);
        assertEquals(eventType, message.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent(), body);
        // Round trips answer in PingER datums, the other tests in nmws figures: both are name/value.
        Map<String, Double> f = new HashMap<>();
        for (String[] kind : new String[][] {{"http://nmws.org/ns/result/1.0/", "figure"},
                {"http://ggf.org/ns/nmwg/tools/pinger/2.0/", "datum"}}) {
            NodeList figures = message.getElementsByTagNameNS(kind[0], kind[1]);
            for (int i = 0; i < figures.getLength(); i++) {
                Element e = (Element) figures.item(i);
                f.put(e.getAttribute("name"), Double.parseDouble(e.getAttribute("value")));
            }
        }
        return f;
    }
}
