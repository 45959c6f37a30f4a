package org.nmws.service.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** Issue 21: what every transport refuses of a body, in the transport's own words. */
class RequestBodiesTest {
    private static final byte[] C0AF = {(byte) 0xC0, (byte) 0xAF};
    private static final byte[] E080AF = {(byte) 0xE0, (byte) 0x80, (byte) 0xAF};
    private static final byte[] F08080AF = {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0xAF};

    private final RequestBodies filter = new RequestBodies("/services", 4096);

    private record Answer(MockHttpServletResponse response, HttpServletRequest passed, String body) {
    }

    private Answer run(MockHttpServletRequest request) throws Exception {
        MockHttpServletResponse response = new MockHttpServletResponse();
        MockFilterChain chain = new MockFilterChain();
        filter.doFilter(request, response, chain);
        HttpServletRequest passed = (HttpServletRequest) chain.getRequest();
        return new Answer(response, passed, passed == null ? response.getContentAsString(StandardCharsets.UTF_8)
                : new String(passed.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static MockHttpServletRequest post(String path, String type, byte[]... parts) {
        MockHttpServletRequest r = new MockHttpServletRequest("POST", path);
        r.setContentType(type);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        r.setContent(b.toByteArray());
        return r;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void anOverlongSlashInASoap11BodyIsAClientFault() throws Exception {
        Answer a = run(post("/services/MeasurementService", "text/xml", ascii("<s:Envelope><s:Body><m id=\""), C0AF,
                ascii("\"/></s:Body></s:Envelope>")));
        assertNull(a.passed());
        assertEquals(500, a.response().getStatus());
        assertTrue(a.body().contains("<faultcode>soap:Client</faultcode><faultstring>request is not valid UTF-8: malformed or"
                + " overlong byte sequence at byte 27 (C0 AF 22 2F)</faultstring>"), a.body());
    }

    @Test
    void anOverlongSlashInASoap12BodyIsASenderFault() throws Exception {
        Answer a = run(post("/services/MeasurementService12", "application/soap+xml; charset=utf-8", ascii("<e id=\""), E080AF,
                ascii("\"/>")));
        assertEquals(400, a.response().getStatus());
        assertTrue(a.body().contains("<soap:Value>soap:Sender</soap:Value>") && a.body().contains("at byte 7 (E0 80 AF 22)"),
                a.body());
    }

    @Test
    void anOverlongSlashInAnXmlRpcCallIsAParseErrorFault() throws Exception {
        Answer a = run(post("/RPC2", "text/xml", ascii("<methodCall><methodName>a"), F08080AF, ascii("</methodName></methodCall>")));
        assertEquals(200, a.response().getStatus());
        assertTrue(a.body().contains("<name>faultCode</name><value><int>-32700</int></value>")
                && a.body().contains("at byte 25 (F0 80 80 AF)"), a.body());
    }

    @Test
    void anOverlongSlashInAJsonBodyIs400() throws Exception {
        Answer a = run(post("/api/schedules/x", "application/json", ascii("{\"dst\":\"127.0.0.1"), C0AF, ascii("\"}")));
        assertEquals(400, a.response().getStatus());
        assertEquals("{\"error\":\"request is not valid UTF-8: malformed or overlong byte sequence at byte 17 (C0 AF 22 7D)\"}",
                a.body());
    }

    @Test
    void aJsonBodyHoldingAnEscapedNulIs400ButAnEscapedBackslashBeforeU0000IsNot() throws Exception {
        Answer nul = run(post("/api/schedules/x", "application/json", ascii("{\"dst\":\"127.0.0.1\\u0000\"}")));
        assertEquals(400, nul.response().getStatus());
        assertEquals("{\"error\":\"a JSON body may not hold NUL (\\\\u0000)\"}", nul.body());
        Answer text = run(post("/api/schedules/x", "application/json", ascii("{\"dst\":\"a\\\\u0000\"}")));
        assertEquals("{\"dst\":\"a\\\\u0000\"}", text.body());
    }

    @Test
    void aBodyThatSaysItIsLatin1IsNotCheckedAsUtf8() throws Exception {
        byte[] latin = ascii("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><m id=\"");
        Answer a = run(post("/services/MeasurementService", "text/xml", latin, C0AF, ascii("\"/>")));
        assertTrue(a.passed() != null, a.body());
    }

    @Test
    void aWellFormedBodyReachesTheTransportWhole() throws Exception {
        String doc = "<s:Envelope><s:Body><m id=\"/é€\"/></s:Body></s:Envelope>";
        Answer a = run(post("/services/MeasurementService", "text/xml", doc.getBytes(StandardCharsets.UTF_8)));
        assertEquals(doc, a.body());
    }

    @Test
    void aGzipEncodedSoapBodyIs415WithAClientFault() throws Exception {
        MockHttpServletRequest r = post("/services/MeasurementService", "text/xml", new byte[] {0x1f, (byte) 0x8b, 8, 0});
        r.addHeader("Content-Encoding", "gzip");
        Answer a = run(r);
        assertEquals(415, a.response().getStatus());
        assertTrue(a.body().contains("<faultcode>soap:Client</faultcode><faultstring>Content-Encoding 'gzip' is not accepted: send"
                + " the body uncompressed</faultstring>"), a.body());
    }

    @Test
    void aSoap12BodyOverTheLimitIs413WithASenderFault() throws Exception {
        Answer a = run(post("/services/MeasurementService12", "application/soap+xml", new byte[5000]));
        assertEquals(413, a.response().getStatus());
        assertTrue(a.body().contains("soap:Sender") && a.body().contains("request body exceeds the limit of 4096 bytes"), a.body());
    }

    @Test
    void patchOnTheSoapEndpointIs405() throws Exception {
        MockHttpServletRequest r = post("/services/MeasurementService", "text/xml", ascii("<a/>"));
        r.setMethod("PATCH");
        Answer a = run(r);
        assertEquals(405, a.response().getStatus());
        assertEquals("GET, POST", a.response().getHeader("Allow"));
        assertTrue(a.body().contains("soap:Client"), a.body());
    }

    @Test
    void aWsdlOrSchemaTheServiceDoesNotPublishIs404AndThePublishedSchemaPasses() throws Exception {
        MockHttpServletRequest wsdl = new MockHttpServletRequest("GET", "/services/MeasurementService");
        wsdl.setParameter("wsdl", "../../../../etc/passwd");
        Answer a = run(wsdl);
        assertEquals(404, a.response().getStatus());
        assertTrue(a.body().contains("no WSDL document '../../../../etc/passwd' here"), a.body());
        MockHttpServletRequest xsd = new MockHttpServletRequest("GET", "/services/MeasurementService");
        xsd.setParameter("xsd", "../xsd/../../../etc/passwd.xsd");
        assertEquals(404, run(xsd).response().getStatus());
        MockHttpServletRequest published = new MockHttpServletRequest("GET", "/services/MeasurementService");
        published.setParameter("xsd", "../xsd/nmws-cost.xsd");
        assertTrue(run(published).passed() != null);
    }

    @Test
    void theErrorPageAskedForDirectlyIs404() throws Exception {
        Answer a = run(post("/error", "application/json", ascii("{}")));
        assertEquals(404, a.response().getStatus());
        assertEquals("{\"error\":\"/error is the service's error page, not a resource: nothing answers POST /error\"}", a.body());
    }
}
