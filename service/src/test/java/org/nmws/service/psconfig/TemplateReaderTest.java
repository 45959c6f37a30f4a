package org.nmws.service.psconfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The template reader and planner on templates written for these tests (src/test/resources/psconfig). */
class TemplateReaderTest {
    private final TemplateReader reader = new TemplateReader();

    private static final java.util.function.Function<String, com.fasterxml.jackson.databind.JsonNode> JSON_TEMPLATE = text -> {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    };

    private static String fixture(String name) throws URISyntaxException {
        return Path.of(TemplateReaderTest.class.getResource("/psconfig/" + name).toURI()).toString();
    }

    private Plan planAs(String fixture, String... self) throws URISyntaxException {
        Set<String> me = Set.of(self);
        return new Planner(me::contains).plan(reader.read(fixture(fixture)).template());
    }

    private static Map<String, Plan.Planned> byName(Plan plan) {
        return plan.runs().stream().collect(Collectors.toMap(Plan.Planned::name, p -> p));
    }

    private static String reasonOf(Plan plan, String task, String pair) {
        return plan.notRun().stream().filter(n -> n.task().equals(task) && java.util.Objects.equals(n.pair(), pair))
                .map(Plan.NotRun::reason).findFirst().orElse("(none for " + task + " " + pair + ": " + plan.notRun() + ")");
    }

    @Test
    void aPointRunsOnlyThePairsItSchedulesLessExcludesAndItsOwnHost() throws Exception {
        Plan plan = planAs("share.json", "10.1.0.1");
        assertEquals(Set.of("psconfig:rtt-mesh:alpha:bravo", "psconfig:latency-uni:alpha:bravo", "psconfig:latency-uni:alpha:charlie",
                "psconfig:latencybg-both:alpha:bravo", "psconfig:throughput-both:alpha:bravo", "psconfig:trace-v6:alpha:charlie",
                "psconfig:flip-echo:alpha:bravo", "psconfig:ping-out:alpha:10.9.9.9", "psconfig:relative-start:alpha:bravo",
                "psconfig:relative-start:alpha:charlie", "psconfig:once:alpha:bravo", "psconfig:once:alpha:charlie"),
                byName(plan).keySet());
        assertEquals(List.of(), plan.notes(), "every task has a pair scheduled here");
        assertEquals(List.of("task latency-uni: none of its pairs is scheduled by this point",
                "task throughput-omit: none of its pairs is scheduled by this point",
                "task trace-v6: none of its pairs is scheduled by this point",
                "task jq-task: none of its pairs is scheduled by this point",
                "task relative-start: none of its pairs is scheduled by this point",
                "task once: none of its pairs is scheduled by this point",
                "task ping-out: none of its pairs is scheduled by this point"), planAs("share.json", "10.1.0.2").notes());
    }

    @Test
    void aDisjointGroupRunsBothWaysUnlessUnidirectionalAndANoAgentAddressIsScheduledByTheOtherEnd() throws Exception {
        Plan plan = planAs("share.json", "10.1.0.2");
        Map<String, Plan.Planned> runs = byName(plan);
        assertTrue(runs.containsKey("psconfig:latencybg-both:bravo:alpha"), runs.keySet().toString());
        assertTrue(runs.containsKey("psconfig:latencybg-both:bravo:echo"), runs.keySet().toString());
        assertTrue(runs.keySet().stream().noneMatch(n -> n.startsWith("psconfig:latency-uni:")), "unidirectional a to b only");
        assertEquals("the test is flipped (its source has no agent): nmws measures from this point only",
                reasonOf(plan, "flip-echo", "echo->bravo"));
        assertEquals("the test's source 10.1.0.5 is not this point: nmws measures from itself only",
                reasonOf(plan, "latencybg-both", "echo->bravo"));
        // bravo's mesh share: to alpha, alpha-2 and charlie (delta is disabled)
        assertEquals(Set.of("psconfig:rtt-mesh:bravo:alpha", "psconfig:rtt-mesh:bravo:alpha-2", "psconfig:rtt-mesh:bravo:charlie"),
                runs.keySet().stream().filter(n -> n.startsWith("psconfig:rtt-mesh:")).collect(Collectors.toSet()));
    }

