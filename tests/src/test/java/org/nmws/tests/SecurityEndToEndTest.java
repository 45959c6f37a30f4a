package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
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
import java.security.KeyStore;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.w3c.dom.Element;

/**
 * Who may do what, through the real service and real sockets. "Remote" is this host's own
 * non-loopback address, so the service sees a client that is not on loopback; the service
 * listens on every address. Two instances: one on plain HTTP (the default rules), one on TLS
 * with a self-signed certificate made here by keytool (credentials accepted).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurityEndToEndTest {
    private static final String MEASURE_KEY = "k-measure-0123456789";
    private static final String ADMIN_KEY = "k-admin-9876543210";
    private static final String LAB_ONLY_KEY = "k-lab-only-5555";
    private static final String BRIEF_KEY = "k-brief-7777";
    private static final String SLOW_KEY = "k-slow-4242";
    private static final String QUERY = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"SetupDataRequest\" "
            + "id=\"q\"><nmwg:metadata id=\"m\"><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>"
            + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";

    private Responder responder;
    private Service plain;
    private Service tls;
    private String remote;
    private HttpClient http;
    private HttpClient https;

    @BeforeAll
    void start() throws Exception {
        remote = nonLoopbackAddress();
        responder = Responder.start();
        List<String> accounts = List.of("--server.address=0.0.0.0", "--nmws.responder-port=" + responder.port,
                "--nmws.security.users[0].name=alice", "--nmws.security.users[0].password={noop}alice-secret",
                "--nmws.security.users[0].roles=measure",
                "--nmws.security.api-keys[0].name=probe-robot", "--nmws.security.api-keys[0].sha256=" + sha256(MEASURE_KEY),
                "--nmws.security.api-keys[0].roles=measure",
                "--nmws.security.api-keys[1].name=operator", "--nmws.security.api-keys[1].sha256=" + sha256(ADMIN_KEY),
                "--nmws.security.api-keys[1].roles=admin",
                // pScheduler-like limits per key: networks, duration, tests an hour
                "--nmws.security.api-keys[2].name=lab-only", "--nmws.security.api-keys[2].sha256=" + sha256(LAB_ONLY_KEY),
                "--nmws.security.api-keys[2].roles=measure", "--nmws.security.api-keys[2].limits.destinations=10.99.0.0/16",
                "--nmws.security.api-keys[3].name=brief", "--nmws.security.api-keys[3].sha256=" + sha256(BRIEF_KEY),
                "--nmws.security.api-keys[3].roles=measure", "--nmws.security.api-keys[3].limits.max-duration=PT2S",
                "--nmws.security.api-keys[3].limits.tests-per-hour=1",
                "--nmws.security.api-keys[4].name=slow", "--nmws.security.api-keys[4].sha256=" + sha256(SLOW_KEY),
                "--nmws.security.api-keys[4].roles=measure", "--nmws.security.api-keys[4].limits.max-rate-mbps=5",
                "--nmws.scheduler.max-per-owner=2");
        plain = Service.start(Files.createTempDirectory("nmws-sec-plain"), accounts.toArray(String[]::new));
        Path keystore = selfSignedKeystore(remote);
        List<String> tlsArgs = new java.util.ArrayList<>(accounts);
        tlsArgs.addAll(List.of("--server.ssl.enabled=true", "--server.ssl.key-store=" + keystore,
                "--server.ssl.key-store-password=changeit", "--server.ssl.key-store-type=PKCS12",
                "--nmws.security.anonymous-roles="));
        tls = Service.start(Files.createTempDirectory("nmws-sec-tls"), tlsArgs.toArray(String[]::new));
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        https = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(trusting(keystore)).build();
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {tls, plain, responder}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void anAnonymousRemoteClientMayQueryButStartsNoTestInAnyDialect() throws Exception {
        long before = responder.sessions();
        HttpResponse<String> query = send(http, plainUrl("/nmwg"), QUERY, "application/xml", null);
        assertEquals(200, query.statusCode(), query.body());
        assertEquals("SetupDataResponse", Service.validatedMessage(query.body()).getAttribute("type"));

        String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "");
        SoapEndToEndTest.assertError(send(http, plainUrl("/nmwg"), request, "application/xml", null), "error.common.authorization");
        HttpResponse<String> soap = send(http, plainUrl("/services/MeasurementService"), soap11(request, ""), "text/xml", "");
        assertTrue(soap.body().contains("error.common.authorization") && soap.body().contains("measure role"), soap.body());
        HttpResponse<String> rpc = send(http, plainUrl("/RPC2"), XmlRpc.request("127.0.0.1"), "text/xml", null);
        assertTrue(rpc.body().contains("<name>faultCode</name><value><int>4</int></value>"), rpc.body());
        assertEquals(401, call(http, "DELETE", plainUrl("/api/tests/any")).statusCode(), "cancelling needs measure");
        assertEquals(401, call(http, "GET", plainUrl("/archive/store")).statusCode(), "exporting needs admin");
        assertEquals(200, call(http, "GET", plainUrl("/actuator/health")).statusCode());
        assertEquals(before, responder.sessions(), "no test reached the responder");
    }

    @Test
    void credentialsInClearTextFromAnotherHostAreRefusedBeforeTheyAreChecked() throws Exception {
        String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "");
        HttpResponse<String> basic = send(http, plainUrl("/nmwg"), request, "application/xml", null, basic("alice", "alice-secret"));
        assertEquals(403, basic.statusCode());
        assertTrue(basic.body().contains("only over TLS"), basic.body());
        HttpResponse<String> key = send(http, plainUrl("/nmwg"), request, "application/xml", null, "X-Api-Key", MEASURE_KEY);
        assertEquals(403, key.statusCode());
        HttpResponse<String> ws = send(http, plainUrl("/services/MeasurementService"),
                soap11(request, usernameToken("alice", "alice-secret")), "text/xml", "");
        assertEquals(500, ws.statusCode());
        assertTrue(ws.body().contains("only over TLS"), ws.body());
    }

    @Test
    void overTlsAnAuthenticatedMeasurerStartsRealTestsByBasicApiKeyAndWsSecurity() throws Exception {
        String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "");
        long before = responder.sessions();
        Element byBasic = Service.validatedMessage(send(https, tlsUrl("/nmwg"), request, "application/xml", null,
                basic("alice", "alice-secret")).body());
        assertEquals(5.0, figure(byBasic, "received"), 0.0);
        Element byKey = Service.validatedMessage(send(https, tlsUrl("/nmwg"), request, "application/xml", null,
                "X-Api-Key", MEASURE_KEY).body());
        assertEquals(5.0, figure(byKey, "received"), 0.0);
        Element byToken = Service.validatedMessage(send(https, tlsUrl("/services/MeasurementService"),
                soap11(request, usernameToken("alice", "alice-secret")), "text/xml", "").body());
        assertEquals(5.0, figure(byToken, "received"), 0.0);
        assertEquals(before + 3, responder.sessions(), "three tests reached the responder");
    }

    @Test
    void wrongCredentialsAndMissingRolesAreRefusedWithTheirOwnStatus() throws Exception {
        String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "");
        assertEquals(401, send(https, tlsUrl("/nmwg"), request, "application/xml", null, basic("alice", "wrong")).statusCode());
        assertEquals(401, send(https, tlsUrl("/nmwg"), request, "application/xml", null, "X-Api-Key", "k-guess").statusCode());
        HttpResponse<String> badToken = send(https, tlsUrl("/services/MeasurementService"),
                soap11(request, usernameToken("alice", "wrong")), "text/xml", "");
        assertEquals(500, badToken.statusCode());
        assertTrue(badToken.body().contains("FailedAuthentication"), badToken.body());
        // This instance lets anonymous clients do nothing: not even query.
        assertEquals(401, send(https, tlsUrl("/nmwg"), QUERY, "application/xml", null).statusCode());
        HttpResponse<String> anonymousSoap = send(https, tlsUrl("/services/MeasurementService"), soap11(QUERY, ""), "text/xml", "");
        assertTrue(anonymousSoap.body().contains("authentication required"), anonymousSoap.body());
        // Metrics need the read role too: without it, none.
        assertEquals(401, call(https, "GET", tlsUrl("/actuator/prometheus")).statusCode());
        assertEquals(200, call(https, "GET", tlsUrl("/actuator/prometheus"), "X-Api-Key", MEASURE_KEY).statusCode());
        // measure may not export the archive; admin may.
        assertEquals(403, call(https, "GET", tlsUrl("/archive/store"), "X-Api-Key", MEASURE_KEY).statusCode());
        assertEquals(200, call(https, "GET", tlsUrl("/archive/store"), "X-Api-Key", ADMIN_KEY).statusCode());
    }

    @Test
    void aTestTowardsAnotherServiceReturnsNoneOfItsBytes() throws Exception {
        // A banner server where a responder would be, as sshd is: its greeting must not come back.
        try (java.net.ServerSocket banner = new java.net.ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                while (!banner.isClosed()) {
                    try (java.net.Socket c = banner.accept()) {
                        c.getOutputStream().write("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n".getBytes(StandardCharsets.US_ASCII));
                        c.getOutputStream().flush();
                        c.getInputStream().read(new byte[512]);
                    } catch (java.io.IOException closed) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            HttpResponse<String> r = plain.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 5,
                    "<nmwg:parameter name=\"port\">" + banner.getLocalPort() + "</nmwg:parameter>"), "application/xml", null);
            Element m = Service.validatedMessage(r.body());
            String text = m.getTextContent();
            assertTrue(text.contains("not the nmws control protocol"), text);
            assertTrue(!text.contains("SSH") && !text.contains("OpenSSH") && !text.contains("Debian"), text);
        }
    }

    /**
     * A schedule belongs to its maker (issue 21, finding 5): another client, anonymous or keyed,
     * neither replaces nor deletes it (JSON or NMWG schedule.name); it is checked against its
     * maker's limits; it runs on this point only; a client keeps at most max-per-owner.
     */
    @Test
    void schedulesBelongToTheirMakerAndKeepItsLimits() throws Exception {
        String api = plain.baseUrl + "/api/schedules/";
        String body = "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT1H\","
                + "\"parameters\":{\"count\":\"3\",\"port\":\"" + responder.port + "\"}}";
        HttpResponse<String> mine = put(api + "robots-own", body, "X-Api-Key", MEASURE_KEY);
        assertEquals(200, mine.statusCode(), mine.body());
        assertTrue(mine.body().contains("\"owner\":\"account probe-robot\""), mine.body());
        HttpResponse<String> other = put(api + "robots-own", body.replace("PT1H", "PT2S"));
        assertEquals(403, other.statusCode(), "an anonymous client replaces no one's schedule: " + other.body());
        assertTrue(other.body().contains("belongs to account probe-robot"), other.body());
        assertEquals(403, call(http, "DELETE", api + "robots-own").statusCode(), "nor deletes it");
        assertEquals(403, call(http, "DELETE", api + "robots-own", "X-Api-Key", BRIEF_KEY).statusCode(),
                "nor does another key");
        // NMWG's form of the same: schedule.name of another's schedule
        HttpResponse<String> nmwg = send(http, plain.baseUrl + "/nmwg", LabLikeRequests.request("127.0.0.1",
                "path.delay.roundTrip", "count", "3", "schedule.period", "PT2S", "schedule.name", "robots-own"),
                "application/xml", null);
        SoapEndToEndTest.assertError(nmwg, "error.common.authorization");
        assertTrue(nmwg.body().contains("belongs to account probe-robot"), nmwg.body());
        String listed = call(http, "GET", plain.baseUrl + "/api/schedules").body();
        assertTrue(listed.contains("\"period\":\"PT1H\"") && !listed.contains("PT2S"), "unchanged: " + listed);
        // the maker's limits hold for what it schedules
        HttpResponse<String> outside = put(api + "lab-only-1", body, "X-Api-Key", LAB_ONLY_KEY);
        assertEquals(403, outside.statusCode(), outside.body());
        assertTrue(outside.body().contains("10.99.0.0/16"), outside.body());
        // another point's share is not a client's to hand out
        HttpResponse<String> elsewhere = put(api + "elsewhere", body.replace("\"period\"", "\"point\":\"point-z\",\"period\""),
                "X-Api-Key", MEASURE_KEY);
        assertEquals(403, elsewhere.statusCode(), elsewhere.body());
        // at most max-per-owner (2) schedules a client
        assertEquals(200, put(api + "robots-second", body, "X-Api-Key", MEASURE_KEY).statusCode());
        HttpResponse<String> third = put(api + "robots-third", body, "X-Api-Key", MEASURE_KEY);
        assertEquals(429, third.statusCode(), third.body());
        assertEquals(204, call(http, "DELETE", api + "robots-second", "X-Api-Key", MEASURE_KEY).statusCode(),
                "its owner deletes it");
        assertEquals(204, call(http, "DELETE", api + "robots-own", "X-Api-Key", MEASURE_KEY).statusCode());
    }

    private HttpResponse<String> put(String url, String json, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void eachKeysLimitsNarrowWhatItMayAsk() throws Exception {
        String local = plain.baseUrl + "/nmwg"; // loopback: keys need no TLS here
        long before = responder.sessions();
        HttpResponse<String> outside = send(http, local, SoapEndToEndTest.measurementRequest("127.0.0.1", 5, ""),
                "application/xml", null, "X-Api-Key", LAB_ONLY_KEY);
        SoapEndToEndTest.assertError(outside, "error.common.authorization");
        assertTrue(outside.body().contains("outside the networks") && outside.body().contains("10.99.0.0/16"), outside.body());
        // 600 frames 5 ms apart is 3 s: over this key's 2 s, though within the service's 120 s.
        HttpResponse<String> tooLong = send(http, local, SoapEndToEndTest.measurementRequest("127.0.0.1", 600, ""),
                "application/xml", null, "X-Api-Key", BRIEF_KEY);
        SoapEndToEndTest.assertError(tooLong, "error.common.parameter");
        Element once = Service.validatedMessage(send(http, local, SoapEndToEndTest.measurementRequest("127.0.0.1", 5, ""),
                "application/xml", null, "X-Api-Key", BRIEF_KEY).body());
        assertEquals(5.0, figure(once, "received"), 0.0, "a short test is within its limits");
        HttpResponse<String> again = send(http, local, SoapEndToEndTest.measurementRequest("127.0.0.1", 5, ""),
                "application/xml", null, "X-Api-Key", BRIEF_KEY);
        SoapEndToEndTest.assertError(again, "error.mp.rate_limited");
        assertTrue(again.body().contains("1 tests an hour"), again.body());
        // A stream faster than the key's 5 Mbit/s is refused; a slower one runs.
        String udp = LabLikeRequests.request("127.0.0.1", "path.bandwidth.achievable.UDP", "count", "100", "packetSize", "1000",
                "bandwidthLimit", "RATE");
        HttpResponse<String> fast = send(http, local, udp.replace("RATE", "10M"), "application/xml", null, "X-Api-Key", SLOW_KEY);
        SoapEndToEndTest.assertError(fast, "error.common.parameter");
        assertTrue(fast.body().contains("over this client's limit of 5 Mbit/s"), fast.body());
        Element slow = Service.validatedMessage(send(http, local, udp.replace("RATE", "2M"), "application/xml", null,
                "X-Api-Key", SLOW_KEY).body());
        assertEquals(100.0, figure(slow, "sent"), 0.0);
        assertEquals(before + 2, responder.sessions(), "only the two allowed tests reached the responder");
    }

    @Test
    void aHostWithoutAResponderGetsNoMoreThanTraceroutesWorth() throws Exception {
        // 127.0.0.2 is this host too, but the responder listens on 127.0.0.1 only: it has not agreed.
        String hops = LabLikeRequests.request("127.0.0.2", "path.hoplist", "probesPerHop", "5");
        HttpResponse<String> r = plain.post("/nmwg", hops, "application/xml", null);
        SoapEndToEndTest.assertError(r, "error.common.parameter");
        assertTrue(r.body().contains("not agreed") && r.body().contains("3 probes a hop"), r.body());
        String perHop = LabLikeRequests.request("127.0.0.2", "path.bandwidth.capacity", "perHop", "true");
        HttpResponse<String> c = plain.post("/nmwg", perHop, "application/xml", null);
        SoapEndToEndTest.assertError(c, "error.common.parameter");
        assertTrue(c.body().contains("not agreed") && c.body().contains("10000 frames"), c.body());
    }

    /** A MeasurementRequest with any eventType and parameters. */
    private static final class LabLikeRequests {
        static String request(String dst, String eventType, String... nameValues) {
            StringBuilder params = new StringBuilder();
            for (int i = 0; i < nameValues.length; i += 2) {
                params.append("<nmwg:parameter name=\"").append(nameValues[i]).append("\">").append(nameValues[i + 1])
                        .append("</nmwg:parameter>");
            }
            return "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
                    + "type=\"MeasurementRequest\" id=\"mr\"><nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                    + "<nmwgt:dst type=\"ipv4\" value=\"" + dst + "\"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>"
                    + eventType + "</nmwg:eventType><nmwg:parameters id=\"p\">" + params + "</nmwg:parameters></nmwg:metadata>"
                    + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";
        }
    }

    @Test
    void aClientCancelsOnlyItsOwnTestsAndAnAdminAny() throws Exception {
        String local = plain.baseUrl;
        CompletableFuture<HttpResponse<String>> robots = http.sendAsync(HttpRequest.newBuilder(URI.create(local + "/nmwg"))
                .header("Content-Type", "application/xml").header("X-Api-Key", MEASURE_KEY)
                .POST(HttpRequest.BodyPublishers.ofString(SoapEndToEndTest.measurementRequest("127.0.0.1", 1000, ""))).build(),
                HttpResponse.BodyHandlers.ofString());
        String id = null;
        while (id == null && !robots.isDone()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"id\":\"([0-9a-f]+)\"")
                    .matcher(call(http, "GET", local + "/api/tests").body());
            id = m.find() ? m.group(1) : null;
        }
        assertTrue(id != null, "the robot's test was listed");
        String[] alice = basic("alice", "alice-secret");
        assertEquals(403, call(http, "DELETE", local + "/api/tests/" + id, alice[0], alice[1]).statusCode(),
                "alice may measure, but this test is the robot's");
        assertEquals(202, call(http, "DELETE", local + "/api/tests/" + id, "X-Api-Key", ADMIN_KEY).statusCode(), "an admin may");
        SoapEndToEndTest.assertError(robots.get(30, java.util.concurrent.TimeUnit.SECONDS), "error.mp.measurement");
    }

    @Test
    void theCliSendsItsKeyOrAccount() {
        // The lab-only key may test only towards 10.99.0.0/16: its refusal shows the key was sent.
        // A refusal by the service is the CLI's exit 1 with "error: ..." on stderr.
        java.io.StringWriter out = new java.io.StringWriter();
        picocli.CommandLine cli = new picocli.CommandLine(new org.nmws.client.cli.NmwsCli());
        cli.setOut(new java.io.PrintWriter(out, true));
        cli.setErr(new java.io.PrintWriter(out, true));
        int status = cli.execute("--url", plain.baseUrl, "--api-key", LAB_ONLY_KEY, "rtt", "127.0.0.1", "--count", "3");
        assertEquals(1, status, out.toString());
        assertTrue(out.toString().contains("outside the networks"), out.toString());
        java.io.StringWriter out2 = new java.io.StringWriter();
        cli = new picocli.CommandLine(new org.nmws.client.cli.NmwsCli());
        cli.setOut(new java.io.PrintWriter(out2, true));
        cli.setErr(new java.io.PrintWriter(out2, true));
        assertEquals(1, cli.execute("--url", plain.baseUrl, "--user", "alice:wrong", "tests", "--cancel", "x"), out2.toString());
        assertTrue(out2.toString().contains("needs the measure role"), out2.toString());
    }

    private String plainUrl(String path) {
        return "http://" + remote + ":" + port(plain) + path;
    }

    private String tlsUrl(String path) {
        return "https://" + remote + ":" + port(tls) + path;
    }

    private static int port(Service s) {
        return URI.create(s.baseUrl).getPort();
    }

    private static HttpResponse<String> send(HttpClient client, String url, String body, String contentType, String soapAction,
                                             String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (soapAction != null) {
            b.header("SOAPAction", soapAction);
        }
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> call(HttpClient client, String method, String url, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String[] basic(String user, String password) {
        return new String[] {"Authorization", "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + password).getBytes(StandardCharsets.UTF_8))};
    }

    private static String soap11(String body, String header) {
        return "<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"><s:Header>" + header + "</s:Header><s:Body>" + body
                + "</s:Body></s:Envelope>";
    }

    private static String usernameToken(String user, String password) {
        String wsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
        return "<wsse:Security xmlns:wsse=\"" + wsse + "\" xmlns:s=\"" + Service.SOAP11 + "\" s:mustUnderstand=\"1\">"
                + "<wsse:UsernameToken><wsse:Username>" + user + "</wsse:Username><wsse:Password Type=\""
                + "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText\">"
                + password + "</wsse:Password></wsse:UsernameToken></wsse:Security>";
    }

    private static double figure(Element m, String name) {
        var l = m.getElementsByTagNameNS("*", "*"); // figures and datums alike carry name and value
        for (int i = 0; i < l.getLength(); i++) {
            Element e = (Element) l.item(i);
            if (name.equals(e.getAttribute("name")) && e.hasAttribute("value")) {
                return Double.parseDouble(e.getAttribute("value"));
            }
        }
        throw new AssertionError("no figure " + name + " in an answer reading: " + m.getTextContent());
    }

    private static String sha256(String key) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    }

    /** An IPv4 address of this host that is not loopback: connecting to it, the client is not on loopback. */
    private static String nonLoopbackAddress() throws Exception {
        for (NetworkInterface n : NetworkInterface.networkInterfaces().toList()) {
            if (n.isUp() && !n.isLoopback()) {
                for (InetAddress a : n.inetAddresses().toList()) {
                    if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                        return a.getHostAddress();
                    }
                }
            }
        }
        throw new IllegalStateException("this host has no non-loopback IPv4 address to play a remote client from");
    }

    /** A self-signed certificate for the address, by the JDK's keytool. */
    private static Path selfSignedKeystore(String address) throws Exception {
        Path dir = Files.createTempDirectory("nmws-tls");
        Path ks = dir.resolve("service.p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "nmws", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=" + address, "-ext", "SAN=ip:" + address, "-keystore", ks.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + new String(out, StandardCharsets.UTF_8));
        }
        return ks;
    }

    private static SSLContext trusting(Path keystore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** The GGF v1 request over XML-RPC, as the first NM-WG clients send it. */
    private static final class XmlRpc {
        static String request(String dst) {
            return "<?xml version=\"1.0\"?><methodCall><methodName>NetworkMeasurementRequest</methodName><params><param>"
                    + "<value><struct><member><name>characteristic</name><value><string>path.delay.roundTrip</string></value>"
                    + "</member><member><name>subject</name><value><struct><member><name>path</name><value><struct>"
                    + "<member><name>destination</name><value><struct><member><name>name</name>"
                    + "<value><string>" + dst + "</string></value></member></struct></value></member>"
                    + "</struct></value></member></struct></value></member></struct></value></param></params></methodCall>";
        }
    }
}
