package org.nmws.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command line against a real loopback HTTP server that answers as the service's JSON API
 * does (issue 26): usage errors, service errors as "error: ..." with exit status 1, the start of
 * a schedule, running tests' times.
 */
class CommandLineTest {
    private HttpServer server;
    private final AtomicReference<String> lastBody = new AtomicReference<>();
    private volatile int status = 200;
    private volatile String answer = "{}";

    private record Run(int status, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            lastBody.set(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] b = answer.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
            if (b.length > 0) {
                ex.getResponseBody().write(b);
            }
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private Run nmws(String... args) {
        return nmwsAt("http://127.0.0.1:" + server.getAddress().getPort(), args);
    }

    private static Run nmwsAt(String url, String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--url";
        all[1] = url;
        System.arraycopy(args, 0, all, 2, args.length);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = NmwsCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int s = cli.execute(all);
        return new Run(s, out.toString(), err.toString());
    }

    @Test
    void scheduleAddWithoutACharacteristicIsAUsageErrorBeforeAnythingIsSent() {
        Run r = nmws("schedule", "add", "rtt-b", "--dst", "10.0.0.2", "--period", "PT1M");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("nmws: Missing required option: '--characteristic=<characteristic>'"), r.err());
        assertEquals("", r.out());
        assertEquals(null, lastBody.get(), "nothing sent");
    }

