package org.nmws.service.nmwg;

import org.nmws.service.observation.Namespaces;
import org.nmws.service.usecase.ErrorCodes;

import org.nmws.service.kind.Kinds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.JdbcArchive;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.measure.TestAdmission;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

class MessageHandlerTest {
    private static final String NS = "xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
            + "xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
            + "xmlns:select=\"http://ggf.org/ns/nmwg/ops/select/2.0/\" xmlns:ping=\"http://ggf.org/ns/nmwg/tools/ping/2.0/\"";

    @TempDir
    Path dir;
    JdbcArchive archive;
    MessageHandler handler;

    private final java.util.concurrent.ScheduledExecutorService watchdog =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor();

    @org.junit.jupiter.api.AfterEach
    void stopWatchdog() {
        watchdog.shutdownNow();
    }

    @BeforeEach
    void setUp() {
        NmwsProperties props = new NmwsProperties(dir, "test-point", 8700, new NmwsProperties.Xml(65536, 32),
                new NmwsProperties.Limits(1000, Duration.ofSeconds(30), 8, 4, List.of(), 0, 250_000, 0));
        archive = TestArchives.sqlite(dir);
        MeasurementService ms = new MeasurementService(archive, new HostEnvironment(() -> null), props, new RunningTests(),
                new TestAdmission(List.of(), 0, System::nanoTime), Kinds.measurementKinds(), watchdog);
        handler = new MessageHandler(new SafeXml(65536, 32), ms, archive, props, new DataForms(Kinds.measurementKinds()));
    }

    private Responses post(String xml) {
        return Responses.validated(handler.handle(xml.getBytes(StandardCharsets.UTF_8), org.nmws.service.measure.Caller.SERVICE));
    }

    private static String message(String type, String body) {
        return "<nmwg:message " + NS + " type=\"" + type + "\" id=\"m1\">" + body + "</nmwg:message>";
    }

    private static String pathMetadata(String id, String dst, String eventType, String params) {
        return "<nmwg:metadata id=\"" + id + "\"><nmwg:subject id=\"s-" + id + "\"><nmwgt:endPointPair>"
                + "<nmwgt:dst type=\"ipv4\" value=\"" + dst + "\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>" + eventType + "</nmwg:eventType>"
                + "<nmwg:parameters id=\"p-" + id + "\">" + params + "</nmwg:parameters></nmwg:metadata>";
    }

    @Test
    void anEchoRequestIsAnsweredWithSuccessEcho() {
        Responses r = post(message("EchoRequest", "<nmwg:metadata id=\"md1\"><nmwg:eventType>"
                + "http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>"));
        assertEquals("EchoResponse", r.type());
        assertEquals(List.of("success.echo"), r.eventTypes());
        assertEquals("m1", r.doc().getDocumentElement().getAttribute("messageIdRef"));
    }

    @Test
    void anUnknownMessageTypeGetsActionNotSupported() {
        Responses r = post(message("FrobnicateRequest", ""));
        assertEquals("FrobnicateResponse", r.type());
        assertEquals(List.of(ErrorCodes.ACTION_NOT_SUPPORTED), r.eventTypes());
        assertTrue(r.resultDatums().get(0).contains("'FrobnicateRequest' is not supported"));
    }

    @Test
    void aMessageInAnotherNamespaceIsAParseError() {
        Responses r = post("<message xmlns=\"http://example.org/other\" type=\"EchoRequest\"/>");
        assertEquals("ErrorResponse", r.type());
        assertEquals(List.of(ErrorCodes.PARSE_ERROR), r.eventTypes());
        assertTrue(r.resultDatums().get(0).contains("{http://example.org/other}message"), r.resultDatums().get(0));
    }

    @Test
    void textThatIsNotXmlGetsAParseErrorResult() {
        Responses r = post("this is not xml");
        assertEquals(List.of(ErrorCodes.PARSE_ERROR), r.eventTypes());
    }

    @Test
    void aDataTriggerWithoutItsMetadataIsAStructureError() {
        Responses r = post(message("SetupDataRequest", "<nmwg:data id=\"d1\" metadataIdRef=\"nowhere\"/>"));
        assertEquals(List.of(ErrorCodes.STRUCTURE), r.eventTypes());
        assertEquals("data 'd1' refers to metadata 'nowhere', which is not in the message", r.resultDatums().get(0));
    }

