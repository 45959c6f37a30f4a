package org.nmws.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * nmws query (or results): stored results of every kind over a time range, a row per result,
 * a table per kind. The kinds, their headline figures and units come from GET /api/kinds, the
 * paths from GET /api/paths, and the results from GET /api/observations, paged with before=
 * while the service says an answer was cut. --xml keeps the NMWG SetupDataRequest of round
 * trips the command sent before.
 */
@Command(name = "query", aliases = "results", description = "Stored results of every kind over a time range: a table "
        + "per kind, a row per result with its time and headline figures.",
        footer = {"", "Examples:", "  nmws query                              # everything of the last 24 hours",
                "  nmws query 10.0.0.2 --from PT1H          # the last hour to 10.0.0.2",
                "  nmws query 10.0.0.2 --type rtt --type owamp --from 2026-11-21T00:00:00Z --to 2026-11-22T00:00:00Z",
                "  nmws query 10.0.0.2 --json               # the service's results, every figure",
                "  nmws --xml query 10.0.0.2 --raw          # round trips as an NMWG SetupDataResponse",
                "",
                "TYPE is a verb (rtt, latency, throughput, trace, owamp, twamp, stamp, capacity,",
                "scan, available, utilization) or a stored test kind (ROUND_TRIP, UDP_STREAM, ...)."})
final class Query implements Callable<Integer> {
    /** The stored test kinds a verb's results are kept as. */
    static final Map<String, List<String>> VERB_KINDS = Map.ofEntries(Map.entry("rtt", List.of("ROUND_TRIP")),
            Map.entry("latency", List.of("UDP_STREAM")), Map.entry("throughput", List.of("TCP_STREAM", "UDP_STREAM")),
            Map.entry("trace", List.of("HOP_LIST")), Map.entry("owamp", List.of("OWAMP")), Map.entry("twamp", List.of("TWAMP")),
            Map.entry("stamp", List.of("STAMP")), Map.entry("capacity", List.of("CAPACITY", "HOP_CAPACITY")),
            Map.entry("scan", List.of("LATENCY_SCAN")), Map.entry("available", List.of("AVAILABLE")),
            Map.entry("utilization", List.of("UTILIZATION")));
    /** A kind without headline figures shows this many of its first declared ones. */
    private static final int PLAIN_FIGURES = 3;

    @CommandLine.ParentCommand
    NmwsCli parent;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Parameters(index = "0", arity = "0..1", paramLabel = "DST", description = "destination as it was measured (default: every one)")
    String dst;
    @Option(names = "--src", description = "only results measured from this source") String src;
    @Option(names = {"-T", "--type"}, paramLabel = "TYPE", description = "only this kind of test, repeatable (default: every kind)")
    List<String> types = new ArrayList<>();
    @Option(names = "--from", paramLabel = "TIME", defaultValue = "PT24H",
            description = "from this time: ISO 8601 (2026-11-21T00:00:00Z) or that long ago (PT1H) (default: ${DEFAULT-VALUE})")
    String from;
    @Option(names = "--to", paramLabel = "TIME", description = "up to this time, as --from (default: now)") String to;
    @Option(names = "--limit", defaultValue = "1000", description = "at most this many results per kind, the newest "
            + "(default: ${DEFAULT-VALUE})") int limit;
    @Option(names = "--page", defaultValue = "1000", description = "results asked for in one request (1..1000; "
            + "default: ${DEFAULT-VALUE}): the service cuts a longer answer and the rest is asked for page by page") int page;
    @Option(names = "--raw", description = "with --xml: a datum per frame") boolean raw;

