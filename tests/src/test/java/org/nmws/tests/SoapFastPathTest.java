package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 25 goal 3: the common SOAP request (no Header, one nmwg:message in the Body) is answered
 * without CXF's chain, and its answer is the document CXF's path gives: the same request with an
 * empty Header goes through CXF, and both answers match byte for byte but for the message's own
 * id, over SOAP 1.1 and 1.2, for an Echo, stored results with an unsupported pair beside them, and
 * a message whose ids need escaping. The service's counter of fast answers shows which path each
 * took: every headerless request, and nothing else (a Header, a cost request, the other version's
 * envelope).
 */
class SoapFastPathTest extends LiveServiceTest {
    private static final String NS = "xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
            + "xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\"";

    private static final String ECHO = "<nmwg:message " + NS + " type=\"EchoRequest\" id=\"e\"><nmwg:metadata id=\"m\">"
            + "<nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata>"
            + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";

    private static final String STORED = "<nmwg:message " + NS + " type=\"SetupDataRequest\" id=\"s\"><nmwg:metadata id=\"m\">"
            + "<nmwg:subject id=\"su\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair>"
            + "</nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>"
            + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/><nmwg:metadata id=\"m2\"><nmwg:eventType>path.nothing</nmwg:eventType>"
            + "</nmwg:metadata><nmwg:data id=\"d2\" metadataIdRef=\"m2\"/></nmwg:message>";

    /** Ids that need escaping and are not ASCII: the answer echoes them. */
    private static final String ESCAPED = "<nmwg:message " + NS + " type=\"EchoRequest\" id=\"a&amp;b&lt;&quot;\u00e9\u4e2d\">"
            + "<nmwg:metadata id=\"m&amp;1\"><nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType>"
            + "</nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m&amp;1\"/></nmwg:message>";

    private static final String ROUND_TRIP = "<nmwg:message " + NS + " type=\"MeasurementRequest\" id=\"r\"><nmwg:metadata id=\"m\">"
            + "<nmwg:subject id=\"su\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair>"
            + "</nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\">"
            + "<nmwg:parameter name=\"count\">5</nmwg:parameter><nmwg:parameter name=\"interval\">0.01</nmwg:parameter>"
            + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";

    /** A cost request the cost operation refuses: a Client fault from CXF's path. */
    private static final String COST = "<cost:costRequest xmlns:cost=\"http://nmws.org/ns/cost/1.0/\" bytes=\"-5\">"
            + "<cost:dst>127.0.0.1</cost:dst></cost:costRequest>";

