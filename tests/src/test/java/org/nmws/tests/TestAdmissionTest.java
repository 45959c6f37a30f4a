package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nmws.client.NmwsClient;
import org.w3c.dom.Element;

/**
 * The operator's limits on new tests (nmws.limits.test-clients and
 * tests-per-client-per-minute) through the running service: the test JVM is the client, at
 * 127.0.0.1.
 */
class TestAdmissionTest {

    @Test
    void aClientOutsideTheTestClientsMayQueryButNeitherStartNorCancelTests() throws Exception {
        try (Responder responder = Responder.start();
             Service service = Service.start(Files.createTempDirectory("nmws-admission"),
                     "--nmws.responder-port=" + responder.port, "--nmws.limits.test-clients=192.0.2.0/24,2001:db8::/32")) {
            String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "");
            SoapEndToEndTest.assertError(service.post("/nmwg", request, "application/xml", null), "error.common.authorization");
            for (HttpResponse<String> soap : List.of(service.soap11(request), service.soap12(request))) {
                assertEquals(200, soap.statusCode());
                assertTrue(soap.body().contains("error.common.authorization"), soap.body());
            }
            // GGF v1 over XML-RPC, as the first NM-WG clients call: an Authorisation fault (code 4).
            HttpResponse<String> rpc = service.post("/RPC2", "<?xml version=\"1.0\"?><methodCall>"
                    + "<methodName>NetworkMeasurementRequest</methodName><params><param><value><struct>"
                    + "<member><name>characteristic</name><value><string>path.delay.roundTrip</string></value></member>"
                    + "<member><name>subject</name><value><struct><member><name>path</name><value><struct>"
                    + "<member><name>destination</name><value><struct><member><name>name</name>"
                    + "<value><string>127.0.0.1</string></value></member></struct></value></member>"
                    + "</struct></value></member></struct></value></member>"
                    + "</struct></value></param></params></methodCall>", "text/xml", null);
            assertTrue(rpc.body().contains("<name>faultCode</name><value><int>4</int></value>"), rpc.body());
            assertTrue(rpc.body().contains("nmws.limits.test-clients"), rpc.body());
            assertEquals(List.of("success.echo"), NmwsClient.eventTypes(NmwsClient.soap11(service.baseUrl).echo()));
            assertEquals(401, service.delete("/api/tests/any").statusCode(), "cancelling needs the measure role");
            assertEquals(0, responder.sessions(), "no test reached the responder");
        }
    }

    @Test
    void aClientOverItsTestsPerMinuteIsRefusedAndToldWhenToRetry() throws Exception {
        try (Responder responder = Responder.start();
             Service service = Service.start(Files.createTempDirectory("nmws-admission"),
                     "--nmws.responder-port=" + responder.port, "--nmws.limits.tests-per-client-per-minute=2")) {
            String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "");
            // A request refused before any test starts (a bad parameter) costs nothing.
            SoapEndToEndTest.assertError(service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 0, ""),
                    "application/xml", null), "error.common.parameter");
            for (int i = 0; i < 2; i++) {
                Element ok = Service.validatedMessage(service.post("/nmwg", request, "application/xml", null).body());
                assertEquals("path.delay.roundTrip", ok.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent());
            }
            HttpResponse<String> third = service.post("/nmwg", request, "application/xml", null);
            SoapEndToEndTest.assertError(third, "error.mp.rate_limited");
            assertTrue(third.body().contains("try again in"), third.body());
            assertEquals(2, responder.sessions());
        }
    }
}
