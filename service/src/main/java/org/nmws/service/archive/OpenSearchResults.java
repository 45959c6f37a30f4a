package org.nmws.service.archive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * A path's results as an OpenSearch cluster holds them, for the paths this point's archive
 * holds none of (issue 24, item 4: OpenSearch as the archive that grows). The documents are
 * the {@code pscheduler_<type>} ones that nmws's opensearch archiver and every perfSONAR host's
 * Logstash write; each becomes an observation of its test with the summary figures nmws's own
 * kind keeps, from perfSONAR's fields and units: round trips from {@code result.rtt} (seconds)
 * and {@code result.packets}; one-way latency from {@code result.latency} (ms) and
 * {@code result.packets}; throughput from {@code result.throughput} (bits/s) and
 * {@code result.retransmits}; a trace's hop count from {@code result.hop}. Such observations
 * have no id in this archive (0), no raw frames and no description of the hosts; the measuring
 * point is the document's {@code reference.nmws.measurement-point}, else its source host.
 *
 * <p>Bounded: one search of at most {@link #MAX_HITS} documents within the timeout, an answer
 * of at most 32 MiB; a cluster that fails, times out or answers in part is an error.
 */
public final class OpenSearchResults {
    /** The most documents one search reads (OpenSearch's own default result window). */
    public static final int MAX_HITS = 10_000;
    private static final int MAX_BYTES = 32 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final String authorization;
    private final Duration timeout;
    private final HttpClient http;

    public OpenSearchResults(String url, Duration timeout) {
        ClusterUrl cluster = ClusterUrl.parse(url, null, null, "nmws.archive.opensearch-url");
        this.base = cluster.base();
        this.authorization = cluster.authorization();
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    /** The pScheduler test types a kind's results are kept as; empty for a kind perfSONAR has none of. */
    static List<String> types(ProbeTest test) {
        return switch (test) {
            case ROUND_TRIP -> List.of("rtt");
            case UDP_STREAM -> List.of("latency", "latencybg");
            case TCP_STREAM -> List.of("throughput");
            case HOP_LIST -> List.of("trace");
            default -> List.of();
        };
    }

    /**
     * The newest {@code q.limit()} results the cluster holds of the query's path, oldest first.
     * A query naming parameters asks for one series of this point's own making: none here.
     *
     * @throws UncheckedIOException when the cluster cannot answer whole
     */
    public List<Observation> find(ObservationQuery q) {
        List<String> types = types(q.test());
        if (types.isEmpty() || q.parameters() != null) {
            return List.of();
        }
        // more than one search reads is refused, not cut without a word (the dialect says so)
        boolean more = q.limit() > MAX_HITS;
        ObjectNode body = JSON.createObjectNode();
        body.put("size", Math.min(q.limit(), MAX_HITS));
        body.put("track_total_hits", false);
        body.putArray("sort").addObject().putObject("@timestamp").put("order", "desc");
        ArrayNode filter = body.putObject("query").putObject("bool").putArray("filter");
        if (q.dst() != null) {
            either(filter, q.dst(), "test.spec.dest.keyword", "meta.destination.hostname.keyword",
                    literal(q.dst()) ? "meta.destination.ip" : null);
        }
        if (q.src() != null) {
            either(filter, q.src(), "test.spec.source.keyword", "meta.source.hostname.keyword",
                    literal(q.src()) ? "meta.source.ip" : null);
        }
        if (q.point() != null) {
            either(filter, q.point(), "reference.nmws.measurement-point.keyword", "meta.source.hostname.keyword");
        }
        ObjectNode range = JSON.createObjectNode();
        if (q.from() != null) {
            range.put("gte", q.from().toString());
        }
        if (q.to() != null && q.to().isBefore(org.nmws.service.observation.Times.MAX)) {
            range.put("lte", q.to().toString());
        }
        if (q.before() != null) {
            // results of this archive page by (start, id); these have no id: strictly older ones
            range.put("lt", JdbcArchive.instant(q.before().startNanos()).toString());
        }
        if (!range.isEmpty()) {
            filter.addObject().putObject("range").set("@timestamp", range);
        }
        StringBuilder indices = new StringBuilder();
        for (String t : types) {
            indices.append(indices.length() == 0 ? "" : ",").append("pscheduler_").append(t);
        }
        JsonNode answer = search(indices + "/_search?ignore_unavailable=true&allow_no_indices=true", body);
        if (answer.path("timed_out").asBoolean(false) || answer.path("_shards").path("failed").asInt(0) > 0) {
            throw new UncheckedIOException(new IOException("OpenSearch at " + base + " answered in part (timed out or a shard"
                    + " failed): " + answer.path("_shards")));
        }
        List<Observation> out = new ArrayList<>();
        for (JsonNode hit : answer.path("hits").path("hits")) {
            Observation o = observation(q.test(), hit.path("_source"));
            if (o != null) {
                out.add(o);
            }
        }
        if (more && answer.path("hits").path("hits").size() >= MAX_HITS) {
            throw new IllegalArgumentException("the cluster holds more than " + MAX_HITS + " results of the path in the"
                    + " window, more than one read of it takes: narrow the window");
        }
        Collections.reverse(out); // newest first from the cluster; oldest first as the archive answers
        return out;
    }

    /** A filter that one of the fields (null ones left out) equals the value. */
    private static void either(ArrayNode filter, String value, String... fields) {
        ArrayNode should = filter.addObject().putObject("bool").put("minimum_should_match", 1).putArray("should");
        for (String f : fields) {
            if (f != null) {
                should.addObject().putObject("term").put(f, value);
            }
        }
    }

    /**
     * Whether a value is an address literal: the template maps meta.*.ip as OpenSearch's ip type,
     * which refuses a host name in a term query (the whole search would fail).
     */
    private static boolean literal(String host) {
        return host.matches("[0-9.]+") && host.split("\\.").length == 4 || host.contains(":") && host.matches("[0-9A-Fa-f:.]+");
    }

    private JsonNode search(String path, JsonNode body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        try {
            HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                byte[] bytes = in.readNBytes(MAX_BYTES + 1);
                if (bytes.length > MAX_BYTES) {
                    throw new IOException("its answer is over " + (MAX_BYTES >> 20) + " MiB");
                }
                if (r.statusCode() != 200) {
                    throw new IOException("HTTP " + r.statusCode() + " " + new String(bytes, 0, Math.min(bytes.length, 300),
                            StandardCharsets.UTF_8));
                }
                return JSON.readTree(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException("OpenSearch at " + base + ": " + e.getMessage(), e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while asking OpenSearch at " + base));
        }
    }

    /** One document as an observation of nmws's kind, or null when it is not one this reader can read. */
    static Observation observation(ProbeTest test, JsonNode doc) {
        JsonNode spec = doc.path("test").path("spec");
        JsonNode meta = doc.path("meta");
        String srcHost = text(spec.path("source"), text(meta.path("source").path("hostname"), null));
        String dstHost = text(spec.path("dest"), text(meta.path("destination").path("hostname"), null));
        Instant start = instant(text(doc.path("pscheduler").path("start_time"), text(doc.path("@timestamp"), null)));
        if (dstHost == null || start == null) {
            return null;
        }
        Instant end = instant(text(doc.path("pscheduler").path("end_time"), null));
        String point = text(doc.path("reference").path("nmws").path("measurement-point"),
                text(meta.path("source").path("hostname"), srcHost));
        Map<String, String> parameters = new LinkedHashMap<>();
        spec.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("source") && !e.getKey().equals("dest") && e.getValue().isValueNode()) {
                parameters.put(e.getKey(), e.getValue().asText());
            }
        });
        return new Observation(0, point == null ? "opensearch" : point, test,
                new PathSubject(srcHost == null ? null : new Endpoint(srcHost, type(srcHost)), new Endpoint(dstHost, type(dstHost))),
                text(meta.path("source").path("ip"), null), text(meta.path("destination").path("ip"), null),
                text(doc.path("pscheduler").path("tool"), "pscheduler"), null, parameters, new Environment(null, null),
                start, end == null || end.isBefore(start) ? start : end, summary(test, doc.path("result")), List.of());
    }

    /** The summary figures nmws's kind keeps, from perfSONAR's fields (names and units as the kind's). */
    static Map<String, Double> summary(ProbeTest test, JsonNode r) {
        Map<String, Double> s = new LinkedHashMap<>();
        JsonNode packets = r.path("packets");
        switch (test) {
            case ROUND_TRIP -> {
                put(s, "minRtt", r.path("rtt").path("min"), 1000);
                put(s, "meanRtt", r.path("rtt").path("mean"), 1000);
                put(s, "maxRtt", r.path("rtt").path("max"), 1000);
                put(s, "lossPercent", packets.path("loss"), 100);
                put(s, "sent", packets.path("sent"), 1);
                put(s, "received", packets.path("received"), 1);
                put(s, "duplicates", packets.path("duplicated"), 1);
                put(s, "outOfOrder", packets.path("reordered"), 1);
            }
            case UDP_STREAM -> {
                JsonNode l = r.path("latency");
                put(s, "minDelayMs", l.path("min"), 1);
                put(s, "medianDelayMs", l.path("median"), 1);
                put(s, "meanDelayMs", l.path("mean"), 1);
                put(s, "maxDelayMs", l.path("max"), 1);
                put(s, "sent", packets.path("sent"), 1);
                put(s, "received", packets.path("received"), 1);
                put(s, "lost", packets.path("lost"), 1);
                put(s, "lossPercent", packets.path("loss"), 100);
                put(s, "duplicates", packets.path("duplicated"), 1);
                put(s, "outOfOrder", packets.path("reordered"), 1);
            }
            case TCP_STREAM -> {
                put(s, "throughputMbps", r.path("throughput"), 1e-6);
                put(s, "retransmits", r.path("retransmits"), 1);
            }
            case HOP_LIST -> put(s, "hopCount", r.path("hop").path("count"), 1);
            default -> {
                // no reader for other kinds: types() asks the cluster for none
            }
        }
        return s;
    }

    /** A perfSONAR figure into a map under nmws's name, scaled to nmws's unit; left out when not a finite number. */
    public static void put(Map<String, Double> s, String name, JsonNode v, double scale) {
        if (v.isNumber() && Double.isFinite(v.asDouble())) {
            s.put(name, v.asDouble() * scale);
        }
    }

    private static String text(JsonNode v, String otherwise) {
        return v.isTextual() && !v.asText().isBlank() ? v.asText() : otherwise;
    }

    private static String type(String host) {
        return host.contains(":") ? "ipv6" : host.matches("[0-9.]+") ? "ipv4" : "hostname";
    }

    /** A document's time (ISO 8601, with or without an offset), or null when it is none. */
    public static Instant instant(String iso) {
        if (iso == null) {
            return null;
        }
        try {
            return java.time.OffsetDateTime.parse(iso).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            try {
                return Instant.parse(iso);
            } catch (java.time.format.DateTimeParseException again) {
                return null;
            }
        }
    }

    @Override
    public String toString() {
        return base.toString();
    }
}
