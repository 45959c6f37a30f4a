package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URL;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Issue 5: clients nobody here wrote, against the real service and a real responder:
 * Python zeep through the served WSDL (SOAP 1.1 and 1.2), Python's xmlrpc.client at /RPC2,
 * and curl posting as perfSONAR's Perl client does. The scripts live in src/test/python;
 * a missing python3 or zeep fails this test (scripts/test.sh installs them), never skips it.
 * Also the GGF v1 dialect over plain HTTP, the JSON read API, and perfSONAR-form fixtures.
 */
class InteropTest extends LiveServiceTest {
    static final String V1 = "http://www.ggf.org/namespaces/2004/10/gridNetworkMonitoring";
    static final Path SCRIPTS = Path.of("src/test/python");

    @Test
    void pythonZeepTalksSoap11And12ThroughTheServedWsdl() throws Exception {
        String out = run("python3", SCRIPTS.resolve("zeep_client.py").toString(), service.baseUrl, "127.0.0.1");
        assertTrue(out.contains("ok   Soap12 setup data by key"), out);
    }

    @Test
    void pythonXmlRpcClientCallsNetworkMeasurementRequestAndNmwgMessage() throws Exception {
        String out = run("python3", SCRIPTS.resolve("xmlrpc_client.py").toString(), service.baseUrl, "127.0.0.1");
        assertTrue(out.contains("xmlrpc interop passed"), out);
    }

