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
                "  nmws latency 10.0.0.2                # one-way delay (owamp, twamp,",
                "  nmws throughput 10.0.0.2 -t PT10S    #   stamp, trace, capacity too)",
                "  nmws measure 10.0.0.2 -c path.bandwidth.achievable.TCP",
                "  nmws query 10.0.0.2 --from PT1H      # stored results, every kind",
                "  nmws troubleshoot 10.0.0.2           # what stands between here and there",
                "  nmws tests                           # running tests, with progress",
                "  nmws schedule list                   # regular tests; schedule runs NAME",
                "  nmws cost --dst 10.0.0.2 --dst 10.0.0.3 --bytes 1e9   # cheapest first",
                "  nmws --url https://mp.example.org:8443 --api-key $KEY tests",
                "  source <(nmws completion)            # bash completion",
                "",
                "A progress bar goes to standard error during long tests when it is a terminal.",
                "Exit status: 0 success, 1 the service answered with an error (printed as",
                "\"error: ...\" on standard error), 2 a usage error or the service not reached."},
        subcommands = {NmwsCli.Echo.class, TestVerbs.Rtt.class, TestVerbs.Latency.class, TestVerbs.Throughput.class,
                TestVerbs.Trace.class, TestVerbs.Owamp.class, TestVerbs.Twamp.class, TestVerbs.Stamp.class,
                TestVerbs.Capacity.class, NmwsCli.Measure.class, Query.class, Troubleshoot.class,
                NmwsCli.Tests.class, NmwsCli.Schedule.class, NmwsCli.PsConfig.class, NmwsCli.Cost.class, NmwsCli.Diagnose.class, NmwsCli.HashPassword.class,
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

    @Option(names = "--busy-wait", scope = CommandLine.ScopeType.INHERIT, defaultValue = "PT30S", paramLabel = "DURATION",
            converter = Durations.class, description = "how long a test waits for a path or responder busy with another"
            + " test (a schedule's), asking again when the service says; 0 gives up at once (default: 30 s)")
    String busyWait;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** "retry in 3 s", "retry after 215 ms": when the service says a busy path or responder frees up. */
    private static final java.util.regex.Pattern RETRY = java.util.regex.Pattern.compile("retry (?:in|after) ([0-9.]+) (s|ms)");

    /**
     * A test on demand, asked again while the path or responder is busy with another (a mesh's
     * scheduled tests hold them for seconds at a time, so a test typed by hand met them often),
     * at the moment the service says it frees up, for at most --busy-wait; the last answer.
     */
    org.nmws.client.nmwg.Message measureWhenFree(String dst, String characteristic, Map<String, String> parameters)
            throws InterruptedException {
        long deadline = System.nanoTime() + new java.math.BigDecimal(busyWait).movePointRight(9).longValue();
        while (true) {
            org.nmws.client.nmwg.Message answer = client().measure(dst, characteristic, parameters);
            List<Answers.Result> busy = Answers.read(NmwsClient.toXml(answer)).stream()
                    .filter(r -> "error.mp.busy".equals(r.eventType())).toList();
            if (busy.isEmpty()) {
                return answer;
            }
            String why = busy.get(0).message() == null ? "" : busy.get(0).message();
            java.util.regex.Matcher m = RETRY.matcher(why);
            double seconds = m.find() ? Double.parseDouble(m.group(1)) / (m.group(2).equals("ms") ? 1000 : 1) : 1;
            // at least a quarter second (no tight loop), at most 5 s (a stated time can be pessimistic)
            long waitNs = (long) (Math.min(5, Math.max(0.25, seconds)) * 1e9);
            if (System.nanoTime() + waitNs > deadline) {
                return answer;
            }
            spec.commandLine().getErr().printf("busy: %s; asking again in %.1f s (--busy-wait)%n", why, waitNs / 1e9);
            spec.commandLine().getErr().flush();
            Thread.sleep(waitNs / 1_000_000);
        }
    }

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
            spec.commandLine().getErr().println("nmws: cannot reach " + target + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
            startHint(url, spec.commandLine().getErr());
            return null;
        }
    }

    /** How to start the responder and the service on this host: with systemctl under systemd, else the package's script. */
    public static String startHint() {
        return java.nio.file.Files.isDirectory(java.nio.file.Path.of("/run/systemd/system"))
                ? "nmws: is the service running? start it with 'systemctl start nmprobe-responder nmws' (as root)"
                : "nmws: is the service running? this host has no systemd: start it with"
                        + " '/usr/share/nmws/start-without-systemd' (as root)";
    }

    /** Prints startHint() when url names this host: only there can starting the service help. */
    static void startHint(String url, PrintWriter err) {
        String host = URI.create(url).getHost();
        if (host != null && (host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]") || host.equals("::1"))) {
            err.println(startHint());
        }
    }

    /**
     * A service's error answer (a non-2xx status) as one line "error: TEXT" on standard error,
     * TEXT the answer's "error" or "message" field, else its body, else its status; exit status 1.
     */
    int serviceError(HttpResponse<String> r) {
        String text = r.body() == null ? "" : r.body().trim();
        try {
            com.fasterxml.jackson.databind.JsonNode j = Answers.JSON.readTree(text);
            if (j != null && j.isObject()) {
                text = j.hasNonNull("error") ? j.get("error").asText() : j.hasNonNull("message") ? j.get("message").asText() : text;
            }
        } catch (IOException notJson) {
            // the body as it came
        }
        if (text.isEmpty()) {
            text = "HTTP " + r.statusCode();
        }
        return serviceError(r.statusCode() == 401 || r.statusCode() == 403
                ? text + " (this client's credentials: --api-key or --user)" : text);
    }

    /** "error: TEXT" on standard error; exit status 1. */
    int serviceError(String text) {
        return serviceError(spec.commandLine(), text);
    }

    /** "error: TEXT" on the standard error of cmd; exit status 1. */
    int serviceError(CommandLine cmd, String text) {
        cmd.getErr().println("error: " + text);
        cmd.getErr().flush();
        return 1;
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
        // A usage error is its reason, picocli's suggestions (--count for --cnt) and where the help is, not the whole usage.
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine cmd = e.getCommandLine();
            cmd.getErr().println("nmws: " + e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, cmd.getErr());
            cmd.getErr().println("see '" + cmd.getCommandSpec().qualifiedName() + " --help'");
            cmd.getErr().flush();
            return 2;
        });
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            // The service's own refusal over SOAP (a Fault, or an HTTP error status such as 401) is its error answer.
            for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t instanceof jakarta.xml.ws.soap.SOAPFaultException fault) {
                    return ((NmwsCli) cli(cmd).getCommand()).serviceError(cmd, fault.getFault().getFaultString());
                }
                if (t instanceof org.apache.cxf.transport.http.HTTPException http) {
                    return ((NmwsCli) cli(cmd).getCommand()).serviceError(cmd, "HTTP " + http.getResponseCode()
                            + (http.getResponseMessage() == null ? "" : " " + http.getResponseMessage())
                            + (http.getResponseCode() == 401 || http.getResponseCode() == 403
                            ? " (this client's credentials: --api-key or --user)" : ""));
                }
            }
            // An I/O failure anywhere in the chain (CXF wraps it in a Fault) means the service was not reached.
            for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t instanceof java.io.IOException io) {
                    String url = ((NmwsCli) cli(cmd).getCommand()).url;
                    cmd.getErr().println("nmws: cannot reach " + url + " ("
                            + io.getClass().getSimpleName() + (io.getMessage() == null ? "" : ": " + io.getMessage()) + ")");
                    startHint(url, cmd.getErr());
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
                answer = parent.measureWhenFree(dst, characteristic, parameters);
            }
            return parent.print(answer);
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
                if (r.statusCode() != 200) {
                    return parent.serviceError(r);
                }
                if (parent.format() == Format.JSON) {
                    parent.out().println(r.body());
                } else {
                    parent.testsTable(r.body(), Instant.now());
                }
                return 0;
            }
            return switch (r.statusCode()) {
                case 202 -> {
                    parent.out().println("cancelled");
                    yield 0;
                }
                case 404 -> parent.serviceError("no running test " + cancel);
                case 401, 403 -> parent.serviceError("this client may not cancel tests: it needs the measure role (--api-key, --user)");
                default -> parent.serviceError(r);
            };
        }
    }

    /**
     * The running tests as a table: id, characteristic, destination, start as local time, seconds
     * running so far (the service writes the start as seconds since 1970 to the nanosecond) and progress.
     */
    void testsTable(String body, Instant now) throws java.io.IOException {
        com.fasterxml.jackson.databind.JsonNode list = Answers.JSON.readTree(body);
        if (list.isEmpty()) {
            out().println("no tests running");
            return;
        }
        Table t = new Table(List.of("ID", "CHARACTERISTIC", "DST", "STARTED", "RUNNING(s)", "PROGRESS"));
        for (com.fasterxml.jackson.databind.JsonNode r : list) {
            int done = r.path("done").asInt();
            int total = r.path("total").asInt();
            Instant started = startedAt(r.path("started"));
            t.row(List.of(r.path("id").asText(), r.path("characteristic").asText(), r.path("dst").asText(),
                    started == null ? "-" : Values.time(started),
                    started == null ? "-" : Long.toString(Math.max(0, Duration.between(started, now).toSeconds())),
                    total > 0 ? done + "/" + total + " (" + 100L * done / total + "%)" : "-"));
        }
        t.print(out());
    }

    /** An Instant as Jackson writes it (seconds since 1970 with a fraction) or as ISO 8601; null if neither. */
    static Instant startedAt(com.fasterxml.jackson.databind.JsonNode v) {
        if (v.isNumber()) {
            java.math.BigDecimal s = v.decimalValue();
            return Instant.ofEpochSecond(s.longValue(), s.remainder(java.math.BigDecimal.ONE).movePointRight(9).longValue());
        }
        try {
            return Instant.parse(v.asText());
        } catch (java.time.format.DateTimeParseException notATime) {
            return null;
        }
    }

    /**
     * Prints the response as asked (tables leave error results out), and each error result as
     * "error: ..." on standard error; the exit status is 1 when the service answered with an error.
     */
    int print(org.nmws.client.nmwg.Message response) {
        String xmlText = NmwsClient.toXml(response);
        List<Answers.Result> results = Answers.read(xmlText);
        switch (format()) {
            case XML -> out().println(xmlText);
            case JSON -> out().println(Answers.json(response.getType(), results));
            case TABLE -> {
                if (results.stream().anyMatch(r -> !r.isError())) {
                    Answers.printTables(results, out());
                }
            }
        }
        out().flush();
        List<String> errors = Answers.errors(results);
        errors.forEach(this::serviceError);
        boolean error = !errors.isEmpty() || NmwsClient.eventTypes(response).stream().anyMatch(t -> t.startsWith("error."));
        return error ? 1 : 0;
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
            subcommands = {Schedule.ListSchedules.class, Schedule.Add.class, Schedule.Remove.class, Schedule.Runs.class},
            footer = {"", "Examples:",
                    "  nmws schedule add rtt-b -c path.delay.roundTrip --dst 10.0.0.2 --period PT1M -p count=10",
                    "  nmws schedule add owd-b -c path.delay.oneWay --dst 10.0.0.2 --continuous",
                    "  nmws schedule list", "  nmws schedule runs rtt-b --json", "  nmws schedule remove rtt-b"})
    static final class Schedule implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        /** The shortest period the CLI sends: a shorter one is almost always a slip of the unit (PT1S for PT1M). */
        static final Duration MIN_PERIOD = Duration.ofSeconds(10);

        /** "nmws schedule" alone: its usage, as a usage error. */
        @Override
        public Integer call() {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing subcommand: list, add, remove or runs");
        }

        String base() {
            return parent.url.replaceAll("/+$", "") + "/api/schedules";
        }

        URI one(String name) {
            return URI.create(base() + "/" + URLEncoder.encode(name, StandardCharsets.UTF_8));
        }

        /** Sends the request; prints a non-2xx answer as an error (404: no schedule NAME); else hands the body on. */
        int send(HttpRequest.Builder b, String name, IoConsumer<String> ok) throws InterruptedException, IOException {
            HttpResponse<String> r = parent.send(b, Duration.ofSeconds(30), base());
            if (r == null) {
                return 2;
            }
            if (r.statusCode() == 404 && name != null) {
                return parent.serviceError("no schedule " + name);
            }
            if (r.statusCode() / 100 != 2) {
                return parent.serviceError(r);
            }
            ok.accept(r.body());
            return 0;
        }

        /** A step that may fail reading the answer. */
        interface IoConsumer<T> {
            void accept(T t) throws IOException;
        }

        @Command(name = "list", description = "The schedules, one a line.")
        static final class ListSchedules implements Callable<Integer> {
            @CommandLine.ParentCommand
            Schedule schedule;

            @Override
            public Integer call() throws InterruptedException, IOException {
                NmwsCli cli = schedule.parent;
                return schedule.send(HttpRequest.newBuilder(URI.create(schedule.base())).GET(), null, body -> {
                    if (cli.format() == Format.JSON) {
                        cli.out().println(body);
                    } else {
                        JsonTables.schedules(Answers.JSON.readTree(body), cli.out());
                    }
                });
            }
        }

        @Command(name = "add", description = "Adds the schedule NAME, or replaces the one of that name.",
                footer = {"", "Examples:",
                        "  nmws schedule add rtt-b -c path.delay.roundTrip --dst 10.0.0.2 --period PT1M -p count=10",
                        "  nmws schedule add owd-b -c path.delay.oneWay --dst 10.0.0.2 --continuous"})
        static final class Add implements Callable<Integer> {
            @CommandLine.ParentCommand
            Schedule schedule;
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;
            @Parameters(index = "0", paramLabel = "NAME", description = "the schedule's name") String name;
            @Option(names = {"-c", "--characteristic"}, required = true,
                    description = "GFD.023 name (path.delay.roundTrip, ...) or NMWG eventType URI") String characteristic;
            @Option(names = "--dst", required = true, description = "destination host running nmprobe-responder") String dst;
            @Option(names = "--period", description = "ISO 8601 (PT1M) or seconds, at least 10 s") String period;
            @Option(names = "--slip", description = "random delay of each run, up to this") String slip;
            @Option(names = "--class", description = "exclusive, normal or background") String testClass;
            @Option(names = "--start", description = "first run at or after this time (ISO 8601; default: now)") Instant start;
            @Option(names = "--end", description = "no runs after this time (ISO 8601; default: none)") Instant end;
            @Option(names = "--continuous", description = "a one-way stream kept a minute at a time") boolean continuous;
            @Option(names = {"-p", "--parameter"}, description = "NMWG parameter name=value, repeatable")
            Map<String, String> parameters = new LinkedHashMap<>();
            @Option(names = "--archive", paramLabel = "SPEC", description = "an archive each result is also sent to: pScheduler's"
                    + " archive spec as JSON ({\"archiver\":\"opensearch\",\"data\":{\"_url\":\"https://...\"}}), repeatable")
            java.util.List<String> archives = new java.util.ArrayList<>();

            @Override
            public Integer call() throws InterruptedException, IOException {
                if (period != null) {
                    Duration p = period(period);
                    if (p.compareTo(MIN_PERIOD) < 0) {
                        throw new CommandLine.ParameterException(spec.commandLine(), "--period " + period + " is "
                                + p.toMillis() / 1000.0 + " s: the CLI schedules tests at most every " + MIN_PERIOD.toSeconds()
                                + " s (did you mean PT" + period.replaceAll("(?i)^PT|S$", "") + "M?)");
                    }
                }
                NmwsCli cli = schedule.parent;
                cli.format();
                HttpRequest.Builder b = HttpRequest.newBuilder(schedule.one(name)).header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(json(Instant.now())));
                return schedule.send(b, null, body -> {
                    if (cli.format() == Format.JSON) {
                        cli.out().println(body);
                    } else {
                        JsonTables.schedules(Answers.JSON.createArrayNode().add(Answers.JSON.readTree(body)), cli.out());
                    }
                });
            }

            /** ISO 8601 (PT1M) or a number of seconds; a usage error otherwise. */
            Duration period(String text) {
                try {
                    return text.matches("[0-9]+(\\.[0-9]+)?")
                            ? Duration.ofMillis(Math.round(Double.parseDouble(text) * 1000)) : Duration.parse(text);
                } catch (java.time.format.DateTimeParseException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--period " + text
                            + " is neither ISO 8601 (PT1M) nor seconds");
                }
            }

            /** The schedule as the service takes it; the start is now when none is given, as the help says. */
            String json(Instant now) throws IOException {
                com.fasterxml.jackson.databind.node.ObjectNode j = Answers.JSON.createObjectNode();
                Map<String, String> given = new LinkedHashMap<>();
                given.put("characteristic", characteristic);
                given.put("dst", dst);
                given.put("period", period);
                given.put("slip", slip);
                given.put("testClass", testClass);
                given.put("start", (start == null ? now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS) : start).toString());
                given.put("end", end == null ? null : end.toString());
                given.forEach((k, v) -> {
                    if (v != null) { // absent, not null: the service's defaults apply
                        j.put(k, v);
                    }
                });
                if (continuous) {
                    j.put("continuous", true);
                }
                j.putPOJO("parameters", parameters);
                if (!archives.isEmpty()) {
                    com.fasterxml.jackson.databind.node.ArrayNode a = j.putArray("archives");
                    for (String text : archives) {
                        try {
                            a.add(Answers.JSON.readTree(text));
                        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                            throw new CommandLine.ParameterException(spec.commandLine(), "--archive " + text + " is not JSON: "
                                    + e.getOriginalMessage());
                        }
                    }
                }
                return Answers.JSON.writeValueAsString(j);
            }
        }

        @Command(name = "remove", description = "Removes the schedule NAME (its stored runs and results stay).")
        static final class Remove implements Callable<Integer> {
            @CommandLine.ParentCommand
            Schedule schedule;
            @Parameters(index = "0", paramLabel = "NAME", description = "the schedule's name") String name;

            @Override
            public Integer call() throws InterruptedException, IOException {
                return schedule.send(HttpRequest.newBuilder(schedule.one(name)).DELETE(), name,
                        body -> schedule.parent.out().println("removed"));
            }
        }

        @Command(name = "runs", description = "The runs of the schedule NAME: when planned, started and ended, how each went.")
        static final class Runs implements Callable<Integer> {
            @CommandLine.ParentCommand
            Schedule schedule;
            @Parameters(index = "0", paramLabel = "NAME", description = "the schedule's name") String name;

            @Override
            public Integer call() throws InterruptedException, IOException {
                NmwsCli cli = schedule.parent;
                return schedule.send(HttpRequest.newBuilder(URI.create(schedule.one(name) + "/runs")).GET(), name, body -> {
                    if (cli.format() == Format.JSON) {
                        cli.out().println(body);
                    } else {
                        JsonTables.runs(Answers.JSON.readTree(body), cli.out());
                    }
                });
            }
        }
    }

    @Command(name = "psconfig", description = "pSConfig (GET /api/psconfig): the template this point runs its share of,"
            + " or its mesh file as a template.",
            footer = {"", "Examples:", "  nmws psconfig                             # the template's state: schedules, what is not run",
                    "  nmws psconfig from-mesh > mesh.psconfig.json   # then nmws.psconfig.template=mesh.psconfig.json"})
    static final class PsConfig implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;

        @Parameters(index = "0", arity = "0..1", paramLabel = "from-mesh",
                description = "print this point's mesh file (nmws.mesh.file) as a pSConfig template; groups it cannot"
                        + " express are named on standard error")
        String what;

        @Override
        public Integer call() throws InterruptedException, IOException {
            if (what != null && !what.equals("from-mesh")) {
                throw new CommandLine.ParameterException(parent.spec.commandLine(), "psconfig takes nothing or from-mesh, not '"
                        + what + "'");
            }
            String base = parent.url.replaceAll("/+$", "") + "/api/psconfig" + (what == null ? "" : "/from-mesh");
            HttpResponse<String> r = parent.send(HttpRequest.newBuilder(URI.create(base)).GET(), Duration.ofSeconds(30), base);
            if (r == null) {
                return 2;
            }
            if (r.statusCode() / 100 != 2) {
                return parent.serviceError(r);
            }
            com.fasterxml.jackson.databind.JsonNode body = Answers.JSON.readTree(r.body());
            parent.out().println(Answers.JSON.writeValueAsString(body));
            for (com.fasterxml.jackson.databind.JsonNode left : body.path("_meta").path("nmws-not-converted")) {
                parent.spec.commandLine().getErr().println("not converted: " + left.asText());
            }
            return 0;
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
            if (r.statusCode() != 200) {
                return parent.serviceError(r);
            }
            if (parent.format() != Format.JSON) {
                JsonTables.costs(Answers.JSON.readTree(r.body()), parent.out());
            } else {
                parent.out().println(r.body());
            }
            return 0;
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
            if (r.statusCode() != 200) {
                return parent.serviceError(r);
            }
            if (parent.format() == Format.JSON) {
                parent.out().println(r.body());
                return 0;
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
