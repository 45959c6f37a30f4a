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
import java.util.function.BiFunction;
import java.util.function.Function;
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
 * default settings, each case naming the exact answer it must get (the HTTP status and the NMWG
 * error code, SOAP fault code, XML-RPC faultCode, JSON error or responder line, with a fragment
 * of its text): XML attacks over every XML transport, malformed NMWG, hostile parameters and
 * destinations on every transport that starts a test (/nmwg, SOAP 1.1 and 1.2, XML-RPC
 * nmwg.message and NetworkMeasurementRequest, JSON), XML-RPC, SOAP envelopes, the JSON API and
 * the responder's control port. An internal error fails any case, whatever it expected (issue 21). The service runs as its own process with a small heap, so its
 * resident memory can be read from /proc under the raw-data and worker attacks; afterwards it
 * still answers and still measures.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileSuiteTest {
    /** Resident memory the service may reach under attack: its heap (-Xmx384m) plus the JVM's own. */
    private static final long MAX_RSS_KB = 900 * 1024;
    private static final String NMWG = "xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\"";
    private static final String V1 = "http://www.ggf.org/namespaces/2004/10/gridNetworkMonitoring";
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

    /**
     * A request and the one answer it must get: the HTTP status (0 for the responder's port), the
     * code the answer carries and a fragment of its text. The code is an NMWG status eventType
     * (every status in the answer must be it), a SOAP fault code (soap:Client, soap:Sender), an
     * XML-RPC faultCode ("xmlrpc -32700"), "json" for a JSON error body, or the responder's reply
     * verb ("NMP/1 ERR"), or "HANGUP" where closing without a word is the protocol's answer.
     */
    private record Case(String name, Transport transport, String path, byte[] body, Expect expect) {
        Case(String name, Transport transport, byte[] body, Expect expect) {
            this(name, transport, null, body, expect);
        }
    }

    private record Expect(int status, String code, String text) {
    }

    /** What came back, read the same way for every transport. */
    private record Answer(int status, String code, String text, String body) {
    }

    private enum Transport {
        /** POST /nmwg. */ HTTP,
        /** SOAP 1.1 at /services/MeasurementService: the body is wrapped in an envelope unless it is one. */ SOAP11,
        /** SOAP 1.2 at /services/MeasurementService12. */ SOAP12,
        /** POST /RPC2 with the body as the whole methodCall. */ XMLRPC,
        /** XML-RPC nmwg.message with the body as its string. */ XMLRPC_NMWG,
        /** GET of the path. */ GET,
        /** PUT of a JSON body to the path. */ PUT_JSON,
        /** The responder's control port. */ RESPONDER
    }

    private static Expect nmwg(String code, String text) {
        return new Expect(200, code, text);
    }

    private static Expect soapClient(String text) {
        return new Expect(500, "soap:Client", text);
    }

    private static Expect soapSender(String text) {
        return new Expect(400, "soap:Sender", text);
    }

    private static Expect rpcFault(int code, String text) {
        return new Expect(200, "xmlrpc " + code, text);
    }

    private static Expect json(int status, String text) {
        return new Expect(status, "json", text);
    }

    /** The suite's exact size: a case lost or added by accident changes it. */
    private static final int CASES = 1687;

    @TestFactory
    @Order(1)
    Stream<DynamicTest> everyHostileRequestGetsItsExactAnswerAndLeaksNothing() {
        List<Case> all = allCases();
        cases = all.size();
        return all.stream().map(c -> DynamicTest.dynamicTest(c.transport + " " + c.name, () -> check(c)));
    }

    private static List<Case> allCases() {
        List<Case> all = new ArrayList<>();
        all.addAll(xmlAttacks());
        all.addAll(malformedNmwg());
        all.addAll(hostileParameters());
        all.addAll(hostileDestinations());
        all.addAll(costRequests());
        all.addAll(xmlRpc());
        all.addAll(soapEnvelopes());
        all.addAll(jsonApi());
        all.addAll(responderPort());
        return all;
    }

    @Test
    @Order(2)
    void theSuiteHoldsExactlyItsCases() {
        assertEquals(CASES, allCases().size(), "hostile cases");
        assertEquals(CASES, cases, "hostile cases run");
    }

    /** How each transport refuses a request body that is not acceptable XML, for one attack. */
    private record Refusal(Expect http, Expect soap11, Expect soap12, Expect xmlRpc, Expect inNmwgMessage) {
    }

    private static List<Case> xmlAttacks() {
        String doc = "<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\"e\"><nmwg:metadata id=\"m\"><nmwg:eventType>"
                + "BODY</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";
        String parse = "error.common.parse_error";
        List<Object[]> attacks = new ArrayList<>();
        String dtd = "Error reading XMLStreamReader: Received event DTD, instead of START_ELEMENT or END_ELEMENT.";
        Refusal doctype = new Refusal(nmwg(parse, "DOCTYPE declarations are not allowed"), soapClient(dtd), soapSender(dtd),
                rpcFault(-32700, "DOCTYPE declarations are not allowed"), nmwg(parse, "DOCTYPE declarations are not allowed"));
        attacks.add(new Object[] {"xxe file", "<!DOCTYPE nmwg:message [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>", "&x;", doctype});
        attacks.add(new Object[] {"xxe http", "<!DOCTYPE nmwg:message [<!ENTITY x SYSTEM \"http://127.0.0.1:1/x\">]>", "&x;", doctype});
        attacks.add(new Object[] {"billion laughs", laughs(), "&l9;", doctype});
        attacks.add(new Object[] {"external dtd", "<!DOCTYPE nmwg:message SYSTEM \"http://127.0.0.1:1/a.dtd\">", "x", doctype});
        attacks.add(new Object[] {"parameter entity",
                "<!DOCTYPE nmwg:message [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]>", "x", doctype});
        attacks.add(new Object[] {"internal entity", "<!DOCTYPE nmwg:message [<!ENTITY e \"echo\">]>", "&e;", doctype});
        attacks.add(new Object[] {"deep nesting", "", "<a>".repeat(5000) + "</a>".repeat(5000), new Refusal(nmwg(parse, "request nests elements deeper than 64"), soapClient("Could not parse the XML stream caused by: Maximum Element Depth limit (67) Exceeded."), soapSender("Could not parse the XML stream caused by: Maximum Element Depth limit (67) Exceeded."), rpcFault(-32600, "unexpected <a> inside a scalar"), nmwg(parse, "request nests elements deeper than 64"))});
        attacks.add(new Object[] {"5 MB text", "", "x".repeat(5 * 1024 * 1024), new Refusal(nmwg(parse, "request of 4194305 bytes exceeds the limit of 4194304 bytes"), new Expect(413, "soap:Client", "request body exceeds the limit of 4194304 bytes (nmws.xml.max-bytes)"),
                new Expect(413, "soap:Sender", "request body exceeds the limit of 4194304 bytes (nmws.xml.max-bytes)"), rpcFault(-32700, "request of 4194305 bytes exceeds the limit of 4194304"), rpcFault(-32700, "request of 4194305 bytes exceeds the limit of 4194304"))});
        attacks.add(new Object[] {"100k elements", "", "<b/>".repeat(100_000), new Refusal(nmwg(parse, "request holds more than 50000 elements"), soapClient("Could not parse the XML stream caused by: Maximum Number of Child Elements limit (50000) Exceeded."), soapSender("Could not parse the XML stream caused by: Maximum Number of Child Elements limit (50000) Exceeded."), rpcFault(-32600, "unexpected <b> inside a scalar"), nmwg(parse, "request holds more than 50000 elements"))});
        attacks.add(new Object[] {"200 attributes", "", "<b " + attributes(200) + "/>", new Refusal(nmwg(parse, "an element has more than 64 attributes"), nmwg(parse, "an element has more than 64 attributes"),
                nmwg(parse, "an element has more than 64 attributes"), rpcFault(-32600, "unexpected <b> inside a scalar"),
                nmwg(parse, "an element has more than 64 attributes"))});
        attacks.add(new Object[] {"unclosed", "", "<open>", new Refusal(nmwg(parse, "The element type \"open\" must be terminated by the matching end-tag \"</open>\"."), soapClient("Could not parse the XML stream caused by: Unexpected close tag </nmwg:eventType>; expected </open>."), soapSender("Could not parse the XML stream caused by: Unexpected close tag </nmwg:eventType>; expected </open>."), rpcFault(-32600, "unexpected <open> inside a scalar"), nmwg(parse, "The element type \"open\" must be terminated by the matching end-tag \"</open>\"."))});
        attacks.add(new Object[] {"cdata unclosed", "", "<![CDATA[x", new Refusal(nmwg(parse, "XML document structures must start and end within the same entity."), soapClient("Could not parse the XML stream caused by: Unexpected EOF in CDATA section"), soapSender("Could not parse the XML stream caused by: Unexpected EOF in CDATA section"), rpcFault(-32700, "request is not acceptable XML: Unexpected EOF in CDATA section"), nmwg(parse, "XML document structures must start and end within the same entity."))});
        attacks.add(new Object[] {"nul", "", "a\u0000b", new Refusal(nmwg(parse, "An invalid XML character (Unicode: 0x0) was found in the element content of the document."), soapClient("Could not parse the XML stream caused by: Illegal character (NULL, unicode 0) encountered: not valid in any content"), soapSender("Could not parse the XML stream caused by: Illegal character (NULL, unicode 0) encountered: not valid in any content"), rpcFault(-32700, "request is not acceptable XML: Illegal character (NULL, unicode 0) encountered"), rpcFault(-32700, "request is not acceptable XML: Illegal character (NULL, unicode 0) encountered"))});
        attacks.add(new Object[] {"undeclared prefix", "", "<zz:x/>", new Refusal(nmwg(parse, "The prefix \"zz\" for element \"zz:x\" is not bound."), soapClient("Could not parse the XML stream caused by: Undeclared namespace prefix \"zz\""), soapSender("Could not parse the XML stream caused by: Undeclared namespace prefix \"zz\""), rpcFault(-32600, "unexpected <zz:x> inside a scalar"), nmwg(parse, "The prefix \"zz\" for element \"zz:x\" is not bound."))});
        attacks.add(new Object[] {"3 MB attribute", "", "<b a=\"" + "y".repeat(3 * 1024 * 1024) + "\"/>", new Refusal(nmwg(parse, "an attribute value exceeds 65536 characters"), soapClient("Could not parse the XML stream caused by: Maximum attribute size limit (65536) exceeded."), soapSender("Could not parse the XML stream caused by: Maximum attribute size limit (65536) exceeded."), rpcFault(-32700, "request is not acceptable XML: Maximum attribute size limit (524288) exceeded"), nmwg(parse, "an attribute value exceeds 65536 characters"))});
        // A stylesheet instruction and an XInclude are never acted on: the echo answers, and nothing they point at comes back.
        Expect echoed = nmwg("success.echo", "The echo request has passed.");
        attacks.add(new Object[] {"xinclude", "", "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"file:///etc/passwd\"/>",
                new Refusal(echoed, echoed, echoed, rpcFault(-32600, "unexpected <xi:include> inside a scalar"), echoed)});
        attacks.add(new Object[] {"stylesheet pi", "<?xml-stylesheet type=\"text/xsl\" href=\"file:///etc/passwd\"?>", "x",
                new Refusal(echoed, echoed, echoed, rpcFault(-32601, "no method 'x'"), echoed)});
        List<Case> out = new ArrayList<>();
        for (Object[] a : attacks) {
            String name = "xml " + a[0];
            String prolog = (String) a[1];
            String inner = doc.replace("BODY", (String) a[2]);
            Refusal r = (Refusal) a[3];
            out.add(new Case(name, Transport.HTTP, utf8(prolog + inner), r.http));
            out.add(new Case(name, Transport.SOAP11, utf8(prolog + soap11(inner)), r.soap11));
            out.add(new Case(name, Transport.SOAP12, utf8(prolog + soap12(inner)), r.soap12));
            out.add(new Case(name, Transport.XMLRPC, utf8(prolog + "<methodCall><methodName>system.methodHelp</methodName>"
                    + "<params><param><value><string>" + a[2] + "</string></value></param></params></methodCall>"), r.xmlRpc));
            out.add(new Case(name, Transport.XMLRPC_NMWG, utf8(prolog + inner), r.inNmwgMessage));
        }
        // Byte-level: overlong and invalid UTF-8, a declared encoding the bytes do not follow, nothing, too little.
        String notUtf8 = "request is not valid UTF-8: malformed or overlong byte sequence at byte ";
        String notEnvelope = "the root element {http://ggf.org/ns/nmwg/base/2.0/}";
        Object[][] bytes = {
            {"overlong utf-8", concat(utf8("<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\""), new byte[] {(byte) 0xC0,
                    (byte) 0xAF}, utf8("\"/>")), new Refusal(nmwg(parse, notUtf8), soapClient(notUtf8), soapSender(notUtf8),
                    rpcFault(-32700, notUtf8), null)},
            {"invalid utf-8", concat(utf8("<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\""), new byte[] {(byte) 0xFF,
                    (byte) 0xFE}, utf8("\"/>")), new Refusal(nmwg(parse, notUtf8), soapClient(notUtf8), soapSender(notUtf8),
                    rpcFault(-32700, notUtf8), null)},
            {"utf-16 declared", utf8("<?xml version=\"1.0\" encoding=\"UTF-16\"?><nmwg:message " + NMWG + " type=\"EchoRequest\"/>"),
                new Refusal(nmwg(parse, "(line 1, column 40): Content is not allowed in prolog."), new Expect(500, "soap:VersionMismatch",
                        notEnvelope + "message"), new Expect(500, "soap:VersionMismatch", notEnvelope + "message"), rpcFault(-32700,
                        "Declared encoding 'UTF-16' uses 2 bytes per character; but physical encoding appeared to use 1"),
                        nmwg(parse, "(line 1, column 40): Content is not allowed in prolog."))},
            {"empty", new byte[0], new Refusal(nmwg(parse, "empty request: expected an NMWG XML message"),
                    soapClient("Error reading XMLStreamReader: Unexpected EOF in prolog"), soapSender(
                    "Error reading XMLStreamReader: Unexpected EOF in prolog"), rpcFault(-32700, "empty request: expected an XML-RPC"
                    + " methodCall"), nmwg(parse, "empty request: expected an NMWG XML message"))},
            {"lone <", utf8("<"), new Refusal(nmwg(parse, "XML document structures must start and end within the same entity."),
                    soapClient("Error reading XMLStreamReader: Unexpected EOF in prolog"), soapSender(
                    "Error reading XMLStreamReader: Unexpected EOF in prolog"), rpcFault(-32700, "request is not acceptable XML:"
                    + " Unexpected EOF in prolog"), nmwg(parse, "XML document structures must start and end within the same entity."))},
            {"not xml", utf8("not xml at all"), new Refusal(nmwg(parse, "(line 1, column 1): Content is not allowed in prolog."),
                    soapClient("Error reading XMLStreamReader: Unexpected character 'n' (code 110) in prolog; expected '<'"),
                    soapSender("Error reading XMLStreamReader: Unexpected character 'n' (code 110) in prolog; expected '<'"),
                    rpcFault(-32700, "request is not acceptable XML: Unexpected character 'n' (code 110) in prolog; expected '<'"),
                    nmwg(parse, "(line 1, column 1): Content is not allowed in prolog."))}};
        for (Object[] b : bytes) {
            String name = "bytes " + b[0];
            byte[] body = (byte[]) b[1];
            Refusal r = (Refusal) b[2];
            out.add(new Case(name, Transport.HTTP, body, r.http));
            out.add(new Case(name, Transport.SOAP11, body, r.soap11));
            out.add(new Case(name, Transport.SOAP12, body, r.soap12));
            out.add(new Case(name, Transport.XMLRPC, body, r.xmlRpc));
            // nmwg.message's string is XML-RPC text, so only bytes that are text can go into it
            if (!b[0].toString().contains("utf-8")) {
                out.add(new Case(name, Transport.XMLRPC_NMWG, body, r.inNmwgMessage));
            }
        }
        return out;
    }

    /** One NMWG message answered with one code on every transport that carries NMWG: /nmwg, SOAP 1.1 and 1.2, nmwg.message. */
    private static List<Case> everyNmwgTransport(String name, String message, Expect e) {
        return List.of(new Case(name, Transport.HTTP, utf8(message), e), new Case(name, Transport.SOAP11, utf8(soap11(message)), e),
                new Case(name, Transport.SOAP12, utf8(soap12(message)), e), new Case(name, Transport.XMLRPC_NMWG, utf8(message), e));
    }

    private static List<Case> malformedNmwg() {
        String subject = "<nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"DST\"/></nmwgt:endPointPair>"
                + "</nmwg:subject>";
        String rr = "<nmwg:metadata id=\"m\">" + subject.replace("DST", "127.0.0.1")
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>";
        String structure = "error.common.structure";
        List<Case> out = new ArrayList<>();
        out.addAll(everyNmwgTransport("nmwg unknown type", msg("TeleportRequest", rr + data("m")),
                nmwg("error.common.action_not_supported", "message type 'TeleportRequest' is not supported")));
        out.addAll(everyNmwgTransport("nmwg no type", "<nmwg:message " + NMWG + " id=\"x\">" + rr + data("m") + "</nmwg:message>",
                nmwg("error.common.parse_error", "nmwg:message has no type attribute")));
        out.addAll(everyNmwgTransport("nmwg dangling ref", msg("SetupDataRequest", rr + data("absent")), nmwg(structure, "data 'd-absent' refers to metadata 'absent', which is not in the message")));
        out.addAll(everyNmwgTransport("nmwg ref cycle", msg("SetupDataRequest", "<nmwg:metadata id=\"a\" metadataIdRef=\"b\"/>"
                + "<nmwg:metadata id=\"b\" metadataIdRef=\"a\"/>" + data("a")), nmwg(structure, "metadata references form a cycle through 'a'")));
        StringBuilder chain = new StringBuilder("<nmwg:metadata id=\"c0\"><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>");
        for (int i = 1; i < 200; i++) {
            chain.append("<nmwg:metadata id=\"c").append(i).append("\" metadataIdRef=\"c").append(i - 1).append("\"/>");
        }
        out.addAll(everyNmwgTransport("nmwg chain 200 deep", msg("SetupDataRequest", chain + data("c199")), nmwg(structure, "metadata references are chained deeper than 64")));
        out.addAll(everyNmwgTransport("nmwg duplicate metadata ids", msg("SetupDataRequest", rr + rr + data("m")),
                nmwg(structure, "two nmwg:metadata have the id 'm'")));
        // Two data of one id are answered, not refused (issue 20: perfSONAR's TracerouteMA sends them;
        // nothing refers to a data id): PerfsonarRequestsTest in the service pins it.
        out.addAll(everyNmwgTransport("nmwg 200 triggers", msg("SetupDataRequest", rr + dataN("m", 200)), nmwg(structure, "message has 200 data triggers; this service answers at most 64")));
        out.addAll(everyNmwgTransport("nmwg 10 new tests", msg("MeasurementRequest", rr + dataN("m", 10)),
                nmwg("error.common.parameter", "MeasurementRequest asks for 10 tests")));
        out.addAll(everyNmwgTransport("nmwg eventType garbage", msg("MeasurementRequest", rr.replace("path.delay.roundTrip",
                "no.such.thing") + data("m")), nmwg("error.common.event_type_not_supported",
                "eventType 'no.such.thing' is not supported; supported: path.delay.roundTrip")));
        out.addAll(everyNmwgTransport("nmwg eventType 10k", msg("MeasurementRequest", rr.replace("path.delay.roundTrip",
                "e".repeat(10_000)) + data("m")), nmwg("error.common.event_type_not_supported",
                "eventType 'eeeeeeee")));
        out.addAll(everyNmwgTransport("nmwg no dst", msg("MeasurementRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"/>"
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>" + data("m")), nmwg("error.common.subject",
                "MeasurementRequest needs a subject with an endPointPair")));
        out.addAll(everyNmwgTransport("nmwg sql in stored dst", msg("SetupDataRequest", rr.replace("127.0.0.1", "' OR 1=1 --")
                + data("m")), nmwg("error.common.subject", "subject: '' OR 1=1 --' is neither an IP address nor a host name")));
        out.addAll(everyNmwgTransport("nmwg select time garbage", msg("SetupDataRequest", rr + selectTime("yesterday") + data("sel")),
                nmwg("error.common.parameter", "time parameter 'time gte' is 'yesterday': expected unix seconds or ISO 8601")));
        out.addAll(everyNmwgTransport("nmwg select time 1e309", msg("SetupDataRequest", rr + selectTime("1e309") + data("sel")),
                nmwg("error.common.parameter", "time parameter 'time gte' is '1e309': expected unix seconds or ISO 8601")));
        out.addAll(everyNmwgTransport("nmwg maKey injection", msg("SetupDataRequest", maKey("1 OR 1=1") + data("k")),
                nmwg("error.ma.query", "maKey '1 OR 1=1' is not a key this archive issued")));
        out.addAll(everyNmwgTransport("nmwg maKey 5000", msg("SetupDataRequest", maKey("9".repeat(5000)) + data("k")),
                nmwg("error.ma.query", "is not a key this archive issued")));
        out.addAll(everyNmwgTransport("nmwg perHop maybe", msg("MeasurementRequest", rr.replace("</nmwg:metadata>",
                "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"perHop\">maybe</nmwg:parameter></nmwg:parameters></nmwg:metadata>")
                .replace("path.delay.roundTrip", "path.bandwidth.capacity") + data("m")), nmwg("error.common.parameter", "parameter perHop is 'maybe': expected true or false")));
        out.addAll(everyNmwgTransport("nmwg raw yes", msg("SetupDataRequest", rr.replace("</nmwg:metadata>",
                "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"raw\">yes</nmwg:parameter></nmwg:parameters></nmwg:metadata>")
                + data("m")), nmwg("error.common.parameter", "parameter raw is 'yes': expected true or false")));
        // At the SOAP 1.1 endpoint CXF refuses a body element no WSDL operation names as an unknown message part (unless
        // the SOAPAction names NMWG's operation); at the 1.2 endpoint, as on the other transports, the NMWG handler does.
        String other = "<nmwg:message xmlns:nmwg=\"http://example.org/not\" type=\"EchoRequest\"/>";
        out.addAll(everyNmwgTransport("nmwg wrong namespace", other, nmwg("error.common.parse_error", "expected an nmwg:message in"
                + " namespace http://ggf.org/ns/nmwg/base/2.0/, got {http://example.org/not}message")).stream()
                .map(c -> c.transport != Transport.SOAP11 ? c : new Case(c.name, c.transport, c.body, soapClient(
                        "Message part {http://example.org/not}message was not recognized."))).toList());
        out.addAll(everyNmwgTransport("nmwg not a message", "<nmwg:store " + NMWG + "/>", nmwg("error.common.parse_error",
                "expected an nmwg:message in namespace http://ggf.org/ns/nmwg/base/2.0/, got {http://ggf.org/ns/nmwg/base/2.0/}store"))
                .stream().map(c -> c.transport != Transport.SOAP11 ? c : new Case(c.name, c.transport, c.body, soapClient(
                        "Message part {http://ggf.org/ns/nmwg/base/2.0/}store was not recognized."))).toList());
        out.addAll(everyNmwgTransport("nmwg no data", msg("SetupDataRequest", rr), nmwg(structure,
                "SetupDataRequest has no nmwg:data trigger: nothing to answer")));
        out.addAll(everyNmwgTransport("nmwg no eventType to measure", msg("MeasurementRequest", "<nmwg:metadata id=\"m\">"
                + subject.replace("DST", "127.0.0.1") + "</nmwg:metadata>" + data("m")), nmwg("error.common.event_type_not_supported",
                "metadata 'm' names no eventType; supported: path.delay.roundTrip")));
        return out;
    }

    /** The values no number parameter takes, and what names them. */
    private static final List<String> BAD_NUMBERS = List.of("-1", "1e309", "NaN", "Infinity", "0x10", "\u0661\u0662",
            "99999999999999999999", "1,5", "+-1", "abc", "1 2", "0x1p3", "\uff11", "1_000", "--1", "1e", ".", "0b101");

    private static List<Case> hostileParameters() {
        List<Case> out = new ArrayList<>();
        // each parameter's range as the refusal words it, and whether it is a decimal (which reads 1e309 and 20 digits)
        String[][] params = {{"count", "1..100000", "integer"}, {"interval", "0.0..60.0", "number"}, {"packetSize", "32..9000", "integer"},
            {"timeout", "0.001..60.0", "number"}, {"ttl", "0..255", "integer"}, {"port", "1..65535", "integer"}};
        for (String[] p : params) {
            String param = p[0];
            for (String v : BAD_NUMBERS) {
                String name = "param " + param + "=" + printable(v);
                String m = msg("MeasurementRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                        + "<nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                        + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\">"
                        + "<nmwg:parameter name=\"" + param + "\">" + xmlEscape(v) + "</nmwg:parameter></nmwg:parameters></nmwg:metadata>"
                        + data("m"));
                boolean read = v.equals("-1") || p[2].equals("number") && (v.equals("1e309") || v.equals("99999999999999999999"));
                String why = "parameter " + param + " is " + (read ? v + ": must be " + p[1]
                        : "'" + v + "': expected " + (p[2].equals("integer") ? "an integer " : "a number ") + p[1]);
                out.addAll(everyNmwgTransport(name, m, nmwg("error.common.parameter", why)));
                out.add(new Case(name, Transport.XMLRPC, utf8(networkMeasurementRequest("127.0.0.1", "path.delay.roundTrip",
                        param, v)), rpcFault(5, "Request: " + why)));
                out.addAll(everyV1Transport(name, v1Request("127.0.0.1", "path.delay.roundTrip", param, v), nmwg("v1 Request", why)));
                out.add(new Case(name, Transport.PUT_JSON, "/api/schedules/hostile-" + param, utf8("{\"characteristic\":"
                        + "\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT1H\",\"parameters\":{\"" + param + "\":\""
                        + jsonEscape(v) + "\"}}"), json(400, why)));
            }
        }
        for (String bw : List.of("-5M", "1e400M", "12X", "NaNM", "M", "5MM", "0.01M", "")) {
            String name = "param bandwidthLimit=" + bw;
            String m = msg("MeasurementRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                    + "<nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                    + "<nmwg:eventType>path.bandwidth.achievable.UDP</nmwg:eventType><nmwg:parameters id=\"p\">"
                    + "<nmwg:parameter name=\"bandwidthLimit\">" + bw + "</nmwg:parameter></nmwg:parameters></nmwg:metadata>"
                    + data("m"));
            // 0.01 Mbit/s is a rate, but 1000 frames at it would take 20 minutes
            String why = bw.equals("0.01M") ? "count 1000 x interval 1.177600 s + timeout 0.500 s = 1178.1 s exceeds this service's"
                    + " limit of 120 s" : bw.equals("-5M") || bw.equals("1e400M") ? "parameter bandwidthLimit is " + bw
                    + ": must be 1k..100G bits/s" : "parameter bandwidthLimit is '" + bw + "': expected bits/s such as 120M";
            out.addAll(everyNmwgTransport(name, m, nmwg("error.common.parameter", why)));
            out.add(new Case(name, Transport.XMLRPC, utf8(networkMeasurementRequest("127.0.0.1", "path.bandwidth.achievable.UDP",
                    "bandwidthLimit", bw)), rpcFault(5, "Request: " + why)));
            out.addAll(everyV1Transport(name, v1Request("127.0.0.1", "path.bandwidth.achievable.UDP", "bandwidthLimit", bw),
                    nmwg("v1 Request", why)));
            out.add(new Case(name, Transport.PUT_JSON, "/api/schedules/hostile-bw", utf8("{\"characteristic\":"
                    + "\"path.bandwidth.achievable.UDP\",\"dst\":\"127.0.0.1\",\"period\":\"PT1H\",\"parameters\":{\"bandwidthLimit\":\""
                    + bw + "\"}}"), json(400, why)));
        }
        return out;
    }

    /**
     * Destinations no test may go to, on every transport that starts one (NMWG without a declared type, so the address
     * itself is judged): what each is refused for, and where PUT /api/schedules and GET /api/diagnosis word it otherwise.
     */
    private static List<Case> hostileDestinations() {
        String neither = "' is neither an IP address nor a host name";
        String notAHost = " is not a host (unspecified, multicast or broadcast)";
        Object[][] bad = {
            {"-oProxyCommand=x", "'-oProxyCommand=x" + neither, null, null},
            {"127.0.0.1;rm -rf /", "'127.0.0.1;rm -rf /" + neither, null, null},
            {"h".repeat(300), "endpoint 'hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh...' is longer than 253 characters",
                "schedule hostile-dst: dst is required (at most 255 characters)", null},
            {"::ffff:", "'::ffff:' is not an IPv6 address", null, null},
            {"' OR 1=1 --", "'' OR 1=1 --" + neither, null, null},
            {"$(reboot)", "'$(reboot)" + neither, null, null},
            {"127.0.0.1\n127.0.0.2", neither, null, null},
            {"0.0.0.0", "destination 0.0.0.0" + notAHost, null, null},
            {"255.255.255.255", "destination 255.255.255.255" + notAHost, null, null},
            {"224.0.0.1", "destination 224.0.0.1" + notAHost, null, null},
            {"", "endpoint has no address", "schedule hostile-dst: dst is required (at most 255 characters)",
                "a diagnosis needs a destination"},
            {"127.0.0.1:99999", "'127.0.0.1:99999' is not an IPv6 address", null, null},
            {"[::1", "'[::1" + neither, null, null},
            {"file:///etc/passwd", "'file:///etc/passwd" + neither, null, null},
            // the system resolver's old numeric forms of 127.0.0.1 (0177 is octal to it)
            {"127.1", "'127.1" + neither, null, null},
            {"0177.0.0.1", "'0177.0.0.1" + neither, null, null},
            {"2130706433", "'2130706433" + neither, null, null},
            {"017.0.0.1", "'017.0.0.1' is not an IPv4 address (four decimal numbers 0-255, no leading zeros)", null, null},
            {"1.2.3.4.5", "'1.2.3.4.5" + neither, null, null},
            {"::", "destination 0:0:0:0:0:0:0:0" + notAHost, null, null},
            {"ff02::1", "destination ff02:0:0:0:0:0:0:1" + notAHost, null, null}};
        List<Case> out = new ArrayList<>();
        for (Object[] b : bad) {
            String dst = ((String) b[0]).replace("\\n", "\n");
            String why = (String) b[1];
            String name = "dst " + printable(dst.length() > 40 ? dst.substring(0, 40) + "..." : dst);
            String m = msg("MeasurementRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                    + "<nmwgt:dst value=\"" + xmlEscape(dst).replace("\n", "&#10;") + "\"/></nmwgt:endPointPair></nmwg:subject>"
                    + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>" + data("m"));
            out.addAll(everyNmwgTransport(name, m, nmwg("error.common.subject", why)));
            out.add(new Case(name, Transport.XMLRPC, utf8(networkMeasurementRequest(dst, "path.delay.roundTrip", null, null)),
                    rpcFault(5, why)));
            out.addAll(everyV1Transport(name, v1Request(dst, "path.delay.roundTrip", null, null), nmwg("v1 Request", why)));
            out.add(new Case(name, Transport.PUT_JSON, "/api/schedules/hostile-dst", utf8("{\"characteristic\":\"path.delay.roundTrip\","
                    + "\"dst\":\"" + jsonEscape(dst) + "\",\"period\":\"PT1H\"}"), json(400, b[2] != null ? (String) b[2] : why)));
            out.add(new Case(name, Transport.GET, "/api/diagnosis?measure=true&dst=" + java.net.URLEncoder.encode(dst,
                    StandardCharsets.UTF_8), null, json(400, b[3] != null ? (String) b[3] : why)));
            if (!why.contains(notAHost)) {
                // A cost ranks what is stored (it resolves nothing unless it refreshes): the text is refused as it stands.
                // (The line break is quoted as a space, a break or \n by the transports, so only what follows it is pinned.)
                String costWhy = why.startsWith("'") ? why : "dst: " + why;
                String cost = "<cost:costRequest xmlns:cost=\"http://nmws.org/ns/cost/1.0/\" bytes=\"1e6\"><cost:dst>" + xmlEscape(dst)
                        + "</cost:dst></cost:costRequest>";
                out.add(new Case(name + " (cost)", Transport.HTTP, utf8(cost), new Expect(400, "costFault", costWhy)));
                out.add(new Case(name + " (cost)", Transport.SOAP11, utf8(soap11(cost)), soapClient(costWhy)));
                out.add(new Case(name + " (cost)", Transport.SOAP12, utf8(soap12(cost)), soapSender(costWhy)));
                out.add(new Case(name + " (cost)", Transport.GET, "/api/cost?bytes=1e6&dst=" + java.net.URLEncoder.encode(dst,
                        StandardCharsets.UTF_8), null, json(400, dst.isEmpty()
                        ? "give 1..100 destinations, got 0" : costWhy))); // dst= binds to no destination at all
                out.add(new Case(name + " (cost)", Transport.XMLRPC, utf8(call("nmws.cost", "<value><struct><member><name>destinations"
                        + "</name><value><array><data><value><string>" + xmlEscape(dst) + "</string></value></data></array></value></member>"
                        + "<member><name>bytes</name><value><double>1e6</double></value></member></struct></value>")), rpcFault(5, costWhy)));
            }
        }
        return out;
    }

    /**
     * cost:costRequest (the WSDL's transferCost) over /nmwg (400 with a cost:costFault), SOAP 1.1 (a Client fault) and
     * SOAP 1.2 (a Sender fault, 400), held to the published schema; and the same mistakes in GET /api/cost.
     */
    private static List<Case> costRequests() {
        String schema = "not a cost:costRequest: ";
        String dst = "<cost:dst>127.0.0.1</cost:dst>";
        Object[][] bad = {
            {"bytes abc", "bytes=\"abc\"", dst, schema + "'abc' is not a valid value for 'double'.", "bytes=abc",
                "'abc' is not a decimal number in ASCII digits"},
            {"bytes NaN", "bytes=\"NaN\"", dst, "bytes must be 1..1e18, was NaN", "bytes=NaN", "'NaN' is not a decimal number in ASCII digits"},
            {"bytes -1", "bytes=\"-1\"", dst, "bytes must be 1..1e18, was -1.0", "bytes=-1", "bytes must be 1..1e18, was -1.0"},
            {"bytes 1e309", "bytes=\"1e309\"", dst, "bytes must be 1..1e18, was Infinity", "bytes=1e309", "'1e309' is out of range"},
            {"maxAge forever", "bytes=\"1e6\" maxAge=\"forever\"", dst, schema + "'forever' is not a valid value for 'duration'.",
                "bytes=1e6&maxAge=forever", "'forever' is not a valid ISO-8601 duration"},
            {"maxAge negative", "bytes=\"1e6\" maxAge=\"-PT1H\"", dst, "maxAge must be positive and at most PT876000H, was PT-1H",
                "bytes=1e6&maxAge=-PT1H", "maxAge must be positive and at most PT876000H, was PT-1H"},
            {"streams 2^32+1", "bytes=\"1e6\" streams=\"4294967297\"", dst, schema + "Value '4294967297' is not facet-valid with"
                + " respect to maxInclusive '2147483647' for type 'int'.", "bytes=1e6&streams=4294967297", "'4294967297' is out of range"},
            {"streams -5", "bytes=\"1e6\" streams=\"-5\"", dst, "streams must be 1..16, was -5", "bytes=1e6&streams=-5",
                "streams must be 1..16, was -5"},
            {"timeBudget NaN", "bytes=\"1e6\" timeBudget=\"NaN\"", dst, "timeBudget must be 0..600 s", "bytes=1e6&timeBudget=NaN",
                "'NaN' is not a valid ISO-8601 duration"},
            {"refresh maybe", "bytes=\"1e6\" refresh=\"maybe\"", dst, schema + "'maybe' is not a valid value for 'boolean'.",
                "bytes=1e6&refresh=maybe", "Invalid boolean value [maybe]"},
            {"protocol SCTP", "bytes=\"1e6\" protocol=\"SCTP\"", dst, "protocol must be TCP or UDP, was SCTP", "bytes=1e6&protocol=SCTP",
                "protocol must be TCP or UDP, was SCTP"},
            {"no bytes", "", dst, schema + "Attribute 'bytes' must appear on element 'cost:costRequest'.", null, null},
            {"unknown attribute", "bytes=\"1e6\" extra=\"1\"", dst, schema + "Attribute 'extra' is not allowed to appear in element"
                + " 'cost:costRequest'.", null, null},
            {"no dst", "bytes=\"1e6\"", "", schema + "The content of element 'cost:costRequest' is not complete.", null, null},
            {"101 dst", "bytes=\"1e6\"", dst.repeat(101), schema + "'\"http://nmws.org/ns/cost/1.0/\":dst' can occur a maximum"
                + " of '100' times in the current sequence.", null, null}};
        List<Case> out = new ArrayList<>();
        for (Object[] b : bad) {
            String name = "cost " + b[0];
            String request = "<cost:costRequest xmlns:cost=\"http://nmws.org/ns/cost/1.0/\" " + b[1] + ">" + b[2] + "</cost:costRequest>";
            String why = (String) b[3];
            out.add(new Case(name, Transport.HTTP, utf8(request), new Expect(400, "costFault", why)));
            out.add(new Case(name, Transport.SOAP11, utf8(soap11(request)), soapClient(why)));
            out.add(new Case(name, Transport.SOAP12, utf8(soap12(request)), soapSender(why)));
            if (b[4] != null) {
                out.add(new Case(name, Transport.GET, "/api/cost?dst=127.0.0.1&" + b[4], null, json(400, (String) b[5])));
            }
        }
        return out;
    }

    private static List<Case> xmlRpc() {
        String nmr = "NetworkMeasurementRequest";
        List<Case> out = new ArrayList<>();
        Object[][] bad = {
            {"not a methodCall", "<methodResponse/>", rpcFault(-32600, "expected <methodCall>, got <methodResponse>")},
            {"unknown method", call("rm.rf", ""), rpcFault(-32601, "no method 'rm.rf'")},
            {"no params", "<methodCall><methodName>" + nmr + "</methodName></methodCall>", rpcFault(-32602, nmr + " takes 1 parameter, got 0")},
            {"param not struct", call(nmr, "<value><int>1</int></value>"), rpcFault(-32602, "request must be a struct")},
            {"struct without characteristic", call(nmr, "<value><struct/></value>"), rpcFault(5, "member characteristic (string) is missing")},
            {"unknown characteristic", networkMeasurementRequest("127.0.0.1", "path.teleport", null, null), rpcFault(6,
                "Discovery: characteristic 'path.teleport' is not measured here; known: path.delay.roundTrip")},
            {"int overflow", call(nmr, "<value><int>99999999999</int></value>"), rpcFault(-32602, "int value '99999999999' is malformed")},
            {"i4 text", call(nmr, "<value><i4>abc</i4></value>"), rpcFault(-32602, "i4 value 'abc' is malformed")},
            {"double NaN", call(nmr, "<value><double>NaN</double></value>"), rpcFault(-32602, "double value 'NaN' is malformed")},
            {"boolean 2", call(nmr, "<value><boolean>2</boolean></value>"), rpcFault(-32602, "boolean '2' is neither 0 nor 1")},
            {"allowNew maybe", networkMeasurementRequest("127.0.0.1", "path.delay.roundTrip", null, null).replace("</struct></value></param>",
                    "<member><name>allowNewMeasurements</name><value><string>maybe</string></value></member></struct></value></param>"),
                rpcFault(5, "Request: allowNewMeasurements must be a boolean (true or false)")},
            {"base64 garbage", call("nmwg.message", "<value><base64>!!!</base64></value>"), rpcFault(-32602, "base64 value is malformed")},
            {"dateTime garbage", call(nmr, "<value><dateTime.iso8601>soon</dateTime.iso8601></value>"), rpcFault(-32602, "dateTime.iso8601 'soon' is not yyyyMMddTHH:mm:ss")},
            {"struct depth 200", call(nmr, "<value><struct><member><name>a</name>".repeat(200) + "<value><int>1</int></value>"
                    + "</member></struct></value>".repeat(200)), rpcFault(-32700, "request nests deeper than")},
            {"two params", call("system.methodHelp", "<value><string>a</string></value></param><param>"
                    + "<value><string>b</string></value>"), rpcFault(-32602, "system.methodHelp takes 1 parameter, got 2")},
            {"methodName 10k", call("m".repeat(10_000), ""), rpcFault(-32600, "methodName is empty or has characters XML-RPC does not allow")},
            {"nmwg.message not a string", call("nmwg.message", "<value><int>1</int></value>"), rpcFault(-32602, "NMWG message must be a string")},
            {"nmws.cost no destinations", call("nmws.cost", "<value><struct/></value>"), rpcFault(5, "destinations must be an array of strings")},
            {"nmws.cost bytes a string", call("nmws.cost", "<value><struct><member><name>destinations</name><value><array><data>"
                    + "<value><string>127.0.0.1</string></value></data></array></value></member><member><name>bytes</name><value>"
                    + "<string>many</string></value></member></struct></value>"), rpcFault(5, "bytes must be a number")},
            {"startTime after endTime", call(nmr, "<value><struct><member><name>characteristic</name><value><string>"
                    + "path.delay.roundTrip</string></value></member><member><name>subject</name><value><struct><member><name>node"
                    + "</name><value><string>127.0.0.1</string></value></member></struct></value></member><member><name>startTime"
                    + "</name><value><int>2000</int></value></member><member><name>endTime</name><value><int>1000</int></value>"
                    + "</member></struct></value>"), rpcFault(5, "is after endTime")},
            {"maxResults 0", call(nmr, "<value><struct><member><name>characteristic</name><value><string>path.delay.roundTrip"
                    + "</string></value></member><member><name>subject</name><value><struct><member><name>node</name><value><string>"
                    + "127.0.0.1</string></value></member></struct></value></member><member><name>maxResults</name><value><int>0"
                    + "</int></value></member></struct></value>"), rpcFault(5, "maxResults must be >= 1, was 0")},
            {"subject without path or node", call(nmr, "<value><struct><member><name>characteristic</name><value><string>"
                    + "path.delay.roundTrip</string></value></member><member><name>subject</name><value><struct/></value></member>"
                    + "</struct></value>"), rpcFault(5, "subject has neither path nor node")}};
        for (Object[] b : bad) {
            out.add(new Case("xmlrpc " + b[0], Transport.XMLRPC, utf8((String) b[1]), (Expect) b[2]));
        }
        return out;
    }

    private static List<Case> soapEnvelopes() {
        String echo = "<nmwg:message " + NMWG + " type=\"EchoRequest\" id=\"e\"/>";
        String wsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
        String one = "it must hold exactly one element: an nmwg:message, a GGF NM-WG v1 networkMeasurementRequest or a cost:costRequest";
        Function<String, Expect[]> client = text -> new Expect[] {soapClient(text), soapSender(text)};
        // SOAP 1.1 and 1.2 both answer these with a fault of their own code and HTTP 500, as their bindings say
        BiFunction<String, String, Expect[]> own = (code, text) -> new Expect[] {new Expect(500, code, text), new Expect(500, code, text)};
        // WS-Security's fault codes in SOAP 1.1; a Sender fault with that subcode in 1.2
        BiFunction<String, String, Expect[]> wsSecurity = (code, text) -> new Expect[] {new Expect(500, code, text), soapSender(text)};
        Object[][] bad = {
            {"no envelope", "ENV", echo, own.apply("soap:VersionMismatch",
                    "the root element {http://ggf.org/ns/nmwg/base/2.0/}message is not a SOAP 1.1 or 1.2 Envelope")},
            {"envelope wrong ns", "ENV", "<s:Envelope xmlns:s=\"urn:not-soap\"><s:Body>" + echo + "</s:Body></s:Envelope>",
                own.apply("soap:VersionMismatch", "the root element {urn:not-soap}Envelope is not a SOAP 1.1 or 1.2 Envelope")},
            {"no body", "ENV", "<s:Envelope xmlns:s=\"SOAPNS\"/>", client.apply("the SOAP envelope has no Body: " + one)},
            {"header without body", "ENV", "<s:Envelope xmlns:s=\"SOAPNS\"><s:Header/></s:Envelope>",
                client.apply("the SOAP envelope has no Body: " + one)},
            {"empty body", "BODY", "", client.apply("the SOAP body holds no element: " + one)},
            {"text body", "BODY", "hello", client.apply("the SOAP body holds no element: " + one)},
            {"comment body", "BODY", "<!-- nothing -->", client.apply("the SOAP body holds no element: " + one)},
            {"two body elements", "BODY", echo + echo, client.apply("the SOAP body holds more than one element ("
                    + "{http://ggf.org/ns/nmwg/base/2.0/}message, then {http://ggf.org/ns/nmwg/base/2.0/}message): " + one)},
            {"echo then unknown element", "BODY", echo + "<x:t xmlns:x=\"urn:x\"/>", client.apply("the SOAP body holds more than one"
                    + " element ({http://ggf.org/ns/nmwg/base/2.0/}message, then {urn:x}t): " + one)},
            {"100 body elements", "BODY", echo.repeat(100), client.apply("the SOAP body holds more than one element (")},
            {"mustUnderstand unknown", "ENV", "<s:Envelope xmlns:s=\"SOAPNS\"><s:Header><x:h xmlns:x=\"urn:x\" s:mustUnderstand=\"1\"/>"
                    + "</s:Header><s:Body>" + echo + "</s:Body></s:Envelope>", own.apply("soap:MustUnderstand",
                    "MustUnderstand headers: [{urn:x}h] are not understood.")},
            {"password digest", "ENV", "<s:Envelope xmlns:s=\"SOAPNS\"><s:Header><w:Security xmlns:w=\"" + wsse + "\"><w:UsernameToken>"
                    + "<w:Username>a</w:Username><w:Password Type=\"x#PasswordDigest\">b</w:Password></w:UsernameToken></w:Security>"
                    + "</s:Header><s:Body>" + echo + "</s:Body></s:Envelope>", wsSecurity.apply("wsse:UnsupportedSecurityToken",
                    "only PasswordText (over https) is accepted, not PasswordDigest")},
            {"security without token", "ENV", "<s:Envelope xmlns:s=\"SOAPNS\"><s:Header><w:Security xmlns:w=\"" + wsse + "\"/>"
                    + "</s:Header><s:Body>" + echo + "</s:Body></s:Envelope>", wsSecurity.apply("wsse:UnsupportedSecurityToken",
                    "the wsse:Security header holds no UsernameToken, the one token nmws accepts")},
            {"unknown user", "ENV", "<s:Envelope xmlns:s=\"SOAPNS\"><s:Header><w:Security xmlns:w=\"" + wsse + "\"><w:UsernameToken>"
                    + "<w:Username>mallory</w:Username><w:Password>x</w:Password></w:UsernameToken></w:Security></s:Header><s:Body>"
                    + echo + "</s:Body></s:Envelope>", wsSecurity.apply("wsse:FailedAuthentication", "the user name or password is wrong")}};
        List<Case> out = new ArrayList<>();
        for (Object[] b : bad) {
            Expect[] e = (Expect[]) b[3];
            for (Transport t : List.of(Transport.SOAP11, Transport.SOAP12)) {
                String ns = t == Transport.SOAP11 ? Service.SOAP11 : Service.SOAP12;
                String body = b[1].equals("BODY") ? "<s:Envelope xmlns:s=\"" + ns + "\"><s:Body>" + b[2] + "</s:Body></s:Envelope>"
                        : ((String) b[2]).replace("SOAPNS", ns);
                out.add(new Case("soap " + b[0], t, utf8(body), e[t == Transport.SOAP11 ? 0 : 1]));
            }
        }
        // An unknown header without mustUnderstand is ignored, as SOAP says: only its size is checked.
        String bigHeader = "<x:h xmlns:x=\"urn:x\">" + "z".repeat(2 * 1024 * 1024) + "</x:h>";
        out.add(new Case("soap header 2 MB", Transport.SOAP11, utf8("<s:Envelope xmlns:s=\"" + Service.SOAP11 + "\"><s:Header>" + bigHeader
                + "</s:Header><s:Body>" + echo + "</s:Body></s:Envelope>"), nmwg("success.echo", "The echo request has passed.")));
        // A body element no operation names: CXF's unknown message part in SOAP 1.1, the NMWG handler's parse error in 1.2.
        out.add(new Case("soap unknown body element", Transport.SOAP11, utf8(soap11("<x:teleport xmlns:x=\"urn:x\"/>")),
                soapClient("Message part {urn:x}teleport was not recognized.")));
        out.add(new Case("soap unknown body element", Transport.SOAP12, utf8(soap12("<x:teleport xmlns:x=\"urn:x\"/>")),
                nmwg("error.common.parse_error", "expected an nmwg:message in namespace http://ggf.org/ns/nmwg/base/2.0/, got"
                        + " {urn:x}teleport")));
        out.add(new Case("soap 1.2 envelope on 1.1", Transport.SOAP11, utf8(soap12(echo)), new Expect(500, "soap:VersionMismatch",
                "A SOAP 1.2 message is not valid when sent to a SOAP 1.1 only endpoint.")));
        // CXF answers a SOAP 1.1 envelope at the 1.2 address in 1.1 rather than faulting: lenient, harmless.
        out.add(new Case("soap 1.1 envelope on 1.2", Transport.SOAP12, utf8(soap11(echo)), nmwg("success.echo", "The echo request has passed.")));
        return out;
    }

    private static List<Case> jsonApi() {
        Object[][] bad = {
            {"/api/results", json(400, "{\"error\":\"parameter dst is required\"}")},
            {"/api/results?dst=", json(400, "{\"error\":\"parameter dst is required\"}")},
            {"/api/results?dst=%27%20OR%201%3D1%20--", json(400, "{\"error\":\"dst: '' OR 1=1 --' is neither an IP address nor a host name\"}")},
            {"/api/results?dst=127.0.0.1&characteristic=path.teleport", json(400, "{\"error\":\"characteristic 'path.teleport' is not known; known: path.delay.roundTrip")},
            {"/api/results?dst=127.0.0.1&from=yesterday", json(400, "{\"error\":\"time parameter 'from' is 'yesterday': expected unix seconds or ISO 8601")},
            {"/api/results?dst=127.0.0.1&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", json(400, "{\"error\":\"from 2026-01-02T00:00:00Z is after to 2026-01-01T00:00:00Z\"}")},
            {"/api/results?dst=127.0.0.1&limit=-1", json(400, "{\"error\":\"limit is '-1': must be 1..1000\"}")},
            {"/api/results?dst=127.0.0.1&limit=1000000000000", json(400, "{\"error\":\"limit is '1000000000000': must be 1..1000\"}")},
            {"/api/results?dst=127.0.0.1&limit=%D9%A1", json(400, "{\"error\":\"limit is '\u0661': must be 1..1000\"}")},
            {"/api/results?dst=" + "h".repeat(2000), json(400, "{\"error\":\"dst: endpoint 'hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh...' is longer than 253 characters\"}")},
            {"/api/cost", json(400, "{\"error\":\"parameter dst is required\"}")},
            {"/api/cost?dst=127.0.0.1", json(400, "{\"error\":\"parameter bytes is required\"}")},
            {"/api/cost?dst=127.0.0.1&bytes=abc", json(400, "{\"error\":\"'abc' is not a decimal number in ASCII digits\"}")},
            {"/api/cost?dst=127.0.0.1&bytes=1e9&maxAge=forever", json(400, "{\"error\":\"'forever' is not a valid ISO-8601 duration\"}")},
            {"/api/cost?dst=127.0.0.1&bytes=1e9&maxAge=P99999999999D", json(400, "{\"error\":\"maxAge must be positive and at most PT876000H, was PT2399999999976H\"}")},
            {"/api/cost?dst=127.0.0.1&bytes=NaN", json(400, "{\"error\":\"'NaN' is not a decimal number in ASCII digits\"}")},
            {"/api/nothing-here", json(404, "\"status\":404,\"error\":\"Not Found\",\"path\":\"/api/nothing-here\"}")},
            {"/archive/store", json(401, "\"status\":401,\"error\":\"Unauthorized\",\"path\":\"/archive/store\"}")},
            {"/actuator/env", json(404, "\"status\":404,\"error\":\"Not Found\",\"path\":\"/actuator/env\"}")},
            {"/actuator/heapdump", json(404, "\"status\":404,\"error\":\"Not Found\",\"path\":\"/actuator/heapdump\"}")},
            {"/api/results?dst=127.0.0.1&raw=%00", json(400, "{\"error\":\"raw must be true or false\"}")}};
        List<Case> out = new ArrayList<>();
        for (Object[] b : bad) {
            String path = (String) b[0];
            out.add(new Case("json " + printable(path.length() > 80 ? path.substring(0, 80) : path), Transport.GET, path, null,
                    (Expect) b[1]));
        }
        return out;
    }

    private static List<Case> responderPort() {
        Object[][] bad = {
            {"garbage", "hello there\n", "NMP/1 ERR reason=request text=control+line+does+not+start+with+NMP/:+_hello+there_"},
            {"ssh greeting", "SSH-2.0-OpenSSH_9.2\r\n", "NMP/1 ERR reason=request text=control+line+does+not+start+with+NMP/:+_SSH-2.0-OpenSSH_9.2_"},
            {"http", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "NMP/1 ERR reason=request text=control+line+does+not+start+with+NMP/:+_GET+/+HTTP/1.1_"},
            {"overlong line", "NMP/1 SESSION " + "k".repeat(4000) + "\n", "NMP/1 ERR reason=request text=request+line+too+long"},
            {"unknown verb", "NMP/1 TELEPORT\n", "NMP/1 ERR reason=request text=unknown+control+verb+_TELEPORT_"},
            {"wrong version", "NMP/9 SESSION kind=rr\n", "NMP/1 ERR reason=request text=unsupported+control+protocol+version+(want+NMP/1)"},
            {"unknown kind", "NMP/1 SESSION kind=teleport\n", "NMP/1 ERR reason=request text=kind=teleport+unsupported+(want+rr,+stream+or+tcp)"},
            {"missing keys", "NMP/1 SESSION kind=rr\n", "NMP/1 ERR reason=request text=missing+key+frames"},
            {"huge frames", "NMP/1 SESSION kind=rr frames=99999999999999 size=64 interval_ns=1 timeout_ms=1\n", "NMP/1 ERR reason=limit text=frames=99999999999999+out+of+range+1..1000000"},
            {"negative", "NMP/1 SESSION kind=rr frames=-1 size=64 interval_ns=1000 timeout_ms=1000\n", "NMP/1 ERR reason=request text=frames=-1+is+not+a+decimal+number+below+10_19"},
            {"size 0", "NMP/1 SESSION kind=rr frames=10 size=0 interval_ns=1000 timeout_ms=1000\n", "NMP/1 ERR reason=limit text=size=0+out+of+range+32..9000"},
            {"size 70000", "NMP/1 SESSION kind=rr frames=10 size=70000 interval_ns=1000 timeout_ms=1000\n", "NMP/1 ERR reason=limit text=size=70000+out+of+range+32..9000"},
            {"duplicate key", "NMP/1 SESSION kind=rr kind=rr\n", "NMP/1 ERR reason=request text=duplicate+key+kind"},
            {"17 keys", "NMP/1 SESSION" + java.util.stream.IntStream.rangeClosed(1, 17).mapToObj(i -> " k" + (char) ('a' + i) + "=1")
                    .collect(java.util.stream.Collectors.joining()) + "\n", "NMP/1 ERR reason="},
            {"bad value chars", "NMP/1 SESSION kind=r;r\n", "NMP/1 ERR reason=request text=malformed+value+for+key+kind+(1..127+bytes+of+_A-Za-z0-9._:%/_=,()*-_)"},
            {"nul bytes", "NMP/1 \u0000\u0000\u0000\n", "NMP/1 ERR reason=request text=unknown+control+verb+_____"},
            {"results without session", "NMP/1 RESULTS\n", "NMP/1 ERR reason=request text=expected+SESSION,+got+RESULTS"},
            {"end without session", "NMP/1 END\n", "NMP/1 ERR reason=request text=expected+SESSION,+got+END"},
            {"bare newline", "\n", "NMP/1 ERR reason=request text=control+line+does+not+start+with+NMP/:+__"},
            {"high bytes", "NMP/1 SESSION kind=\u00ff\u00fe\n", "NMP/1 ERR reason=request text=malformed+value+for+key+kind+(1..127+bytes+of+_A-Za-z0-9._:%/_=,()*-_)"}};
        List<Case> out = new ArrayList<>();
        for (Object[] b : bad) {
            out.add(new Case("responder " + b[0], Transport.RESPONDER, ((String) b[1]).getBytes(StandardCharsets.ISO_8859_1),
                    new Expect(0, "NMP/1 ERR", (String) b[2])));
        }
        return out;
    }

    // ---- running a case --------------------------------------------------------------------

    /** Java exception and error class names (ErrorResponse, an NMWG message type, is not one: no word boundary follows "Error"). */
    private static final java.util.regex.Pattern JAVA_NAME = java.util.regex.Pattern.compile("\\b\\w+(Exception|Error)\\b");

    private void check(Case c) throws Exception {
        Answer a = c.transport == Transport.RESPONDER ? responderAnswer(c.body) : read(send(c));
        String shown = a.body.length() > 700 ? a.body.substring(0, 700) + "..." : a.body;
        record(c, a);
        assertNoInternalError(a.status, a.body, shown);
        for (String leak : LEAKS) {
            // The responder may quote (a bounded part of) the client's own line back to it.
            if (c.transport != Transport.RESPONDER || !leak.equals("SSH-2.0")) {
                assertTrue(!a.body.contains(leak), "leaked '" + leak + "': " + shown);
            }
        }
        assertEquals(c.expect.status, a.status, "status: " + shown);
        assertEquals(c.expect.code, a.code, "code: " + shown);
        assertTrue(a.text.contains(c.expect.text), "text lacks '" + c.expect.text + "': " + a.text);
    }

    private static final java.util.regex.Pattern SERVER_FAULT = java.util.regex.Pattern.compile(
            "<faultcode[^>]*>[^<]*:Server</faultcode>|<(?:\\w+:)?Value>[^<]*:Receiver</");

    /**
     * An internal error fails a case wherever it appears, whatever was expected: an NMWG error.common.internal, XML-RPC's
     * -32603, a SOAP Server (1.2: Receiver) fault, a Java exception name or stack frame, and HTTP 500 where no SOAP binding
     * says 500 for the client's fault (any SOAP 1.1 fault but Server; SOAP 1.2's VersionMismatch and MustUnderstand).
     */
    private static void assertNoInternalError(int status, String body, String shown) {
        assertTrue(!body.contains("error.common.internal"), "internal error: " + shown);
        assertTrue(!body.matches("(?s).*<name>faultCode</name>\\s*<value>\\s*<(int|i4)>-32603<.*"), "XML-RPC internal error: " + shown);
        assertTrue(!SERVER_FAULT.matcher(body).find(), "SOAP server fault: " + shown);
        assertTrue(!JAVA_NAME.matcher(body).find() && !body.contains("\tat "), "a Java exception or stack frame in the answer: " + shown);
        boolean bindingSays500 = body.contains("<faultcode") || body.matches("(?s).*<(\\w+:)?Value>[^<]*:(VersionMismatch|MustUnderstand)</.*");
        assertTrue(status != 500 || bindingSays500, "HTTP 500 for what is not a client's SOAP fault: " + shown);
    }

    /** With NMWS_HOSTILE_RECORD=FILE in the environment, every answer is written out as well (to review what the service says). */
    private static synchronized void record(Case c, Answer a) throws IOException {
        String file = System.getenv("NMWS_HOSTILE_RECORD");
        if (file != null) {
            String text = a.text.length() > 300 ? a.text.substring(0, 300) : a.text;
            Files.writeString(Path.of(file), c.transport + " " + c.name.replaceAll("\\s", "_") + "\t" + a.status + "\t" + a.code + "\t"
                    + text.replaceAll("\\s+", " ") + "\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        }
    }

    private static final java.util.regex.Pattern EVENT_TYPE = java.util.regex.Pattern.compile(
            "<(?:\\w+:)?eventType>\\s*((?:error|success)\\.[^<\\s]*)\\s*</");
    /** A GGF NM-WG v1 report's fault: its kind (Request, Discovery, ...) and message. */
    private static final java.util.regex.Pattern V1_FAULT = java.util.regex.Pattern.compile(
            "<(?:\\w+:)?nmwgFault[^>]*\\skind=\"(\\w+)\"[^>]*>.*?<(?:\\w+:)?message[^>]*>([^<]*)<", java.util.regex.Pattern.DOTALL);
    private static final java.util.regex.Pattern DATUM = java.util.regex.Pattern.compile("<(?:\\w+:)?datum[^>]*>([^<]*)</");

    /** Reads an answer as its transport words it: a SOAP fault, an XML-RPC fault, an NMWG message (bare or wrapped), JSON. */
    private static Answer read(HttpResponse<String> r) {
        String body = r.body();
        java.util.regex.Matcher m;
        if (body.contains(":Fault>")) {
            m = java.util.regex.Pattern.compile("<faultcode[^>]*>([^<]*)</faultcode>\\s*<faultstring[^>]*>([^<]*)<").matcher(body);
            if (m.find()) {
                return new Answer(r.statusCode(), m.group(1), unescape(m.group(2)), body);
            }
            m = java.util.regex.Pattern.compile("<(?:\\w+:)?Value>([^<]*)</(?:\\w+:)?Value>.*?<(?:\\w+:)?Text[^>]*>([^<]*)<",
                    java.util.regex.Pattern.DOTALL).matcher(body);
            if (m.find()) {
                return new Answer(r.statusCode(), m.group(1), unescape(m.group(2)), body);
            }
        }
        m = java.util.regex.Pattern.compile("<name>faultCode</name>\\s*<value>\\s*<(?:int|i4)>(-?\\d+)</(?:int|i4)>.*?<name>faultString"
                + "</name>\\s*<value>(?:<string>)?([^<]*)<", java.util.regex.Pattern.DOTALL).matcher(body);
        if (m.find()) {
            return new Answer(r.statusCode(), "xmlrpc " + m.group(1), unescape(m.group(2)), body);
        }
        m = java.util.regex.Pattern.compile("<(?:\\w+:)?costFault[^>]*>([^<]*)<").matcher(body);
        if (m.find()) {
            return new Answer(r.statusCode(), "costFault", unescape(m.group(1)), body);
        }
        m = V1_FAULT.matcher(body);
        if (m.find()) {
            return new Answer(r.statusCode(), "v1 " + m.group(1), unescape(m.group(2)), body);
        }
        String nmwg = body.contains("<methodResponse>") ? unescape(body) : body;
        m = EVENT_TYPE.matcher(nmwg);
        java.util.Set<String> codes = new java.util.TreeSet<>();
        while (m.find()) {
            codes.add(m.group(1));
        }
        if (!codes.isEmpty()) {
            StringBuilder text = new StringBuilder();
            m = DATUM.matcher(nmwg);
            while (m.find()) {
                text.append(unescape(m.group(1))).append(" | ");
            }
            return new Answer(r.statusCode(), String.join(",", codes), text.toString(), body);
        }
        String type = r.headers().firstValue("Content-Type").orElse("");
        return new Answer(r.statusCode(), type.startsWith("application/json") ? "json" : "other " + type, body, body);
    }

    private static String unescape(String s) {
        return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&#39;", "'")
                .replace("&amp;", "&");
    }

    private HttpResponse<String> send(Case c) throws Exception {
        HttpRequest.Builder b;
        switch (c.transport) {
            case GET -> b = HttpRequest.newBuilder(URI.create(base + c.path)).GET();
            case PUT_JSON -> b = HttpRequest.newBuilder(URI.create(base + c.path)).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(c.body));
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

    /** What the responder writes back: its first line (code: its first two words), HANGUP when it closes without a word. */
    private Answer responderAnswer(byte[] payload) throws IOException {
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
                return new Answer(0, "SILENT", got.toString(StandardCharsets.ISO_8859_1), "SILENT"); // neither a word nor a hang-up
            } catch (IOException reset) {
                // reset after (or instead of) a line: what was read is the answer
            }
            if (got.size() == 0) {
                return new Answer(0, "HANGUP", "", "");
            }
            String line = got.toString(StandardCharsets.ISO_8859_1);
            String[] words = line.split(" ", 3);
            return new Answer(0, words.length >= 2 ? words[0] + " " + words[1] : line, line, line);
        }
    }

    private static String networkMeasurementRequest(String dst, String characteristic, String param, String value) {
        String params = param == null ? "" : "<member><name>methodology</name><value><struct><member><name>parameters</name><value>"
                + "<struct><member><name>" + param + "</name><value><string>" + xmlEscape(value) + "</string></value></member></struct>"
                + "</value></member></struct></value></member>";
        return call("NetworkMeasurementRequest", "<value><struct><member><name>characteristic</name><value><string>" + characteristic
                + "</string></value></member><member><name>subject</name><value><struct><member><name>path</name><value><struct>"
                + "<member><name>destination</name><value><struct><member><name>name</name><value><string>" + xmlEscape(dst)
                + "</string></value></member></struct></value></member></struct></value></member></struct></value></member>" + params
                + "</struct></value>");
    }

    /** A GGF NM-WG v1 networkMeasurementRequest for one test, with one methodology parameter unless param is null. */
    private static String v1Request(String dst, String characteristic, String param, String value) {
        return "<v1:networkMeasurementRequest xmlns:v1=\"" + V1 + "\"><v1:request><v1:characteristic>" + characteristic
                + "</v1:characteristic><v1:subject><v1:path><v1:destination><v1:name>" + xmlEscape(dst) + "</v1:name></v1:destination>"
                + "</v1:path></v1:subject>" + (param == null ? "" : "<v1:methodology><v1:parameterSet><v1:parameter name=\"" + param
                + "\" value=\"" + xmlEscape(value) + "\"/></v1:parameterSet></v1:methodology>") + "</v1:request></v1:networkMeasurementRequest>";
    }

    /** One v1 request refused with one fault on every transport that carries v1 XML: /nmwg, SOAP 1.1 and 1.2. */
    private static List<Case> everyV1Transport(String name, String request, Expect e) {
        return List.of(new Case(name + " (v1)", Transport.HTTP, utf8(request), e), new Case(name + " (v1)", Transport.SOAP11,
                utf8(soap11(request)), e), new Case(name + " (v1)", Transport.SOAP12, utf8(soap12(request)), e));
    }

    private static String jsonEscape(String s) {
        StringBuilder b = new StringBuilder();
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                b.append('\\').append(ch);
            } else if (ch < 0x20 || ch > 0x7e) {
                b.append(String.format("\\u%04x", (int) ch));
            } else {
                b.append(ch);
            }
        }
        return b.toString();
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
            assertNoInternalError(Integer.parseInt(answer.substring(9, 12)), answer, shown);
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