    @Test
    void aPeriodUnderTenSecondsIsRefusedWithTheReason() {
        Run r = nmws("schedule", "add", "rtt-b", "-c", "path.delay.roundTrip", "--dst", "10.0.0.2", "--period", "PT1S");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("nmws: --period PT1S is 1.0 s: the CLI schedules tests at most every 10 s (did you mean PT1M?)"),
                r.err());
        assertEquals(null, lastBody.get(), "nothing sent");
        Run seconds = nmws("schedule", "add", "rtt-b", "-c", "path.delay.roundTrip", "--dst", "10.0.0.2", "--period", "5");
        assertEquals(2, seconds.status(), seconds.err());
        answer = "{\"name\":\"rtt-b\",\"period\":\"PT10S\"}";
        assertEquals(0, nmws("schedule", "add", "rtt-b", "-c", "path.delay.roundTrip", "--dst", "10.0.0.2", "--period", "10")
                .status());
    }

    @Test
    void aScheduleWithoutStartStartsNowAsTheHelpSays() throws Exception {
        answer = "{\"name\":\"rtt-b\",\"start\":\"2026-11-26T10:00:00Z\"}";
        Instant before = Instant.now().minusSeconds(1);
        Run r = nmws("schedule", "add", "rtt-b", "-c", "path.delay.roundTrip", "--dst", "10.0.0.2", "--period", "PT1M");
        assertEquals(0, r.status(), r.err());
        JsonNode sent = new ObjectMapper().readTree(lastBody.get());
        Instant start = Instant.parse(sent.get("start").asText());
        assertTrue(!start.isBefore(before) && !start.isAfter(Instant.now()), sent.toString());
        assertEquals(Values.anyTime("2026-11-26T10:00:00Z"), table(r.out()).get("START"), r.out());
    }

    /** Issue 23: --archive sends each spec as the schedule's archives; one that is not JSON is a usage error. */
    @Test
    void archivesAreSentAsTheSchedulesArchives() throws Exception {
        answer = "{\"name\":\"rtt-b\"}";
        String os = "{\"archiver\":\"opensearch\",\"data\":{\"_url\":\"https://os.example.net:9200\"}}";
        String kafka = "{\"archiver\":\"kafka\",\"data\":{\"server\":\"k:9092\",\"topic\":\"t\"}}";
        Run r = nmws("schedule", "add", "rtt-b", "-c", "path.delay.roundTrip", "--dst", "10.0.0.2", "--period", "PT1M",
                "--archive", os, "--archive", kafka);
        assertEquals(0, r.status(), r.err());
        JsonNode sent = new ObjectMapper().readTree(lastBody.get());
        assertEquals(new ObjectMapper().readTree("[" + os + "," + kafka + "]"), sent.get("archives"));
        lastBody.set(null);
        Run bad = nmws("schedule", "add", "rtt-b", "-c", "path.delay.roundTrip", "--dst", "10.0.0.2", "--period", "PT1M",
                "--archive", "{opensearch");
        assertEquals(2, bad.status());
        assertTrue(bad.err().startsWith("nmws: --archive {opensearch is not JSON"), bad.err());
        assertEquals(null, lastBody.get(), "nothing sent");
    }

    @Test
    void everyCommandPrintsAServiceErrorAsOneLineOnStandardErrorWithStatusOne() {
        status = 400;
        answer = "{\"error\":\"parameter 'cnt' is not read by path.delay.roundTrip\"}";
        for (List<String> command : List.of(List.of("schedule", "add", "x", "-c", "path.delay.roundTrip", "--dst", "h"),
                List.of("schedule", "list"), List.of("schedule", "runs", "x"), List.of("schedule", "remove", "x"),
                List.of("tests"), List.of("cost", "--dst", "h", "--bytes", "1e9"), List.of("diagnose", "--dst", "h"),
                List.of("--json", "cost", "--dst", "h", "--bytes", "1e9"), List.of("query", "h"))) {
            Run r = nmws(command.toArray(String[]::new));
            assertEquals(1, r.status(), command + ": " + r.err());
            assertEquals("error: parameter 'cnt' is not read by path.delay.roundTrip\n", r.err(), command.toString());
            assertEquals("", r.out(), command.toString());
        }
        // the SOAP commands too: a refused credential is the service's answer, not "cannot reach"
        status = 401;
        answer = "";
        for (List<String> command : List.of(List.of("echo"), List.of("rtt", "h"), List.of("measure", "h", "-c", "path.delay.roundTrip"),
                List.of("--xml", "query", "h"), List.of("query", "h"), List.of("tests"))) {
            Run r = nmws(command.toArray(String[]::new));
            assertEquals(1, r.status(), command + ": " + r.err());
            assertTrue(r.err().startsWith("error: HTTP 401") && r.err().contains("--api-key or --user")
                    && r.err().lines().count() == 1, command + ": " + r.err());
        }
        status = 404;
        answer = "";
        Run none = nmws("schedule", "runs", "nobody");
        assertEquals(1, none.status());
        assertEquals("error: no schedule nobody\n", none.err());
        Run cancel = nmws("tests", "--cancel", "3f2a9c01");
        assertEquals(1, cancel.status());
        assertEquals("error: no running test 3f2a9c01\n", cancel.err());
    }

    @Test
    void runningTestsShowTheirStartAsLocalTimeAndSecondsRunning() {
        Instant started = Instant.now().minusSeconds(42);
        // Jackson's default for an Instant: seconds since 1970 to the nanosecond
        answer = "[{\"id\":\"3f2a9c01\",\"characteristic\":\"path.delay.oneWay\",\"dst\":\"10.0.0.2\",\"started\":"
                + started.getEpochSecond() + "." + String.format("%09d", started.getNano()) + ",\"done\":5,\"total\":10}]";
        Run r = nmws("tests");
        assertEquals(0, r.status(), r.err());
        java.util.Map<String, String> row = table(r.out());
        assertEquals(Values.time(started), row.get("STARTED"), r.out());
        long running = Long.parseLong(row.get("RUNNING(s)"));
        assertTrue(running >= 42 && running <= 44, r.out());
        assertEquals("5/10 (50%)", row.get("PROGRESS"));
    }

    @Test
    void aServiceNotReachedOnThisHostSaysHowToStartIt() {
        Run r = nmwsAt("http://127.0.0.1:1", "schedule", "list");
        assertEquals(2, r.status());
        List<String> lines = r.err().lines().toList();
        assertTrue(lines.get(0).startsWith("nmws: cannot reach http://127.0.0.1:1/api/schedules"), r.err());
        assertEquals(NmwsCli.startHint(), lines.get(1));
        Run far = nmwsAt("http://192.0.2.1:1", "--help");
        assertEquals(0, far.status());
        StringWriter err = new StringWriter();
        NmwsCli.startHint("https://mp.example.org:8443", new PrintWriter(err, true));
        assertEquals("", err.toString(), "no hint for another host");
    }

    /** The one row of a table as header -> cell (columns start where their header does). */
    private static java.util.Map<String, String> table(String out) {
        List<String> lines = out.lines().toList();
        java.util.regex.Matcher h = java.util.regex.Pattern.compile("\\S+").matcher(lines.get(0));
        java.util.Map<String, String> row = new java.util.LinkedHashMap<>();
        List<String> names = new java.util.ArrayList<>();
        List<Integer> starts = new java.util.ArrayList<>();
        while (h.find()) {
            names.add(h.group());
            starts.add(h.start());
        }
        String line = lines.get(1);
        for (int i = 0; i < names.size(); i++) {
            int from = Math.min(starts.get(i), line.length());
            int to = i + 1 < names.size() ? Math.min(starts.get(i + 1), line.length()) : line.length();
            row.put(names.get(i), line.substring(from, to).trim());
        }
        return row;
    }
}
