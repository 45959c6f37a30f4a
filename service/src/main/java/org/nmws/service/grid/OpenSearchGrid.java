package org.nmws.service.grid;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.nmws.service.archive.OpenSearchResults;

/**
 * The mesh's results as an OpenSearch cluster holds them: the {@code pscheduler_*} data streams
 * that nmws's opensearch archiver, and every perfSONAR host's Logstash, write (issue 24: one grid
 * for the whole mesh from any point, from a shared archive). Each (source, destination, test
 * type) with a result in the window is one definition of a cell, its latest document read with
 * the fields perfSONAR's Grafana dashboards read: loss from {@code result.packets.loss}, round
 * trips from {@code result.rtt.mean} (perfSONAR's rtt result has no median), one-way delay from
 * {@code result.latency.median}, throughput from {@code result.throughput}.
 *
 * <p>A document that says how often its task repeats ({@code schedule.repeat}, seconds after
 * Logstash) is stale after that many periods, as a schedule's cell is; one that does not, after
 * {@code staleAfter}. A latest result that did not succeed makes its definition failing.
 *
 * <p>One composite aggregation, paged, with a top hit per bucket: bounded by {@code maxCells},
 * whatever the cluster holds.
 */
public final class OpenSearchGrid {
    /** What the cluster answered: each definition with its row's and column's names, or why there is none. */
    public record Answer(List<Cell> cells, String error, long millis) {
    }

    /**
     * One definition of a cell: the source and destination as the document names them, and the
     * nmws point that measured it when the document says (its reference), else null.
     */
    public record Cell(String src, String dst, String point, Map<String, Object> definition) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PAGE = 500;
    private static final int MAX_PAGE_BYTES = 16 << 20;

    private final URI base;
    private final String authorization;
    private final Duration timeout;
    private final Duration window;
    private final Duration staleAfter;
    private final double staleAfterPeriods;
    private final int maxCells;
    private final HttpClient http;

    /**
     * @param url the cluster (https://user:password@host:9200 as pScheduler's archives name it)
     * @param window how far back results are read
     * @param staleAfter when a result whose document does not say its period is stale
     */
    public OpenSearchGrid(String url, Duration timeout, Duration window, Duration staleAfter, double staleAfterPeriods,
                          int maxCells) {
        org.nmws.service.archive.ClusterUrl cluster = org.nmws.service.archive.ClusterUrl.parse(url, null, null,
                "nmws.grid.opensearch-url");
        this.base = cluster.base();
        this.authorization = cluster.authorization();
        this.timeout = timeout;
        this.window = window;
        this.staleAfter = staleAfter;
        this.staleAfterPeriods = staleAfterPeriods;
        this.maxCells = maxCells;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    /**
     * The latest result of every source, destination and test type in the window, all pages
     * within the timeout (a cluster that trickles its answer is left when it runs out); an error
     * in words when the cluster fails or answers in part.
     */
    public Answer read(Instant now) {
        long t0 = System.nanoTime();
        List<Cell> cells = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicReference<InputStream> open = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.CompletableFuture<String> reading = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> readAll(now, cells, open), READER);
        String error;
        try {
            error = reading.get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            reading.cancel(true);
            InputStream trickling = open.getAndSet(null);
            if (trickling != null) {
                try {
                    trickling.close(); // ends a read still waiting for the rest of a page
                } catch (IOException ignored) {
                    // closed already
                }
            }
            error = "OpenSearch at " + base + " did not answer within " + timeout.toMillis() + " ms";
        } catch (java.util.concurrent.ExecutionException e) {
            error = "OpenSearch at " + base + ": " + e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error = "interrupted";
        }
        synchronized (cells) {
            return new Answer(List.copyOf(cells), error, millis(t0));
        }
    }

