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
import java.util.Map;
import java.util.concurrent.Callable;
import org.nmws.client.NmwsClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The nmws command-line client: echo, run tests, query stored results, list and cancel running tests. */
@Command(name = "nmws", mixinStandardHelpOptions = true, version = "nmws client 0.1.0",
        description = "Talks to an nmws measurement service over SOAP and prints the NMWG response.",
        subcommands = {NmwsCli.Echo.class, NmwsCli.Rtt.class, NmwsCli.Measure.class, NmwsCli.Query.class,
                NmwsCli.Tests.class, NmwsCli.HashPassword.class})
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

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The credential headers to send, if any. */
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

    public static void main(String[] args) {
        System.exit(new CommandLine(new NmwsCli()).execute(args));
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

    @Command(name = "rtt", description = "MeasurementRequest: round-trip delay, loss and jitter to DST now.")
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
        public Integer call() {
            Map<String, String> p = new LinkedHashMap<>();
            if (count != null) p.put("count", count.toString());
            if (size != null) p.put("packetSize", size.toString());
            if (interval != null) p.put("interval", interval);
            if (port != null) p.put("port", port.toString());
            if (raw) p.put("raw", "true");
            return parent.print(parent.client().roundTrip(dst, p));
        }
    }

    @Command(name = "measure", description = "MeasurementRequest for any characteristic to DST now, e.g. "
            + "measure 10.0.0.2 -c path.delay.oneWay -p count=1000 -p packetSize=200")
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
        public Integer call() {
            return parent.print(parent.client().measure(dst, characteristic, parameters));
        }
    }

    @Command(name = "query", description = "SetupDataRequest: stored round-trip results to DST.")
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

    @Command(name = "tests", description = "Running tests with their progress (GET /api/tests), or cancel one.")
    static final class Tests implements Callable<Integer> {
        @CommandLine.ParentCommand
        NmwsCli parent;
        @Option(names = "--cancel", paramLabel = "ID", description = "cancel the running test with this id") String cancel;

        @Override
        public Integer call() throws InterruptedException {
            URI base = URI.create(parent.url.replaceAll("/+$", "") + "/api/tests");
            HttpRequest.Builder b = cancel == null
                    ? HttpRequest.newBuilder(base).timeout(Duration.ofSeconds(30)).GET()
                    : HttpRequest.newBuilder(base.resolve("tests/" + URLEncoder.encode(cancel, StandardCharsets.UTF_8)))
                            .timeout(Duration.ofSeconds(30)).DELETE();
            parent.credentials().forEach(b::header);
            HttpRequest request = b.build();
            HttpResponse<String> r;
            try {
                r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build().send(request,
                        HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                parent.spec.commandLine().getErr().println("cannot reach " + base + ": " + e.getMessage());
                return 2;
            }
            if (cancel == null) {
                parent.out().println(r.body());
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

    /** Prints the response; the exit status is 2 when the service answered with an error code. */
    int print(org.nmws.client.nmwg.Message response) {
        out().println(NmwsClient.toXml(response));
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
}