    @Test
    void testsMapToCharacteristicsWithTheirSpecFieldsAndVariables() throws Exception {
        Map<String, Plan.Planned> runs = byName(planAs("share.json", "10.1.0.1"));
        Plan.Planned rtt = runs.get("psconfig:rtt-mesh:alpha:bravo");
        assertEquals("path.delay.roundTrip", rtt.request().characteristic());
        assertEquals("10.1.0.2", rtt.request().dst());
        assertEquals(Map.of("count", "10", "interval", "0.5", "packetSize", "100", "ttl", "32", "timeout", "2"),
                rtt.request().parameters());
        Plan.Planned latency = runs.get("psconfig:latency-uni:alpha:charlie");
        assertEquals("path.delay.oneWay", latency.request().characteristic());
        assertEquals(Map.of("count", "100", "interval", "0.1", "packetSize", "64"), latency.request().parameters());
        Plan.Planned bg = runs.get("psconfig:latencybg-both:alpha:bravo");
        assertEquals(Boolean.TRUE, bg.request().continuous());
        assertEquals(Map.of("interval", "0.2"), bg.request().parameters());
        Plan.Planned tcp = runs.get("psconfig:throughput-both:alpha:bravo");
        assertEquals("path.bandwidth.achievable.TCP", tcp.request().characteristic());
        assertEquals(Map.of("timeDuration", "20", "streams", "4"), tcp.request().parameters());
        Plan.Planned trace = runs.get("psconfig:trace-v6:alpha:charlie");
        assertEquals("path.hoplist", trace.request().characteristic());
        assertEquals("fd00::3", trace.request().dst(), "the selector's label picks the address");
        assertEquals(Map.of("maxTtl", "20", "waitTime", "2", "probesPerHop", "2"), trace.request().parameters());
        assertEquals("10.9.9.9", runs.get("psconfig:ping-out:alpha:10.9.9.9").request().dst(), "a list group's address sends");
    }

    @Test
    void anAddressesResponderPortFromItsMetaIsTheTestsPort() throws Exception {
        Map<String, Plan.Planned> runs = byName(planAs("share.json", "10.1.0.2"));
        assertEquals("8702", runs.get("psconfig:rtt-mesh:bravo:alpha").request().parameters().get("port"));
        assertNull(runs.get("psconfig:rtt-mesh:bravo:charlie").request().parameters().get("port"));
    }

    @Test
    void schedulesMapRepeatSlipStartUntilAndMaxRuns() throws Exception {
        Map<String, Plan.Planned> runs = byName(planAs("share.json", "10.1.0.1"));
        Plan.Planned rtt = runs.get("psconfig:rtt-mesh:alpha:bravo");
        assertEquals("600", rtt.request().period());
        assertEquals("300", rtt.request().slip());
        Plan.Planned weekly = runs.get("psconfig:throughput-both:alpha:bravo");
        assertEquals("604800", weekly.request().period());
        assertEquals("86400", weekly.request().slip());
        Plan.Planned bounded = runs.get("psconfig:latency-uni:alpha:bravo");
        assertEquals("2030-01-01T00:00:00Z", bounded.request().start());
        assertEquals("2030-01-02T00:00:00Z", bounded.request().end(), "24 runs an hour apart end before until");
        assertTrue(bounded.notes().contains("max-runs 24 held as an end at 2030-01-02T00:00:00Z"), bounded.notes().toString());
    }