    /** Reads on daemon threads, so a reading left at its timeout never holds the service up. */
    private static final java.util.concurrent.ExecutorService READER = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "grid-opensearch");
        t.setDaemon(true);
        return t;
    });

    /** Every page into cells; null when all was read, else why not. */
    private String readAll(Instant now, List<Cell> cells, java.util.concurrent.atomic.AtomicReference<InputStream> open) {
        try {
            JsonNode after = null;
            do {
                if (cells.size() >= maxCells) {
                    return "more than " + maxCells + " definitions in the window: the rest not read";
                }
                JsonNode answer = page(now, after, open);
                if (answer.path("timed_out").asBoolean(false) || answer.path("_shards").path("failed").asInt(0) > 0) {
                    return "OpenSearch at " + base + " answered in part (timed out or a shard failed): "
                            + answer.path("_shards").toString();
                }
                JsonNode agg = answer.path("aggregations").path("cells");
                for (JsonNode bucket : agg.path("buckets")) {
                    if (Thread.currentThread().isInterrupted()) {
                        return "interrupted";
                    }
                    if (cells.size() >= maxCells) {
                        return "more than " + maxCells + " definitions in the window: the rest not read";
                    }
                    JsonNode hit = bucket.path("latest").path("hits").path("hits").path(0).path("_source");
                    JsonNode key = bucket.path("key");
                    String src = key.path("src").asText();
                    String dst = key.path("dst").isNull() ? "" : key.path("dst").asText();
                    JsonNode point = hit.path("reference").path("nmws").path("measurement-point");
                    cells.add(new Cell(src, dst, point.isTextual() ? point.asText() : null,
                            definition(key.path("type").asText(), src, dst, hit, now)));
                }
                after = agg.path("buckets").size() < PAGE ? null : agg.get("after_key");
            } while (after != null);
            return null;
        } catch (IOException e) {
            return "OpenSearch at " + base + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private JsonNode page(Instant now, JsonNode after, java.util.concurrent.atomic.AtomicReference<InputStream> open)
            throws IOException, InterruptedException {
        ObjectNode q = JSON.createObjectNode();
        q.put("size", 0);
        q.putObject("query").putObject("range").putObject("@timestamp").put("gte", now.minus(window).toString());
        ObjectNode composite = q.putObject("aggs").putObject("cells").putObject("composite");
        composite.put("size", PAGE);
        ArrayNode sources = composite.putArray("sources");
        // meta.source and meta.destination, which Logstash's pipeline always sets (the observer
        // when the test names no source), not test.spec.source, which a test from this host omits
        sources.addObject().putObject("src").putObject("terms").put("field", "meta.source.hostname.keyword");
        sources.addObject().putObject("dst").putObject("terms").put("field", "meta.destination.hostname.keyword")
                .put("missing_bucket", true);
        sources.addObject().putObject("type").putObject("terms").put("field", "test.type.keyword");
        if (after != null) {
            composite.set("after", after);
        }
        ObjectNode top = ((ObjectNode) q.get("aggs").get("cells")).putObject("aggs").putObject("latest").putObject("top_hits");
        top.put("size", 1);
        top.putArray("sort").addObject().putObject("@timestamp").put("order", "desc");
        ArrayNode fields = top.putObject("_source").putArray("includes");
        for (String f : new String[] {"@timestamp", "test.type", "result.succeeded", "result.error", "result.packets.loss",
            "result.rtt.mean", "result.latency.median", "result.throughput", "pscheduler.start_time", "pscheduler.end_time",
            "pscheduler.tool", "schedule.repeat", "reference"}) {
            fields.add(f);
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve("pscheduler_*/_search?ignore_unavailable=true&allow_no_indices=true"))
                .timeout(timeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(q.toString(), StandardCharsets.UTF_8));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = r.body()) {
            open.set(in);
            byte[] body = in.readNBytes(MAX_PAGE_BYTES + 1); // a page of 500 top hits of a few fields is far less
            open.set(null);
            if (body.length > MAX_PAGE_BYTES) {
                throw new IOException("a page of the answer is over " + (MAX_PAGE_BYTES >> 20) + " MiB");
            }
            if (r.statusCode() != 200) {
                throw new IOException("HTTP " + r.statusCode() + " " + new String(body, 0, Math.min(body.length, 300),
                        StandardCharsets.UTF_8));
            }
            return JSON.readTree(body);
        }
    }

    /** A definition of the grid's shape (as MeshGrid makes of a schedule) from a cell's latest document. */
    private Map<String, Object> definition(String type, String src, String dst, JsonNode doc, Instant now) {
        Map<String, Object> d = new LinkedHashMap<>();
        Instant start = OpenSearchResults.instant(doc.path("pscheduler").path("start_time").asText(doc.path("@timestamp").asText()));
        Instant end = OpenSearchResults.instant(doc.path("pscheduler").path("end_time").asText(null));
        Instant at = end != null ? end : start;
        JsonNode task = doc.path("reference").path("psconfig").path("task");
        d.put("name", "opensearch:" + type + ":" + src + ":" + dst);
        d.put("definition", task.isTextual() ? task.asText() : type);
        d.put("origin", "opensearch");
        JsonNode point = doc.path("reference").path("nmws").path("measurement-point");
        d.put("point", point.isTextual() ? point.asText() : src);
        d.put("dst", dst);
        d.put("characteristic", characteristic(type));
        d.put("parameters", new TreeMap<String, String>());
        double repeat = doc.path("schedule").path("repeat").asDouble(0);
        Duration period = repeat > 0 ? Duration.ofMillis((long) (repeat * 1000)) : null;
        d.put("period", period == null ? null : period.toString());
        d.put("periodSeconds", period == null ? null : period.toMillis() / 1000.0);
        d.put("enabled", true);
        d.put("via", "opensearch");
        DefinitionState state = state(doc.path("result"), at, period, now);
        d.put("state", state.state());
        d.put("reason", state.reason());
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("test", type);
        res.put("tool", doc.path("pscheduler").path("tool").asText(null));
        res.put("start", start == null ? null : start.toString());
        res.put("end", end == null ? null : end.toString());
        res.put("ageSeconds", at == null ? null : Math.max(0, Duration.between(at, now).toMillis()) / 1000.0);
        res.put("figures", figures(type, doc.path("result")));
        d.put("result", res);
        return d;
    }

    private DefinitionState state(JsonNode result, Instant at, Duration period, Instant now) {
        if (!result.path("succeeded").asBoolean(true)) {
            String why = result.path("error").asText("");
            return new DefinitionState(DefinitionState.FAILING, "its latest run failed" + (why.isBlank() ? "" : ": " + why));
        }
        if (at == null) {
            return new DefinitionState(DefinitionState.FAILING, "its latest document has no time");
        }
        Duration age = Duration.between(at, now);
        Duration limit = period == null ? staleAfter : Duration.ofMillis((long) (period.toMillis() * staleAfterPeriods));
        if (age.compareTo(limit) > 0) {
            return new DefinitionState(DefinitionState.STALE, "latest result is " + Ages.words(age) + " old, more than "
                    + (period == null ? Ages.words(staleAfter) + " (its document names no period)"
                    : Ages.words(limit) + " (" + (staleAfterPeriods == Math.rint(staleAfterPeriods) ? Long.toString((long) staleAfterPeriods)
                    : Double.toString(staleAfterPeriods)) + " periods)"));
        }
        return new DefinitionState(DefinitionState.OK, "latest result is " + Ages.words(age) + " old");
    }

    /** The headline figures, in the grid's groups and units, from perfSONAR's fields. */
    static Map<String, Double> figures(String type, JsonNode result) {
        Map<String, Double> f = new LinkedHashMap<>();
        switch (type) {
            case "rtt" -> {
                OpenSearchResults.put(f, "rttMs", result.path("rtt").path("mean"), 1000);
                OpenSearchResults.put(f, "lossPercent", result.path("packets").path("loss"), 100);
            }
            case "latency", "latencybg" -> {
                OpenSearchResults.put(f, "owdMs", result.path("latency").path("median"), 1);
                OpenSearchResults.put(f, "lossPercent", result.path("packets").path("loss"), 100);
            }
            case "throughput" -> OpenSearchResults.put(f, "throughputMbps", result.path("throughput"), 1e-6);
            default -> {
                // trace and the rest: no headline figure, the cell shows the state and age
            }
        }
        return f;
    }

    private static String characteristic(String type) {
        return switch (type) {
            case "rtt" -> "path.delay.roundTrip";
            case "latency", "latencybg" -> "path.delay.oneWay";
            case "throughput" -> "path.bandwidth.achievable";
            case "trace" -> "path.hoplist";
            default -> type;
        };
    }

    private static long millis(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Override
    public String toString() {
        return base.toString();
    }
}