    @Test
    void theFastPathAnswersWhatCxfAnswersAndOnlyTheCommonRequest() throws Exception {
        // a stored result to read back, measured over the fast path
        HttpResponse<String> measured = soap(11, false, ROUND_TRIP);
        assertEquals(200, measured.statusCode(), measured.body());
        assertTrue(measured.body().contains("name=\"minRtt\""), measured.body());
        double before = fastAnswers();
        assertEquals(1.0, before, "the measurement went the fast way");

        // its frames read back packed: written as events, the digits as bytes (a document equal to CXF's)
        java.util.regex.Matcher key = java.util.regex.Pattern.compile("name=\"maKey\">([^<]+)<").matcher(measured.body());
        assertTrue(key.find(), measured.body());
        String packed = "<nmwg:message " + NS + " type=\"SetupDataRequest\" id=\"q\"><nmwg:metadata id=\"m\"><nmwg:key id=\"k\">"
                + "<nmwg:parameters id=\"kp\"><nmwg:parameter name=\"maKey\">" + key.group(1) + "</nmwg:parameter></nmwg:parameters>"
                + "</nmwg:key><nmwg:parameters id=\"p\"><nmwg:parameter name=\"raw\">true</nmwg:parameter>"
                + "<nmwg:parameter name=\"rawForm\">packed</nmwg:parameter></nmwg:parameters></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";
        for (int version : List.of(11, 12)) {
            org.w3c.dom.Element fast = Service.validatedMessage(soap(version, false, packed).body());
            org.w3c.dom.Element cxf = Service.validatedMessage(soap(version, true, packed).body());
            org.w3c.dom.NodeList series = fast.getElementsByTagNameNS("http://nmws.org/ns/result/1.0/", "series");
            int frameColumns = 0;
            for (int i = 0; i < series.getLength(); i++) {
                org.w3c.dom.Element c = (org.w3c.dom.Element) series.item(i);
                if (c.getAttribute("name").startsWith("frame.")) {
                    frameColumns++;
                    assertEquals(5, c.getTextContent().trim().split(" ").length, c.getAttribute("name"));
                }
            }
            assertEquals(5, frameColumns, "five frame columns of the five frames");
            fast.removeAttribute("id");
            cxf.removeAttribute("id");
            assertTrue(fast.isEqualNode(cxf), "SOAP " + version + ": the packed answers of both paths are one document");
        }
        double afterPacked = fastAnswers();
        assertEquals(before + 2, afterPacked, "the packed reads went the fast way");
        before = afterPacked;

        int headerless = 0;
        for (int version : List.of(11, 12)) {
            for (String message : List.of(ECHO, STORED, ESCAPED)) {
                HttpResponse<String> fast = soap(version, false, message);
                headerless++;
                HttpResponse<String> cxf = soap(version, true, message);
                assertEquals(200, fast.statusCode(), fast.body());
                assertEquals(cxf.statusCode(), fast.statusCode());
                assertEquals(cxf.headers().firstValue("Content-Type"), fast.headers().firstValue("Content-Type"));
                assertEquals(withoutOwnId(cxf.body()), withoutOwnId(fast.body()), "SOAP " + version + ": " + message);
            }
        }
        String stored = soap(11, false, STORED).body();
        headerless++;
        assertTrue(stored.contains("error.common.event_type_not_supported") && stored.contains("name=\"minRtt\""), stored);
        String escaped = soap(12, false, ESCAPED).body();
        headerless++;
        assertTrue(escaped.contains("messageIdRef=\"a&amp;b&lt;&quot;\u00e9\u4e2d\""), escaped);

        // read as CXF reads it: UTF-8 whatever the declaration names, and the endpoint's limits (a
        // message nested past them, or with more attributes than they allow, is CXF's fault either way)
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 70; i++) {
            deep.append("<nmwg:parameters id=\"p").append(i).append("\">");
        }
        for (int i = 0; i < 70; i++) {
            deep.append("</nmwg:parameters>");
        }
        StringBuilder attributes = new StringBuilder();
        for (int i = 0; i < 70; i++) {
            attributes.append(" a").append(i).append("=\"").append(i).append('"');
        }
        double beforeLimits = fastAnswers(); // whichever path takes these, the answer is CXF's
        for (String message : List.of(ECHO.replace("<nmwg:data", deep + "<nmwg:data"),
                ECHO.replace("<nmwg:data id=\"d\"", "<nmwg:data id=\"d\"" + attributes))) {
            HttpResponse<String> fast = soap(11, false, message);
            HttpResponse<String> cxf = soap(11, true, message);
            assertEquals(cxf.statusCode(), fast.statusCode(), fast.body());
            assertEquals(withoutOwnId(cxf.body()), withoutOwnId(fast.body()));
            assertTrue(fast.body().contains("error.common.parse_error") || fast.body().contains("Fault>"), fast.body());
        }
        before += fastAnswers() - beforeLimits;
        String declared = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>";
        HttpResponse<String> latin = service.post("/services/MeasurementService", declared + envelope(11, false, ESCAPED),
                "text/xml; charset=UTF-8", null);
        headerless++;
        HttpResponse<String> latinCxf = service.post("/services/MeasurementService", declared + envelope(11, true, ESCAPED),
                "text/xml; charset=UTF-8", null);
        assertEquals(withoutOwnId(latinCxf.body()), withoutOwnId(latin.body()));
        assertTrue(latin.body().contains("messageIdRef=\"a&amp;b&lt;&quot;\u00e9\u4e2d\""), latin.body());

        // not the common request: CXF answers (the cost operation, the other version's envelope)
        HttpResponse<String> cost = soap(11, false, COST);
        assertEquals(500, cost.statusCode(), cost.body());
        assertTrue(cost.body().contains("soap:Client") && cost.body().contains("bytes must be"), cost.body());
        HttpResponse<String> wrongVersion = service.post("/services/MeasurementService", envelope(12, false, ECHO),
                "text/xml", null);
        assertEquals(500, wrongVersion.statusCode(), wrongVersion.body());
        assertTrue(wrongVersion.body().contains("VersionMismatch"), wrongVersion.body());

        assertEquals(before + headerless, fastAnswers(), "every headerless request and nothing else went the fast way");
    }

    private HttpResponse<String> soap(int version, boolean header, String message) throws Exception {
        return version == 11
                ? service.post("/services/MeasurementService", envelope(11, header, message), "text/xml; charset=UTF-8", null)
                : service.post("/services/MeasurementService12", envelope(12, header, message), "application/soap+xml", null);
    }

    private static String envelope(int version, boolean header, String message) {
        return "<S:Envelope xmlns:S=\"" + (version == 11 ? Service.SOAP11 : Service.SOAP12) + "\">" + (header ? "<S:Header/>" : "")
                + "<S:Body>" + message + "</S:Body></S:Envelope>";
    }

    /** The answer with its message's own id (new for every answer) taken out. */
    private static String withoutOwnId(String body) {
        return body.replaceFirst(" id=\"message\\.[0-9a-f]+\"", "");
    }

    private double fastAnswers() throws Exception {
        for (String line : service.get("/actuator/prometheus").body().lines().toList()) {
            if (line.startsWith("nmws_soap_fast_path_total")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no nmws_soap_fast_path_total in /actuator/prometheus");
    }
}
