package org.nmws.service.nmwg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.JdbcArchive;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.kind.Kinds;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.measure.TestAdmission;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.usecase.ErrorCodes;
import org.w3c.dom.Element;

/**
 * Requests shaped as perfSONAR's own clients and example messages send them, which nmws
 * refused or misread (issue 20). The fixtures are this project's, written after those shapes.
 */
class PerfsonarRequestsTest {
    private static final String NS = "xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
            + "xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
            + "xmlns:select=\"http://ggf.org/ns/nmwg/ops/select/2.0/\" "
            + "xmlns:netutil=\"http://ggf.org/ns/nmwg/characteristic/utilization/2.0/\"";
    private static final String SUMMARY_2011 = "http://ggf.org/ns/nmwg/characteristic/delay/summary/20110317";
    private static final String SNMP = "http://ggf.org/ns/nmwg/tools/snmp/2.0";
    private static final Instant T0 = Instant.parse("2026-11-21T08:00:00Z");

    @TempDir
    Path dir;
    JdbcArchive archive;
    NmwsProperties props;
    MeasurementService ms;
    MessageHandler handler;
    private final java.util.concurrent.ScheduledExecutorService watchdog =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor();

    @BeforeEach
    void setUp() {
        props = new NmwsProperties(dir, "test-point", 8700, new NmwsProperties.Xml(65536, 32),
                new NmwsProperties.Limits(1000, Duration.ofSeconds(30), 8, 4, List.of(), 0, 250_000, 0));
        archive = TestArchives.sqlite(dir);
        ms = new MeasurementService(archive, new HostEnvironment(() -> null), props, new RunningTests(),
                new TestAdmission(List.of(), 0, System::nanoTime), Kinds.measurementKinds(), watchdog);
        handler = new MessageHandler(new SafeXml(65536, 32), ms, archive, props, new DataForms(Kinds.measurementKinds()));
    }

    @AfterEach
    void stopWatchdog() {
        watchdog.shutdownNow();
    }

    private Responses post(String type, String body) {
        String xml = "<nmwg:message " + NS + " type=\"" + type + "\" id=\"m1\">" + body + "</nmwg:message>";
        return Responses.validated(handler.handle(xml.getBytes(StandardCharsets.UTF_8), Caller.SERVICE));
    }

    private static String pathMetadata(String id, String pair, String eventType) {
        return "<nmwg:metadata id=\"" + id + "\"><nmwg:subject id=\"s-" + id + "\"><nmwgt:endPointPair>" + pair
                + "</nmwgt:endPointPair></nmwg:subject>"
                + (eventType == null ? "" : "<nmwg:eventType>" + eventType + "</nmwg:eventType>") + "</nmwg:metadata>";
    }

    private static List<String> datumTypes(Responses r) {
        return r.elements(Namespaces.RESULT, "datum").stream().map(e -> e.getAttribute("type")).toList();
    }

    @Test
    void twoDataOfTheSameIdAreEachAnsweredForNothingRefersToADataId() {
        // perfSONAR's TracerouteMA example SetupDataRequest names two data "data1".
        archive.save(roundTrip(T0, "10.1.3.1"));
        Responses r = post("SetupDataRequest",
                pathMetadata("md1", "<nmwgt:dst type=\"ipv4\" value=\"10.1.3.1\"/>", "path.delay.roundTrip")
                        + pathMetadata("md2", "<nmwgt:dst type=\"ipv4\" value=\"10.1.3.2\"/>", "path.delay.roundTrip")
                        + "<nmwg:data id=\"data1\" metadataIdRef=\"md1\"/><nmwg:data id=\"data1\" metadataIdRef=\"md2\"/>");
        assertEquals("SetupDataResponse", r.type());
        assertEquals(List.of("path.delay.roundTrip", "path.delay.roundTrip"), r.eventTypes());
        assertEquals("0.25", r.pinger("minRtt"));
        assertEquals(List.of("noData"), datumTypes(r));
    }