    @Test
    void aRawPerfsonarStyleCurlClientGetsTheSameAnswers() throws Exception {
        // The key request needs a stored series: measure once first.
        service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 3, ""));
        String out = run("bash", SCRIPTS.resolve("perfsonar_curl.sh").toString(), service.baseUrl, "127.0.0.1");
        assertTrue(out.contains("curl interop passed"), out);
    }

    @Test
    void aV1RequestOverPlainHttpIsAnsweredPerRequestWithAValidReport() throws Exception {
        HttpResponse<String> resp = service.post("/nmwg", fixture("v1-request.xml"), "application/xml", null);
        assertEquals(200, resp.statusCode());
        Element report = validatedV1(resp.body());
        NodeList results = report.getElementsByTagNameNS(V1, "result");
        assertEquals(1, results.getLength(), resp.body());
        Element result = (Element) results.item(0);
        assertEquals("true", result.getAttribute("newMeasurement"));
        List<String> stats = new ArrayList<>();
        NodeList ss = result.getElementsByTagNameNS(V1, "statistic");
        for (int i = 0; i < ss.getLength(); i++) {
            stats.add(((Element) ss.item(i)).getAttribute("name"));
        }
        assertEquals(List.of("minRtt", "meanRtt", "minIpd", "meanIpd"), stats, "only min and mean, in the service's order");
        Element count = null;
        NodeList ps = result.getElementsByTagNameNS(V1, "parameter");
        for (int i = 0; i < ps.getLength(); i++) {
            if ("count".equals(((Element) ps.item(i)).getAttribute("name"))) {
                count = (Element) ps.item(i);
            }
        }
        assertEquals("6", count.getTextContent());
        double minRtt = Double.parseDouble(ss.item(0).getTextContent());
        assertTrue(minRtt > 0 && minRtt < 50, "loopback minRtt " + minRtt);
        Element fault = (Element) report.getElementsByTagNameNS(V1, "nmwgFault").item(0);
        assertEquals("Discovery", fault.getAttribute("kind"));
        assertEquals("2", fault.getAttribute("request"));
        assertEquals("6", fault.getElementsByTagNameNS(V1, "code").item(0).getTextContent());
    }

    /**
     * Document/literal clients send a v1 request with an empty or absent SOAPAction, or one of
     * their own: the service routes by the body element, and the WSDL declares the operation.
     */
    @Test
    void aV1RequestOverSoap11IsAnsweredWhateverTheSoapAction() throws Exception {
        String body = fixture("v1-request.xml");
        String env = "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\"><SOAP-ENV:Body>"
                + body + "</SOAP-ENV:Body></SOAP-ENV:Envelope>";
        for (String action : new String[] {"\"\"", "", null, "urn:example:client-own-action",
                                           "http://ggf.org/ns/nmwg/base/2.0/message/"}) {
            HttpResponse<String> resp = service.post("/services/MeasurementService", env, "text/xml", action);
            assertEquals(200, resp.statusCode(), "SOAPAction " + action + ": " + resp.body());
            Element report = validatedV1(resp.body());
            assertEquals(1, report.getElementsByTagNameNS(V1, "result").getLength(), "SOAPAction " + action + ": " + resp.body());
            assertEquals("Discovery", ((Element) report.getElementsByTagNameNS(V1, "nmwgFault").item(0)).getAttribute("kind"));
        }
        String wsdl = service.get("/services/MeasurementService?wsdl").body();
        assertTrue(wsdl.contains("<wsdl:operation name=\"networkMeasurementRequest\">"), wsdl);
    }

    /** Each WSDL names both ports by the absolute address the client reached the service at. */
    @Test
    void theWsdlAtEitherEndpointGivesBothPortsAbsoluteAddresses() throws Exception {
        for (String path : new String[] {"/services/MeasurementService", "/services/MeasurementService12"}) {
            String wsdl = service.get(path + "?wsdl").body();
            for (String port : new String[] {"MeasurementService", "MeasurementService12"}) {
                assertTrue(wsdl.contains("location=\"" + service.baseUrl + "/services/" + port + "\""),
                        path + "?wsdl lacks the absolute address of " + port + ":\n" + wsdl);
            }
        }
    }

    @Test
    void aV1RequestThatIsNotWellFormedGetsARequestFault() throws Exception {
        HttpResponse<String> resp = service.soap11("<v1:networkMeasurementRequest xmlns:v1=\"" + V1 + "\">"
                + "<v1:request maxResults=\"many\"><v1:characteristic>path.delay.roundTrip</v1:characteristic>"
                + "<v1:subject><v1:node><v1:name>127.0.0.1</v1:name></v1:node></v1:subject></v1:request>"
                + "</v1:networkMeasurementRequest>");
        assertEquals(200, resp.statusCode(), resp.body());
        Element report = validatedV1(resp.body());
        Element fault = (Element) report.getElementsByTagNameNS(V1, "nmwgFault").item(0);
        assertEquals("Request", fault.getAttribute("kind"));
        assertTrue(fault.getTextContent().contains("maxResults"), fault.getTextContent());
    }

    @Test
    void theJsonApiReturnsStoredObservationsWithSummaryAndEnvironment() throws Exception {
        Instant before = Instant.now();
        service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 7, ""));
        HttpResponse<String> resp = service.get("/api/results?dst=127.0.0.1&characteristic=path.delay.roundTrip&from="
                + before.getEpochSecond());
        assertEquals(200, resp.statusCode(), resp.body());
        assertTrue(resp.body().contains("\"sent\":7.0"), "the 7-frame test is among the results: " + resp.body());
        assertTrue(resp.body().contains("\"kernel\""), resp.body());
        HttpResponse<String> bad = service.get("/api/results?dst=127.0.0.1&from=yesterday");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().contains("time parameter 'from' is 'yesterday'"), bad.body());
    }

    @Test
    void perfsonarFormFixturesGetMeaningfulAnswers() throws Exception {
        Element mdk = Service.validatedMessage(service.soap11(fixture("mdk-ping-src-only.xml")).body());
        assertEquals("MetadataKeyResponse", mdk.getAttribute("type"));
        assertEquals("noData", ((Element) mdk.getElementsByTagNameNS(SoapEndToEndTest.RESULT, "datum").item(0)).getAttribute("type"));

        Instant before = Instant.now().minusSeconds(1);
        service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 3, ""));
        String sd = fixture("setupdata-select-time.xml").replace("DST", "127.0.0.1")
                .replace("FROM", Long.toString(before.getEpochSecond()))
                .replace("TO", Long.toString(Instant.now().getEpochSecond() + 1));
        Element data = Service.validatedMessage(service.soap11(sd).body());
        assertEquals("SetupDataResponse", data.getAttribute("type"));
        assertTrue(data.getElementsByTagNameNS(SoapEndToEndTest.PINGER, "datum").getLength() > 0, "stored figures returned");

        Element foreign = Service.validatedMessage(service.soap11(fixture("setupdata-foreign-key.xml")).body());
        assertEquals("error.ma.query", foreign.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent());
    }

    private static String fixture(String name) throws IOException {
        try (var in = InteropTest.class.getResourceAsStream("/fixtures/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceFirst("<\\?xml[^>]*\\?>", "")
                    .replace("DST", "127.0.0.1");
        }
    }

    /** The v1 report in a response (plain or SOAP), validated against nmws/xsd/v1/nmwg-v1-report.xsd. */
    private static Element validatedV1(String body) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
            Element report = (Element) doc.getElementsByTagNameNS(V1, "networkMeasurementReport").item(0);
            if (report == null) {
                fail("no networkMeasurementReport in " + body);
            }
            URL xsd = InteropTest.class.getResource("/nmws/xsd/v1/nmwg-v1-report.xsd");
            SchemaFactory sf = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            sf.newSchema(new StreamSource(xsd.toExternalForm())).newValidator().validate(new DOMSource(report));
            return report;
        } catch (Exception e) {
            fail("response is not a valid v1 report: " + e.getMessage() + "\n" + body);
            throw new AssertionError(e);
        }
    }

    /** Runs a client script; its output is the evidence. A missing interpreter or module is a failure. */
    private static String run(String... command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            fail(command[0] + " is not installed (scripts/test.sh installs it): " + e.getMessage());
            throw e;
        }
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", command) + " did not finish");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", command) + " failed:\n" + text);
        return text;
    }
}