    @Override
    public Integer call() throws InterruptedException, IOException {
        Instant now = Instant.now();
        Instant f = time("--from", from, now);
        Instant t = to == null ? now : time("--to", to, now);
        if (f.isAfter(t)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--from " + f + " is after --to " + t);
        }
        if (page < 1 || page > 1000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--page is " + page + ": 1..1000");
        }
        if (limit < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit is " + limit + ": at least 1");
        }
        if (parent.format() == NmwsCli.Format.XML) {
            if (dst == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--xml (an NMWG SetupDataRequest) needs DST");
            }
            return parent.print(parent.client().storedRoundTrips(dst, f, t, raw));
        }
        if (raw) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--raw goes with --xml");
        }
        Set<String> wanted = kinds();
        JsonNode kinds = get("/api/kinds");
        JsonNode paths = kinds == null ? null : get("/api/paths?limit=1000");
        if (paths == null) {
            return exit;
        }
        // the (kind, destination) pairs stored: /api/observations answers one at a time
        Map<String, Set<String>> dstsByKind = new LinkedHashMap<>();
        for (JsonNode p : paths) {
            String test = p.path("test").asText();
            if ((wanted.isEmpty() || wanted.contains(test)) && (dst == null || dst.equals(p.path("dst").asText()))
                    && (src == null || src.equals(p.path("src").asText()))
                    && !Instant.parse(p.path("last").asText()).isBefore(f) && !Instant.parse(p.path("first").asText()).isAfter(t)) {
                dstsByKind.computeIfAbsent(test, k -> new LinkedHashSet<>()).add(p.path("dst").asText());
            }
        }
        ObjectNode json = Answers.JSON.createObjectNode();
        json.put("from", f.toString());
        json.put("to", t.toString());
        ArrayNode all = json.putArray("results");
        boolean first = true;
        for (JsonNode kind : kinds) {
            String test = kind.path("test").asText();
            if (!dstsByKind.containsKey(test)) {
                continue;
            }
            List<JsonNode> rows = new ArrayList<>();
            boolean more = false;
            for (String d : dstsByKind.get(test)) {
                Optional<Boolean> cut = results(test, d, f, t, rows);
                if (cut.isEmpty()) {
                    return exit;
                }
                more |= cut.get();
            }
            rows.sort(Comparator.comparing((JsonNode r) -> Instant.parse(r.path("start").asText())));
            if (parent.format() == NmwsCli.Format.JSON) {
                rows.forEach(all::add);
                continue;
            }
            if (!first) {
                parent.out().println();
            }
            first = false;
            table(kind, rows, more, parent.out());
        }
        if (parent.format() == NmwsCli.Format.JSON) {
            parent.out().println(Answers.JSON.writeValueAsString(json));
        } else if (first) {
            parent.out().println("no results" + (dst == null ? "" : " to " + dst) + " from " + Values.time(f) + " to " + Values.time(t));
        }
        parent.out().flush();
        return 0;
    }

    /** The exit status when a request failed (the reason is on standard error already). */
    private int exit;

    /**
     * Adds the results of one kind to one destination in [f, t] to rows, newest first page by
     * page while the service cuts its answers, up to --limit of them; whether some were left
     * out by the limit, or empty when a request failed.
     */
    private Optional<Boolean> results(String test, String d, Instant f, Instant t, List<JsonNode> rows)
            throws InterruptedException, IOException {
        String before = null;
        int taken = 0;
        while (true) {
            StringBuilder q = new StringBuilder("/api/observations?test=").append(enc(test)).append("&dst=").append(enc(d))
                    .append("&from=").append(enc(f.toString())).append("&to=").append(enc(t.toString()))
                    .append("&limit=").append(Math.min(page, limit - taken));
            if (src != null) {
                q.append("&src=").append(enc(src));
            }
            if (before != null) {
                q.append("&before=").append(enc(before));
            }
            JsonNode page = get(q.toString());
            if (page == null) {
                return Optional.empty();
            }
            for (JsonNode r : page.path("results")) {
                rows.add(r);
                taken++;
            }
            boolean cut = page.path("cut").asBoolean(false);
            if (!cut) {
                return Optional.of(false);
            }
            if (taken >= limit) {
                return Optional.of(true);
            }
            before = page.path("before").asText();
        }
    }

    /** One kind's rows: start time, source and destination, its headline figures, and whether the clocks vouch for one-way figures. */
    static void table(JsonNode kind, List<JsonNode> rows, boolean more, java.io.PrintWriter out) {
        String test = kind.path("test").asText();
        List<JsonNode> figures = new ArrayList<>();
        Map<String, String> units = new LinkedHashMap<>();
        for (JsonNode fig : kind.path("figures")) {
            if (fig.has("name")) {
                units.put(fig.get("name").asText(), fig.path("unit").asText(""));
                if (fig.has("group")) {
                    figures.add(fig);
                }
            }
        }
        if (figures.isEmpty()) {
            for (JsonNode fig : kind.path("figures")) {
                if (fig.has("name") && figures.size() < PLAIN_FIGURES) {
                    figures.add(fig);
                }
            }
        }
        boolean oneWay = units.containsKey("oneWayUncertaintyMs");
        List<String> header = new ArrayList<>(List.of("START", "SRC", "DST"));
        for (JsonNode fig : figures) {
            String unit = fig.path("unit").asText("");
            boolean scaled = unit.equals("Mbit/s") || unit.equals("bytes");
            String name = fig.get("name").asText();
            // the unit in brackets unless the name says it already (medianDelayMs, lossPercent) or each cell does
            boolean named = unit.equals("ms") && name.endsWith("Ms") || unit.equals("%") && name.endsWith("Percent");
            header.add(name + (unit.isEmpty() || scaled || named ? "" : "(" + unit + ")"));
        }
        if (oneWay) {
            header.add("CLOCKS");
        }
        header.add("ID");
        Table table = new Table(header);
        int unsynchronised = 0;
        for (JsonNode r : rows) {
            JsonNode s = r.path("summary");
            List<String> cells = new ArrayList<>(List.of(Values.time(Instant.parse(r.path("start").asText())),
                    r.path("srcAddress").isNull() || r.path("srcAddress").isMissingNode()
                            ? r.path("src").asText("-") : r.path("srcAddress").asText(), r.path("dst").asText()));
            for (JsonNode fig : figures) {
                JsonNode v = s.get(fig.get("name").asText());
                if (v == null || v.isNull()) {
                    cells.add("-");
                    continue;
                }
                Values.Shown shown = Values.figure(v.asText(), fig.path("unit").asText(""));
                boolean scaled = fig.path("unit").asText("").equals("Mbit/s") || fig.path("unit").asText("").equals("bytes");
                cells.add(scaled ? shown.value() + " " + shown.unit() : shown.value());
            }
            if (oneWay) {
                Optional<String> clocks = clocks(s);
                unsynchronised += clocks.isPresent() ? 1 : 0;
                cells.add(clocks.orElse("ok"));
            }
            cells.add(r.path("id").asText());
            table.row(cells);
        }
        out.println(test + ": " + rows.size() + (rows.size() == 1 ? " result" : " results")
                + (more ? " (the newest; more with --limit or a shorter range)" : ""));
        if (unsynchronised > 0) {
            out.println("warning: " + unsynchronised + " of these results' one-way figures rest on clocks that are not "
                    + "synchronised (CLOCKS): read their one-way delays as bounded only by the error shown");
        }
        table.print(out);
    }

    /**
     * Why a stored result's one-way figures cannot be trusted, "NOT synced ±X ms", or empty when
     * the clocks vouch for them: the far end said its clock was not synchronised, or the bound on
     * one-way delays (both ends' stated errors) exceeds the delay itself.
     */
    static Optional<String> clocks(JsonNode s) {
        Optional<BigDecimal> bound = decimal(s, "oneWayUncertaintyMs");
        boolean farEnd = List.of("receiverSynchronised", "reflectorSynchronised").stream()
                .anyMatch(n -> decimal(s, n).map(v -> v.signum() == 0).orElse(false));
        Optional<BigDecimal> delay = java.util.stream.Stream.of("medianDelayMs", "medianForwardMs")
                .map(n -> decimal(s, n)).flatMap(Optional::stream).findFirst();
        boolean exceeds = bound.isPresent() && delay.isPresent() && bound.get().compareTo(delay.get().abs()) > 0;
        if (!farEnd && !exceeds) {
            return Optional.empty();
        }
        return Optional.of("NOT synced" + bound.map(b -> " \u00b1" + Values.plain(b) + " ms").orElse(""));
    }

    private static Optional<BigDecimal> decimal(JsonNode s, String name) {
        JsonNode v = s.get(name);
        return v == null || !v.isNumber() ? Optional.empty() : Optional.of(v.decimalValue());
    }

    /** The stored kinds --type names (verbs or kinds), or none for every kind. */
    private Set<String> kinds() {
        Set<String> out = new LinkedHashSet<>();
        for (String type : types) {
            String t = type.trim();
            List<String> verb = VERB_KINDS.get(t.toLowerCase(Locale.ROOT));
            if (verb != null) {
                out.addAll(verb);
            } else if (t.matches("[A-Za-z_]+")) {
                out.add(t.toUpperCase(Locale.ROOT)); // a stored kind: one the service does not know matches nothing
            } else {
                throw new CommandLine.ParameterException(spec.commandLine(), "--type '" + type + "' is neither a verb ("
                        + String.join(", ", new java.util.TreeSet<>(VERB_KINDS.keySet())) + ") nor a stored kind (ROUND_TRIP, ...)");
            }
        }
        return out;
    }

    /** An ISO 8601 instant, or an ISO 8601 duration meaning that long before now. */
    Instant time(String option, String text, Instant now) {
        try {
            return Instant.parse(text.trim());
        } catch (DateTimeParseException notAnInstant) {
            try {
                return now.minus(Duration.parse(text.trim()).abs());
            } catch (DateTimeParseException notADuration) {
                throw new CommandLine.ParameterException(spec.commandLine(), option + " '" + text + "' is neither an ISO 8601 "
                        + "time (2026-11-21T00:00:00Z) nor a duration before now (PT1H, P7D)");
            }
        }
    }

    /** GET path's JSON; null (the reason on standard error, exit set) when it fails. */
    private JsonNode get(String path) throws InterruptedException, IOException {
        String base = parent.url.replaceAll("/+$", "");
        HttpResponse<String> r = parent.send(HttpRequest.newBuilder(URI.create(base + path)).GET(), Duration.ofSeconds(60), base);
        if (r == null) {
            exit = 2;
            return null;
        }
        if (r.statusCode() != 200) {
            exit = parent.serviceError(r);
            return null;
        }
        return Answers.JSON.readTree(r.body());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