    @Test
    void twoMetadataOfTheSameIdStayAStructureError() {
        Responses r = post("SetupDataRequest",
                pathMetadata("md1", "<nmwgt:dst type=\"ipv4\" value=\"10.1.3.1\"/>", "path.delay.roundTrip")
                        + pathMetadata("md1", "<nmwgt:dst type=\"ipv4\" value=\"10.1.3.2\"/>", "path.delay.roundTrip")
                        + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>");
        assertEquals(List.of(ErrorCodes.STRUCTURE), r.eventTypes());
        assertEquals(List.of("two nmwg:metadata have the id 'md1'"), r.resultDatums());
    }

    @Test
    void aChainedSubjectWithTheSrcAndABaseSubjectWithTheDstNameOnePathBothEnds() {
        // Kept whole, the nearer subject (src only) asked for everything from 10.1.2.1: both paths.
        archive.save(roundTrip(T0, "10.1.4.6"));
        archive.save(roundTrip(T0.plusSeconds(60), "10.1.4.7"));
        Responses r = post("SetupDataRequest",
                pathMetadata("base", "<nmwgt:dst type=\"ipv4\" value=\"10.1.4.6\"/>", "path.delay.roundTrip")
                        + "<nmwg:metadata id=\"near\" metadataIdRef=\"base\"><nmwg:subject id=\"s-near\"><nmwgt:endPointPair>"
                        + "<nmwgt:src type=\"ipv4\" value=\"10.1.2.1\"/></nmwgt:endPointPair></nmwg:subject></nmwg:metadata>"
                        + "<nmwg:data id=\"d1\" metadataIdRef=\"near\"/>");
        assertEquals(List.of("path.delay.roundTrip"), r.eventTypes());
        List<String> dsts = r.elements(Namespaces.TOPOLOGY, "dst").stream().map(e -> e.getAttribute("value")).toList();
        assertEquals(List.of("10.1.4.6"), dsts);
    }

    @Test
    void aNearerSubjectWinsWhereBothNameTheSameEnd() {
        archive.save(roundTrip(T0, "10.1.4.8"));
        Responses r = post("SetupDataRequest",
                pathMetadata("base", "<nmwgt:dst type=\"ipv4\" value=\"10.1.4.9\"/>", "path.delay.roundTrip")
                        + "<nmwg:metadata id=\"near\" metadataIdRef=\"base\"><nmwg:subject id=\"s-near\"><nmwgt:endPointPair>"
                        + "<nmwgt:dst type=\"ipv4\" value=\"10.1.4.8\"/></nmwgt:endPointPair></nmwg:subject></nmwg:metadata>"
                        + "<nmwg:data id=\"d1\" metadataIdRef=\"near\"/>");
        assertEquals("0.25", r.pinger("minRtt"));
        assertEquals(List.of("10.1.4.8"), r.elements(Namespaces.TOPOLOGY, "dst").stream().map(e -> e.getAttribute("value")).toList());
    }

    @Test
    void anInterfaceWithItsAddressInOneMetadataAndItsDirectionInTheChainedOneIsAnswered() {
        archive.save(utilization(T0, "lo"));
        Responses r = post("SetupDataRequest",
                "<nmwg:metadata id=\"base\"><netutil:subject id=\"s1\"><nmwgt:interface>"
                        + "<nmwgt:ifAddress type=\"ipv4\">127.0.0.1</nmwgt:ifAddress></nmwgt:interface></netutil:subject>"
                        + "<nmwg:eventType>http://ggf.org/ns/nmwg/characteristic/utilization/2.0</nmwg:eventType></nmwg:metadata>"
                        + "<nmwg:metadata id=\"near\"><netutil:subject id=\"s2\" metadataIdRef=\"base\"><nmwgt:interface>"
                        + "<nmwgt:direction>in</nmwgt:direction></nmwgt:interface></netutil:subject></nmwg:metadata>"
                        + "<nmwg:data id=\"d1\" metadataIdRef=\"near\"/>");
        assertEquals(List.of("http://ggf.org/ns/nmwg/characteristic/utilization/2.0"), r.eventTypes(), r.resultDatums().toString());
        assertEquals("12.0", figure(r, "outMbps"));
    }

    @Test
    void subjectsMergeElementByElementAndLeaveTheMessageAsItWas() throws Exception {
        org.w3c.dom.Document doc = new SafeXml(65536, 32).parse(("<r " + NS + ">"
                + "<nmwg:subject><nmwgt:endPointPair><nmwgt:src value=\"a\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:subject><nmwgt:endPointPair><nmwgt:src value=\"b\"/><nmwgt:dst value=\"c\"/></nmwgt:endPointPair>"
                + "<nmwgt:interface><nmwgt:ifName>eth0</nmwgt:ifName></nmwgt:interface></nmwg:subject></r>")
                .getBytes(StandardCharsets.UTF_8));
        List<Element> subjects = NmwgReader.children(doc.getDocumentElement());
        Element merged = SubjectReader.merge(subjects);
        SubjectReader.Ends ends = SubjectReader.ends(merged);
        assertEquals("a", ends.src().host(), "the nearer subject's src");
        assertEquals("c", ends.dst().host(), "the farther subject's dst, filled in");
        assertEquals(1, merged.getElementsByTagNameNS(Namespaces.TOPOLOGY, "interface").getLength());
        assertEquals(1, subjects.get(0).getElementsByTagNameNS(Namespaces.TOPOLOGY, "src").getLength());
        assertEquals(0, subjects.get(0).getElementsByTagNameNS(Namespaces.TOPOLOGY, "dst").getLength(), "the nearer is unchanged");
        assertSame(subjects.get(1), SubjectReader.merge(List.of(subjects.get(1), subjects.get(0))),
                "a farther subject that adds nothing costs no copy");
    }

    @Test
    void thePerfsonarPsOneWaySummaryEventTypeIsAnsweredLikeThe2007One() {
        assertEquals(Characteristic.lookup("http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921"),
                Characteristic.lookup(SUMMARY_2011));
        archive.save(oneWay(T0, "10.1.5.1"));
        for (String et : List.of("http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921", SUMMARY_2011)) {
            Responses r = post("SetupDataRequest", pathMetadata("md1", "<nmwgt:dst type=\"ipv4\" value=\"10.1.5.1\"/>", et)
                    + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>");
            assertEquals(List.of(et), r.eventTypes(), et);
            List<Element> summaries = r.elements(Namespaces.OWAMP_SUMMARY, "datum");
            assertEquals(1, summaries.size(), et);
            assertEquals("100", summaries.get(0).getAttribute("sent"), et);
            assertEquals("0.0021", summaries.get(0).getAttribute("min_delay"), et);
        }
    }

    @Test
    void theSnmpMaEventTypeWithAnInterfaceSubjectIsAnsweredFromUtilizationData() {
        archive.save(utilization(T0, "lo"));
        archive.save(utilization(T0, "eth9"));
        Responses r = post("SetupDataRequest",
                "<nmwg:metadata id=\"md1\"><netutil:subject id=\"s1\"><nmwgt:interface>"
                        + "<nmwgt:ifName>lo</nmwgt:ifName><nmwgt:direction>in</nmwgt:direction></nmwgt:interface></netutil:subject>"
                        + "<nmwg:eventType>" + SNMP + "</nmwg:eventType></nmwg:metadata>"
                        + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>");
        assertEquals(List.of(SNMP), r.eventTypes(), r.resultDatums().toString());
        assertEquals("12.0", figure(r, "outMbps"));

        Responses keys = post("MetadataKeyRequest",
                "<nmwg:metadata id=\"md1\"><netutil:subject id=\"s1\"><nmwgt:interface>"
                        + "<nmwgt:ifName>lo</nmwgt:ifName></nmwgt:interface></netutil:subject>"
                        + "<nmwg:eventType>" + SNMP + "</nmwg:eventType></nmwg:metadata>"
                        + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>");
        assertEquals(List.of(SNMP), keys.eventTypes(), keys.resultDatums().toString());
        assertEquals(1, keys.elements(Namespaces.BASE, "key").size(), "a key for the interface's series, not eth9's");
    }

    private static String measurement(String eventType, String params) {
        return "<nmwg:metadata id=\"md1\"><nmwg:subject id=\"s1\"><nmwgt:endPointPair>"
                + "<nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>" + eventType + "</nmwg:eventType><nmwg:parameters id=\"p1\">" + params
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>";
    }

    private static String param(String name, String value) {
        return "<nmwg:parameter name=\"" + name + "\">" + value + "</nmwg:parameter>";
    }

    private static int closedPort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void bwctlsReceiverRoleIsRefusedNamingItForTheEngineCannotMakeTheFarEndSend() {
        Responses r = post("MeasurementRequest", measurement("http://ggf.org/ns/nmwg/tools/bwctl/2.0",
                param("role", "receiver") + param("timeDuration", "1")));
        assertEquals(List.of(ErrorCodes.PARAMETER), r.eventTypes());
        assertTrue(r.resultDatums().get(0).startsWith("parameter role is 'receiver': this host can only be the sender"),
                r.resultDatums().get(0));
    }

    @Test
    void owampsReverseDirectionIsRefusedNamingIt() {
        Responses r = post("MeasurementRequest", measurement("http://ggf.org/ns/nmwg/tools/owamp/2.0",
                param("direction", "from") + param("count", "10")));
        assertEquals(List.of(ErrorCodes.PARAMETER), r.eventTypes());
        assertTrue(r.resultDatums().get(0).startsWith("parameter direction is 'from': this host can only send"),
                r.resultDatums().get(0));
    }

    @Test
    void aPortRangeIsRefusedForTheResponderPicksTheDataPorts() {
        Responses r = post("MeasurementRequest", measurement("http://ggf.org/ns/nmwg/tools/bwctl/2.0",
                param("portRange", "5001-5300")));
        assertEquals(List.of(ErrorCodes.PARAMETER), r.eventTypes());
        assertEquals(List.of("parameter portRange cannot be honoured: the far end's responder picks the data ports"
                + " (parameter port names its control port)"), r.resultDatums());
    }

    @Test
    void aParameterNoTestReadsIsRefusedWithTheNamesItReads() {
        Responses r = post("MeasurementRequest", measurement("path.delay.roundTrip", param("deadline", "5")));
        assertEquals(List.of(ErrorCodes.PARAMETER), r.eventTypes());
        assertEquals(List.of("parameter deadline is not one a round trip reads; it reads closedLoop, count, interval, packetSize, port,"
                + " protocol, timeDuration, timeout, ttl"), r.resultDatums());
    }

    @Test
    void perfsonarsHarmlessParametersAndASenderRoleStillRunTheTest() throws Exception {
        // Each request gets as far as the engine: the parameters passed, the closed port answered.
        int port = closedPort();
        Responses ping = post("MeasurementRequest", measurement("http://ggf.org/ns/nmwg/tools/ping/2.0/",
                param("supportedEventType", "http://ggf.org/ns/nmwg/tools/ping/2.0/") + param("keepalive", "1")
                        + param("count", "2") + param("port", Integer.toString(port))));
        assertEquals(List.of(ErrorCodes.MP_MEASUREMENT), ping.eventTypes(), ping.resultDatums().toString());
        Responses owamp = post("MeasurementRequest", measurement("http://ggf.org/ns/nmwg/tools/owamp/2.0",
                param("direction", "to") + param("role", "sender") + param("count", "10")
                        + param("port", Integer.toString(port))));
        assertEquals(List.of(ErrorCodes.MP_MEASUREMENT), owamp.eventTypes(), owamp.resultDatums().toString());
    }

    @Test
    void costAndDiagnosisRequestsRefuseAParameterTheyDoNotRead() {
        SafeXml xml = new SafeXml(65536, 32);
        org.nmws.service.mesh.Forwarder none = new org.nmws.service.mesh.Forwarder(org.nmws.service.mesh.Mesh.NONE, "",
                xml::parse, Duration.ofSeconds(1));
        MessageHandler advice = new MessageHandler(xml, ms, archive, props, new DataForms(Kinds.measurementKinds()),
                new org.nmws.service.usecase.Measure(ms, none, org.nmws.service.usecase.Schedules.NONE),
                new org.nmws.service.usecase.TransferCosts(new org.nmws.service.cost.CostService(archive,
                        java.time.Clock.systemUTC(), ms), none, ms),
                new org.nmws.service.cost.DiagnosisService(archive, java.time.Clock.systemUTC(), ms));
        for (String et : List.of(Namespaces.COST, Namespaces.DIAGNOSIS)) {
            String xmlText = "<nmwg:message " + NS + " type=\"SetupDataRequest\" id=\"m1\">"
                    + measurement(et, param("bytes", "1000000") + param("deadline", "5")) + "</nmwg:message>";
            Responses r = Responses.validated(advice.handle(xmlText.getBytes(StandardCharsets.UTF_8), Caller.SERVICE));
            assertEquals(List.of(ErrorCodes.PARAMETER), r.eventTypes(), et + ": " + r.resultDatums());
            assertTrue(r.resultDatums().get(0).startsWith("parameter "), r.resultDatums().get(0));
        }
    }

    @Test
    void aStoredHopListIsAnsweredWithATracerouteDatumPerHopWithoutRaw() {
        archive.save(hopList(T0, "10.1.6.9"));
        String request = pathMetadata("md1", "<nmwgt:dst type=\"ipv4\" value=\"10.1.6.9\"/>",
                "http://ggf.org/ns/nmwg/tools/traceroute/2.0") + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>";
        Responses r = post("SetupDataRequest", request);
        List<Element> hops = r.elements(Namespaces.TRACEROUTE, "datum");
        assertEquals(List.of("1", "2", "3"), hops.stream().map(e -> e.getAttribute("ttl")).toList(), "one datum a hop");
        assertEquals(List.of("10.1.6.1", "10.1.6.2", ""), hops.stream().map(e -> e.getAttribute("hop")).toList());
        assertEquals(List.of("0.5", "1.25", ""), hops.stream().map(e -> e.getAttribute("value")).toList(), "each hop's least RTT");

        Responses raw = post("SetupDataRequest", request.replace("</nmwg:metadata>", "<nmwg:parameters id=\"p\">"
                + param("raw", "true") + "</nmwg:parameters></nmwg:metadata>"));
        assertEquals(6, raw.elements(Namespaces.TRACEROUTE, "datum").size(), "with raw, a datum a probe");
    }

    private static String figure(Responses r, String name) {
        for (Element e : r.elements(Namespaces.NMWS_RESULT, "figure")) {
            if (name.equals(e.getAttribute("name"))) {
                return e.getAttribute("value");
            }
        }
        return null;
    }

    private static Environment env(String dst) {
        return new Environment(new Environment.Host("src", "here", "10.1.2.1", "Linux 6", "cpu", 2, null, null, null),
                dst == null ? null : Environment.Host.remote(dst, dst));
    }

    static Observation roundTrip(Instant start, String dst) {
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("minRtt", 0.25);
        summary.put("sent", 5.0);
        return new Observation(0, "test-point", Characteristic.ProbeTest.ROUND_TRIP,
                new PathSubject(null, Endpoint.parse(dst, "ipv4")), "10.1.2.1", dst, "nmprobe", "test",
                Map.of("count", "5"), env(dst), start, start.plusSeconds(1), summary, List.of());
    }

    static Observation oneWay(Instant start, String dst) {
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("sent", 100.0);
        summary.put("lost", 0.0);
        summary.put("duplicates", 0.0);
        summary.put("minDelayMs", 2.1);
        summary.put("maxDelayMs", 3.4);
        return new Observation(0, "test-point", Characteristic.ProbeTest.UDP_STREAM,
                new PathSubject(null, Endpoint.parse(dst, "ipv4")), "10.1.2.1", dst, "nmprobe", "test",
                Map.of("count", "100"), env(dst), start, start.plusSeconds(2), summary, List.of());
    }

    static Observation hopList(Instant start, String dst) {
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("hopCount", 3.0);
        summary.put("reached", 0.0);
        summary.put("hop1MinRttMs", 0.5);
        summary.put("hop2MinRttMs", 1.25);
        long t = start.getEpochSecond() * 1_000_000_000L;
        List<Observation.Frame> frames = new java.util.ArrayList<>();
        for (int ttl = 1; ttl <= 3; ttl++) {
            for (int q = 0; q < 2; q++) {
                frames.add(new Observation.Frame(frames.size(), t, ttl == 3 ? -1 : ttl * 500_000L + q, 40, ttl));
            }
        }
        Environment e = env(dst);
        Environment withRoute = new Environment(e.src(), e.dst(), List.of(new Environment.RouteHop(1, "10.1.6.1", "r1"),
                new Environment.RouteHop(2, "10.1.6.2", null), new Environment.RouteHop(3, null, null)));
        return new Observation(0, "test-point", Characteristic.ProbeTest.HOP_LIST,
                new PathSubject(null, Endpoint.parse(dst, "ipv4")), null, dst, "nmprobe", "test",
                Map.of("maxTtl", "3"), withRoute, start, start.plusSeconds(3), summary, frames);
    }

    static Observation utilization(Instant start, String ifName) {
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("outMbps", 12.0);
        summary.put("inMbps", 3.0);
        return new Observation(0, "test-point", Characteristic.ProbeTest.UTILIZATION,
                new PathSubject(null, new Endpoint(ifName, "interface")), null, null, "nmws-counters", null,
                Map.of("timeDuration", "10", "interval", "1"), env(null), start, start.plusSeconds(10), summary, List.of());
    }
}
