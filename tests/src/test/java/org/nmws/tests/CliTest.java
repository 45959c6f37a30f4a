package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.nmws.client.cli.NmwsCli;
import picocli.CommandLine;

/** The nmws command-line client against the live service: exit codes and what it prints. */
class CliTest extends LiveServiceTest {
    /** The PingER datum for frames sent, whatever order the XML writer puts attributes in. */
    private static final Pattern SENT_7 = Pattern.compile("<pinger:datum name=\"sent\"[^>]* value=\"7\"");

    private record Run(int status, String out, String err) {
        Run(int status, String out) {
            this(status, out, "");
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private static JsonNode readJson(String text) {
        try {
            return JSON.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError(text, e);
        }
    }

    private Run nmws(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--url";
        all[1] = service.baseUrl;
        System.arraycopy(args, 0, all, 2, args.length);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = NmwsCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int status = cli.execute(all);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void echoRttQueryAndMeasurePrintTheServicesAnswersAsTablesJsonOrXml() throws Exception {
        Run echo = nmws("echo");
        assertEquals(0, echo.status(), echo.out());
        assertEquals("success.echo: The echo request has passed.", echo.out().trim());

        // a table by default: a heading, then a figure a line with its value and unit
        Run rtt = nmws("rtt", "127.0.0.1", "--count", "7", "--interval", "0.002");
        assertEquals(0, rtt.status(), rtt.out());
        List<String> lines = rtt.out().lines().toList();
        assertTrue(lines.get(0).matches("http://ggf.org/ns/nmwg/tools/ping/2.0/  to 127.0.0.1  \\(maKey \\d+\\)"), rtt.out());
        assertTrue(lines.get(1).matches("FIGURE +VALUE +UNIT"), rtt.out());
        assertTrue(lines.contains("sent         7"), rtt.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("meanRtt +[0-9.]+ +ms")), rtt.out());
        assertEquals("", rtt.err(), "no progress bar when standard error is not a terminal");

        // the same stored result as XML and as JSON
        Run query = nmws("query", "127.0.0.1", "--xml");
        assertEquals(0, query.status(), query.out());
        assertTrue(SENT_7.matcher(query.out()).find(), "the stored test comes back: " + query.out());
        Run queryJson = nmws("--json", "query", "127.0.0.1");
        assertEquals(0, queryJson.status(), queryJson.out());
        JsonNode stored = JSON.readTree(queryJson.out()).get("results").get(0);
        assertEquals(7, stored.get("figures").get("sent").asInt());
        assertEquals("ms", stored.get("units").get("meanRtt").asText());
        assertEquals("127.0.0.1", stored.get("subject").get("dst").asText());

        Run soap12 = nmws("--soap12", "--json", "measure", "127.0.0.1", "-c", "path.delay.oneWay", "-p", "count=50", "-p", "interval=0.0005");
        assertEquals(0, soap12.status(), soap12.out());
        JsonNode owd = JSON.readTree(soap12.out()).get("results").get(0);
        assertEquals("path.delay.oneWay", owd.get("eventType").asText());
        assertEquals(50, owd.get("figures").get("sent").asInt());
        assertTrue(owd.get("figures").get("medianDelayMs").isNumber(), owd.toString());
        // the datums without a name (owamp summary, iperf) as objects of their attributes
        assertTrue(owd.get("datums").findValues("type").stream().anyMatch(t -> t.asText().equals("summary:datum")), owd.toString());

        Run both = nmws("--json", "--xml", "echo");
        assertEquals(2, both.status());
        assertTrue(both.err().contains("--json and --xml exclude each other"), both.err());

        Run bad = nmws("measure", "127.0.0.1", "-c", "path.colour.favourite");
        assertEquals(1, bad.status(), "an NMWG error result is exit status 1: " + bad.out());
        assertTrue(bad.err().startsWith("error: ") && bad.err().contains("(error.common.event_type_not_supported)"), bad.err());
        assertEquals("", bad.out());
    }

    /** Issue 26: a parameter the test does not read was silently ignored; the service refuses it, the CLI says so. */
    @Test
    void aParameterTheTestDoesNotReadIsRefusedOnOneErrorLine() {
        Run cnt = nmws("measure", "127.0.0.1", "-c", "path.delay.roundTrip", "-p", "cnt=5");
        assertEquals(1, cnt.status(), cnt.out() + cnt.err());
        assertEquals("", cnt.out());
        assertEquals(1, cnt.err().lines().count(), cnt.err());
        assertTrue(cnt.err().startsWith("error: ") && cnt.err().contains("cnt")
                && cnt.err().trim().endsWith("(error.common.parameter)"), cnt.err());
    }

    /** Issue 26: a one-way table with integers, units, one line for the histogram and a heading for each kind of datum. */
    @Test
    void aOneWayTableReadsAsNumbersWithUnitsAndNoEpochTimes() {
        Run owd = nmws("measure", "127.0.0.1", "-c", "path.delay.oneWay", "-p", "count=200", "-p", "interval=0.0005");
        assertEquals(0, owd.status(), owd.out() + owd.err());
        List<String> lines = owd.out().lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.matches("sent +200")), owd.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("receiverUserMbps +[0-9.]+ +(kbit/s|Mbit/s|Gbit/s)")), owd.out());
        assertEquals(1, lines.stream().filter(l -> l.matches("interArrivalBin[0-9].*")).count(), owd.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("interArrivalBin0\\.\\.49 +50 values, [0-9]+ not 0 \\(--json lists them\\)")),
                owd.out());
        assertTrue(lines.contains("owamp summary") && lines.contains("iperf summary"), owd.out());
        assertTrue(lines.stream().noneMatch(l -> l.matches(".*(\\.0 |\\.0$|[0-9]E[0-9-]|ns[0-9]+:|\\b1[0-9]{9}\\b).*")),
                "no float counts, exponents, namespace prefixes or epoch seconds: " + owd.out());
        // a clock bound above the delay itself (an unsynchronised clock here) is said before the figures
        JsonNode json = readJson(nmws("--json", "measure", "127.0.0.1", "-c", "path.delay.oneWay", "-p", "count=20",
                "-p", "interval=0.0005").out()).get("results").get(0).get("figures");
        boolean unbounded = json.get("oneWayUncertaintyMs").asDouble() > Math.abs(json.get("medianDelayMs").asDouble());
        assertEquals(unbounded, lines.get(1).startsWith("warning: "), owd.out());
        if (unbounded) {
            assertTrue(lines.get(1).matches("warning: .* not synchronised.*; the one-way figures are bounded only by \u00b1[0-9.]+ ms.*"),
                    lines.get(1));
        }
    }

    /** The completion script in a real bash: what it offers for a partial command and option. */
    @Test
    void theCompletionScriptCompletesCommandsAndOptionsInBash() throws Exception {
        Run script = nmws("completion");
        assertEquals(0, script.status(), script.err());
        java.nio.file.Path file = java.nio.file.Files.createTempFile("nmws-completion", ".bash");
        try {
            java.nio.file.Files.writeString(file, script.out());
            String probe = "source " + file + "\n"
                    + "complete -p nmws\n"
                    + "COMP_WORDS=(nmws sch); COMP_CWORD=1; COMP_LINE='nmws sch'; COMP_POINT=${#COMP_LINE}\n"
                    + "_complete_nmws; echo \"commands: ${COMPREPLY[*]}\"\n"
                    + "COMP_WORDS=(nmws diagnose --con); COMP_CWORD=2; COMP_LINE='nmws diagnose --con'; COMP_POINT=${#COMP_LINE}\n"
                    + "_complete_nmws; echo \"options: ${COMPREPLY[*]}\"\n";
            // (outside a real completion bash's compopt complains on stderr: only stdout is read)
            Process bash = new ProcessBuilder("bash", "-c", probe).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(bash.getInputStream().readAllBytes());
            assertEquals(0, bash.waitFor(), out);
            assertTrue(out.contains("-F _complete_nmws nmws"), out);
            assertTrue(out.contains("commands: schedule"), out);
            assertTrue(out.contains("options: --congestion"), out);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void theInstalledCliPrintsOnlyItsAnswerAndOneLineWhenTheServiceCannotBeReached() throws Exception {
        java.nio.file.Path jar = java.nio.file.Path.of(System.getProperty("nmws.client.jar",
                "../client/target/nmws-client-0.1.0-SNAPSHOT-exec.jar"));
        String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process ok = new ProcessBuilder(javaBin, "-jar", jar.toString(), "--url", service.baseUrl, "echo").start();
        String out = new String(ok.getInputStream().readAllBytes());
        String err = new String(ok.getErrorStream().readAllBytes());
        assertEquals(0, ok.waitFor());
        assertTrue(out.contains("success.echo"), out);
        assertEquals("", err, "no library noise on stderr");
        Process down = new ProcessBuilder(javaBin, "-jar", jar.toString(), "--url", "http://127.0.0.1:1", "echo").start();
        String downOut = new String(down.getInputStream().readAllBytes());
        String downErr = new String(down.getErrorStream().readAllBytes());
        assertEquals(2, down.waitFor());
        assertEquals("", downOut);
        assertEquals(2, downErr.lines().count(), downErr);
        assertTrue(downErr.startsWith("nmws: cannot reach http://127.0.0.1:1"), downErr);
        assertEquals(NmwsCli.startHint(), downErr.lines().toList().get(1), "how to start it on this host");
    }

    @Test
    void aLongTestDrawsAProgressBarOnStandardErrorAndErasesIt() {
        // 300 frames 10 ms apart: three seconds, polled every quarter second once it has run one
        Run rtt = nmws("--progress=always", "rtt", "127.0.0.1", "--count", "300", "--interval", "0.01");
        assertEquals(0, rtt.status(), rtt.out() + rtt.err());
        assertTrue(rtt.out().lines().anyMatch(l -> l.equals("sent         300")), rtt.out());
        Matcher bar = Pattern.compile("\r\\[(#*)(\\.*)\\] +(\\d+)% (\\d+)/300 ").matcher(rtt.err());
        int frames = 0;
        int lastDone = -1;
        while (bar.find()) {
            frames++;
            assertEquals(30, bar.group(1).length() + bar.group(2).length(), "30 cells wide");
            int done = Integer.parseInt(bar.group(4));
            assertTrue(done >= lastDone, "progress never goes back: " + rtt.err());
            assertEquals(100 * done / 300, Integer.parseInt(bar.group(3)));
            lastDone = done;
        }
        assertTrue(frames >= 3 && lastDone > 0, "frames drawn: " + frames + " in " + rtt.err());
        assertTrue(rtt.err().endsWith("\r"), "erased before the answer: " + rtt.err());
        Run quiet = nmws("--progress=never", "rtt", "127.0.0.1", "--count", "150", "--interval", "0.01");
        assertEquals("", quiet.err());
    }

    @Test
    void helpShowsExamples() {
        Run help = nmws("--help");
        assertEquals(0, help.status());
        assertTrue(help.out().contains("Examples:") && help.out().contains("nmws rtt 10.0.0.2 --count 100")
                && help.out().lines().allMatch(l -> l.length() <= 80), help.out());
        Run measure = nmws("measure", "--help");
        assertTrue(measure.out().contains("nmws measure 10.0.0.2 -c path.delay.oneWay -p count=1000"), measure.out());
    }

    @Test
    void testsListsRunningTestsAndCancelSaysWhenThereIsNone() {
        Run list = nmws("tests");
        assertEquals(0, list.status(), list.out());
        assertEquals("no tests running", list.out().trim(), "nothing runs between tests");
        assertEquals("[]", nmws("tests", "--json").out().trim());
        Run cancel = nmws("tests", "--cancel", "no-such-test");
        assertEquals(1, cancel.status());
        assertEquals("error: no running test no-such-test", cancel.err().trim());
    }
    @Test
    void scheduleAddPrintsTheScheduleItStoredAsATableAndAsJsonWithTheSwitch() throws Exception {
        // due tomorrow only: nothing runs while the other tests here expect an idle service
        String start = Instant.now().plusSeconds(86_400).truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        try {
            Run added = nmws("schedule", "add", "cli-added", "-c", "path.delay.roundTrip", "--dst", "127.0.0.2",
                    "--period", "PT1H", "--start", start, "-p", "count=5", "-p", "interval=0.01");
            assertEquals(0, added.status(), added.err());
            List<Map<String, String>> rows = table(added.out());
            assertEquals(1, rows.size(), added.out());
            assertEquals("cli-added", rows.get(0).get("NAME"));
            assertEquals("path.delay.roundTrip", rows.get(0).get("CHARACTERISTIC"));
            assertEquals("127.0.0.2", rows.get(0).get("DST"));
            assertEquals("PT1H", rows.get(0).get("PERIOD"));
            assertEquals(second(start), rows.get(0).get("START"));
            assertEquals(List.of("count=5", "interval=0.01"),
                    java.util.Arrays.stream(rows.get(0).get("PARAMETERS").split(",")).sorted().toList());
            JsonNode json = JSON.readTree(nmws("schedule", "add", "cli-added", "-c", "path.delay.roundTrip", "--dst",
                    "127.0.0.2", "--period", "PT2H", "--start", start, "--json").out());
            assertEquals("PT2H", json.get("period").asText(), "add replaces the schedule of that name: " + json);
            assertEquals(start, json.get("start").asText());

            // issue 26: -c is required, periods under 10 s refused
            Run noC = nmws("schedule", "add", "cli-added", "--dst", "127.0.0.2", "--period", "PT1H");
            assertEquals(2, noC.status());
            assertTrue(noC.err().startsWith("Missing required option: '--characteristic=<characteristic>'"), noC.err());
            Run fast = nmws("schedule", "add", "cli-added", "-c", "path.delay.roundTrip", "--dst", "127.0.0.2", "--period", "1");
            assertEquals(2, fast.status());
            assertTrue(fast.err().contains("at most every 10 s"), fast.err());
            // (the default start, now, is pinned by the client's CommandLineTest: here it would run a test at once)
        } finally {
            nmws("schedule", "remove", "cli-added");
        }
    }

    @Test
    void scheduleListScheduleRunsAndCostPrintTablesOfTheServicesJsonAndJsonWithTheSwitch() throws Exception {
        // Two schedules that come due for three seconds only, so that their runs stop changing
        // before the table and the JSON are compared; nothing answers on 127.0.0.2 (the responder
        // listens on 127.0.0.1), so those runs fail with a reason. One-way streams: the round trips
        // stored to 127.0.0.1 are the other tests' own.
        Instant start = Instant.now().plusSeconds(1);
        Instant end = start.plusSeconds(3);
        for (String[] s : new String[][] {{"cli-rtt", "127.0.0.1"}, {"cli-none", "127.0.0.2"}}) {
            HttpResponse<String> put = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(service.baseUrl + "/api/schedules/" + s[0]))
                            .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(
                                    "{\"characteristic\":\"path.delay.oneWay\",\"dst\":\"" + s[1] + "\",\"period\":\"PT1S\","
                                            + "\"start\":\"" + start + "\",\"end\":\"" + end + "\","
                                            + "\"parameters\":{\"count\":\"3\",\"interval\":\"0.001\"}}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, put.statusCode(), put.body());
        }
        try {
            Run list = nmws("schedule", "list");
            assertEquals(0, list.status(), list.err());
            JsonNode schedules = JSON.readTree(nmws("schedule", "list", "--json").out());
            List<Map<String, String>> rows = table(list.out());
            assertEquals(schedules.size(), rows.size(), list.out());
            for (int i = 0; i < rows.size(); i++) {
                JsonNode j = schedules.get(i);
                Map<String, String> r = rows.get(i);
                assertEquals(j.get("name").asText(), r.get("NAME"));
                assertEquals(j.get("characteristic").asText(), r.get("CHARACTERISTIC"));
                assertEquals(j.get("dst").asText(), r.get("DST"));
                assertEquals(j.get("period").asText(), r.get("PERIOD"));
                assertEquals(j.get("testClass").asText(), r.get("CLASS"));
                assertEquals(j.get("enabled").asText(), r.get("ENABLED"));
                assertEquals(second(j.get("start").asText()), r.get("START"));
                assertEquals(second(j.get("end").asText()), r.get("END"));
                List<String> parameters = new ArrayList<>();
                j.get("parameters").fields().forEachRemaining(e -> parameters.add(e.getKey() + "=" + e.getValue().asText()));
                assertEquals(List.of("count=3", "interval=0.001"), parameters.stream().sorted().toList());
                assertEquals(String.join(",", parameters), r.get("PARAMETERS"));
            }

            // every run of both done or failed (none due later, none running) before comparing
            boolean settled = false;
            for (long deadline = System.nanoTime() + 30_000_000_000L; !settled && System.nanoTime() < deadline; ) {
                Thread.sleep(250);
                settled = Instant.now().isAfter(end.plusSeconds(1));
                for (String name : List.of("cli-none", "cli-rtt")) {
                    JsonNode runs = JSON.readTree(nmws("schedule", "runs", name, "--json").out());
                    settled &= runs.size() > 0;
                    for (JsonNode r : runs) {
                        settled &= !List.of("PLANNED", "RUNNING").contains(r.get("status").asText());
                    }
                }
            }
            assertTrue(settled, "the runs settle");
            for (String name : List.of("cli-none", "cli-rtt")) {
                JsonNode json = JSON.readTree(nmws("schedule", "runs", name, "--json").out());
                Run shown = nmws("schedule", "runs", name);
                assertEquals(0, shown.status(), shown.err());
                List<Map<String, String>> lines = table(shown.out());
                assertEquals(json.size(), lines.size(), shown.out());
                for (int i = 0; i < lines.size(); i++) {
                    JsonNode j = json.get(i);
                    Map<String, String> r = lines.get(i);
                    assertEquals(second(j.get("planned").asText()), r.get("PLANNED"));
                    assertEquals(j.get("status").asText(), r.get("STATUS"));
                    assertEquals(orDash(j.get("started"), true), r.get("STARTED"));
                    assertEquals(orDash(j.get("ended"), true), r.get("ENDED"));
                    assertEquals(orDash(j.get("observationId"), false), r.get("RESULT"));
                    assertEquals(orDash(j.get("reason"), false), r.get("REASON"));
                }
            }
            JsonNode failed = JSON.readTree(nmws("schedule", "runs", "cli-none", "--json").out());
            assertTrue(StreamSupport.stream(failed.spliterator(), false)
                    .anyMatch(r -> !r.get("reason").isNull()), "a run that did not succeed says why: " + failed);
            Run nobody = nmws("schedule", "runs", "nobody");
            assertEquals(1, nobody.status());
            assertEquals("error: no schedule nobody", nobody.err().trim());
        } finally {
            nmws("schedule", "remove", "cli-rtt");
            nmws("schedule", "remove", "cli-none");
            // the other tests here expect an idle service
            for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline
                    && !nmws("tests", "--json").out().trim().equals("[]"); ) {
                Thread.sleep(100);
            }
        }

        // the cost: a forecast from two TCP tests to 127.0.0.1, nothing to the other
        for (int i = 0; i < 2; i++) {
            Run tcp = nmws("measure", "127.0.0.1", "-c", "path.bandwidth.achievable.TCP", "-p", "timeDuration=0.5");
            assertEquals(0, tcp.status(), tcp.out());
        }
        Run cost = nmws("cost", "--dst", "192.0.2.99", "--dst", "127.0.0.1", "--bytes", "1e9");
        Run costJson = nmws("cost", "--dst", "192.0.2.99", "--dst", "127.0.0.1", "--bytes", "1e9", "--json");
        assertEquals(0, cost.status(), cost.err());
        JsonNode ranked = JSON.readTree(costJson.out());
        List<Map<String, String>> costRows = table(cost.out());
        assertEquals(2, ranked.size());
        assertEquals(2, costRows.size(), cost.out());
        assertEquals("achievable-tcp", costRows.get(0).get("BASIS"), cost.out());
        assertEquals("none", costRows.get(1).get("BASIS"), cost.out());
        Map<String, String> headers = Map.ofEntries(Map.entry("seconds", "TIME(s)"),
                Map.entry("rateMbps", "RATE"), Map.entry("rttMs", "RTT(ms)"),
                Map.entry("lossPercent", "LOSS(%)"), Map.entry("expectedErrorPercent", "ERROR(%)"),
                Map.entry("ageSeconds", "AGE(s)"), Map.entry("measuredAt", "MEASURED"));
        for (int i = 0; i < ranked.size(); i++) {
            Map<String, String> r = costRows.get(i);
            // every field the service sent has its column, whatever the service's version
            for (Iterator<Map.Entry<String, JsonNode>> f = ranked.get(i).fields();
                 f.hasNext(); ) {
                Map.Entry<String, JsonNode> e = f.next();
                String header = headers.getOrDefault(e.getKey(), e.getKey().toUpperCase(Locale.ROOT));
                String cell = r.get(header);
                assertTrue(cell != null, "a column for " + e.getKey() + ": " + cost.out());
                JsonNode v = e.getValue();
                if (v.isNull()) {
                    assertEquals("-", cell, e.getKey());
                } else if (e.getKey().equals("bytes")) {
                    assertEquals("1 GB", cell, e.getKey());
                } else if (e.getKey().equals("rateMbps")) {
                    // 4 significant digits in kbit/s, Mbit/s or Gbit/s
                    Matcher rate = Pattern.compile("([0-9.]+) (k|M|G)bit/s").matcher(cell);
                    assertTrue(rate.matches(), cell);
                    double mbps = Double.parseDouble(rate.group(1)) * Map.of("k", 1e-3, "M", 1.0, "G", 1e3).get(rate.group(2));
                    assertEquals(v.asDouble(), mbps, v.asDouble() * 5.01e-4, cell);
                } else if (e.getKey().equals("ageSeconds")) {
                    // a second may pass between the two calls
                    assertEquals(v.asLong(), Long.parseLong(cell), 2, e.getKey());
                } else if (v.isIntegralNumber()) {
                    assertEquals(v.asText(), cell, e.getKey());
                } else if (v.isNumber()) {
                    double d = v.asDouble();
                    double shownValue = Double.parseDouble(cell);
                    // four significant digits, or the whole part from 1000 on
                    assertEquals(d, shownValue, Math.abs(d) >= 1000 ? 0.5 : Math.abs(d) * 5.01e-4, e.getKey() + " " + cell);
                } else if (e.getKey().equals("measuredAt")) {
                    assertEquals(second(v.asText()), cell);
                } else {
                    assertEquals(v.asText(), cell, e.getKey());
                }
            }
        }
        assertTrue(!ranked.get(0).get("predictor").isNull() && !costRows.get(0).get("PREDICTOR").equals("-"), cost.out());
        Run bad = nmws("cost", "--dst", "127.0.0.1", "--bytes", "0");
        assertEquals(1, bad.status());
        assertTrue(bad.err().startsWith("error: ") && bad.err().contains("bytes must be"), bad.err());
    }

    /** A table's rows as header -> cell; columns start where their header does (cells may hold spaces). */
    private static List<Map<String, String>> table(String out) {
        List<String> lines = out.lines().toList();
        Matcher h = Pattern.compile("\\S+").matcher(lines.get(0));
        List<String> names = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        while (h.find()) {
            names.add(h.group());
            starts.add(h.start());
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < names.size(); i++) {
                int from = Math.min(starts.get(i), line.length());
                int to = i + 1 < names.size() ? Math.min(starts.get(i + 1), line.length()) : line.length();
                row.put(names.get(i), line.substring(from, to).trim());
            }
            rows.add(row);
        }
        return rows;
    }

    /** An instant as the tables print it: local ISO time to the second, with its offset. */
    private static String second(String instant) {
        return java.time.OffsetDateTime.ofInstant(Instant.parse(instant).truncatedTo(ChronoUnit.SECONDS),
                java.time.ZoneId.systemDefault()).format(java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    }

    private static String orDash(JsonNode v, boolean instant) {
        return v == null || v.isNull() ? "-" : instant ? second(v.asText()) : v.asText();
    }
}