    /** Issue 22: a task preferring owping, powstream or twping runs OWAMP or TWAMP to the far end's own server. */
    @Test
    void owampAndTwampToolsRunTheirProtocolsToAnyPerfsonarHost() throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        TestMapping.Mapped latency = TestMapping.map("latency", json.readTree(
                "{\"source\":\"10.1.0.1\",\"dest\":\"10.1.0.2\",\"packet-count\":600,\"packet-interval\":0.1,"
                        + "\"packet-padding\":20}"), 8700, "owping");
        assertEquals("path.delay.oneWay", latency.characteristic());
        assertEquals(Map.of("protocol", "OWAMP", "count", "600", "interval", "0.1", "packetPadding", "20"),
                latency.parameters(), "owamp's padding as itself, and no nmws responder port");
        TestMapping.Mapped bg = TestMapping.map("latencybg", json.readTree("{\"dest\":\"10.1.0.2\"}"), 0, "powstream");
        assertTrue(bg.continuous());
        assertEquals("OWAMP", bg.parameters().get("protocol"));
        TestMapping.Mapped rtt = TestMapping.map("rtt", json.readTree("{\"dest\":\"10.1.0.2\",\"count\":10}"), 0, "twping");
        assertEquals(Map.of("protocol", "TWAMP", "count", "10"), rtt.parameters());
        // without one of those tools first, nmws's own test (to its responder) stands in
        assertEquals(Map.of("count", "10", "port", "8700"),
                TestMapping.map("rtt", json.readTree("{\"dest\":\"10.1.0.2\",\"count\":10}"), 8700, "ping").parameters());
        assertEquals("114", TestMapping.map("latency", json.readTree("{\"dest\":\"x\",\"packet-padding\":100}"), 0, null)
                .parameters().get("packetSize"));
    }

    @Test
    void whatCannotRunIsListedWithWhy() throws Exception {
        Plan plan = planAs("share.json", "10.1.0.1");
        assertEquals("the task is disabled", reasonOf(plan, "off", null));
        assertEquals("test type dns has no nmws kind (nmws measures rtt, latency, latencybg, throughput and trace)",
                reasonOf(plan, "dns-task", null));
        assertEquals("tools [\"mtr\"]: nmws's own trace test stands in for paris-traceroute, tracepath, traceroute only",
                reasonOf(plan, "twamp-tool", null));
        assertEquals("archive old-esmond has archiver esmond, which nmws does not know (it knows http, kafka, opensearch, rabbitmq)",
                reasonOf(plan, "esmond-archived", null));
        // a start relative to the read, and no repeat (once): planned, their start fixed when the schedule is made
        Plan.Planned relative = plan.runs().stream().filter(r -> r.task().equals("relative-start")).findFirst().orElseThrow();
        assertEquals(new Plan.Window(null, Duration.ofHours(1), null, null, Duration.ofHours(1), null), relative.window());
        assertTrue(relative.notes().contains("start PT1H counted from when this point first made the schedule"), relative.notes()
                .toString());
        Instant made = Instant.parse("2026-03-01T10:00:00Z");
        assertEquals(made.plus(Duration.ofHours(1)), relative.window().start(made, null));
        assertEquals(Instant.parse("2026-03-01T09:00:00Z"), relative.window().start(made, Instant.parse("2026-03-01T09:00:00Z")),
                "the start kept from when it was made");
        assertNull(relative.window().end(made));
        Plan.Planned once = plan.runs().stream().filter(r -> r.task().equals("once")).findFirst().orElseThrow();
        assertEquals(made.plus(Plan.Window.LEAD), once.window().start(made, null), "as soon as it can be agreed");
        assertEquals(made.plus(Duration.ofDays(1)), once.window().end(made), "one slot of a day's period");
        assertTrue(once.notes().contains("no repeat: runs once, at its start"), once.notes().toString());
        assertTrue(reasonOf(plan, "throughput-omit", "alpha->bravo").startsWith("throughput spec field omit is not one nmws can honour"),
                reasonOf(plan, "throughput-omit", "alpha->bravo"));
        assertTrue(reasonOf(plan, "jq-task", "alpha->charlie").startsWith("template variable {% jq .addresses[0] %} is not supported"),
                reasonOf(plan, "jq-task", "alpha->charlie"));
        assertEquals(List.of(new Plan.Archive("central", "http", true), new Plan.Archive("old-esmond", "esmond", false)),
                plan.archives());
        // a task with subtasks runs, and each subtask is listed
        assertTrue(plan.runs().stream().anyMatch(r -> r.task().equals("rtt-mesh")));
        assertEquals("subtask of test trace at PT5S after end is not run: nmws runs no test tied to another's run; the task"
                + " itself runs", reasonOf(plan, "rtt-mesh/trace-after", null));
        assertEquals("subtask undefined-sub is not defined in the template", reasonOf(plan, "rtt-mesh/undefined-sub", null));
        // and not by a point that runs none of the task's pairs
        assertTrue(planAs("share.json", "10.9.9.9").notRun().stream().noneMatch(n -> n.task().startsWith("rtt-mesh/")));
    }

    /** Issue 23, item 3: a task's archives are its schedules', their template variables filled for the pair. */
    @Test
    void aTasksArchivesAreItsSchedulesArchivesFilledForThePair() throws Exception {
        Plan.Planned run = byName(planAs("share.json", "10.1.0.1")).get("psconfig:rtt-mesh:alpha:bravo");
        org.nmws.service.schedule.Schedule s = run.request().toSchedule(run.name(), "alpha", (c, p) ->
                org.nmws.service.measure.TestClass.BACKGROUND);
        assertEquals(1, s.archives().size());
        org.nmws.service.archive.ArchiveTarget central = s.archives().get(0);
        assertEquals("central", central.name());
        assertEquals("http", central.archiver());
        assertEquals("https://archive.example.net/logstash", central.data().path("_url").asText());
        assertEquals("10.1.0.1", central.data().path("_headers").path("x-ps-observer").asText(), "scheduled_by_address filled");
        assertEquals("https://archive.example.net", central.destination());
        assertEquals("hidden", central.shown().path("data").path("_url").asText());
        assertTrue(byName(planAs("share.json", "10.1.0.1")).get("psconfig:latency-uni:alpha:bravo").request().archives() == null,
                "a task without archives sends nowhere");
        // the spec's source 10.1.0.1 is this point's in the template but no address of this host: named nowhere, with a note
        assertEquals(null, s.src());
        assertTrue(run.notes().contains("source 10.1.0.1 is not an address of this host: its results name no source"),
                run.notes().toString());
        Plan.Planned local = byName(new Planner(Set.of("127.0.0.1")::contains).plan(JSON_TEMPLATE.apply(
                "{\"addresses\":{\"a\":{\"address\":\"127.0.0.1\"},\"b\":{\"address\":\"127.0.0.2\"}},\"groups\":{\"g\":"
                + "{\"type\":\"disjoint\",\"unidirectional\":true,\"a-addresses\":[{\"name\":\"a\"}],\"b-addresses\":"
                + "[{\"name\":\"b\"}]}},\"tests\":{\"t\":{\"type\":\"rtt\",\"spec\":{\"source\":\"{% address[0] %}\","
                + "\"dest\":\"{% address[1] %}\"}}},\"schedules\":{\"s\":{\"repeat\":\"PT1M\"}},\"tasks\":{\"k\":"
                + "{\"group\":\"g\",\"test\":\"t\",\"schedule\":\"s\"}}}"))).get("psconfig:k:a:b");
        assertEquals("127.0.0.1", local.request().toSchedule(local.name(), "a", (c, p) ->
                org.nmws.service.measure.TestClass.BACKGROUND).src(), "a source of this host is the schedule's");
    }

    @Test
    void includesAddWhatTheIncludingTemplateDoesNotDefine() throws Exception {
        TemplateReader.Read read = reader.read(fixture("main-with-include.json"));
        assertEquals(2, read.sources().size(), read.sources().toString());
        assertTrue(read.notes().get(0).startsWith("addresses alpha is defined by "), read.notes().toString());
        Plan plan = new Planner(Set.of("10.1.0.1")::contains).plan(read.template());
        assertEquals(List.of("psconfig:rtt-ab:alpha:bravo"), plan.runs().stream().map(Plan.Planned::name).toList());
        assertEquals("60", plan.runs().get(0).request().period());
    }

    @Test
    void aTemplateThatFailsTheSchemaIsRefusedWholeWithTheSchemasPath() throws Exception {
        TemplateException e = assertThrows(TemplateException.class, () -> reader.read(fixture("bad-schedule.json")));
        assertTrue(e.getMessage().contains("at /schedules/broken/repeat: does not match the regex pattern"), e.getMessage());
        assertTrue(e.getMessage().contains("#/definitions/Duration/pattern"), e.getMessage());
    }

    @Test
    void aTemplateWithoutTasksIsRefused() throws Exception {
        Path t = java.nio.file.Files.createTempFile("psconfig", ".json");
        java.nio.file.Files.writeString(t, "{\"addresses\":{},\"groups\":{},\"tests\":{}}");
        TemplateException e = assertThrows(TemplateException.class, () -> reader.read(t.toString()));
        assertTrue(e.getMessage().contains("tasks"), e.getMessage());
    }

    @Test
    void isoDurationsWithWeeksAndFractionsAreSeconds() {
        assertEquals("604800", Durations.seconds(Durations.parse("repeat", "P1W")));
        assertEquals("0.25", Durations.seconds(Durations.parse("interval", "PT0.25S")));
        assertEquals("93600", Durations.seconds(Durations.parse("repeat", "P1DT2H")));
        // past a long of milliseconds: refused, not wrapped into a short (or negative) period
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Durations.parse("repeat", "P99999999999999W"));
        assertTrue(e.getMessage().contains("repeat"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("repeat", "PT"));
    }

    @Test
    void aPointOfATemplateOf633AddressesRunsItsHandCountedShareQuickly() throws Exception {
        StringBuilder addresses = new StringBuilder();
        StringBuilder all = new StringBuilder();
        StringBuilder a = new StringBuilder();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 633; i++) {
            String name = "host-" + i;
            addresses.append(i == 0 ? "" : ",").append('"').append(name).append("\":{\"address\":\"10.2.").append(i / 250).append('.')
                    .append(i % 250 + 1).append("\"}");
            String selector = "{\"name\":\"" + name + "\"}";
            all.append(i == 0 ? "" : ",").append(selector);
            (i < 300 ? a : b).append(i == 0 || i == 300 ? "" : ",").append(selector);
        }
        Path t = java.nio.file.Files.createTempFile("psconfig-633", ".json");
        java.nio.file.Files.writeString(t, "{\"addresses\":{" + addresses + "},\"groups\":{"
                + "\"everyone\":{\"type\":\"mesh\",\"addresses\":[" + all + "]},"
                + "\"halves\":{\"type\":\"disjoint\",\"a-addresses\":[" + a + "],\"b-addresses\":[" + b + "]}},"
                + "\"tests\":{\"rtt\":{\"type\":\"rtt\",\"spec\":{\"source\":\"{% address[0] %}\",\"dest\":\"{% address[1] %}\"}},"
                + "\"trace\":{\"type\":\"trace\",\"spec\":{\"source\":\"{% address[0] %}\",\"dest\":\"{% address[1] %}\"}}},"
                + "\"schedules\":{\"hourly\":{\"repeat\":\"PT1H\",\"slip\":\"PT30M\",\"sliprand\":true}},"
                + "\"tasks\":{\"rtt-all\":{\"group\":\"everyone\",\"test\":\"rtt\",\"schedule\":\"hourly\"},"
                + "\"trace-all\":{\"group\":\"everyone\",\"test\":\"trace\",\"schedule\":\"hourly\"},"
                + "\"rtt-halves\":{\"group\":\"halves\",\"test\":\"rtt\",\"schedule\":\"hourly\"}}}");
        long began = System.nanoTime();
        Plan plan = new Planner(Set.of("10.2.0.18")::contains).plan(reader.read(t.toString()).template());
        long ms = (System.nanoTime() - began) / 1_000_000;
        // host-17 (10.2.0.18): to each of the 632 others in each mesh task; to the 333 of the b half.
        assertEquals(632, plan.runs().stream().filter(p -> p.task().equals("rtt-all")).count());
        assertEquals(632, plan.runs().stream().filter(p -> p.task().equals("trace-all")).count());
        assertEquals(333, plan.runs().stream().filter(p -> p.task().equals("rtt-halves")).count());
        assertEquals(List.of(), plan.notRun());
        assertTrue(ms < 10_000, "read and planned in " + ms + " ms");
    }
}
