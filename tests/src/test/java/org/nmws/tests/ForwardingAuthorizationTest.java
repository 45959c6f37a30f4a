package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.w3c.dom.Element;

/**
 * A request whose source is another mesh point is authorized where it arrives, before it is
 * forwarded with this point's own key (issue 21, finding 1: an anonymous remote client with
 * the read role had point-b run tests through point-a). Two points: point-a listens on every
 * address (a client reaching it at the host's own non-loopback address is "another host",
 * read only); point-b gives point-a's key the measure role. Every dialect is tried: NMWG over
 * HTTP and SOAP, XML-RPC, the cost form. An allowed client's XML-RPC request is forwarded
 * too (before, XML-RPC never forwarded).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForwardingAuthorizationTest {
    private static final String MESH_KEY = "k-mesh-a-to-b-31337";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Responder ra;
    private Responder rb;
    private Service a;
    private Service b;
    private String remote;
    private int portA;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    void start() throws Exception {
        remote = nonLoopbackAddress();
        ra = Responder.start("127.0.0.1");
        rb = Responder.start("127.0.0.2");
        int pa = Responder.freePort();
        portA = pa;
        int pb = Responder.freePort();
        Path mesh = Files.createTempFile("nmws-mesh-auth", ".json");
        Files.writeString(mesh, "{\"points\":["
                + "{\"name\":\"point-a\",\"url\":\"http://127.0.0.1:" + pa + "\",\"address\":\"127.0.0.1\",\"responderPort\":" + ra.port + "},"
                + "{\"name\":\"point-b\",\"url\":\"http://127.0.0.1:" + pb + "\",\"address\":\"127.0.0.2\",\"responderPort\":" + rb.port
                + ",\"apiKey\":\"" + MESH_KEY + "\"}],\"groups\":[]}");
        a = Service.start(Files.createTempDirectory("nmws-fwa"), pa, "--server.address=0.0.0.0",
                "--nmws.measurement-point=point-a", "--nmws.mesh.file=" + mesh);
        b = Service.start(Files.createTempDirectory("nmws-fwb"), pb, "--nmws.measurement-point=point-b",
                "--nmws.mesh.file=" + mesh, "--nmws.limits.test-clients=",
                "--nmws.security.api-keys[0].name=point-a", "--nmws.security.api-keys[0].sha256=" + sha256(MESH_KEY),
                "--nmws.security.api-keys[0].roles=measure");
    }

    @AfterAll
    void stop() {
        for (AutoCloseable c : new AutoCloseable[] {a, b, ra, rb}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // closing the rest matters more
            }
        }
    }

    @Test
    void aClientThatMayNotMeasureHereIsNotForwardedInAnyDialect() throws Exception {
        long sessionsBefore = ra.sessions();
        int resultsBefore = JSON.readTree(get(b, "/api/results?dst=127.0.0.1&limit=10")).get("count").asInt();
        String fromB = "http://" + remote + ":" + portA;
        String nmwg = MeshRequests.measurement("point-b", "127.0.0.1", ra.port);
        HttpResponse<String> plain = post(fromB + "/nmwg", nmwg, "application/xml", null);
        SoapEndToEndTest.assertError(plain, "error.common.authorization");
        assertTrue(plain.body().contains("measure role"), plain.body());

        HttpResponse<String> soap = post(fromB + "/services/MeasurementService", "<s:Envelope "
                + "xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>" + nmwg + "</s:Body></s:Envelope>",
                "text/xml", "");
        assertEquals(200, soap.statusCode(), soap.body());
        assertTrue(soap.body().contains("error.common.authorization"), soap.body());

        HttpResponse<String> rpc = post(fromB + "/RPC2", MeshRequests.xmlRpc("point-b", "127.0.0.1", ra.port), "text/xml", null);
        assertTrue(rpc.body().contains("<name>faultCode</name><value><int>4</int></value>"), rpc.body());

        String cost = CostEndToEndTest.adviceRequest("SetupDataRequest", "http://nmws.org/ns/cost/1.0/",
                new String[] {"127.0.0.1"}, "<nmwg:parameter name=\"bytes\">1e8</nmwg:parameter>"
                        + "<nmwg:parameter name=\"src\">point-b</nmwg:parameter>"
                        + "<nmwg:parameter name=\"refresh\">true</nmwg:parameter>"
                        + "<nmwg:parameter name=\"port\">" + ra.port + "</nmwg:parameter>");
        HttpResponse<String> refresh = post(fromB + "/nmwg", cost, "application/xml", null);
        SoapEndToEndTest.assertError(refresh, "error.common.authorization");
        assertTrue(refresh.body().contains("refresh asks for tests"), refresh.body());

        assertEquals(sessionsBefore, ra.sessions(), "point-b ran no test towards point-a's responder");
        assertEquals(resultsBefore, JSON.readTree(get(b, "/api/results?dst=127.0.0.1&limit=10")).get("count").asInt(),
                "nothing was measured at point-b");
    }

    @Test
    void anAllowedClientsXmlRpcRequestIsForwardedToThePointItsSourceNames() throws Exception {
        HttpResponse<String> rpc = a.post("/RPC2", MeshRequests.xmlRpc("point-b", "127.0.0.1", ra.port), "text/xml", null);
        String body = rpc.body();
        assertTrue(!body.contains("faultCode"), body);
        assertTrue(body.contains("<name>received</name><value><double>5.0</double></value>"), body);
        assertTrue(body.contains("nmprobe@point-b"), "measured by point-b: " + body);
        assertTrue(JSON.readTree(get(b, "/api/results?dst=127.0.0.1&limit=10")).get("count").asInt() >= 1,
                "the test is in point-b's archive");
    }

    private HttpResponse<String> post(String url, String body, String type, String soapAction) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", type).POST(HttpRequest.BodyPublishers.ofString(body));
        if (soapAction != null) {
            r.header("SOAPAction", soapAction);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String get(Service s, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(s.baseUrl + path)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static String sha256(String key) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    }

    private static String nonLoopbackAddress() throws Exception {
        for (NetworkInterface n : NetworkInterface.networkInterfaces().toList()) {
            if (n.isUp() && !n.isLoopback()) {
                for (InetAddress addr : n.inetAddresses().toList()) {
                    if (addr instanceof Inet4Address && !addr.isLoopbackAddress() && !addr.isLinkLocalAddress()) {
                        return addr.getHostAddress();
                    }
                }
            }
        }
        throw new IllegalStateException("this host has no non-loopback IPv4 address to play a remote client from");
    }

    /** Requests whose source is a mesh point, in NMWG v2 and XML-RPC. */
    static final class MeshRequests {
        static String measurement(String src, String dst, int port) {
            return "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
                    + "xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" type=\"MeasurementRequest\" id=\"fw\">"
                    + "<nmwg:metadata id=\"m1\"><nmwg:subject id=\"s1\"><nmwgt:endPointPair>"
                    + "<nmwgt:src type=\"hostname\" value=\"" + src + "\"/><nmwgt:dst type=\"ipv4\" value=\"" + dst + "\"/>"
                    + "</nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType>"
                    + "<nmwg:parameters id=\"p1\"><nmwg:parameter name=\"count\">5</nmwg:parameter>"
                    + "<nmwg:parameter name=\"interval\">0.005</nmwg:parameter><nmwg:parameter name=\"port\">" + port
                    + "</nmwg:parameter></nmwg:parameters></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"m1\"/>"
                    + "</nmwg:message>";
        }

        static String xmlRpc(String src, String dst, int port) {
            return "<?xml version=\"1.0\"?><methodCall><methodName>NetworkMeasurementRequest</methodName><params><param>"
                    + "<value><struct><member><name>characteristic</name><value><string>path.delay.roundTrip</string></value>"
                    + "</member><member><name>subject</name><value><struct><member><name>path</name><value><struct>"
                    + "<member><name>source</name><value><struct><member><name>name</name>"
                    + "<value><string>" + src + "</string></value></member></struct></value></member>"
                    + "<member><name>destination</name><value><struct><member><name>name</name>"
                    + "<value><string>" + dst + "</string></value></member></struct></value></member>"
                    + "</struct></value></member></struct></value></member>"
                    + "<member><name>methodology</name><value><struct><member><name>parameters</name><value><struct>"
                    + "<member><name>count</name><value><string>5</string></value></member>"
                    + "<member><name>interval</name><value><string>0.005</string></value></member>"
                    + "<member><name>port</name><value><string>" + port + "</string></value></member>"
                    + "</struct></value></member></struct></value></member></struct></value></param></params></methodCall>";
        }
    }
}
