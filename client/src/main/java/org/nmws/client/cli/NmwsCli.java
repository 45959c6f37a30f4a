package org.nmws.client.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.nmws.client.NmwsClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The nmws command-line client: echo, run tests, query stored results, list and cancel running tests. */
@Command(name = "nmws", mixinStandardHelpOptions = true, scope = CommandLine.ScopeType.INHERIT, version = "nmws client 0.1.0",
        description = "Talks to an nmws measurement service: runs tests, reads stored results, lists and cancels "
                + "running tests, manages schedules, ranks transfer costs. Answers print as tables; --json or --xml "
                + "for scripts.",
        footer = {"", "Examples:",
                "  nmws echo                            # is the service there?",
                "  nmws rtt 10.0.0.2 --count 100        # round trip, loss, jitter now",
                "  nmws measure 10.0.0.2 -c path.bandwidth.achievable.TCP",
                "  nmws query 10.0.0.2 --from 2026-11-21T00:00:00Z --json",
                "  nmws tests                           # running tests, with progress",
                "  nmws schedule list                   # regular tests; schedule runs NAME",
                "  nmws cost --dst 10.0.0.2 --dst 10.0.0.3 --bytes 1e9   # cheapest first",
                "  nmws --url https://mp.example.org:8443 --api-key $KEY tests",
                "  source <(nmws completion)            # bash completion",
                "",
                "Exit status: 0 success, 2 an error answer or the service not reached.",
                "A progress bar goes to standard error during long tests when it is a terminal."},
        subcommands = {NmwsCli.Echo.class, NmwsCli.Rtt.class, NmwsCli.Measure.class, NmwsCli.Query.class,
                NmwsCli.Tests.class, NmwsCli.Schedule.class, NmwsCli.Cost.class, NmwsCli.Diagnose.class, NmwsCli.HashPassword.class,
                NmwsCli.Completion.class})
public final class NmwsCli {
    @Option(names = "--url", defaultValue = "http://127.0.0.1:8080", description = "service base URL (default: ${DEFAULT-VALUE})")
    String url;

    @Option(names = "--soap12", description = "use SOAP 1.2 instead of 1.1")
    boolean soap12;

    @Option(names = "--api-key", defaultValue = "${env:NMWS_API_KEY}",
            description = "API key sent as X-Api-Key (default: $NMWS_API_KEY); use https from other hosts")
    String apiKey;

    @Option(names = "--user", defaultValue = "${env:NMWS_USER}",
            description = "NAME:PASSWORD for HTTP Basic (default: $NMWS_USER); use https from other hosts")
    String user;

    @Option(names = "--json", scope = CommandLine.ScopeType.INHERIT, description = "print answers as JSON")
    boolean json;

    @Option(names = "--xml", scope = CommandLine.ScopeType.INHERIT,
            description = "print NMWG answers as the service's XML (echo, rtt, measure, query)")
    boolean xml;

    @Option(names = "--progress", scope = CommandLine.ScopeType.INHERIT, defaultValue = "auto", paramLabel = "WHEN",
            description = "progress bar on standard error during tests: auto (when it is a terminal), always or never")
    String progress;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** How answers are printed; --json and --xml exclude each other. */
    enum Format { TABLE, JSON, XML }