    @Test
    void aCycleOfMetadataReferencesIsAStructureError() {
        Responses r = post(message("SetupDataRequest",
                "<nmwg:metadata id=\"a\" metadataIdRef=\"b\"/><nmwg:metadata id=\"b\" metadataIdRef=\"a\"/>"
                        + "<nmwg:data id=\"d1\" metadataIdRef=\"a\"/>"));
        assertEquals(List.of(ErrorCodes.STRUCTURE), r.eventTypes());
        assertTrue(r.resultDatums().get(0).contains("cycle"));
    }

    @Test
    void anUnknownEventTypeIsNotSupported() {
        Responses r = post(message("MeasurementRequest", pathMetadata("md1", "127.0.0.1", "path.colour.favourite", "")
                + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>"));
        assertEquals(List.of(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED), r.eventTypes());
        assertTrue(r.resultDatums().get(0).startsWith("eventType 'path.colour.favourite' is not supported"));
    }

    @Test
    void anOutOfRangeParameterIsRefusedBeforeAnyTestRuns() {
        Responses r = post(message("MeasurementRequest", pathMetadata("md1", "127.0.0.1", "path.delay.roundTrip",
                "<nmwg:parameter name=\"count\">0</nmwg:parameter>") + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>"));
        assertEquals(List.of(ErrorCodes.PARAMETER), r.eventTypes());
        assertEquals("parameter count is 0: must be 1..1000", r.resultDatums().get(0));
    }

    @Test
    void aMalformedFlagThatChoosesTheTestIsAParameterErrorNotAnInternalOne() throws Exception {
        Responses r = post(message("MeasurementRequest", pathMetadata("md1", "127.0.0.1",
                "http://ggf.org/ns/nmwg/characteristic/bandwidth/capacity/2.0",
                "<nmwg:parameter name=\"perHop\">maybe</nmwg:parameter>") + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>"));
        assertEquals(List.of(ErrorCodes.PARAMETER), r.eventTypes());
        assertTrue(r.resultDatums().get(0).contains("perHop"), r.resultDatums().get(0));
    }

    @Test
    void aTestToAPortWithNoResponderIsAMeasurementErrorNamingTheAddress() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Responses r = post(message("MeasurementRequest", pathMetadata("md1", "127.0.0.1", "http://ggf.org/ns/nmwg/tools/ping/2.0/",
                "<nmwg:parameter name=\"port\">" + closedPort + "</nmwg:parameter>") + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>"));
        assertEquals(List.of(ErrorCodes.MP_MEASUREMENT), r.eventTypes());
        assertTrue(r.resultDatums().get(0).contains("127.0.0.1:" + closedPort), r.resultDatums().get(0));
    }

    @Test
    void eachPairIsAnsweredOnItsOwn() {
        Responses r = post(message("SetupDataRequest", pathMetadata("md1", "10.9.9.9", "path.delay.roundTrip", "")
                + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/><nmwg:data id=\"d2\" metadataIdRef=\"missing\"/>"));
        assertEquals(List.of("path.delay.roundTrip", ErrorCodes.STRUCTURE), r.eventTypes());
    }

    @Test
    void storedResultsAreReturnedWithinTheSelectedTimeRangeAndNotOutsideIt() {
        Instant start = Instant.parse("2026-11-20T10:00:00Z");
        archive.save(observation(start, "10.1.2.3"));
        String select = "<nmwg:metadata id=\"md2\"><select:subject id=\"ss\" metadataIdRef=\"md1\"/>"
                + "<select:parameters id=\"sp\"><nmwg:parameter name=\"time\" operator=\"gte\">%d</nmwg:parameter>"
                + "<nmwg:parameter name=\"time\" operator=\"lte\">%d</nmwg:parameter></select:parameters></nmwg:metadata>"
                + "<nmwg:data id=\"d1\" metadataIdRef=\"md2\"/>";
        long t = start.getEpochSecond();
        Responses hit = post(message("SetupDataRequest", pathMetadata("md1", "10.1.2.3", "http://ggf.org/ns/nmwg/tools/ping/2.0/", "")
                + String.format(select, t - 10, t + 10)));
        assertEquals("SetupDataResponse", hit.type());
        assertEquals("0.25", hit.pinger("minRtt"));
        assertEquals("5", hit.pinger("sent"));
        assertEquals("20", hit.pinger("lossPercent"));
        assertEquals(1, hit.elements(Namespaces.ENVIRONMENT, "environment").size());

        Responses miss = post(message("SetupDataRequest", pathMetadata("md1", "10.1.2.3", "path.delay.roundTrip", "")
                + String.format(select, t + 10, t + 20)));
        assertEquals("noData", miss.elements(Namespaces.RESULT, "datum").get(0).getAttribute("type"));
    }

    @Test
    void anNmtmTimeWindowSelectsStoredResultsLikeStartAndEndTime() {
        Instant start = Instant.parse("2026-11-20T11:00:00Z");
        archive.save(observation(start, "10.1.2.5"));
        long t = start.getEpochSecond();
        String select = "<nmwg:metadata id=\"md2\"><select:subject id=\"ss\" metadataIdRef=\"md1\"/>"
                + "<nmtm:time xmlns:nmtm=\"http://ggf.org/ns/nmwg/time/2.0/\" type=\"unix\"><nmtm:start type=\"unix\" value=\"%d\"/>"
                + "<nmtm:end type=\"unix\"><nmtm:value>%d</nmtm:value></nmtm:end></nmtm:time></nmwg:metadata>"
                + "<nmwg:data id=\"d1\" metadataIdRef=\"md2\"/>";
        Responses hit = post(message("SetupDataRequest", pathMetadata("md1", "10.1.2.5", "path.delay.roundTrip", "")
                + String.format(select, t - 5, t + 5)));
        assertEquals("0.25", hit.pinger("minRtt"));
        Responses miss = post(message("SetupDataRequest", pathMetadata("md1", "10.1.2.5", "path.delay.roundTrip", "")
                + String.format(select, t + 5, t + 50)));
        assertEquals("noData", miss.elements(Namespaces.RESULT, "datum").get(0).getAttribute("type"));
    }

    @Test
    void aSubjectWithOnlyASrcAsksForEverythingMeasuredFromThatHost() {
        // As perfSONAR's owamp and bwctl MA clients ask: all results from a host, to anywhere.
        archive.save(observation(Instant.parse("2026-11-20T12:00:00Z"), "10.1.2.6"));
        archive.save(observation(Instant.parse("2026-11-20T12:01:00Z"), "10.1.2.7"));
        String request = "<nmwg:metadata id=\"md1\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:src type=\"ipv4\" value=\"%s\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>";
        Responses r = post(message("SetupDataRequest", String.format(request, "10.1.2.1")));
        List<String> dsts = r.elements(Namespaces.TOPOLOGY, "dst").stream().map(e -> e.getAttribute("value")).toList();
        assertEquals(List.of("10.1.2.6", "10.1.2.7"), dsts, "one series per destination");
        Responses none = post(message("SetupDataRequest", String.format(request, "10.9.9.9")));
        assertEquals("noData", none.elements(Namespaces.RESULT, "datum").get(0).getAttribute("type"));
    }

    @Test
    void perFrameDatumsAreReturnedWhenAsked() {
        archive.save(observation(Instant.parse("2026-11-20T10:00:00Z"), "10.1.2.4"));
        Responses r = post(message("SetupDataRequest", pathMetadata("md1", "10.1.2.4", "path.delay.roundTrip",
                "<nmwg:parameter name=\"raw\">true</nmwg:parameter>") + "<nmwg:data id=\"d1\" metadataIdRef=\"md1\"/>"));
        var frames = r.elements(Namespaces.PING, "datum");
        assertEquals(5, frames.size());
        assertEquals("0.25", frames.get(0).getAttribute("value"));
        assertEquals("", frames.get(4).getAttribute("value"), "a lost frame has no value");
    }

    static Observation observation(Instant start, String dst) {
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("minRtt", 0.25);
        summary.put("sent", 5.0);
        summary.put("lossPercent", 20.0);
        List<Observation.Frame> frames = List.of(
                new Observation.Frame(0, 1, 250_000, 64, 64), new Observation.Frame(1, 2, 300_000, 64, 64),
                new Observation.Frame(2, 3, 350_000, 64, 64), new Observation.Frame(3, 4, 400_000, 64, 64),
                new Observation.Frame(4, 5, -1, 64, -1));
        Environment env = new Environment(new Environment.Host("src", "here", "10.1.2.1", "Linux 6", "cpu", 2, null, null, null),
                new Environment.Host("dst", dst, dst, null, null, null, null, null, null));
        return new Observation(0, "test-point", Characteristic.ProbeTest.ROUND_TRIP,
                new PathSubject(null, Endpoint.parse(dst, "ipv4")), "10.1.2.1", dst, "nmprobe", "test",
                Map.of("count", "5"), env, start, start.plusSeconds(1), summary, frames);
    }
}
