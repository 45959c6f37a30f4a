package org.nmws.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.OpenSearchResults;
import org.nmws.service.grid.OpenSearchGrid;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.perfsonar.LogstashDocuments;

/**
 * Issue 24 item 3 from OpenSearch (bench/archive/opensearch.sh): DAYS of a POINTS-point full
 * mesh's one-minute latency results (perfSONAR's latencybg shape) as the documents nmws's
 * opensearch archiver writes, bulk-loaded into one real OpenSearch node, then nmws's own reads
 * of them: the grid (OpenSearchGrid, the last day), a path's day and a path's week
 * (OpenSearchResults, as a stored-results query about a path this point holds none of reads
 * them), and esmond's packet-loss-rate summary of a day in hourly buckets as an aggregation on
 * the cluster. p50 and p99 of 100 runs each. Not a test: minutes, and the machine's numbers.
 *
 * <p>Arguments: points days
 */
public final class OpenSearchQueryBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int RUNS = 100;

    private OpenSearchQueryBench() {
    }

    public static void main(String[] args) throws Exception {
        int points = Integer.parseInt(args[0]);
        int days = Integer.parseInt(args[1]);
        Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
        Instant from = now.minus(Duration.ofDays(days));
        try (OpenSearchEngine os = OpenSearchEngine.start()) {
            String url = os.url();
            try (InputStream in = OpenSearchQueryBench.class.getResourceAsStream("/archive/pscheduler-index-template.json")) {
                ObjectNode t = (ObjectNode) JSON.readTree(in);
                ((ObjectNode) t.path("template").path("settings")).put("number_of_replicas", 0);
                check(Engines.http("PUT", url + "/_index_template/pscheduler", t.toString(), "application/json"));
            }
            long t0 = System.nanoTime();
            long docs = load(url, points, from, now);
            check(Engines.http("POST", url + "/pscheduler_*/_refresh", null, null));
            double loadS = (System.nanoTime() - t0) / 1e9;
            long bytes = JSON.readTree(Engines.http("GET", url + "/pscheduler_*/_stats/store", null, null).body())
                    .path("_all").path("primaries").path("store").path("size_in_bytes").asLong();

            OpenSearchGrid grid = new OpenSearchGrid(url, Duration.ofSeconds(60), Duration.ofDays(1), Duration.ofHours(1), 3,
                    20_000);
            OpenSearchResults results = new OpenSearchResults(url, Duration.ofSeconds(60));
            Random r = new Random(7);
            List<String> rows = new ArrayList<>();
            rows.add(String.format(Locale.ROOT, "| %,d one-minute latency results of a %d-point mesh over %d days (%,d paths) |"
                    + " loaded by _bulk in %.0f s (%,.0f docs/s), %,.0f MB | | |", docs, points, days, points * (points - 1),
                    loadS, docs / loadS, bytes / 1e6));
            rows.add("| query | p50 ms | p99 ms | what it read |");
            rows.add("|---|---|---|---|");
            int[] cells = new int[1];
            double[] g = time(() -> {
                OpenSearchGrid.Answer a = grid.read(now.plusSeconds(30));
                if (a.error() != null) {
                    throw new IllegalStateException(a.error());
                }
                cells[0] = a.cells().size();
            });
            rows.add(row("the grid: the latest result of every path (one composite aggregation, paged)", g, cells[0] + " cells"));
            for (Duration span : List.of(Duration.ofDays(1), Duration.ofDays(7))) {
                if (span.toDays() > days) {
                    continue;
                }
                int[] n = new int[1];
                double[] p = time(() -> {
                    int a = r.nextInt(points);
                    int b = (a + 1 + r.nextInt(points - 1)) % points;
                    List<Observation> found = results.find(new ObservationQuery(ProbeTest.UDP_STREAM, host(b), host(a),
                            now.minus(span), now, false, OpenSearchResults.MAX_HITS));
                    n[0] = found.size();
                });
                rows.add(row("a path's " + (span.toDays() == 1 ? "day" : "week") + " (a stored-results query: newest first, at most "
                        + String.format(Locale.ROOT, "%,d", OpenSearchResults.MAX_HITS) + ")", p, String.format(Locale.ROOT,
                        "%,d results", n[0])));
            }
            String stream = LogstashDocuments.dataStream(latency(0, 1, now, r));
            int[] buckets = new int[1];
            double[] e = time(() -> {
                int a = r.nextInt(points);
                int b = (a + 1 + r.nextInt(points - 1)) % points;
                Instant day = now.minus(Duration.ofDays(r.nextInt(days)));
                String q = "{\"size\":0,\"query\":{\"bool\":{\"filter\":[{\"term\":{\"meta.source.ip\":\"" + host(a) + "\"}},"
                        + "{\"term\":{\"meta.destination.ip\":\"" + host(b) + "\"}},{\"range\":{\"@timestamp\":{\"gte\":\""
                        + day.minus(Duration.ofDays(1)) + "\",\"lt\":\"" + day + "\"}}}]}},\"aggs\":{\"h\":{\"date_histogram\":"
                        + "{\"field\":\"@timestamp\",\"fixed_interval\":\"1h\"},\"aggs\":{\"lost\":{\"sum\":{\"field\":"
                        + "\"result.packets.lost\"}},\"sent\":{\"sum\":{\"field\":\"result.packets.sent\"}}}}}}";
                JsonNode ans = JSON.readTree(check(Engines.http("POST", url + "/" + stream + "/_search", q,
                        "application/json")));
                buckets[0] = ans.path("aggregations").path("h").path("buckets").size();
            });
            rows.add(row("esmond's packet-loss-rate of a path's day, hourly (lost / sent summed per hour, on the cluster)", e,
                    buckets[0] + " buckets"));
            rows.forEach(System.out::println);
        }
    }

    private static String host(int point) {
        return "10.30.0." + (point + 1);
    }

    /** Every path's minute results from {@code from} to {@code to}, time-major, by _bulk in 5,000s; how many. */
    private static long load(String url, int points, Instant from, Instant to) throws Exception {
        Random r = new Random(11);
        StringBuilder bulk = new StringBuilder();
        int inBatch = 0;
        long n = 0;
        for (Instant t = from; t.isBefore(to); t = t.plusSeconds(60)) {
            for (int a = 0; a < points; a++) {
                for (int b = 0; b < points; b++) {
                    if (a == b) {
                        continue;
                    }
                    Observation o = latency(a, b, t, r);
                    ObjectNode doc = LogstashDocuments.document(o);
                    bulk.append("{\"create\":{\"_index\":\"").append(LogstashDocuments.dataStream(o)).append("\",\"_id\":\"")
                            .append(new UUID(t.getEpochSecond(), a * 1000L + b)).append("\"}}\n").append(doc).append('\n');
                    n++;
                    if (++inBatch == 5_000) {
                        flush(url, bulk);
                        inBatch = 0;
                    }
                }
            }
        }
        if (inBatch > 0) {
            flush(url, bulk);
        }
        return n;
    }

    private static void flush(String url, StringBuilder bulk) throws Exception {
        JsonNode ans = JSON.readTree(check(Engines.http("POST", url + "/_bulk", bulk.toString(), "application/x-ndjson")));
        if (ans.path("errors").asBoolean()) {
            throw new IllegalStateException("bulk errors: " + ans.path("items").path(0));
        }
        bulk.setLength(0);
    }

    /** A continuous one-way latency session's result of a minute, as nmws stores it. */
    private static Observation latency(int a, int b, Instant start, Random r) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("count", "580");
        params.put("interval", "0.1");
        params.put("timeout", "1");
        Map<String, Double> s = new LinkedHashMap<>();
        double median = 4 + r.nextDouble();
        s.put("minDelayMs", median - 0.3);
        s.put("medianDelayMs", median);
        s.put("meanDelayMs", median + 0.05);
        s.put("maxDelayMs", median + 2);
        double lost = r.nextInt(100) == 0 ? 1 + r.nextInt(5) : 0;
        s.put("sent", 580.0);
        s.put("received", 580 - lost);
        s.put("lost", lost);
        s.put("lossPercent", lost / 580 * 100);
        s.put("duplicates", 0.0);
        s.put("outOfOrder", 0.0);
        return new Observation(0, "point-" + a, ProbeTest.UDP_STREAM, new PathSubject(new Endpoint(host(a), "ipv4"),
                new Endpoint(host(b), "ipv4")), host(a), host(b), "nmprobe", "0.1.0", params, new Environment(null, null),
                start, start.plusSeconds(59), s, List.of());
    }

    private interface Run {
        void run() throws Exception;
    }

    /** p50 and p99 ms of RUNS runs, after 5 to warm up. */
    private static double[] time(Run run) throws Exception {
        for (int i = 0; i < 5; i++) {
            run.run();
        }
        double[] ms = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long t0 = System.nanoTime();
            run.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return new double[] {ms[RUNS / 2], ms[RUNS * 99 / 100]};
    }

    private static String row(String what, double[] p, String read) {
        return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %s |", what, p[0], p[1], read);
    }

    private static String check(java.net.http.HttpResponse<String> r) {
        if (r.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + r.statusCode() + " " + r.body().substring(0, Math.min(500, r.body().length())));
        }
        return r.body();
    }
}