    Format format() {
        if (json && xml) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--json and --xml exclude each other");
        }
        return json ? Format.JSON : xml ? Format.XML : Format.TABLE;
    }

    /** A progress bar for a test to dst while it runs (see Progress). */
    AutoCloseable progress(String dst) {
        if (!List.of("auto", "always", "never").contains(progress)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--progress is '" + progress + "': auto, always or never");
        }
        return Progress.start(progress, url, credentials(), dst, spec.commandLine().getErr());
    }

    /** The credential headers to send, if any. */
    /**
     * Sends a request to the service's JSON API with this command line's credentials; null
     * (with the reason on stderr) when the service cannot be reached.
     */
    HttpResponse<String> send(HttpRequest.Builder b, Duration timeout, Object target) throws InterruptedException {
        credentials().forEach(b::header);
        try {
            return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build().send(b.timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            spec.commandLine().getErr().println("cannot reach " + target + ": " + e.getMessage());
            return null;
        }
    }

    java.util.Map<String, String> credentials() {
        java.util.Map<String, String> h = new java.util.LinkedHashMap<>();
        if (apiKey != null && !apiKey.isBlank()) {
            h.put("X-Api-Key", apiKey);
        }
        if (user != null && !user.isBlank()) {
            h.put("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)));
        }
        return h;
    }

    /** Where answers go: standard output, or what a caller set with CommandLine.setOut. */
    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    NmwsClient client() {
        return (soap12 ? NmwsClient.soap12(url) : NmwsClient.soap11(url)).withHeaders(credentials());
    }

    /** CXF logs through java.util.logging; held here so the level set below is not collected away. */
    private static final java.util.logging.Logger CXF_LOG = java.util.logging.Logger.getLogger("org.apache.cxf");

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The CLI as users run it: the SOAP library's INFO and WARNING lines kept off the terminal
     * (what matters comes back as the answer or as one error line), and a failure (the service
     * unreachable, say) reported as "nmws: reason", exit status 2, without a stack trace.
     */
    public static CommandLine commandLine() {
        CXF_LOG.setLevel(java.util.logging.Level.OFF);
        CommandLine cli = new CommandLine(new NmwsCli());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            // An I/O failure anywhere in the chain (CXF wraps it in a Fault) means the service was not reached.
            for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t instanceof java.io.IOException io) {
                    cmd.getErr().println("nmws: cannot reach " + ((NmwsCli) cli(cmd).getCommand()).url + " ("
                            + io.getClass().getSimpleName() + (io.getMessage() == null ? "" : ": " + io.getMessage()) + ")");
                    return 2;
                }
            }
            cmd.getErr().println("nmws: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
            return 2;
        });
        return cli;
    }

    /** The top command of a (sub)command. */
    private static CommandLine cli(CommandLine c) {
        while (c.getParent() != null) {
            c = c.getParent();
        }
        return c;
    }

    @Command(name = "echo", description = "EchoRequest: is the service there?")
    static final class Echo implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;

        @Override
        public Integer call() {
            return parent.print(parent.client().echo());
        }
    }

    @Command(name = "rtt", description = "MeasurementRequest: round-trip delay, loss and jitter to DST now.",
            footer = {"", "Examples:", "  nmws rtt 10.0.0.2", "  nmws rtt 10.0.0.2 --count 1000 --interval 0.01 --size 1400",
                    "  nmws --json rtt 10.0.0.2 | jq .results[0].figures.meanRtt"})
    static final class Rtt implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @Parameters(index = "0", description = "destination host running nmprobe-responder")
        String dst;
        @Option(names = "--count", description = "frames to send") Integer count;
        @Option(names = "--size", description = "UDP payload bytes per frame") Integer size;
        @Option(names = "--interval", description = "seconds between frames") String interval;
        @Option(names = "--port", description = "responder control port") Integer port;
        @Option(names = "--raw", description = "include one datum per frame") boolean raw;

        @Override
        public Integer call() throws Exception {
            Map<String, String> p = new LinkedHashMap<>();
            if (count != null) p.put("count", count.toString());
            if (size != null) p.put("packetSize", size.toString());
            if (interval != null) p.put("interval", interval);
            if (port != null) p.put("port", port.toString());
            if (raw) p.put("raw", "true");
            parent.format();
            org.nmws.client.nmwg.Message answer;
            try (AutoCloseable bar = parent.progress(dst)) {
                answer = parent.client().roundTrip(dst, p);
            }
            return parent.print(answer);
        }
    }

    @Command(name = "measure", description = "MeasurementRequest for any characteristic to DST now.",
            footer = {"", "Examples:", "  nmws measure 10.0.0.2 -c path.delay.oneWay -p count=1000 -p packetSize=200",
                    "  nmws measure 10.0.0.2 -c path.bandwidth.achievable.TCP -p streams=4",
                    "  nmws measure 10.0.0.2 -c path.hoplist", "  nmws measure 10.0.0.2 -c path.bandwidth.capacity"})
    static final class Measure implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @Parameters(index = "0", description = "destination host running nmprobe-responder")
        String dst;
        @Option(names = {"-c", "--characteristic"}, required = true,
                description = "GFD.023 name (path.bandwidth.achievable.TCP, ...) or NMWG eventType URI")
        String characteristic;
        @Option(names = {"-p", "--parameter"}, description = "NMWG parameter name=value, repeatable")
        Map<String, String> parameters = new LinkedHashMap<>();

        @Override
        public Integer call() throws Exception {
            parent.format();
            org.nmws.client.nmwg.Message answer;
            try (AutoCloseable bar = parent.progress(dst)) {
                answer = parent.client().measure(dst, characteristic, parameters);
            }
            return parent.print(answer);
        }
    }

    @Command(name = "query", description = "SetupDataRequest: stored round-trip results to DST.",
            footer = {"", "Examples:", "  nmws query 10.0.0.2 --from 2026-11-21T00:00:00Z", "  nmws --xml query 10.0.0.2 --raw"})
    static final class Query implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @Parameters(index = "0", description = "destination as it was measured") String dst;
        @Option(names = "--from", description = "ISO 8601 start, e.g. 2026-11-21T00:00:00Z") Instant from;
        @Option(names = "--to", description = "ISO 8601 end") Instant to;
        @Option(names = "--raw", description = "include one datum per frame") boolean raw;

        @Override
        public Integer call() {
            return parent.print(parent.client().storedRoundTrips(dst, from, to, raw));
        }
    }

    @Command(name = "tests", description = "Running tests with their progress (GET /api/tests), or cancel one.",
            footer = {"", "Examples:", "  nmws tests", "  nmws --json tests", "  nmws tests --cancel 3f2a9c01"})
    static final class Tests implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @Option(names = "--cancel", paramLabel = "ID", description = "cancel the running test with this id") String cancel;

        @Override
        public Integer call() throws InterruptedException, IOException {
            URI base = URI.create(parent.url.replaceAll("/+$", "") + "/api/tests");
            HttpRequest.Builder b = cancel == null
                    ? HttpRequest.newBuilder(base).GET()
                    : HttpRequest.newBuilder(base.resolve("tests/" + URLEncoder.encode(cancel, StandardCharsets.UTF_8))).DELETE();
            HttpResponse<String> r = parent.send(b, Duration.ofSeconds(30), base);
            if (r == null) {
                return 2;
            }
            if (cancel == null) {
                if (r.statusCode() != 200 || parent.format() == Format.JSON) {
                    parent.out().println(r.body());
                } else {
                    parent.testsTable(r.body());
                }
                return r.statusCode() == 200 ? 0 : 2;
            }
            String outcome = switch (r.statusCode()) {
                case 202 -> "cancelled";
                case 404 -> "no running test " + cancel;
                case 401, 403 -> "this client may not cancel tests: it needs the measure role (--api-key, --user)";
                default -> "HTTP " + r.statusCode();
            };
            parent.out().println(outcome);
            return r.statusCode() == 202 ? 0 : 2;
        }
    }

    /** The running tests as a table: id, characteristic, destination, start and progress. */
    void testsTable(String body) throws java.io.IOException {
        com.fasterxml.jackson.databind.JsonNode list = Answers.JSON.readTree(body);
        if (list.isEmpty()) {
            out().println("no tests running");
            return;
        }
        Table t = new Table(List.of("ID", "CHARACTERISTIC", "DST", "STARTED", "PROGRESS"));
        for (com.fasterxml.jackson.databind.JsonNode r : list) {
            int done = r.path("done").asInt();
            int total = r.path("total").asInt();
            t.row(List.of(r.path("id").asText(), r.path("characteristic").asText(), r.path("dst").asText(),
                    r.path("started").asText(), total > 0 ? done + "/" + total + " (" + 100L * done / total + "%)" : "-"));
        }
        t.print(out());
    }

    /** Prints the response as asked; the exit status is 2 when the service answered with an error code. */
    int print(org.nmws.client.nmwg.Message response) {
        String xmlText = NmwsClient.toXml(response);
        switch (format()) {
            case XML -> out().println(xmlText);
            case JSON -> out().println(Answers.json(response.getType(), Answers.read(xmlText)));
            case TABLE -> Answers.printTables(Answers.read(xmlText), out());
        }
        out().flush();
        boolean error = NmwsClient.eventTypes(response).stream().anyMatch(t -> t.startsWith("error."));
        return error ? 2 : 0;
    }

    @Command(name = "hash-password", description = "Reads a password on standard input and prints it in the form "
            + "nmws.security.users[N].password takes ({bcrypt}...).")
    static final class HashPassword implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;

        @Override
        public Integer call() throws IOException {
            java.io.Console console = System.console();
            String password = console != null ? new String(console.readPassword("password: "))
                    : new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (password == null || password.isEmpty()) {
                parent.spec.commandLine().getErr().println("no password given");
                return 2;
            }
            parent.out().println("{bcrypt}" + new org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder().encode(password));
            return 0;
        }
    }

    @Command(name = "schedule", description = "Regular tests (the service's /api/schedules): list them, add or replace one, "
            + "remove one, or show one's runs.",
            footer = {"", "Examples:",
                    "  nmws schedule add rtt-b -c path.delay.roundTrip --dst 10.0.0.2 --period PT1M -p count=10",
                    "  nmws schedule add owd-b -c path.delay.oneWay --dst 10.0.0.2 --continuous",
                    "  nmws schedule list", "  nmws schedule runs rtt-b --json", "  nmws schedule remove rtt-b"})
    static final class Schedule implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @CommandLine.Parameters(index = "0", description = "list, add, remove or runs") String action;
        @CommandLine.Parameters(index = "1", arity = "0..1", description = "the schedule's name") String name;
        @Option(names = {"-c", "--characteristic"}) String characteristic;
        @Option(names = "--dst") String dst;
        @Option(names = "--period", description = "ISO 8601 (PT1M) or seconds") String period;
        @Option(names = "--slip", description = "random delay of each run, up to this") String slip;
        @Option(names = "--class", description = "exclusive, normal or background") String testClass;
        @Option(names = "--start", description = "first run at or after this time (ISO 8601; default: now)") String start;
        @Option(names = "--end", description = "no runs after this time (ISO 8601; default: none)") String end;
        @Option(names = "--continuous", description = "a one-way stream kept a minute at a time") boolean continuous;
        @Option(names = {"-p", "--parameter"}, description = "NMWG parameter name=value, repeatable")
        java.util.Map<String, String> parameters = new java.util.LinkedHashMap<>();

        @Override
        public Integer call() throws InterruptedException, IOException {
            String base = parent.url.replaceAll("/+$", "") + "/api/schedules";
            HttpRequest.Builder b;
            switch (action) {
                case "list" -> b = HttpRequest.newBuilder(URI.create(base)).GET();
                case "runs", "remove", "add" -> {
                    if (name == null) {
                        parent.spec.commandLine().getErr().println(action + " needs a schedule name");
                        return 2;
                    }
                    URI one = URI.create(base + "/" + URLEncoder.encode(name, StandardCharsets.UTF_8));
                    if (action.equals("runs")) {
                        b = HttpRequest.newBuilder(URI.create(one + "/runs")).GET();
                    } else if (action.equals("remove")) {
                        b = HttpRequest.newBuilder(one).DELETE();
                    } else {
                        b = HttpRequest.newBuilder(one).header("Content-Type", "application/json")
                                .PUT(HttpRequest.BodyPublishers.ofString(json()));
                    }
                }
                default -> {
                    parent.spec.commandLine().getErr().println("unknown action '" + action + "': list, add, remove or runs");
                    return 2;
                }
            }
            HttpResponse<String> r = parent.send(b, Duration.ofSeconds(30), base);
            if (r == null) {
                return 2;
            }
            boolean ok = r.statusCode() / 100 == 2;
            if (ok && parent.format() != Format.JSON && action.equals("list")) {
                JsonTables.schedules(Answers.JSON.readTree(r.body()), parent.out());
            } else if (ok && parent.format() != Format.JSON && action.equals("add")) {
                JsonTables.schedules(Answers.JSON.createArrayNode().add(Answers.JSON.readTree(r.body())), parent.out());
            } else if (ok && parent.format() != Format.JSON && action.equals("runs")) {
                JsonTables.runs(Answers.JSON.readTree(r.body()), parent.out());
            } else {
                parent.out().println(r.statusCode() == 204 ? "removed" : r.statusCode() == 404 ? "no schedule " + name : r.body());
            }
            return ok ? 0 : 2;
        }

        private String json() throws IOException {
            com.fasterxml.jackson.databind.node.ObjectNode j = Answers.JSON.createObjectNode();
            java.util.Map<String, String> given = new java.util.LinkedHashMap<>();
            given.put("characteristic", characteristic);
            given.put("dst", dst);
            given.put("period", period);
            given.put("slip", slip);
            given.put("testClass", testClass);
            given.put("start", start);
            given.put("end", end);
            given.forEach((k, v) -> {
                if (v != null) { // absent, not null: the service's defaults apply
                    j.put(k, v);
                }
            });
            if (continuous) {
                j.put("continuous", true);
            }
            j.putPOJO("parameters", parameters);
            return Answers.JSON.writeValueAsString(j);
        }
    }

    @Command(name = "cost", description = "What moving some bytes to each destination would cost (GET /api/cost): ranked "
            + "by estimated time, with rate, RTT, loss, the forecast's expected error, the data's age and basis.",
            footer = {"", "Examples:", "  nmws cost --dst 10.0.0.2 --dst 10.0.0.3 --bytes 1e9",
                    "  nmws cost --dst 10.0.0.2 --bytes 5e8 --max-age PT1H --json",
                    "  nmws cost --dst 10.0.0.2 --dst 10.0.0.3 --bytes 1e9 --max-age PT1H --refresh",
                    "  nmws cost --src point-b --dst 10.0.0.2 --bytes 1e9"})
    static final class Cost implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @Option(names = "--dst", required = true, description = "a candidate destination, repeatable") List<String> dst;
        @Option(names = "--bytes", required = true, description = "bytes to move") String bytes;
        @Option(names = "--max-age", defaultValue = "PT24H", description = "oldest measurement to use (default: ${DEFAULT-VALUE})")
        String maxAge;
        @Option(names = "--src", description = "another point of the mesh to move the bytes from (default: this one)")
        String src;
        @Option(names = "--refresh", description = "measure destinations whose data is older than --max-age first")
        boolean refresh;
        @Option(names = "--time-budget", defaultValue = "30", description = "seconds the refresh may take in all "
                + "(default: ${DEFAULT-VALUE})")
        int timeBudget;

        @Override
        public Integer call() throws InterruptedException, IOException {
            StringBuilder q = new StringBuilder(parent.url.replaceAll("/+$", "") + "/api/cost?bytes=")
                    .append(URLEncoder.encode(bytes, StandardCharsets.UTF_8)).append("&maxAge=")
                    .append(URLEncoder.encode(maxAge, StandardCharsets.UTF_8));
            for (String d : dst) {
                q.append("&dst=").append(URLEncoder.encode(d, StandardCharsets.UTF_8));
            }
            if (src != null) {
                q.append("&src=").append(URLEncoder.encode(src, StandardCharsets.UTF_8));
            }
            if (refresh) {
                q.append("&refresh=true&timeBudget=PT").append(timeBudget).append('S');
            }
            HttpResponse<String> r = parent.send(HttpRequest.newBuilder(URI.create(q.toString())).GET(),
                    Duration.ofSeconds(30 + (refresh ? timeBudget : 0)), parent.url);
            if (r == null) {
                return 2;
            }
            if (r.statusCode() == 200 && parent.format() != Format.JSON) {
                JsonTables.costs(Answers.JSON.readTree(r.body()), parent.out());
            } else {
                parent.out().println(r.body());
            }
            return r.statusCode() == 200 ? 0 : 2;
        }
    }

    @Command(name = "diagnose", description = "Why the path to a destination is slow (GET /api/diagnosis): the cause nmws "
            + "names (receive-window, send-buffer, packet-loss, bottleneck-link, unknown) with its evidence.",
            footer = {"", "Examples:", "  nmws diagnose --dst 10.0.0.2                 # from stored results",
                    "  nmws diagnose --dst 10.0.0.2 --measure       # run the round trip, TCP and per-hop tests it needs",
                    "  nmws diagnose --dst 10.0.0.2 --measure --window-size 65536 --json"})
    static final class Diagnose implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @Option(names = "--dst", required = true, description = "the destination") String dst;
        @Option(names = "--src", description = "another point whose stored results to read") String src;
        @Option(names = "--measure", description = "run the tests the question needs first (needs the measure role)")
        boolean measure;
        @Option(names = "--max-age", defaultValue = "PT1H", description = "oldest result to use (default: ${DEFAULT-VALUE})")
        String maxAge;
        @Option(names = "--window-size", description = "the TCP test's receive buffer, bytes") Integer windowSize;
        @Option(names = "--streams", description = "the TCP test's streams") Integer streams;
        @Option(names = "--congestion", description = "the TCP test's congestion control (cubic, bbr, ...)")
        String congestion;

        @Override
        public Integer call() throws InterruptedException, IOException {
            StringBuilder q = new StringBuilder(parent.url.replaceAll("/+$", "") + "/api/diagnosis?dst=")
                    .append(URLEncoder.encode(dst, StandardCharsets.UTF_8)).append("&maxAge=")
                    .append(URLEncoder.encode(maxAge, StandardCharsets.UTF_8)).append("&measure=").append(measure);
            if (src != null) {
                q.append("&src=").append(URLEncoder.encode(src, StandardCharsets.UTF_8));
            }
            if (windowSize != null) {
                q.append("&windowSize=").append(windowSize);
            }
            if (streams != null) {
                q.append("&streams=").append(streams);
            }
            if (congestion != null) {
                q.append("&congestion=").append(URLEncoder.encode(congestion, StandardCharsets.UTF_8));
            }
            // the tests a diagnosis may run (per-hop capacity the longest) take minutes at most
            HttpResponse<String> r = parent.send(HttpRequest.newBuilder(URI.create(q.toString())).GET(), Duration.ofSeconds(300),
                    parent.url);
            if (r == null) {
                return 2;
            }
            if (r.statusCode() != 200 || parent.format() == Format.JSON) {
                (r.statusCode() == 200 ? parent.out() : parent.spec.commandLine().getErr()).println(r.body());
                return r.statusCode() == 200 ? 0 : 2;
            }
            JsonTables.diagnosis(Answers.JSON.readTree(r.body()), parent.out());
            return 0;
        }
    }

    @Command(name = "completion", description = "Prints a bash completion script: source <(nmws completion)")
    static final class Completion implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;

        @Override
        public Integer call() {
            parent.out().print(picocli.AutoComplete.bash("nmws", parent.spec.commandLine()));
            parent.out().flush();
            return 0;
        }
    }
}
