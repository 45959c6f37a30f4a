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
        assertTrue(lines.get(0).matches("path.delay.roundTrip  to 127.0.0.1  \\(maKey \\d+\\)"), rtt.out());
        assertTrue(lines.get(1).matches("FIGURE +VALUE +UNIT"), rtt.out());
        assertTrue(lines.contains("sent         7"), rtt.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("meanRtt +[0-9.]+ +ms")), rtt.out());
        assertEquals("", rtt.err(), "no progress bar when standard error is not a terminal");

        // the same stored result as XML and as JSON
        Run query = nmws("query", "127.0.0.1", "--xml");
        assertEquals(0, query.status(), query.out());
        assertTrue(SENT_7.matcher(query.out()).find(), "the stored test comes back: " + query.out());
        Run queryJson = nmws("--json", "query", "127.0.0.1", "--type", "rtt");
        assertEquals(0, queryJson.status(), queryJson.out());
        String key = lines.get(0).replaceAll(".*\\(maKey (\\d+)\\)", "$1");
        JsonNode stored = StreamSupport.stream(JSON.readTree(queryJson.out()).get("results").spliterator(), false)
                .filter(r -> r.get("id").asText().equals(key)).findFirst().orElseThrow(() -> new AssertionError(queryJson.out()));
        assertEquals(7, stored.get("summary").get("sent").asInt());
        assertEquals("ROUND_TRIP", stored.get("test").asText());
        assertEquals("127.0.0.1", stored.get("dst").asText());

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

    /**
     * Issue 26: a test typed while the path is busy with another (a mesh's schedules hold it for
     * seconds) waits for it and runs, saying so on standard error; --busy-wait 0 gives up at once.
     */
    @Test
    void aTestOnABusyPathWaitsForItUnlessToldNotTo() throws Exception {
        java.util.concurrent.CompletableFuture<Run> tcp = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> nmws("throughput", "127.0.0.1", "--duration", "2"));
        for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline
                && nmws("tests", "--json").out().trim().equals("[]"); ) {
            Thread.sleep(50);
        }
        Run gaveUp = nmws("rtt", "127.0.0.1", "--count", "5", "--busy-wait", "0");
        assertEquals(1, gaveUp.status(), gaveUp.out() + gaveUp.err());
        assertTrue(gaveUp.err().contains("(error.mp.busy)") && !gaveUp.err().contains("asking again"), gaveUp.err());
        Run waited = nmws("rtt", "127.0.0.1", "--count", "5", "--interval", "0.01");
        assertEquals(0, waited.status(), waited.out() + waited.err());
        assertTrue(waited.err().contains("busy: ") && waited.err().contains("asking again in"), waited.err());
        assertTrue(waited.out().lines().anyMatch(l -> l.matches("received +5")), waited.out());
        assertEquals(0, tcp.get(30, java.util.concurrent.TimeUnit.SECONDS).status());
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
        // 250 frames 10 ms apart: 2.5 seconds, polled every quarter second once it has run one (about 6 frames)
        Run rtt = nmws("--progress=always", "rtt", "127.0.0.1", "--count", "250", "--interval", "0.01");
        assertEquals(0, rtt.status(), rtt.out() + rtt.err());
        assertTrue(rtt.out().lines().anyMatch(l -> l.equals("sent         250")), rtt.out());
        Matcher bar = Pattern.compile("\r\\[(#*)(\\.*)\\] +(\\d+)% (\\d+)/250 ").matcher(rtt.err());
        int frames = 0;
        int lastDone = -1;
        while (bar.find()) {
            frames++;
            assertEquals(30, bar.group(1).length() + bar.group(2).length(), "30 cells wide");
            int done = Integer.parseInt(bar.group(4));
            assertTrue(done >= lastDone, "progress never goes back: " + rtt.err());
            assertEquals(100 * done / 250, Integer.parseInt(bar.group(3)));
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
            assertEquals("nmws: Missing required option: '--characteristic=<characteristic>'\nsee 'nmws schedule add --help'\n",
                    noC.err());
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

    /** Issue 26: a verb per test type, its options sent as the test's parameters, lengths of time as seconds or ISO 8601. */
    @Test
    void theTestVerbsSendTheirOptionsAsTheTestsParametersAndRefuseWhatNoneReads() {
        JsonNode latency = readJson(nmws("--json", "latency", "127.0.0.1", "--count", "20", "--interval", "PT0.0005S").out())
                .get("results").get(0);
        assertEquals("path.delay.oneWay", latency.get("eventType").asText());
        assertEquals("20", latency.get("parameters").get("count").asText());
        assertEquals("0.0005", latency.get("parameters").get("interval").asText(), "PT0.0005S sent as seconds");
        assertEquals(20, latency.get("figures").get("sent").asInt());

        // 0.2 s at 20 Mbit/s of 1472-byte frames: 0.2 / (1472 * 8 / 20e6) = 339.7, so 340 frames
        JsonNode udp = readJson(nmws("--json", "throughput", "127.0.0.1", "--udp", "-b", "20M", "-t", "PT0.2S").out())
                .get("results").get(0);
        assertEquals("path.bandwidth.achievable.UDP", udp.get("eventType").asText());
        assertEquals(340, udp.get("figures").get("sent").asInt(), udp.toString());

        // bytes in a unit, rates in a unit, counts as integers
        Run tcp = nmws("throughput", "127.0.0.1", "--duration", "0.3");
        assertEquals(0, tcp.status(), tcp.err());
        Matcher bytes = Pattern.compile("(?m)^bytesSent +([0-9.]+) +(kB|MB|GB)$").matcher(tcp.out());
        assertTrue(bytes.find(), tcp.out());
        String key = tcp.out().lines().findFirst().orElseThrow().replaceAll(".*\\(maKey (\\d+)\\)", "$1");
        JsonNode stored = readJson(nmws("query", "127.0.0.1", "--type", "TCP_STREAM", "--json").out()).get("results");
        double sent = StreamSupport.stream(stored.spliterator(), false).filter(r -> r.get("id").asText().equals(key))
                .findFirst().orElseThrow().get("summary").get("bytesSent").asDouble();
        double shown = Double.parseDouble(bytes.group(1)) * Map.of("kB", 1e3, "MB", 1e6, "GB", 1e9).get(bytes.group(2));
        assertEquals(sent, shown, sent * 5.01e-4, "four significant digits of " + sent);
        assertTrue(tcp.out().lines().anyMatch(l -> l.matches("throughputMbps +[0-9.]+ +(Mbit/s|Gbit/s)")), tcp.out());
        assertTrue(tcp.out().lines().anyMatch(l -> l.matches("streams +1")), tcp.out());

        Run trace = nmws("trace", "127.0.0.1", "--max-ttl", "3", "--wait", "PT0.5S");
        assertEquals(0, trace.status(), trace.err());
        assertTrue(trace.out().lines().anyMatch(l -> l.matches("hopCount +1")), trace.out());

        // unknown options, a bad duration, an option given twice, an option of another test: usage errors, exit status 2
        Run unknown = nmws("rtt", "127.0.0.1", "--cnt", "5");
        assertEquals(2, unknown.status());
        assertEquals("nmws: Unknown options: '--cnt', '5'\nsee 'nmws rtt --help'\n", unknown.err());
        Run duration = nmws("rtt", "127.0.0.1", "--interval", "5x");
        assertEquals(2, duration.status());
        assertTrue(duration.err().startsWith("nmws: Invalid value for option '--interval': '5x' is neither seconds (0.5) nor an"
                + " ISO 8601 duration (PT0.5S, PT1M)"), duration.err());
        Run twice = nmws("rtt", "127.0.0.1", "-c", "3", "-p", "count=5");
        assertEquals(2, twice.status());
        assertTrue(twice.err().contains("-p count=5 repeats what an option of 'rtt' already sets (count=3)"), twice.err());
        Run notUdp = nmws("throughput", "127.0.0.1", "--bandwidth", "10M");
        assertEquals(2, notUdp.status());
        assertTrue(notUdp.err().contains("--bandwidth paces a UDP stream: add --udp"), notUdp.err());
        // a parameter no option names goes to the service, which refuses what the test does not read
        Run cnt = nmws("latency", "127.0.0.1", "-p", "cnt=5");
        assertEquals(1, cnt.status());
        assertTrue(cnt.err().startsWith("error: parameter cnt is not one") && cnt.err().contains("(error.common.parameter)"), cnt.err());

        Run help = nmws("latency", "--help");
        assertTrue(help.out().contains("--bandwidth=RATE") && help.out().contains("nmws latency 10.0.0.2 --count 1000"), help.out());
    }

    /** OWAMP, TWAMP and STAMP to real servers; a one-way table warns when either clock is not synchronised. */
    @Test
    void owampTwampAndStampVerbsMeasureRealServersAndWarnWhenAClockIsNotSynchronised() throws Exception {
        int udp = freeUdpPort();
        try (OwampServer servers = OwampServer.start();
             Responder stamp = Responder.start("127.0.0.1", List.of("--stamp-port", Integer.toString(udp)))) {
            for (String[] verb : new String[][] {{"owamp", Integer.toString(servers.owampPort), "OWAMP", "receiverSynchronised"},
                    {"twamp", Integer.toString(servers.twampPort), "TWAMP", "reflectorSynchronised"},
                    {"stamp", Integer.toString(udp), "STAMP", "reflectorSynchronised"}}) {
                Run run = nmws(verb[0], "127.0.0.1", "--port", verb[1], "--count", "5", "--interval", "PT0.01S");
                assertEquals(0, run.status(), run.err());
                List<String> lines = run.out().lines().toList();
                String key = lines.get(0).replaceAll(".*\\(maKey (\\d+)\\)", "$1");
                JsonNode summary = StreamSupport.stream(readJson(nmws("query", "127.0.0.1", "--type", verb[0], "--json").out())
                        .get("results").spliterator(), false).filter(r -> r.get("id").asText().equals(key)).findFirst()
                        .orElseThrow(() -> new AssertionError(verb[0] + " " + key)).get("summary");
                assertEquals(verb[2], readJson(nmws("query", "127.0.0.1", "--type", verb[0], "--json").out()).get("results")
                        .get(0).get("test").asText());
                assertEquals(5, summary.get("sent").asInt());
                assertTrue(lines.stream().anyMatch(l -> l.matches("sent +5")), run.out());
                boolean farEnd = summary.get(verb[3]).asInt() == 0;
                double delay = Math.abs(summary.has("medianDelayMs") ? summary.get("medianDelayMs").asDouble()
                        : summary.get("medianForwardMs").asDouble());
                boolean unsure = farEnd || summary.get("oneWayUncertaintyMs").asDouble() > delay;
                // (this host's clock, in the answer's environment, may add the sender's to the far end's)
                boolean warned = lines.get(1).startsWith("warning: ");
                assertTrue(unsure ? warned : !warned || lines.get(1).contains("sender's"), run.out());
                if (farEnd) {
                    assertTrue(lines.get(1).contains(verb[0].equals("owamp") ? "receiver's" : "reflector's"), lines.get(1));
                }
            }
        }
    }

    /** Issue 26: query had round trips only, one value per figure without its time; now a row per result of every kind. */
    @Test
    void queryPrintsARowPerResultOfEveryKindWithItsTimeAndPagesThroughCutAnswers() throws Exception {
        Instant from = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, nmws("rtt", "127.0.0.1", "--count", "3", "--interval", "0.001").status());
        }
        assertEquals(0, nmws("latency", "127.0.0.1", "--count", "10", "--interval", "0.001").status());
        JsonNode rtts = JSON.readTree(service.get("/api/observations?test=ROUND_TRIP&dst=127.0.0.1&from=" + from + "&limit=1000")
                .body()).get("results");
        assertEquals(3, rtts.size());
        // two a page: three round trips come in two answers, the first cut
        Run rtt = nmws("query", "127.0.0.1", "--type", "rtt", "--from", from.toString(), "--page", "2");
        assertEquals(0, rtt.status(), rtt.err());
        List<String> lines = rtt.out().lines().toList();
        assertEquals("ROUND_TRIP: 3 results", lines.get(0));
        List<Map<String, String>> rows = table(String.join("\n", lines.subList(1, lines.size())));
        assertEquals(3, rows.size(), rtt.out());
        for (int i = 0; i < 3; i++) {
            JsonNode r = rtts.get(i);
            assertEquals(second(r.get("start").asText()), rows.get(i).get("START"));
            assertEquals(r.get("id").asText(), rows.get(i).get("ID"));
            assertEquals("127.0.0.1", rows.get(i).get("DST"));
            assertEquals(shown(new java.math.BigDecimal(r.get("summary").get("medianRtt").asText())), rows.get(i).get("medianRtt(ms)"));
            assertEquals(r.get("summary").get("lossPercent").asDouble(), Double.parseDouble(rows.get(i).get("lossPercent")));
        }
        // every kind stored since then, one table each; a one-way table has the clocks' column
        Run all = nmws("query", "--from", from.toString());
        assertEquals(0, all.status(), all.err());
        assertTrue(all.out().contains("ROUND_TRIP: 3 results\n") && all.out().contains("UDP_STREAM: 1 result\n"), all.out());
        String oneWay = all.out().substring(all.out().indexOf("UDP_STREAM: 1 result"));
        assertTrue(oneWay.lines().anyMatch(l -> l.matches("START +SRC +DST +medianDelayMs +lossPercent +CLOCKS +ID")), oneWay);

        Run none = nmws("query", "192.0.2.1", "--from", "PT1M");
        assertEquals(0, none.status());
        assertTrue(none.out().startsWith("no results to 192.0.2.1 from "), none.out());
        Run badTime = nmws("query", "--from", "yesterday");
        assertEquals(2, badTime.status());
        assertTrue(badTime.err().contains("--from 'yesterday' is neither an ISO 8601 time"), badTime.err());
    }

    /** nmws troubleshoot: each check in order against real servers, and what to fix when nothing answers. */
    @Test
    void troubleshootChecksInOrderAgainstRealServersAndSaysWhatToFix() throws Exception {
        int udp = freeUdpPort();
        try (OwampServer servers = OwampServer.start();
             Responder stamp = Responder.start("127.0.0.1", List.of("--stamp-port", Integer.toString(udp)))) {
            Run run = nmws("troubleshoot", "127.0.0.1", "--port", Integer.toString(stamp.port), "--owamp-port",
                    Integer.toString(servers.owampPort), "--twamp-port", Integer.toString(servers.twampPort), "--stamp-port",
                    Integer.toString(udp));
            String checks = run.out().substring(0, run.out().indexOf("\n\n"));
            List<Map<String, String>> rows = table(checks);
            assertEquals(List.of("reachable", "nmws responder", "OWAMP server", "TWAMP server", "STAMP reflector", "clock here",
                    "clock at 127.0.0.1", "limits, credentials"), rows.stream().map(r -> r.get("CHECK")).toList(), run.out());
            for (int i = 0; i < 5; i++) {
                assertEquals("ok", rows.get(i).get("RESULT"), run.out());
            }
            assertTrue(rows.get(1).get("DETAIL").startsWith("TCP " + stamp.port + " open; round trip "), run.out());
            assertEquals("ok", rows.get(7).get("RESULT"), run.out());
            // this host's clock as the service's environment states it
            String env = nmws("--xml", "rtt", "127.0.0.1", "--count", "2").out();
            Matcher clock = Pattern.compile("<env:clock [^>]*errorNs=\"(\\d+)\"[^>]*synchronized=\"(true|false)\"").matcher(env);
            assertTrue(clock.find(), env);
            boolean synced = clock.group(2).equals("true");
            assertTrue(rows.get(5).get("DETAIL").startsWith(synced ? "synchronised; " : "NOT synchronised; "), run.out());
            assertTrue(rows.get(5).get("DETAIL").endsWith("error \u00b1" + shown(new java.math.BigDecimal(clock.group(1))
                    .movePointLeft(6)) + " ms"), run.out());
            // the far end's as its TWAMP reflector states it
            JsonNode twamp = readJson(nmws("--json", "twamp", "127.0.0.1", "--port", Integer.toString(servers.twampPort), "--count",
                    "2").out()).get("results").get(0).get("figures");
            assertTrue(rows.get(6).get("DETAIL").startsWith(twamp.get("reflectorSynchronised").asInt() == 1 ? "synchronised"
                    : "NOT synchronised"), run.out());
            assertTrue(rows.get(6).get("DETAIL").contains("error \u00b1" + shown(new java.math.BigDecimal(twamp.get("reflectorErrorMs")
                    .asText())) + " ms"), run.out());
            boolean clocksFine = rows.get(5).get("RESULT").equals("ok") && rows.get(6).get("RESULT").equals("ok");
            assertEquals(clocksFine ? 0 : 1, run.status(), run.out());
            assertEquals(clocksFine, run.out().contains("\nnothing to fix\n"), run.out());
        }
        // nothing listens on the ports asked about: the responder is missing, the rest optional
        int closed = Responder.freePort();
        Run none = nmws("troubleshoot", "127.0.0.1", "--port", Integer.toString(closed), "--owamp-port", Integer.toString(closed),
                "--twamp-port", Integer.toString(closed), "--stamp-port", Integer.toString(freeUdpPort()));
        assertEquals(1, none.status(), none.out());
        List<Map<String, String>> rows = table(none.out().substring(0, none.out().indexOf("\n\n")));
        assertEquals("ok", rows.get(0).get("RESULT"), "a refusal is an answer: " + none.out());
        assertEquals("FAIL", rows.get(1).get("RESULT"), none.out());
        assertEquals(List.of("none", "none", "none"), rows.subList(2, 5).stream().map(r -> r.get("RESULT")).toList(), none.out());
        assertTrue(none.out().contains("what to fix:\n  1. start nmprobe-responder on 127.0.0.1 (port " + closed), none.out());
        // no test answered: this host's clock is read from GET /api/host instead of skipped
        assertTrue(rows.get(5).get("DETAIL").endsWith("(from GET /api/host: no test answered)")
                && !rows.get(5).get("RESULT").equals("skip"), none.out());
    }

    /**
     * Issue 26: troubleshoot against a locked-down service (anonymous clients may read, not
     * measure): every test is refused for credentials, the clock still comes from GET /api/host,
     * and what to fix says to give credentials with the measure role.
     */
    @Test
    void troubleshootOnALockedDownServiceSaysToGiveCredentials() throws Exception {
        try (Service locked = Service.start(java.nio.file.Files.createTempDirectory("nmws-locked"),
                "--nmws.limits.test-clients=192.0.2.0/24")) {
            java.io.StringWriter out = new java.io.StringWriter();
            CommandLine cli = NmwsCli.commandLine();
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(new java.io.StringWriter(), true));
            int status = cli.execute("--url", locked.baseUrl, "troubleshoot", "127.0.0.1");
            assertEquals(1, status, out.toString());
            List<Map<String, String>> rows = table(out.toString().substring(0, out.toString().indexOf("\n\n")));
            Map<String, String> limits = rows.stream().filter(r -> r.get("CHECK").startsWith("limits")).findFirst().orElseThrow();
            assertEquals("FAIL", limits.get("RESULT"), out.toString());
            assertTrue(limits.get("DETAIL").startsWith("rtt: starting tests needs the measure role"), out.toString());
            assertTrue(out.toString().contains("this client may not run tests on " + locked.baseUrl
                    + ": give credentials with the measure role"), out.toString());
            Map<String, String> clock = rows.stream().filter(r -> r.get("CHECK").equals("clock here")).findFirst().orElseThrow();
            assertTrue(clock.get("DETAIL").endsWith("(from GET /api/host: no test answered)"), out.toString());
        }
    }

    /** A number as tables print it: four significant digits, the whole part from 1000 on, no exponent. */
    private static String shown(java.math.BigDecimal d) {
        java.math.BigDecimal r = d.abs().compareTo(java.math.BigDecimal.valueOf(1000)) >= 0
                ? d.setScale(0, java.math.RoundingMode.HALF_EVEN) : d.round(new java.math.MathContext(4));
        return r.stripTrailingZeros().toPlainString();
    }

    /** A UDP port nothing listens on now. */
    private static int freeUdpPort() throws java.net.SocketException {
        try (java.net.DatagramSocket s = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
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
