package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What an attacker on the network sends, against the service and responder with their
 * default settings, each case expecting a clear error: XML attacks over every XML transport,
 * malformed NMWG, hostile parameters, XML-RPC, SOAP envelopes, the JSON API and the
 * responder's control port. The service runs as its own process with a small heap, so its
 * resident memory can be read from /proc under the raw-data and worker attacks; afterwards it
 * still answers and still measures.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileSuiteTest {
    /** Resident memory the service may reach under attack: its heap (-Xmx384m) plus the JVM's own. */
    private static final long MAX_RSS_KB = 900 * 1024;
    private static final String NMWG = "xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\"";
    private static final String SELECT = "xmlns:select=\"http://ggf.org/ns/nmwg/ops/select/2.0/\"";
    /** What must never come back: file contents, stack traces, the far end's banner. */
    private static final List<String> LEAKS = List.of("root:x:0", "\tat org.", "\tat java.", "NullPointerException", "SSH-2.0");

    private Responder responder;
    private Process service;
    private String base;
    private int port;
    private static final String ADMIN_KEY = "k-hostile-admin-31415";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private int cases;

    @BeforeAll
    void start() throws Exception {
        responder = Responder.start();
        Path jar = Path.of(System.getProperty("nmws.service.jar", "../service/target/nmws-service-0.1.0-SNAPSHOT-exec.jar"));
        int port = Responder.freePort();
        Path log = Files.createTempFile("nmws-hostile", ".log");
        service = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
                "-jar", jar.toAbsolutePath().toString(), "--server.port=" + port, "--server.address=127.0.0.1",
                "--nmws.data-dir=" + Files.createTempDirectory("nmws-hostile"), "--nmws.responder-port=" + responder.port,
                "--nmws.archive.import-enabled=true", "--nmws.security.api-keys[0].name=operator",
                "--nmws.security.api-keys[0].sha256=" + sha256(ADMIN_KEY), "--nmws.security.api-keys[0].roles=admin")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                break;
            } catch (IOException notYet) {
                if (!service.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("service did not start: " + Files.readString(log));
                }
                Thread.sleep(100);
            }
        }
        base = "http://127.0.0.1:" + port;
        this.port = port;
    }

    @AfterAll
    void stop() throws Exception {
        if (service != null) {
            service.destroy();
            service.waitFor(20, TimeUnit.SECONDS);
        }
        if (responder != null) {
            responder.close();
        }
    }

    // ---- the cases -------------------------------------------------------------------------

    /** A request and what answers it clearly: one of the statuses, and one of the markers in the body. */
    private record Case(String name, Transport transport, byte[] body, Set<Integer> statuses, List<String> markers) {
    }

    private enum Transport { HTTP, SOAP11, SOAP12, XMLRPC, XMLRPC_NMWG, GET, RESPONDER }

    private static final Set<Integer> ANY_ERROR_STATUS = Set.of(200, 400, 401, 403, 404, 405, 413, 415, 500);
    private static final List<String> NMWG_ERROR = List.of("error.common.", "error.ma.", "error.mp.", "Fault", "faultCode");

    @TestFactory
    @Order(1)
    Stream<DynamicTest> everyHostileRequestIsAClearErrorAndLeaksNothing() {
        List<Case> all = new ArrayList<>();
        all.addAll(xmlAttacks());
        all.addAll(malformedNmwg());
        all.addAll(hostileParameters());
        all.addAll(xmlRpc());
        all.addAll(soapEnvelopes());
        all.addAll(jsonApi());
        all.addAll(responderPort());
        cases = all.size();
        return all.stream().map(c -> DynamicTest.dynamicTest(c.transport + " " + c.name, () -> check(c)));
    }

    @Test
    @Order(2)
    void theSuiteHoldsAtLeastThreeHundredCases() {
        assertTrue(cases >= 300, "hostile cases: " + cases);
    }

    private static List<Case> xmlAttacks() {
        String doc = "<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\"e\"><nmwg:metadata id=\"m\"><nmwg:eventType>"
                + "BODY</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";
        List<String[]> attacks = new ArrayList<>();
        attacks.add(new String[] {"xxe file", "<!DOCTYPE nmwg:message [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>", "&x;"});
        attacks.add(new String[] {"xxe http", "<!DOCTYPE nmwg:message [<!ENTITY x SYSTEM \"http://127.0.0.1:1/x\">]>", "&x;"});
        attacks.add(new String[] {"billion laughs", laughs(), "&l9;"});
        attacks.add(new String[] {"external dtd", "<!DOCTYPE nmwg:message SYSTEM \"http://127.0.0.1:1/a.dtd\">", "x"});
        attacks.add(new String[] {"parameter entity",
                "<!DOCTYPE nmwg:message [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]>", "x"});
        attacks.add(new String[] {"internal entity", "<!DOCTYPE nmwg:message [<!ENTITY e \"echo\">]>", "&e;"});
        attacks.add(new String[] {"deep nesting", "", "<a>".repeat(5000) + "</a>".repeat(5000)});
        attacks.add(new String[] {"5 MB text", "", "x".repeat(5 * 1024 * 1024)});
        attacks.add(new String[] {"100k elements", "", "<b/>".repeat(100_000)});
        attacks.add(new String[] {"200 attributes", "", "<b " + attributes(200) + "/>"});
        attacks.add(new String[] {"xinclude", "", "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"file:///etc/passwd\"/>"});
        attacks.add(new String[] {"unclosed", "", "<open>"});
        attacks.add(new String[] {"cdata unclosed", "", "<![CDATA[x"});
        attacks.add(new String[] {"nul", "", "a\u0000b"});
        attacks.add(new String[] {"stylesheet pi", "<?xml-stylesheet type=\"text/xsl\" href=\"file:///etc/passwd\"?>", "x"});
        attacks.add(new String[] {"undeclared prefix", "", "<zz:x/>"});
        attacks.add(new String[] {"3 MB attribute", "", "<b a=\"" + "y".repeat(3 * 1024 * 1024) + "\"/>"});
        List<Case> out = new ArrayList<>();
        for (String[] a : attacks) {
            String nmwg = a[1] + doc.replace("BODY", a[2]);
            // A stylesheet instruction and an XInclude are never acted on: the echo answers, as long
            // as nothing they point at comes back.
            boolean inert = a[0].equals("stylesheet pi") || a[0].equals("xinclude");
            if (inert) {
                for (Transport t : List.of(Transport.HTTP, Transport.SOAP11, Transport.SOAP12)) {
                    String body = t == Transport.HTTP ? nmwg : a[1] + (t == Transport.SOAP11 ? soap11(doc.replace("BODY", a[2]))
                            : soap12(doc.replace("BODY", a[2])));
                    out.add(new Case("xml " + a[0], t, utf8(body), Set.of(200, 400, 500), List.of("success.echo", "error.common.",
                            "Fault")));
                }
                out.add(nmwgCase("xml " + a[0], Transport.XMLRPC, utf8(a[1] + "<methodCall><methodName>system.methodHelp"
                        + "</methodName><params><param><value><string>" + a[2] + "</string></value></param></params></methodCall>")));
                continue;
            }
            out.add(nmwgCase("xml " + a[0], Transport.HTTP, utf8(nmwg)));
            out.add(nmwgCase("xml " + a[0], Transport.SOAP11, utf8(a[1] + soap11(doc.replace("BODY", a[2])))));
            out.add(nmwgCase("xml " + a[0], Transport.SOAP12, utf8(a[1] + soap12(doc.replace("BODY", a[2])))));
            out.add(nmwgCase("xml " + a[0], Transport.XMLRPC, utf8(a[1] + "<methodCall><methodName>system.methodHelp</methodName>"
                    + "<params><param><value><string>" + a[2] + "</string></value></param></params></methodCall>")));
        }
        // Byte-level: overlong and invalid UTF-8, a declared encoding the bytes do not follow.
        byte[][] bytes = {
            concat(utf8("<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\""), new byte[] {(byte) 0xC0, (byte) 0xAF},
                    utf8("\"/>")),
            concat(utf8("<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\""), new byte[] {(byte) 0xFF, (byte) 0xFE},
                    utf8("\"/>")),
            utf8("<?xml version=\"1.0\" encoding=\"UTF-16\"?><nmwg:message " + NMWG + " type=\"EchoRequest\"/>"),
            new byte[0], utf8("<"), utf8("not xml at all")};
        String[] names = {"overlong utf-8", "invalid utf-8", "utf-16 declared", "empty", "lone <", "not xml"};
        for (int i = 0; i < bytes.length; i++) {
            out.add(nmwgCase("bytes " + names[i], Transport.HTTP, bytes[i]));
            out.add(nmwgCase("bytes " + names[i], Transport.SOAP11, bytes[i]));
            out.add(nmwgCase("bytes " + names[i], Transport.SOAP12, bytes[i]));
            out.add(nmwgCase("bytes " + names[i], Transport.XMLRPC, bytes[i]));
        }
        return out;
    }

    private static List<Case> malformedNmwg() {
        String subject = "<nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"DST\"/></nmwgt:endPointPair>"
                + "</nmwg:subject>";
        String rr = "<nmwg:metadata id=\"m\">" + subject.replace("DST", "127.0.0.1")
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>";
        List<String[]> bad = new ArrayList<>();
        bad.add(new String[] {"unknown type", msg("TeleportRequest", rr + data("m"))});
        bad.add(new String[] {"no type", "<nmwg:message " + NMWG + " id=\"x\">" + rr + data("m") + "</nmwg:message>"});
        bad.add(new String[] {"dangling ref", msg("SetupDataRequest", rr + data("absent"))});
        bad.add(new String[] {"ref cycle", msg("SetupDataRequest", "<nmwg:metadata id=\"a\" metadataIdRef=\"b\"/>"
                + "<nmwg:metadata id=\"b\" metadataIdRef=\"a\"/>" + data("a"))});
        StringBuilder chain = new StringBuilder("<nmwg:metadata id=\"c0\"><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>");
        for (int i = 1; i < 200; i++) {
            chain.append("<nmwg:metadata id=\"c").append(i).append("\" metadataIdRef=\"c").append(i - 1).append("\"/>");
        }
        bad.add(new String[] {"chain 200 deep", msg("SetupDataRequest", chain + data("c199"))});
        bad.add(new String[] {"duplicate metadata ids", msg("SetupDataRequest", rr + rr + data("m"))});
        // Two data of one id are answered, not refused (issue 20: perfSONAR's TracerouteMA sends them;
        // nothing refers to a data id): PerfsonarRequestsTest in the service pins it.
        bad.add(new String[] {"200 triggers", msg("SetupDataRequest", rr + dataN("m", 200))});
        bad.add(new String[] {"10 new tests", msg("MeasurementRequest", rr + dataN("m", 10))});
        bad.add(new String[] {"eventType garbage", msg("MeasurementRequest", rr.replace("path.delay.roundTrip", "no.such.thing")
                + data("m"))});
        bad.add(new String[] {"eventType 10k", msg("MeasurementRequest", rr.replace("path.delay.roundTrip", "e".repeat(10_000))
                + data("m"))});
        bad.add(new String[] {"no dst", msg("MeasurementRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"/>"
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>" + data("m"))});
        for (String dst : List.of("-oProxyCommand=x", "127.0.0.1;rm -rf /", "h".repeat(300), "::ffff:", "' OR 1=1 --",
                "$(reboot)", "127.0.0.1\n127.0.0.2", "0.0.0.0", "255.255.255.255", "224.0.0.1")) {
            bad.add(new String[] {"dst " + printable(dst), msg("MeasurementRequest", rr.replace("127.0.0.1", xmlEscape(dst))
                    + data("m"))});
        }
        bad.add(new String[] {"sql in stored dst", msg("SetupDataRequest", rr.replace("127.0.0.1", "' OR 1=1 --")
                .replace("path.delay.roundTrip", "path.delay.roundTrip") + data("m"))});
        bad.add(new String[] {"select time garbage", msg("SetupDataRequest", rr + selectTime("yesterday") + data("sel"))});
        bad.add(new String[] {"select time 1e309", msg("SetupDataRequest", rr + selectTime("1e309") + data("sel"))});
        bad.add(new String[] {"maKey injection", msg("SetupDataRequest", maKey("1 OR 1=1") + data("k"))});
        bad.add(new String[] {"maKey 5000", msg("SetupDataRequest", maKey("9".repeat(5000)) + data("k"))});
        bad.add(new String[] {"perHop maybe", msg("MeasurementRequest", rr.replace("</nmwg:metadata>",
                "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"perHop\">maybe</nmwg:parameter></nmwg:parameters></nmwg:metadata>")
                .replace("path.delay.roundTrip", "path.bandwidth.capacity") + data("m"))});
        bad.add(new String[] {"raw yes", msg("SetupDataRequest", rr.replace("</nmwg:metadata>",
                "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"raw\">yes</nmwg:parameter></nmwg:parameters></nmwg:metadata>")
                + data("m"))});
        bad.add(new String[] {"wrong namespace", "<nmwg:message xmlns:nmwg=\"http://example.org/not\" type=\"EchoRequest\"/>"});
        bad.add(new String[] {"not a message", "<nmwg:store " + NMWG + "/>"});
        List<Case> out = new ArrayList<>();
        for (String[] b : bad) {
            out.add(nmwgCase("nmwg " + b[0], Transport.HTTP, utf8(b[1])));
            out.add(nmwgCase("nmwg " + b[0], Transport.SOAP11, utf8(soap11(b[1]))));
            out.add(nmwgCase("nmwg " + b[0], Transport.SOAP12, utf8(soap12(b[1]))));
            out.add(nmwgCase("nmwg " + b[0], Transport.XMLRPC_NMWG, utf8(b[1])));
        }
        return out;
    }

    private static List<Case> hostileParameters() {
        List<String> values = List.of("-1", "1e309", "NaN", "Infinity", "0x10", "\u0661\u0662", "99999999999999999999",
                "1,5", "+-1", "abc", "1 2", "0x1p3");
        List<Case> out = new ArrayList<>();
        for (String param : List.of("count", "interval", "packetSize", "timeout", "ttl", "port")) {
            for (String v : values) {
                String m = msg("MeasurementRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                        + "<nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                        + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\">"
                        + "<nmwg:parameter name=\"" + param + "\">" + v + "</nmwg:parameter></nmwg:parameters></nmwg:metadata>"
                        + data("m"));
                out.add(new Case("param " + param + "=" + printable(v), Transport.HTTP, utf8(m), Set.of(200),
                        List.of("error.common.parameter")));
                if (param.equals("count") || param.equals("interval")) {
                    out.add(new Case("param " + param + "=" + printable(v), Transport.SOAP11, utf8(soap11(m)), Set.of(200),
                            List.of("error.common.parameter")));
                }
            }
        }
        for (String bw : List.of("-5M", "1e400M", "12X", "NaNM", "M", "5MM")) {
            String m = msg("MeasurementRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                    + "<nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                    + "<nmwg:eventType>path.bandwidth.achievable.UDP</nmwg:eventType><nmwg:parameters id=\"p\">"
                    + "<nmwg:parameter name=\"bandwidthLimit\">" + bw + "</nmwg:parameter></nmwg:parameters></nmwg:metadata>"
                    + data("m"));
            out.add(new Case("param bandwidthLimit=" + bw, Transport.HTTP, utf8(m), Set.of(200), List.of("error.common.parameter")));
        }
        return out;
    }

    private static List<Case> xmlRpc() {
        List<String[]> bad = new ArrayList<>();
        bad.add(new String[] {"not a methodCall", "<methodResponse/>"});
        bad.add(new String[] {"unknown method", call("rm.rf", "")});
        bad.add(new String[] {"no params", "<methodCall><methodName>NetworkMeasurementRequest</methodName></methodCall>"});
        bad.add(new String[] {"param not struct", call("NetworkMeasurementRequest", "<value><int>1</int></value>")});
        bad.add(new String[] {"struct without characteristic", call("NetworkMeasurementRequest", "<value><struct/></value>")});
        bad.add(new String[] {"unknown characteristic", call("NetworkMeasurementRequest", struct("characteristic",
                "<string>path.teleport</string>"))});
        bad.add(new String[] {"int overflow", call("NetworkMeasurementRequest", "<value><int>99999999999</int></value>")});
        bad.add(new String[] {"i4 text", call("NetworkMeasurementRequest", "<value><i4>abc</i4></value>")});
        bad.add(new String[] {"double NaN", call("NetworkMeasurementRequest", "<value><double>NaN</double></value>")});
        bad.add(new String[] {"boolean 2", call("NetworkMeasurementRequest", "<value><boolean>2</boolean></value>")});
        bad.add(new String[] {"allowNew maybe", call("NetworkMeasurementRequest", struct("allowNewMeasurements",
                "<string>maybe</string>"))});
        bad.add(new String[] {"base64 garbage", call("nmwg.message", "<value><base64>!!!</base64></value>")});
        bad.add(new String[] {"dateTime garbage", call("NetworkMeasurementRequest", "<value><dateTime.iso8601>soon"
                + "</dateTime.iso8601></value>")});
        bad.add(new String[] {"struct depth 200", call("NetworkMeasurementRequest",
                "<value><struct><member><name>a</name>".repeat(200) + "<value><int>1</int></value>"
                        + "</member></struct></value>".repeat(200))});
        bad.add(new String[] {"two params", call("system.methodHelp", "<value><string>a</string></value></param><param>"
                + "<value><string>b</string></value>")});
        bad.add(new String[] {"methodName 10k", call("m".repeat(10_000), "")});
        List<Case> out = new ArrayList<>();
        for (String[] b : bad) {
            out.add(new Case("xmlrpc " + b[0], Transport.XMLRPC, utf8(b[1]), Set.of(200, 400), List.of("faultCode")));
        }
        return out;
    }

    private static List<Case> soapEnvelopes() {
        String echo = "<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\"e\"/>";
        List<String[]> bad = new ArrayList<>();
        bad.add(new String[] {"no envelope", echo});
        bad.add(new String[] {"envelope wrong ns", "<s:Envelope xmlns:s=\"urn:not-soap\"><s:Body>" + echo + "</s:Body></s:Envelope>"});
        bad.add(new String[] {"no body", "<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"/>"});
        bad.add(new String[] {"empty body", soap11("")});
        bad.add(new String[] {"two body elements", soap11(echo + echo)});
        bad.add(new String[] {"unknown body element", soap11("<x:teleport xmlns:x=\"urn:x\"/>")});
        bad.add(new String[] {"mustUnderstand unknown", "<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"><s:Header>"
                + "<x:h xmlns:x=\"urn:x\" s:mustUnderstand=\"1\"/></s:Header><s:Body>" + echo + "</s:Body></s:Envelope>"});
        String wsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
        bad.add(new String[] {"password digest", "<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"><s:Header><w:Security xmlns:w=\""
                + wsse + "\"><w:UsernameToken><w:Username>a</w:Username><w:Password Type=\"x#PasswordDigest\">b</w:Password>"
                + "</w:UsernameToken></w:Security></s:Header><s:Body>" + echo + "</s:Body></s:Envelope>"});
        bad.add(new String[] {"security without token", "<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"><s:Header><w:Security xmlns:w=\""
                + wsse + "\"/></s:Header><s:Body>" + echo + "</s:Body></s:Envelope>"});
        bad.add(new String[] {"unknown user", "<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"><s:Header><w:Security xmlns:w=\""
                + wsse + "\"><w:UsernameToken><w:Username>mallory</w:Username><w:Password>x</w:Password></w:UsernameToken>"
                + "</w:Security></s:Header><s:Body>" + echo + "</s:Body></s:Envelope>"});
        bad.add(new String[] {"header 2 MB", "<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"><s:Header><x:h xmlns:x=\"urn:x\">"
                + "z".repeat(2 * 1024 * 1024) + "</x:h></s:Header><s:Body>" + echo + "</s:Body></s:Envelope>"});
        bad.add(new String[] {"soap 1.2 envelope on 1.1", soap12(echo)});
        List<Case> out = new ArrayList<>();
        for (String[] b : bad) {
            // An unknown header without mustUnderstand is ignored, as SOAP says: only its size is checked.
            List<String> markers = b[0].equals("header 2 MB") ? List.of("Fault", "error.common.", "success.echo")
                    : List.of("Fault", "error.common.");
            out.add(new Case("soap " + b[0], Transport.SOAP11, utf8(b[1]), Set.of(200, 400, 415, 500), markers));
        }
        // CXF answers a SOAP 1.1 envelope at the 1.2 address in 1.1 rather than faulting: lenient, harmless.
        out.add(new Case("soap 1.1 envelope on 1.2", Transport.SOAP12, utf8(soap11(echo)), Set.of(200, 400, 415, 500),
                List.of("Fault", "VersionMismatch", "success.echo")));
        return out;
    }

    private static List<Case> jsonApi() {
        List<String> bad = List.of("/api/results", "/api/results?dst=", "/api/results?dst=%27%20OR%201%3D1%20--",
                "/api/results?dst=127.0.0.1&characteristic=path.teleport", "/api/results?dst=127.0.0.1&from=yesterday",
                "/api/results?dst=127.0.0.1&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z",
                "/api/results?dst=127.0.0.1&limit=-1", "/api/results?dst=127.0.0.1&limit=1000000000000",
                "/api/results?dst=127.0.0.1&limit=%D9%A1", "/api/results?dst=" + "h".repeat(2000),
                "/api/cost", "/api/cost?dst=127.0.0.1&bytes=abc", "/api/cost?dst=127.0.0.1&bytes=1e9&maxAge=forever",
                "/api/cost?dst=127.0.0.1&bytes=1e9&maxAge=P99999999999D", "/api/cost?dst=127.0.0.1&bytes=NaN",
                "/api/nothing-here", "/archive/store", "/actuator/env", "/actuator/heapdump", "/api/results?dst=127.0.0.1&raw=%00");
        List<Case> out = new ArrayList<>();
        for (String path : bad) {
            out.add(new Case("json " + printable(path.length() > 80 ? path.substring(0, 80) : path), Transport.GET, utf8(path),
                    Set.of(400, 401, 403, 404), List.of("")));
        }
        return out;
    }

    private static List<Case> responderPort() {
        List<String[]> bad = new ArrayList<>();
        bad.add(new String[] {"garbage", "hello there\n"});
        bad.add(new String[] {"ssh greeting", "SSH-2.0-OpenSSH_9.2\r\n"});
        bad.add(new String[] {"http", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"});
        bad.add(new String[] {"overlong line", "NMP/1 SESSION " + "k".repeat(4000) + "\n"});
        bad.add(new String[] {"unknown verb", "NMP/1 TELEPORT\n"});
        bad.add(new String[] {"wrong version", "NMP/9 SESSION kind=rr\n"});
        bad.add(new String[] {"unknown kind", "NMP/1 SESSION kind=teleport\n"});
        bad.add(new String[] {"missing keys", "NMP/1 SESSION kind=rr\n"});
        bad.add(new String[] {"huge frames", "NMP/1 SESSION kind=rr frames=99999999999999 size=64 interval_ns=1 timeout_ms=1\n"});
        bad.add(new String[] {"negative", "NMP/1 SESSION kind=rr frames=-1 size=64 interval_ns=1000 timeout_ms=1000\n"});
        bad.add(new String[] {"size 0", "NMP/1 SESSION kind=rr frames=10 size=0 interval_ns=1000 timeout_ms=1000\n"});
        bad.add(new String[] {"size 70000", "NMP/1 SESSION kind=rr frames=10 size=70000 interval_ns=1000 timeout_ms=1000\n"});
        bad.add(new String[] {"duplicate key", "NMP/1 SESSION kind=rr kind=rr\n"});
        bad.add(new String[] {"17 keys", "NMP/1 SESSION" + " a=1".repeat(17) + "\n"});
        bad.add(new String[] {"bad value chars", "NMP/1 SESSION kind=r;r\n"});
        bad.add(new String[] {"nul bytes", "NMP/1 \u0000\u0000\u0000\n"});
        bad.add(new String[] {"results without session", "NMP/1 RESULTS\n"});
        bad.add(new String[] {"end without session", "NMP/1 END\n"});
        bad.add(new String[] {"bare newline", "\n"});
        bad.add(new String[] {"high bytes", "NMP/1 SESSION kind=\u00ff\u00fe\n"});
        List<Case> out = new ArrayList<>();
        for (String[] b : bad) {
            out.add(new Case("responder " + b[0], Transport.RESPONDER, b[1].getBytes(StandardCharsets.ISO_8859_1), Set.of(0),
                    List.of("NMP/1 ERR", "CLOSED")));
        }
        return out;
    }

    // ---- running a case --------------------------------------------------------------------

    private void check(Case c) throws Exception {
        int status;
        String body;
        if (c.transport == Transport.RESPONDER) {
            status = 0;
            body = responderAnswer(c.body);
        } else {
            HttpResponse<String> r = send(c);
            status = r.statusCode();
            body = r.body();
        }
        String shown = body.length() > 600 ? body.substring(0, 600) + "..." : body;
        assertTrue(c.statuses.contains(status), "status " + status + " for " + c.name + ": " + shown);
        assertTrue(c.markers.stream().anyMatch(body::contains), "no clear error for " + c.name + ": " + shown);
        for (String leak : LEAKS) {
            // The responder may quote (a bounded part of) the client's own line back to it.
            if (c.transport != Transport.RESPONDER || !leak.equals("SSH-2.0")) {
                assertTrue(!body.contains(leak), c.name + " leaked '" + leak + "': " + shown);
            }
        }
    }

    private HttpResponse<String> send(Case c) throws Exception {
        HttpRequest.Builder b;
        switch (c.transport) {
            case GET -> b = HttpRequest.newBuilder(URI.create(base + new String(c.body, StandardCharsets.UTF_8))).GET();
            case HTTP -> b = post("/nmwg", c.body, "application/xml");
            case SOAP11 -> b = post("/services/MeasurementService", c.body, "text/xml").header("SOAPAction", "\"\"");
            case SOAP12 -> b = post("/services/MeasurementService12", c.body, "application/soap+xml; charset=utf-8");
            case XMLRPC -> b = post("/RPC2", c.body, "text/xml");
            case XMLRPC_NMWG -> b = post("/RPC2", utf8(call("nmwg.message", "<value><string>"
                    + xmlEscape(new String(c.body, StandardCharsets.UTF_8)) + "</string></value>")), "text/xml");
            default -> throw new IllegalStateException(c.transport.toString());
        }
        return http.send(b.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder post(String path, byte[] body, String contentType) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    }

    /** What the responder writes back (its first line), or CLOSED when it hangs up without a word. */
    private String responderAnswer(byte[] payload) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", responder.port), 2000);
            s.setSoTimeout(3000);
            OutputStream out = s.getOutputStream();
            out.write(payload);
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try {
                int ch;
                while ((ch = in.read()) >= 0 && ch != '\n' && got.size() < 1024) {
                    got.write(ch);
                }
            } catch (SocketTimeoutException silent) {
                return "SILENT"; // neither an error nor a hang-up: not a clear answer
            } catch (IOException reset) {
                return got.size() == 0 ? "CLOSED" : got.toString(StandardCharsets.ISO_8859_1);
            }
            return got.size() == 0 ? "CLOSED" : got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    // ---- memory and workers under attack ---------------------------------------------------

    @Test
    @Order(3)
    void rawDataRequestsBeyondTheAnswerBudgetAreRefusedAndMemoryStaysBounded() throws Exception {
        // 180 000 stored frames to one destination, then one message asking for them 16 times over.
        for (int i = 0; i < 3; i++) {
            String r = postNmwg(SoapEndToEndTest.measurementRequest("127.0.0.1", 60_000, "")
                    .replace("<nmwg:parameter name=\"interval\">0.005</nmwg:parameter>",
                            "<nmwg:parameter name=\"interval\">0.00002</nmwg:parameter>"));
            assertTrue(r.contains("path.delay.roundTrip") && !r.contains("error."), r.length() > 500 ? r.substring(0, 500) : r);
        }
        String rr = "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" "
                + "value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType>"
                + "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"raw\">true</nmwg:parameter></nmwg:parameters></nmwg:metadata>";
        long before = rssKb();
        List<CompletableFuture<String>> attacks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            attacks.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return postNmwg(msg("SetupDataRequest", rr + dataN("m", 16)));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        long peak = before;
        for (CompletableFuture<String> a : attacks) {
            while (!a.isDone()) {
                peak = Math.max(peak, rssKb());
                Thread.sleep(50);
            }
            String answer = a.get();
            assertTrue(answer.contains("error.ma.query") && answer.contains("nmws.limits.max-answer-frames"),
                    "the triggers beyond the budget are refused: " + answer.substring(0, Math.min(answer.length(), 3000)));
        }
        peak = Math.max(peak, rssKb());
        assertTrue(peak < MAX_RSS_KB, "service RSS reached " + peak / 1024 + " MB (from " + before / 1024 + " MB)");
        assertEquals(200, get("/actuator/health").statusCode());
    }

    @Test
    @Order(4)
    void twoHundredRequestsForABusyPathAreAnsweredBusyAndTheServiceStaysResponsive() throws Exception {
        CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> {
            try {
                return postNmwg(SoapEndToEndTest.measurementRequest("127.0.0.1", 1200, "")); // about 6 s
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        while (!get("/api/tests").body().contains("127.0.0.1")) {
            Thread.sleep(20);
        }
        List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            flood.add(http.sendAsync(post("/nmwg", utf8(SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "")),
                    "application/xml").timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        int busy = 0;
        for (CompletableFuture<HttpResponse<String>> f : flood) {
            String body = f.get(60, TimeUnit.SECONDS).body();
            if (body.contains("error.mp.busy") || body.contains("error.mp.rate_limited")) {
                busy++;
            }
        }
        assertEquals(200, get("/actuator/health").statusCode());
        assertTrue(!holder.isDone(), "all 200 were answered while the first test still held the path");
        assertEquals(200, busy, "every request for the busy path was told busy (or over its rate), none waited");
        assertTrue(rssKb() < MAX_RSS_KB);
        assertTrue(holder.get(60, TimeUnit.SECONDS).contains("path.delay.roundTrip"));
    }

    @Test
    @Order(5)
    void afterEverythingTheServiceAndResponderStillMeasure() throws Exception {
        assertTrue(service.isAlive());
        String r = postNmwg(SoapEndToEndTest.measurementRequest("127.0.0.1", 5, ""));
        assertTrue(r.contains("path.delay.roundTrip") && !r.contains("error."), r);
    }

    @Test
    @Order(6)
    void theResponderCannotBeHeldAndTellsOthersOnlyWhenToRetry() throws Exception {
        // A session of 1000 frames 10 ms apart that then sends nothing: cut after the idle second,
        // not held for its 10 s.
        try (Socket holder = new Socket("127.0.0.1", responder.port)) {
            holder.setSoTimeout(5000);
            holder.getOutputStream().write(("NMP/1 SESSION kind=rr frames=1000 size=64 interval_ns=10000000 "
                    + "timeout_ms=1000\n").getBytes(StandardCharsets.US_ASCII));
            String opened = line(holder);
            assertTrue(opened.startsWith("NMP/1 OK"), "the holder's session opened: " + opened);
            // Meanwhile another client hears BUSY with when to retry, and nothing of the holder.
            String busy;
            try (Socket other = new Socket("127.0.0.1", responder.port)) {
                other.setSoTimeout(5000);
                other.getOutputStream().write("NMP/1 SESSION kind=rr frames=5 size=64 interval_ns=1000000 timeout_ms=1000\n"
                        .getBytes(StandardCharsets.US_ASCII));
                busy = line(other);
            }
            assertTrue(busy.startsWith("NMP/1 BUSY") && busy.contains("remaining_ms="), busy);
            assertTrue(!busy.contains("127.0.0.1") && !busy.contains("rr") && !busy.contains("peer"), "no owner details: " + busy);
            // The silent holder is told why it was cut, within a few seconds rather than minutes.
            String cut = line(holder);
            assertTrue(cut.startsWith("NMP/1 ERR") && cut.contains("timeout"), cut);
        }
        // SESSION and END in one packet: both are handled, and the responder is free again.
        try (Socket both = new Socket("127.0.0.1", responder.port)) {
            both.setSoTimeout(5000);
            both.getOutputStream().write(("NMP/1 SESSION kind=rr frames=5 size=64 interval_ns=1000000 timeout_ms=1000\n"
                    + "NMP/1 END\n").getBytes(StandardCharsets.US_ASCII));
            assertTrue(line(both).startsWith("NMP/1 OK"));
            String end = line(both);
            assertTrue(end.startsWith("NMP/1 BYE"), end);
        }
        String r = postNmwg(SoapEndToEndTest.measurementRequest("127.0.0.1", 5, ""));
        assertTrue(r.contains("path.delay.roundTrip") && !r.contains("error."), "the responder serves again: " + r);
    }

    @Test
    @Order(7)
    void aResponderKilledMidTestIsReportedWithinTwoSeconds() throws Exception {
        // A test of 20 s to a responder of its own, which is killed a second in.
        try (Responder victim = Responder.start("127.0.0.1")) {
            String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 2000, "<nmwg:parameter name=\"port\">" + victim.port
                    + "</nmwg:parameter>").replace(">0.005<", ">0.01<");
            CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return postNmwg(request);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            while (!get("/api/tests").body().contains("\"done\":") || get("/api/tests").body().contains("\"done\":0,")) {
                Thread.sleep(20);
            }
            long killed = System.nanoTime();
            victim.kill();
            String body = answer.get(30, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - killed) / 1e9;
            assertTrue(body.contains("error.mp.measurement") && body.contains("went away"), body);
            assertTrue(seconds < 2.0, "reported " + seconds + " s after the kill (the test had 18 s to go)");
        }
    }

    // ---- issue 21 -------------------------------------------------------------------------

    @Test
    @Order(8)
    void tenConcurrentElementBombsAreEachAParseErrorAndAnEchoStillSucceeds() throws Exception {
        // 4 MB of a million empty elements: counted while streaming, so no DOM (and no heap) is spent on them.
        String bomb = "<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\"e\">" + "<a/>".repeat(1_000_000) + "</nmwg:message>";
        List<CompletableFuture<HttpResponse<String>>> bombs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            bombs.add(http.sendAsync(post("/nmwg", utf8(bomb), "application/xml").timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        String echo = postNmwg("<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\"e\"><nmwg:metadata id=\"m\">"
                + "<nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>");
        assertTrue(echo.contains("success.echo"), echo);
        for (CompletableFuture<HttpResponse<String>> b : bombs) {
            HttpResponse<String> r = b.get(60, TimeUnit.SECONDS);
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(r.body().contains("error.common.parse_error") && r.body().contains("request holds more than 50000 elements"),
                    r.body());
        }
        assertEquals(200, get("/actuator/health").statusCode());
    }

    /** A request sent as raw bytes, and the exact answer it must get: the status and every one of the texts. */
    private record Exact(String name, String method, String path, List<String> headers, byte[] body, int status, List<String> texts) {
    }

    private static final byte[] C0AF = {(byte) 0xC0, (byte) 0xAF};
    private static final byte[] E080AF = {(byte) 0xE0, (byte) 0x80, (byte) 0xAF};
    private static final byte[] F08080AF = {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0xAF};

    private static List<Exact> issue21Cases() throws IOException {
        List<Exact> out = new ArrayList<>();
        String echo = "<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\"";
        String utf8Error = "request is not valid UTF-8: malformed or overlong byte sequence at byte ";
        // Overlong UTF-8 spelling '/' on every transport, each refused in its own terms.
        for (byte[] overlong : List.of(C0AF, E080AF, F08080AF)) {
            String form = overlong.length + "-byte overlong '/'";
            out.add(new Exact("SOAP 1.1 " + form, "POST", "/services/MeasurementService", List.of("Content-Type: text/xml",
                    "SOAPAction: \"\""), concat(utf8("<s:Envelope xmlns:s=\"" + Service.SOAP11
                    + "\"><s:Body>" + echo), overlong, utf8("\"/></s:Body></s:Envelope>")),
                    500, List.of("<faultcode>soap:Client</faultcode>", utf8Error)));
            out.add(new Exact("SOAP 1.2 " + form, "POST", "/services/MeasurementService12", List.of(
                    "Content-Type: application/soap+xml; charset=utf-8"), concat(utf8("<s:Envelope xmlns:s=\"" + Service.SOAP12
                    + "\"><s:Body>" + echo), overlong, utf8("\"/></s:Body></s:Envelope>")), 400,
                    List.of("<soap:Value>soap:Sender</soap:Value>", utf8Error)));
            out.add(new Exact("XML-RPC " + form, "POST", "/RPC2", List.of("Content-Type: text/xml"), concat(utf8(
                    "<?xml version=\"1.0\"?><methodCall><methodName>system.methodHelp</methodName><params><param><value><string>a"),
                    overlong, utf8("</string></value></param></params></methodCall>")), 200,
                    List.of("<name>faultCode</name><value><int>-32700</int></value>", utf8Error)));
            out.add(new Exact("/nmwg " + form, "POST", "/nmwg", List.of("Content-Type: application/xml"), concat(utf8(echo), overlong,
                    utf8("\"/>")), 200, List.of("error.common.parse_error", utf8Error)));
            out.add(new Exact("JSON " + form, "PUT", "/api/schedules/overlong", List.of("Content-Type: application/json"), concat(
                    utf8("{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1"), overlong, utf8("\",\"period\":\"PT1H\"}")),
                    400, List.of("{\"error\":\"" + utf8Error)));
        }
        // The cross-site guard: every value the binder takes as true acts.
        for (String on : List.of("on", "yes", "1", "YES", "True")) {
            out.add(new Exact("cross-site measure=" + on, "GET", "/api/diagnosis?dst=127.0.0.1&measure=" + on,
                    List.of("Sec-Fetch-Site: cross-site"), null, 403,
                    List.of("a request from another web site may not start tests or change anything here")));
            out.add(new Exact("cross-site refresh=" + on, "GET", "/api/cost?dst=127.0.0.1&bytes=1e6&refresh=" + on,
                    List.of("Sec-Fetch-Site: cross-site"), null, 403,
                    List.of("a request from another web site may not start tests or change anything here")));
        }
        // DNS rebinding: Host, Origin and Sec-Fetch-Site agree on a foreign name.
        String rebound = "Host 'rebind.attacker.example:PORT' is not a name this service answers to";
        out.add(new Exact("rebinding POST /nmwg", "POST", "/nmwg", List.of("Host: rebind.attacker.example:PORT",
                "Origin: http://rebind.attacker.example:PORT", "Sec-Fetch-Site: same-origin", "Content-Type: application/xml"),
                utf8(echo + "e\"/>"), 403, List.of(rebound)));
        out.add(new Exact("rebinding measure GET", "GET", "/api/diagnosis?dst=127.0.0.1&measure=true", List.of(
                "Host: rebind.attacker.example:PORT", "Sec-Fetch-Site: same-origin"), null, 403, List.of(rebound)));
        out.add(new Exact("rebinding SOAP", "POST", "/services/MeasurementService", List.of("Host: rebind.attacker.example:PORT",
                "Origin: http://rebind.attacker.example:PORT", "Content-Type: text/xml"), utf8(soap11(echo + "e\"/>")), 403,
                List.of(rebound)));
        out.add(new Exact("the service's own name acts", "POST", "/nmwg", List.of("Host: localhost:PORT",
                "Sec-Fetch-Site: same-origin", "Content-Type: application/xml"), utf8(echo + "e\"/>"), 200,
                List.of("success.echo")));
        // JSON query parameters: ASCII digits only.
        for (String limit : List.of("0x10", "%D9%A1%D9%A2", "%EF%BC%91%EF%BC%92", "%2310")) {
            out.add(new Exact("json limit=" + limit, "GET", "/api/paths?limit=" + limit, List.of(), null, 400,
                    List.of("is not an integer in ASCII digits")));
        }
        out.add(new Exact("json bytes=0x10", "GET", "/api/cost?dst=127.0.0.1&bytes=0x10", List.of(), null, 400,
                List.of("'0x10' is not a decimal number in ASCII digits")));
        // JSON bodies: duplicate keys, trailing garbage, NUL.
        String schedule = "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT1H\"";
        out.add(new Exact("json duplicate key", "PUT", "/api/schedules/dup", List.of("Content-Type: application/json"),
                utf8(schedule + ",\"dst\":\"127.0.0.2\"}"), 400,
                List.of("{\"error\":\"request body is not acceptable JSON: Duplicate field 'dst'")));
        out.add(new Exact("json trailing garbage", "PUT", "/api/schedules/trail", List.of("Content-Type: application/json"),
                utf8(schedule + "} {\"x\":1}"), 400, List.of("{\"error\":\"request body is not acceptable JSON: Trailing token")));
        out.add(new Exact("json escaped NUL", "PUT", "/api/schedules/nul", List.of("Content-Type: application/json"),
                utf8(schedule.replace("127.0.0.1", "127.0.0.1\\u0000") + "}"), 400,
                List.of("{\"error\":\"a JSON body may not hold NUL (\\\\u0000)\"}")));
        // An NMWG decimal that underflows to 0.
        out.add(new Exact("nmwg interval=1e-999", "POST", "/nmwg", List.of("Content-Type: application/xml"), utf8(msg("MeasurementRequest",
                "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/>"
                + "</nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\">"
                + "<nmwg:parameter name=\"interval\">1e-999</nmwg:parameter></nmwg:parameters></nmwg:metadata>" + data("m"))), 200,
                List.of("error.common.parameter", "parameter interval is '1e-999': too small to be told from 0")));
        // Client mistakes that were a 500 or soap:Server.
        out.add(new Exact("POST /error", "POST", "/error", List.of("Content-Type: application/json"), utf8("{}"), 404,
                List.of("{\"error\":\"/error is the service's error page, not a resource: nothing answers POST /error\"}")));
        out.add(new Exact("?wsdl=../../../../etc/passwd", "GET", "/services/MeasurementService?wsdl=../../../../etc/passwd", List.of(),
                null, 404, List.of("<faultcode>soap:Client</faultcode><faultstring>no WSDL document '../../../../etc/passwd' here")));
        out.add(new Exact("?xsd=../../../../etc/passwd", "GET", "/services/MeasurementService?xsd=../../../../etc/passwd", List.of(),
                null, 404, List.of("<faultcode>soap:Client</faultcode><faultstring>no schema document '../../../../etc/passwd' here")));
        out.add(new Exact("gzip-encoded SOAP", "POST", "/services/MeasurementService", List.of("Content-Type: text/xml",
                "Content-Encoding: gzip"), gzip(utf8(soap11(echo + "e\"/>"))), 415, List.of("<faultcode>soap:Client</faultcode>"
                + "<faultstring>Content-Encoding 'gzip' is not accepted: send the body uncompressed</faultstring>")));
        byte[] big = concat(utf8("<s:Envelope xmlns:s=\"" + Service.SOAP12 + "\"><s:Body><x>"), "y".repeat(50 * 1024 * 1024)
                .getBytes(StandardCharsets.US_ASCII), utf8("</x></s:Body></s:Envelope>"));
        out.add(new Exact("50 MB SOAP 1.2 body", "POST", "/services/MeasurementService12", List.of(
                "Content-Type: application/soap+xml; charset=utf-8"), big, 413, List.of("<soap:Value>soap:Sender</soap:Value>",
                "request body exceeds the limit of 4194304 bytes (nmws.xml.max-bytes)")));
        out.add(new Exact("PATCH on the SOAP endpoint", "PATCH", "/services/MeasurementService", List.of("Content-Type: text/xml"),
                utf8(soap11(echo + "e\"/>")), 405, List.of("Allow: GET, POST", "<faultcode>soap:Client</faultcode><faultstring>"
                + "the SOAP endpoint takes POST (a SOAP envelope) and GET (?wsdl), not PATCH</faultstring>")));
        return out;
    }

    @TestFactory
    @Order(9)
    Stream<DynamicTest> issue21MalformedBodiesAndClientMistakesGetTheirTransportsExactAnswer() throws IOException {
        return issue21Cases().stream().map(c -> DynamicTest.dynamicTest(c.name, () -> {
            List<String> headers = c.headers.stream().map(h -> h.replace("PORT", String.valueOf(port))).toList();
            String answer = rawExchange(c.method, c.path, headers, c.body);
            String shown = answer.length() > 800 ? answer.substring(0, 800) + "..." : answer;
            assertTrue(answer.startsWith("HTTP/1.1 " + c.status + " "), c.name + ": " + shown);
            for (String t : c.texts) {
                assertTrue(answer.contains(t.replace("PORT", String.valueOf(port))), c.name + " lacks '" + t + "': " + shown);
            }
        }));
    }

    @Test
    @Order(10)
    void anImportWithA300MibTextNodeIsRefused413AndTheServiceStillAnswers() throws Exception {
        byte[] head = utf8("<nmwg:store xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"store\"><nmwg:metadata id=\"m\">"
                + "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"x\">");
        byte[] tail = utf8("</nmwg:parameter></nmwg:parameters></nmwg:metadata></nmwg:store>");
        long text = 300L * 1024 * 1024;
        String answer;
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(120_000);
            OutputStream out = s.getOutputStream();
            out.write(utf8("POST /archive/store HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Api-Key: " + ADMIN_KEY
                    + "\r\nContent-Type: application/xml\r\nConnection: close\r\nContent-Length: " + (head.length + text + tail.length)
                    + "\r\n\r\n"));
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    out.write(head);
                    byte[] chunk = "x".repeat(1 << 20).getBytes(StandardCharsets.US_ASCII);
                    for (long sent = 0; sent < text; sent += chunk.length) {
                        out.write(chunk);
                    }
                    out.write(tail);
                } catch (IOException closedEarly) {
                    // the service answered before reading it all, as it should
                }
            });
            answer = readAnswer(s.getInputStream());
            writer.get(120, TimeUnit.SECONDS);
        }
        assertTrue(answer.startsWith("HTTP/1.1 413 "), answer);
        assertTrue(answer.contains("nmwg:store holds a text node of more than 25165824 characters"), answer);
        assertEquals(200, get("/actuator/health").statusCode());
    }

    /** Sends a request as written, on a connection of its own, and returns the whole answer (status line, headers, body). */
    private String rawExchange(String method, String path, List<String> headers, byte[] body) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(60_000);
            StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
            if (headers.stream().noneMatch(h -> h.regionMatches(true, 0, "Host:", 0, 5))) {
                head.append("Host: 127.0.0.1:").append(port).append("\r\n");
            }
            for (String h : headers) {
                head.append(h).append("\r\n");
            }
            head.append("Connection: close\r\n");
            if (body != null) {
                head.append("Content-Length: ").append(body.length).append("\r\n");
            }
            OutputStream out = s.getOutputStream();
            out.write(utf8(head.append("\r\n").toString()));
            if (body != null) {
                out.write(body);
            }
            out.flush();
            return readAnswer(s.getInputStream());
        }
    }

    /** Reads an answer to its end (the connection closes), with a chunked body put back together. */
    private static String readAnswer(InputStream in) throws IOException {
        byte[] all;
        try {
            all = in.readAllBytes();
        } catch (java.net.SocketException reset) {
            throw new IllegalStateException("the connection was reset before an answer came", reset);
        }
        int split = -1;
        for (int i = 0; i + 3 < all.length && split < 0; i++) {
            if (all[i] == '\r' && all[i + 1] == '\n' && all[i + 2] == '\r' && all[i + 3] == '\n') {
                split = i;
            }
        }
        if (split < 0) {
            return new String(all, StandardCharsets.UTF_8);
        }
        String head = new String(all, 0, split, StandardCharsets.ISO_8859_1);
        int at = split + 4;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (head.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
            while (at < all.length) {
                int eol = at;
                while (eol + 1 < all.length && !(all[eol] == '\r' && all[eol + 1] == '\n')) {
                    eol++;
                }
                int size = Integer.parseInt(new String(all, at, eol - at, StandardCharsets.ISO_8859_1).trim().split(";")[0], 16);
                if (size == 0) {
                    break;
                }
                body.write(all, eol + 2, size);
                at = eol + 2 + size + 2;
            }
        } else {
            body.write(all, at, all.length - at);
        }
        return head + "\r\n\r\n" + body.toString(StandardCharsets.UTF_8);
    }

    private static byte[] gzip(byte[] plain) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(b)) {
            z.write(plain);
        }
        return b.toByteArray();
    }

    private static String sha256(String key) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String line(Socket s) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            b.write(c);
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    private String postNmwg(String body) throws Exception {
        return http.send(post("/nmwg", utf8(body), "application/xml").timeout(Duration.ofSeconds(120)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private long rssKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + service.pid() + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no VmRSS for the service");
    }

    // ---- building messages -----------------------------------------------------------------

    private static Case nmwgCase(String name, Transport t, byte[] body) {
        return new Case(name, t, body, ANY_ERROR_STATUS, NMWG_ERROR);
    }

    private static String msg(String type, String body) {
        return "<nmwg:message " + NMWG + " " + SELECT + " type=\"" + type + "\" id=\"msg\">" + body + "</nmwg:message>";
    }

    private static String data(String ref) {
        return "<nmwg:data id=\"d-" + ref + "\" metadataIdRef=\"" + ref + "\"/>";
    }

    private static String dataN(String ref, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append("<nmwg:data id=\"d").append(i).append("\" metadataIdRef=\"").append(ref).append("\"/>");
        }
        return b.toString();
    }

    private static String selectTime(String value) {
        return "<nmwg:metadata id=\"sel\"><select:subject id=\"ss\" metadataIdRef=\"m\"/><select:parameters id=\"sp\">"
                + "<nmwg:parameter name=\"time\" operator=\"gte\">" + value + "</nmwg:parameter></select:parameters></nmwg:metadata>";
    }

    private static String maKey(String key) {
        return "<nmwg:metadata id=\"k\"><nmwg:key><nmwg:parameters id=\"kp\"><nmwg:parameter name=\"maKey\">" + key
                + "</nmwg:parameter></nmwg:parameters></nmwg:key></nmwg:metadata>";
    }

    private static String soap11(String body) {
        return "<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"><s:Body>" + body + "</s:Body></s:Envelope>";
    }

    private static String soap12(String body) {
        return "<s:Envelope xmlns:s=\"" + Service.SOAP12 + "\"><s:Body>" + body + "</s:Body></s:Envelope>";
    }

    private static String call(String method, String param) {
        return "<?xml version=\"1.0\"?><methodCall><methodName>" + method + "</methodName><params>"
                + (param.isEmpty() ? "" : "<param>" + param + "</param>") + "</params></methodCall>";
    }

    private static String struct(String member, String value) {
        return "<value><struct><member><name>" + member + "</name><value>" + value + "</value></member></struct></value>";
    }

    private static String laughs() {
        StringBuilder b = new StringBuilder("<!DOCTYPE nmwg:message [<!ENTITY l0 \"lol\">");
        for (int i = 1; i <= 9; i++) {
            b.append("<!ENTITY l").append(i).append(" \"").append(("&l" + (i - 1) + ";").repeat(10)).append("\">");
        }
        return b.append("]>").toString();
    }

    private static String attributes(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(" a").append(i).append("=\"v\"");
        }
        return b.toString();
    }

    private static String xmlEscape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("'", "&apos;");
    }

    private static String printable(String s) {
        return s.replaceAll("[^\\x20-\\x7e]", "?");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }
}
