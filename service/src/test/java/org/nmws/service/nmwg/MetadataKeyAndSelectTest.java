package org.nmws.service.nmwg;

import org.nmws.service.observation.Namespaces;
import org.nmws.service.usecase.ErrorCodes;

import org.nmws.service.kind.Kinds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
import org.w3c.dom.Element;

/** MetadataKeyRequest, DataInfoRequest, SetupDataRequest by key, and select consolidation (issue 5). */
class MetadataKeyAndSelectTest {
    private static final String NS = "xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
            + "xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
            + "xmlns:select=\"http://ggf.org/ns/nmwg/ops/select/2.0/\" xmlns:ping=\"http://ggf.org/ns/nmwg/tools/ping/2.0/\"";
    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");

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
        archive = TestArchives.sqlite(dir);
        handler = handler(250_000);
        // Two series to 10.9.0.1 (count 5 and count 10) and one to 10.9.0.2.
        archive.save(obs(T0, "10.9.0.1", "5", 1.0));
        archive.save(obs(T0.plusSeconds(10), "10.9.0.1", "5", 2.0));
        archive.save(obs(T0.plusSeconds(70), "10.9.0.1", "5", 3.0));
        archive.save(obs(T0.plusSeconds(80), "10.9.0.1", "5", 10.0));
        archive.save(obs(T0.plusSeconds(20), "10.9.0.1", "10", 7.0));
        archive.save(obs(T0.plusSeconds(30), "10.9.0.2", "5", 4.0));
    }

    @Test
    void aMetadataKeyRequestListsEachStoredSeriesWithAKeyThatSetupDataRequestAccepts() {
        Responses mdk = post(message("MetadataKeyRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:dst type=\"ipv4\" value=\"10.9.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>http://ggf.org/ns/nmwg/tools/ping/2.0/</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/>"));
        assertEquals("MetadataKeyResponse", mdk.type());
        List<String> keys = maKeys(mdk);
        assertEquals(2, keys.size(), "one key per parameter set");
        List<String> counts = new ArrayList<>();
        for (Element p : mdk.elements(Namespaces.BASE, "parameter")) {
            if ("count".equals(p.getAttribute("name"))) {
                counts.add(p.getTextContent().trim());
            }
        }
        assertEquals(List.of("5", "10"), counts, "series oldest first");

        Responses byKey = post(message("SetupDataRequest", "<nmwg:metadata id=\"k\"><nmwg:key><nmwg:parameters id=\"kp\">"
                + "<nmwg:parameter name=\"maKey\">" + keys.get(0) + "</nmwg:parameter></nmwg:parameters></nmwg:key>"
                + "</nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"k\"/>"));
        assertEquals(List.of("1", "2", "3", "10"), figures(byKey, "minRtt"), "exactly the count=5 series");
    }

    @Test
    void aKeyWithATimeSelectReturnsOnlyTheWindow() {
        String key = maKeys(post(message("MetadataKeyRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:dst value=\"10.9.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"count\">5</nmwg:parameter></nmwg:parameters>"
                + "</nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/>"))).get(0);
        Responses r = post(message("SetupDataRequest", "<nmwg:metadata id=\"k\"><nmwg:key><nmwg:parameters id=\"kp\">"
                + "<nmwg:parameter name=\"maKey\" value=\"" + key + "\"/></nmwg:parameters></nmwg:key></nmwg:metadata>"
                + "<nmwg:metadata id=\"sel\"><select:subject id=\"ss\" metadataIdRef=\"k\"/><select:parameters id=\"sp\">"
                + "<nmwg:parameter name=\"time\" operator=\"gte\">" + T0.plusSeconds(5).getEpochSecond() + "</nmwg:parameter>"
                + "<nmwg:parameter name=\"time\" operator=\"lte\">" + T0.plusSeconds(75) + "</nmwg:parameter>"
                + "</select:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"sel\"/>"));
        assertEquals(List.of("2", "3"), figures(r, "minRtt"));
    }

    @Test
    void mergeChainingASelectByItsOwnReferenceAndTheBaseByTheSelectSubjectIsResolved() {
        // As perfSONAR's MAs accept: the data's metadata chains to the time select by its own
        // metadataIdRef while its select:subject names the base metadata, declared last.
        Responses r = post(message("SetupDataRequest",
                "<nmwg:metadata id=\"time\"><select:parameters id=\"sp\">"
                + "<nmwg:parameter name=\"time\" operator=\"gte\">" + T0.plusSeconds(5).getEpochSecond() + "</nmwg:parameter>"
                + "<nmwg:parameter name=\"time\" operator=\"lte\">" + T0.plusSeconds(75).getEpochSecond() + "</nmwg:parameter>"
                + "</select:parameters></nmwg:metadata>"
                + "<nmwg:metadata id=\"m\" metadataIdRef=\"time\"><select:subject id=\"ss\" metadataIdRef=\"base\"/>"
                + "<nmwg:eventType>http://ggf.org/ns/nmwg/ops/select/2.0/</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:metadata id=\"base\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst value=\"10.9.0.1\"/>"
                + "</nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/>"));
        List<String> minRtts = figures(r, "minRtt");
        assertTrue(minRtts.containsAll(List.of("2", "3")) && !minRtts.contains("1") && !minRtts.contains("10"),
                "only the window's results: " + minRtts + " " + r.eventTypes());
        // An empty endPointPair asks for every stored path.
        Responses all = post(message("SetupDataRequest", "<nmwg:metadata id=\"e\"><nmwg:subject id=\"s\"><nmwgt:endPointPair/>"
                + "</nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"e\"/>"));
        assertTrue(figures(all, "minRtt").containsAll(List.of("1", "2", "3", "10", "7", "4")), "both paths: " + figures(all, "minRtt"));
        // A reference cycle is still an error, not a loop.
        Responses cycle = post(message("SetupDataRequest", "<nmwg:metadata id=\"a\" metadataIdRef=\"b\"/>"
                + "<nmwg:metadata id=\"b\"><select:subject id=\"x\" metadataIdRef=\"a\"/></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"a\"/>"));
        assertEquals(List.of("error.common.structure"), cycle.eventTypes());
    }

    @Test
    void consolidationAggregatesEachFigureOverEpochAlignedBuckets() {
        String sel = "<nmwg:parameter name=\"startTime\">" + T0.getEpochSecond() + "</nmwg:parameter>"
                + "<nmwg:parameter name=\"endTime\">" + T0.plusSeconds(100).getEpochSecond() + "</nmwg:parameter>"
                + "<nmwg:parameter name=\"resolution\">60</nmwg:parameter>";
        Responses max = post(setupData("10.9.0.1", "5", sel + "<nmwg:parameter name=\"consolidationFunction\">max</nmwg:parameter>"));
        // The path holds both series: [10:00, 10:01) has minRtt 1, 2 (count 5) and 7 (count 10); [10:01, 10:02) 3 and 10.
        assertEquals(List.of("7", "10"), figures(max, "minRtt"), "buckets [10:00, 10:01) and [10:01, 10:02)");
        assertEquals(List.of("3", "2"), figures(max, "observations"));
        Responses avg = post(setupData("10.9.0.1", "5", sel + "<nmwg:parameter name=\"consolidationFunction\">average</nmwg:parameter>"));
        assertEquals(List.of("3.333333", "6.5"), figures(avg, "minRtt"));
        Responses min = post(setupData("10.9.0.1", "5", sel + "<nmwg:parameter name=\"consolidationFunction\">min</nmwg:parameter>"));
        assertEquals(List.of("1", "3"), figures(min, "minRtt"));
        Responses whole = post(setupData("10.9.0.1", "5", "<nmwg:parameter name=\"consolidationFunction\">median</nmwg:parameter>"));
        assertEquals(List.of("3"), figures(whole, "minRtt"), "no resolution: one bucket over 1, 2, 3, 7, 10");
        assertEquals(String.valueOf(T0.getEpochSecond()) + ".000000000",
                whole.elements(Namespaces.PINGER, "datum").get(0).getAttribute("timeValue"));
    }

    @Test
    void aSeriesKeyWithConsolidationAggregatesOnlyThatSeries() {
        String key = maKeys(post(message("MetadataKeyRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:dst value=\"10.9.0.1\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"count\">5</nmwg:parameter></nmwg:parameters>"
                + "</nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/>"))).get(0);
        Responses r = post(message("SetupDataRequest", "<nmwg:metadata id=\"k\"><nmwg:key><nmwg:parameters id=\"kp\">"
                + "<nmwg:parameter name=\"maKey\">" + key + "</nmwg:parameter></nmwg:parameters></nmwg:key></nmwg:metadata>"
                + "<nmwg:metadata id=\"sel\"><select:subject id=\"ss\" metadataIdRef=\"k\"/><select:parameters id=\"sp\">"
                + "<nmwg:parameter name=\"consolidationFunction\">average</nmwg:parameter>"
                + "<nmwg:parameter name=\"resolution\">60</nmwg:parameter>"
                + "</select:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"sel\"/>"));
        assertEquals(List.of("1.5", "6.5"), figures(r, "minRtt"));
    }

    @Test
    void anUnknownConsolidationFunctionOrResolutionIsAParameterError() {
        Responses r = post(setupData("10.9.0.1", "5", "<nmwg:parameter name=\"consolidationFunction\">mode</nmwg:parameter>"));
        assertEquals(List.of(ErrorCodes.PARAMETER), r.eventTypes());
        assertTrue(r.resultDatums().get(0).contains("average, min, max, median"), r.resultDatums().toString());
        Responses res = post(setupData("10.9.0.1", "5", "<nmwg:parameter name=\"resolution\">-5</nmwg:parameter>"));
        assertEquals(List.of(ErrorCodes.PARAMETER), res.eventTypes());
    }

    @Test
    void aDataInfoRequestSaysHowManyObservationsEachSeriesHoldsAndWhen() {
        Responses r = post(message("DataInfoRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:dst value=\"10.9.0.2\"/></nmwgt:endPointPair></nmwg:subject></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/>"));
        assertEquals("DataInfoResponse", r.type());
        assertEquals(List.of("1"), r.resultDatums());
        Element start = r.elements(Namespaces.TIME, "start").get(0);
        assertEquals(T0.plusSeconds(30).getEpochSecond() + ".000000000", start.getAttribute("value"));
    }

    @Test
    void anEmptyFilterListsEverySeriesAndANonMatchingOneSaysNoData() {
        Responses all = post(message("MetadataKeyRequest", "<nmwg:metadata id=\"m\"/><nmwg:data id=\"d\" metadataIdRef=\"m\"/>"));
        assertEquals(3, maKeys(all).size());
        Responses none = post(message("MetadataKeyRequest", "<nmwg:metadata id=\"m\"><ping:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:src type=\"hostname\" value=\"elsewhere.example\"/></nmwgt:endPointPair></ping:subject></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/>"));
        assertEquals("noData", none.elements(Namespaces.RESULT, "datum").get(0).getAttribute("type"));
    }

    @Test
    void keysThisArchiveDidNotIssueAreQueryErrors() {
        Responses noMaKey = post(message("SetupDataRequest", "<nmwg:metadata id=\"k\"><nmwg:key id=\"1\"><nmwg:parameters id=\"2\">"
                + "<nmwg:parameter name=\"type\">sqlite</nmwg:parameter></nmwg:parameters></nmwg:key></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"k\"/>"));
        assertEquals(List.of(ErrorCodes.MA_QUERY), noMaKey.eventTypes());
        for (String forged : List.of("s1.AAAA", "s1.!!!", "2d826ba1a78c47e6f9bacd9838729276", "s1." + "A".repeat(5000))) {
            Responses r = post(message("SetupDataRequest", "<nmwg:metadata id=\"k\"><nmwg:key><nmwg:parameters id=\"p\">"
                    + "<nmwg:parameter name=\"maKey\">" + forged + "</nmwg:parameter></nmwg:parameters></nmwg:key></nmwg:metadata>"
                    + "<nmwg:data id=\"d\" metadataIdRef=\"k\"/>"));
            assertEquals(List.of(ErrorCodes.MA_QUERY), r.eventTypes(), forged);
        }
    }

    @Test
    void aToolNamespaceSubjectNamesTheCharacteristicWhenNoEventTypeIsGiven() {
        Responses r = post(message("SetupDataRequest", "<nmwg:metadata id=\"m\"><ping:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:dst value=\"10.9.0.2\"/></nmwgt:endPointPair></ping:subject></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/>"));
        assertEquals(List.of("4"), figures(r, "minRtt"));
    }

    /** Issue 25: a stored answer cut at its limit says so, and the key it gives fetches the rest, each once. */
    @Test
    void aStoredAnswerCutAtItsLimitSaysSoAndItsKeyFetchesThePageBefore() {
        int total = org.nmws.service.usecase.StoredResults.MAX_RESULTS + 205;
        for (int i = 0; i < total; i++) {
            archive.save(obs(T0.plusSeconds(i), "10.9.0.3", "5", i + 1));
        }
        Responses first = post(setupData("10.9.0.3", "5", ""));
        List<String> newest = figures(first, "minRtt");
        assertEquals(org.nmws.service.usecase.StoredResults.MAX_RESULTS, newest.size());
        assertEquals(Integer.toString(206), newest.get(0), "the newest results, oldest of them first");
        assertTrue(first.eventTypes().contains(StoredAnswers.PARTIAL), "a cut answer says so: " + first.eventTypes());
        String notice = String.join(" ", first.resultDatums());
        java.util.regex.Matcher key = java.util.regex.Pattern.compile(StoredAnswers.PAGE_PARAMETER + "=(\\S+?)( |$)")
                .matcher(notice);
        assertTrue(key.find(), "the notice names the page key: " + notice);

        Responses rest = post(message("SetupDataRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:dst value=\"10.9.0.3\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\">"
                + "<nmwg:parameter name=\"" + StoredAnswers.PAGE_PARAMETER + "\" value=\"" + key.group(1) + "\"/>"
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/>"));
        List<String> older = figures(rest, "minRtt");
        assertEquals(205, older.size(), "exactly the results before the first page");
        assertEquals("1", older.get(0));
        assertEquals("205", older.get(older.size() - 1));
        assertTrue(!rest.eventTypes().contains(StoredAnswers.PARTIAL), "the last page is whole");

        Responses bad = post(message("SetupDataRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:dst value=\"10.9.0.3\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType><nmwg:parameters id=\"p\">"
                + "<nmwg:parameter name=\"" + StoredAnswers.PAGE_PARAMETER + "\" value=\"yesterday\"/>"
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/>"));
        assertTrue(bad.eventTypes().contains(ErrorCodes.PARAMETER), "a key it never gave is the client's error: "
                + bad.eventTypes());
    }

    private MessageHandler handler(int maxAnswerFrames) {
        NmwsProperties props = new NmwsProperties(dir, "test-point", 8700, new NmwsProperties.Xml(65536, 32),
                new NmwsProperties.Limits(1000, Duration.ofSeconds(30), 8, 4, List.of(), 0, maxAnswerFrames, 0));
        return new MessageHandler(new SafeXml(65536, 32),
                new MeasurementService(archive, new HostEnvironment(() -> null), props, new RunningTests(),
                new TestAdmission(List.of(), 0, System::nanoTime), Kinds.measurementKinds(), watchdog), archive, props,
                new DataForms(Kinds.measurementKinds()));
    }

    @Test
    void rawDataBeyondWhatOneAnswerMayCarryIsRefusedAndSummariesStillAnswer() {
        handler = handler(1000);
        for (int i = 0; i < 3; i++) {
            Observation o = obs(T0.plusSeconds(200 + i), i < 2 ? "10.9.0.3" : "10.9.0.4", "600", 1.0);
            List<Observation.Frame> frames = new ArrayList<>();
            for (int f = 0; f < 600; f++) {
                frames.add(new Observation.Frame(f, 1_000_000_000L * (T0.getEpochSecond() + 200 + i) + f * 1000L, 50_000, 64, 64));
            }
            archive.save(new Observation(0, o.measurementPoint(), o.test(), o.subject(), o.srcAddress(), o.dstAddress(),
                    o.tool(), o.toolVersion(), o.parameters(), o.environment(), o.start(), o.end(), o.summary(), frames));
        }
        String both = "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst value=\"10.9.0.3\"/>"
                + "</nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType>"
                + "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"raw\">RAW</nmwg:parameter></nmwg:parameters></nmwg:metadata>"
                + "<nmwg:data id=\"d\" metadataIdRef=\"m\"/>";
        Responses refused = post(message("SetupDataRequest", both.replace("RAW", "true")));
        assertEquals(List.of("error.ma.query"), refused.eventTypes(), "1200 frames asked, 1000 allowed");
        assertTrue(refused.resultDatums().stream().anyMatch(t -> t.contains("nmws.limits.max-answer-frames")),
                refused.resultDatums().toString());
        Responses summaries = post(message("SetupDataRequest", both.replace("RAW", "false")));
        assertEquals(List.of("1", "1"), figures(summaries, "minRtt"));
        // One observation's 600 frames fit.
        Responses one = post(message("SetupDataRequest", both.replace("RAW", "true").replace("10.9.0.3", "10.9.0.4")));
        assertEquals(600, one.elements(Namespaces.PING, "datum").size(), "each frame a ping datum: " + one.eventTypes());
    }

    @Test
    void rawFramesAskedPackedComeAsColumnsHoldingWhatTheDatumsSayAndTheSummaryStays() {
        Observation o = obs(T0.plusSeconds(300), "10.9.0.5", "4", 1.5);
        long start = 1_000_000_000L * (T0.getEpochSecond() + 300);
        List<Observation.Frame> frames = List.of(new Observation.Frame(0, start + 10, 50_000, 64, 64),
                new Observation.Frame(1, start + 1_000_010, Observation.Frame.LOST, 64, -1),
                new Observation.Frame(2, start + 2_000_010, 1_234_567, 1472, 63),
                new Observation.Frame(7, start + 7_000_010, 42, 64, -1));
        archive.save(o.withFrames(frames));
        String ask = "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair><nmwgt:dst value=\"10.9.0.5\"/>"
                + "</nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType>"
                + "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"raw\">true</nmwg:parameter>FORM</nmwg:parameters>"
                + "</nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/>";
        Responses packed = post(message("SetupDataRequest", ask.replace("FORM",
                "<nmwg:parameter name=\"rawForm\">packed</nmwg:parameter>")));
        assertEquals(List.of("path.delay.roundTrip"), packed.eventTypes());
        assertEquals(0, packed.elements(Namespaces.PING, "datum").size(), "no datum per frame");
        assertEquals(List.of("1.5"), figures(packed, "minRtt"), "the summary datums as without raw");
        Map<String, String> columns = new LinkedHashMap<>();
        for (Element e : packed.elements(Namespaces.NMWS_RESULT, "series")) {
            columns.put(e.getAttribute("name"), e.getTextContent());
        }
        assertEquals(Map.of("frame.seqNum", "0 1 2 7", "frame.sendOffsetNs", "10 1000010 2000010 7000010",
                "frame.valueNs", "50000 -1 1234567 42", "frame.numBytes", "64 64 1472 64", "frame.ttl", "64 -1 63 -1"), columns);
        // the same frames as datums, the default form
        Responses datums = post(message("SetupDataRequest", ask.replace("FORM",
                "<nmwg:parameter name=\"rawForm\">datums</nmwg:parameter>")));
        List<String> seq = new ArrayList<>();
        for (Element e : datums.elements(Namespaces.PING, "datum")) {
            seq.add(e.getAttribute("seqNum") + "@" + e.getAttribute("timeValue") + "=" + e.getAttribute("value"));
        }
        long s = T0.getEpochSecond() + 300;
        assertEquals(List.of("0@" + s + ".000000010=0.05", "1@" + s + ".001000010=", "2@" + s + ".002000010=1.234567",
                "7@" + s + ".007000010=4.2E-5"), seq);
        Responses wrong = post(message("SetupDataRequest", ask.replace("FORM",
                "<nmwg:parameter name=\"rawForm\">zip</nmwg:parameter>")));
        assertEquals(List.of(ErrorCodes.PARAMETER), wrong.eventTypes());
        assertTrue(wrong.resultDatums().get(0).contains("rawForm is 'zip'"), wrong.resultDatums().toString());
    }

    private Responses post(String xml) {
        return Responses.validated(handler.handle(xml.getBytes(StandardCharsets.UTF_8), org.nmws.service.measure.Caller.SERVICE));
    }

    private static String message(String type, String body) {
        return "<nmwg:message " + NS + " type=\"" + type + "\" id=\"msg\">" + body + "</nmwg:message>";
    }

    private static String setupData(String dst, String count, String selectParams) {
        return message("SetupDataRequest", "<nmwg:metadata id=\"m\"><nmwg:subject id=\"s\"><nmwgt:endPointPair>"
                + "<nmwgt:dst value=\"" + dst + "\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:metadata id=\"sel\"><select:subject id=\"ss\" metadataIdRef=\"m\"/><select:parameters id=\"sp\">"
                + selectParams + "</select:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"sel\"/>");
    }

    private static List<String> maKeys(Responses r) {
        List<String> keys = new ArrayList<>();
        for (Element p : r.elements(Namespaces.BASE, "parameter")) {
            if ("maKey".equals(p.getAttribute("name"))) {
                keys.add(p.getTextContent().trim());
            }
        }
        return keys;
    }

    private static List<String> figures(Responses r, String name) {
        List<String> out = new ArrayList<>();
        for (Element e : r.elements(Namespaces.PINGER, "datum")) {
            if (name.equals(e.getAttribute("name"))) {
                out.add(e.getAttribute("value"));
            }
        }
        return out;
    }

    private static Observation obs(Instant start, String dst, String count, double minRtt) {
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("minRtt", minRtt);
        summary.put("lossPercent", 0.0);
        Map<String, String> params = new LinkedHashMap<>();
        params.put("count", count);
        params.put("packetSize", "64");
        Environment env = new Environment(new Environment.Host("src", "here", "10.9.0.254", "Linux 6", "cpu", 2, null, null, null),
                new Environment.Host("dst", dst, dst, null, null, null, null, null, null));
        return new Observation(0, "test-point", Characteristic.ProbeTest.ROUND_TRIP,
                new PathSubject(null, Endpoint.parse(dst, "ipv4")), "10.9.0.254", dst, "nmprobe", "test",
                params, env, start, start.plusSeconds(1), summary, List.of());
    }
}
