package org.nmws.service.perfsonar;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * esmond's event types as perfSONAR 5 (elmond) serves them for each pScheduler test type,
 * where each one's base value is in the Logstash document, and the summaries esmond offers
 * (summary-type as written in metadata, the window in seconds).
 */
final class EsmondEventTypes {
    /** Every event type a search may name (elmond's table, plus failures and the run href). */
    static final Set<String> KNOWN = Set.of("failures", "histogram-owdelay", "histogram-ttl", "histogram-ttl-reverse",
            "histogram-rtt", "packet-count-lost", "packet-count-lost-bidir", "packet-count-sent", "packet-duplicates",
            "packet-duplicates-bidir", "packet-loss-rate", "packet-loss-rate-bidir", "packet-reorders",
            "packet-reorders-bidir", "packet-retransmits", "packet-retransmits-subintervals", "packet-trace",
            "packet-trace-multi", "path-mtu", "streams-packet-retransmits", "streams-packet-retransmits-subintervals",
            "streams-throughput", "streams-throughput-subintervals", "throughput", "throughput-subintervals",
            "time-error-estimates", "pscheduler-run-href", "pscheduler-raw");

    /** The document field each event type's base value is read from (elmond's DATA_FIELD_MAP). */
    static final Map<String, String> FIELD = Map.ofEntries(
            Map.entry("failures", "result.error"),
            Map.entry("histogram-owdelay", "result.latency"),
            Map.entry("histogram-ttl", "result.ttl"),
            Map.entry("histogram-rtt", "result.rtt"),
            Map.entry("packet-count-lost", "result.packets.lost"),
            Map.entry("packet-count-lost-bidir", "result.packets.lost"),
            Map.entry("packet-count-sent", "result.packets.sent"),
            Map.entry("packet-duplicates", "result.packets.duplicated"),
            Map.entry("packet-duplicates-bidir", "result.packets.duplicated"),
            Map.entry("packet-loss-rate", "result.packets.loss"),
            Map.entry("packet-loss-rate-bidir", "result.packets.loss"),
            Map.entry("packet-reorders", "result.packets.reordered"),
            Map.entry("packet-reorders-bidir", "result.packets.reordered"),
            Map.entry("packet-retransmits", "result.retransmits"),
            Map.entry("throughput", "result.throughput"),
            Map.entry("time-error-estimates", "result.max_clock_error"),
            Map.entry("path-mtu", "result.mtu"),
            Map.entry("packet-trace", "result.json"),
            Map.entry("throughput-subintervals", "result.intervals.json"),
            Map.entry("packet-retransmits-subintervals", "result.intervals.json"),
            Map.entry("streams-throughput", "result.streams.json"),
            Map.entry("streams-packet-retransmits", "result.streams.json"),
            Map.entry("pscheduler-run-href", "pscheduler.run_href"));

    /** A summary esmond offers: type as metadata names it, window in seconds. */
    record Summary(String type, int window) {
        /** The summary type as the URL names it (plural). */
        String urlName() {
            return switch (type) {
                case "aggregation" -> "aggregations";
                case "average" -> "averages";
                default -> type;
            };
        }
    }

    private static final List<Summary> AGGREGATIONS = List.of(new Summary("aggregation", 300),
            new Summary("aggregation", 3600), new Summary("aggregation", 86400));
    private static final List<Summary> STATISTICS = List.of(new Summary("statistics", 0), new Summary("statistics", 300),
            new Summary("statistics", 3600), new Summary("statistics", 86400));
    static final Map<String, List<Summary>> SUMMARIES = Map.of(
            "throughput", List.of(new Summary("average", 86400)),
            "packet-loss-rate", AGGREGATIONS,
            "packet-count-sent", AGGREGATIONS,
            "packet-count-lost", AGGREGATIONS,
            "packet-count-lost-bidir", AGGREGATIONS,
            "packet-loss-rate-bidir", AGGREGATIONS,
            "histogram-owdelay", STATISTICS,
            "histogram-rtt", STATISTICS);

    private EsmondEventTypes() {
    }

    /** The event types of one test, in elmond's order, pscheduler-run-href last. */
    static List<String> of(String testType, JsonNode spec) {
        List<String> e = new ArrayList<>();
        switch (testType) {
            case "latency", "latencybg" -> e.addAll(List.of("failures", "packet-count-sent", "histogram-owdelay",
                    "histogram-ttl", "packet-duplicates", "packet-loss-rate", "packet-count-lost", "packet-reorders",
                    "time-error-estimates"));
            case "rtt" -> e.addAll(List.of("failures", "packet-count-sent", "histogram-rtt", "histogram-ttl-reverse",
                    "packet-duplicates-bidir", "packet-loss-rate-bidir", "packet-count-lost-bidir", "packet-reorders-bidir"));
            case "throughput" -> {
                boolean udp = spec.path("udp").asBoolean(false);
                boolean parallel = spec.path("parallel").asInt(1) > 1;
                e.addAll(List.of("failures", "throughput", "throughput-subintervals"));
                if (parallel) {
                    e.addAll(List.of("streams-throughput", "streams-throughput-subintervals"));
                }
                if (udp) {
                    e.addAll(List.of("packet-loss-rate", "packet-count-lost", "packet-count-sent"));
                } else {
                    e.addAll(List.of("packet-retransmits", "packet-retransmits-subintervals"));
                    if (parallel) {
                        e.addAll(List.of("streams-packet-retransmits", "streams-packet-retransmits-subintervals"));
                    }
                }
            }
            case "trace" -> e.addAll(List.of("failures", "packet-trace", "path-mtu"));
            default -> e.add("pscheduler-raw");
        }
        e.add("pscheduler-run-href");
        return e;
    }

    /** The metadata fields each test type's spec fields become (elmond's field maps). */
    static Map<String, String> specFields(String testType) {
        Map<String, String> m = new LinkedHashMap<>();
        switch (testType) {
            case "latency", "latencybg" -> {
                m.put("packet-count", "sample-size");
                m.put("bucket-width", "sample-bucket-width");
                m.put("packet-interval", "time-probe-interval");
                m.put("packet-timeout", "time-probe-timeout");
                m.put("ip-tos", "ip-tos");
                m.put("flip", "mode-flip");
                m.put("packet-padding", "ip-packet-padding");
            }
            case "rtt" -> {
                m.put("count", "sample-size");
                m.put("length", "ip-packet-size");
                m.put("ttl", "ip-ttl");
                m.put("interval", "time-probe-interval");
                m.put("timeout", "time-test-timeout");
                m.put("deadline", "time-probe-timeout");
            }
            case "throughput" -> {
                m.put("buffer-length", "bw-buffer-size");
                m.put("parallel", "bw-parallel-streams");
                m.put("bandwidth", "bw-target-bandwidth");
                m.put("window-size", "tcp-window-size");
                m.put("mss", "tcp-max-segment-size");
                m.put("omit", "bw-ignore-first-seconds");
            }
            case "trace" -> {
                m.put("algorithm", "trace-algorithm");
                m.put("first-ttl", "trace-first-ttl");
                m.put("hops", "trace-max-ttl");
                m.put("length", "ip-packet-size");
                m.put("probe-type", "ip-transport-protocol");
                m.put("queries", "trace-num-queries");
                m.put("sendwait", "time-probe-interval");
                m.put("wait", "time-test-timeout");
            }
            default -> { }
        }
        return m;
    }
}
