package org.nmws.service.perfsonar;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The statistics perfSONAR's Logstash adds beside a histogram ({@code result.latency},
 * {@code result.ttl}, {@code result.rtt}): the histogram as {@code {values, counts}} and min,
 * max, mean, median, mode (a list), p_25, p_75, p_95, stddev and variance, the fields elmond
 * (perfSONAR 5's esmond) reads back. Percentiles are nearest-rank over the counted values;
 * the variance is the population's.
 */
final class HistogramStats {
    private HistogramStats() {
    }

    /** @param h value to count, in the unit the document keeps; empty gives an empty object */
    static ObjectNode of(NavigableMap<Double, Long> h) {
        ObjectNode o = ResultForms.JSON.objectNode();
        long n = 0;
        double sum = 0;
        long modeCount = -1;
        for (Map.Entry<Double, Long> e : h.entrySet()) {
            n += e.getValue();
            sum += e.getKey() * e.getValue();
            modeCount = Math.max(modeCount, e.getValue());
        }
        if (n == 0) {
            return o;
        }
        ObjectNode hist = o.putObject("histogram");
        ArrayNode values = hist.putArray("values");
        ArrayNode counts = hist.putArray("counts");
        h.forEach((v, c) -> {
            values.add(v);
            counts.add(c);
        });
        double mean = sum / n;
        double sq = 0;
        for (Map.Entry<Double, Long> e : h.entrySet()) {
            sq += (e.getKey() - mean) * (e.getKey() - mean) * e.getValue();
        }
        o.put("min", h.firstKey());
        o.put("max", h.lastKey());
        o.put("mean", mean);
        o.put("median", percentile(h, n, 50));
        ArrayNode mode = o.putArray("mode");
        for (Map.Entry<Double, Long> e : h.entrySet()) {
            if (e.getValue() == modeCount) {
                mode.add(e.getKey());
            }
        }
        o.put("p_25", percentile(h, n, 25));
        o.put("p_75", percentile(h, n, 75));
        o.put("p_95", percentile(h, n, 95));
        o.put("variance", sq / n);
        o.put("stddev", Math.sqrt(sq / n));
        return o;
    }

    /** The smallest value with at least p percent of the counts at or below it. */
    static double percentile(NavigableMap<Double, Long> h, long n, double p) {
        long rank = Math.max(1, (long) Math.ceil(p / 100.0 * n));
        long seen = 0;
        for (Map.Entry<Double, Long> e : h.entrySet()) {
            seen += e.getValue();
            if (seen >= rank) {
                return e.getKey();
            }
        }
        return h.lastKey();
    }

    /** A pScheduler histogram object ({"34.4": 506, ...}) as counted values. */
    static NavigableMap<Double, Long> parse(com.fasterxml.jackson.databind.JsonNode hist, double scale) {
        TreeMap<Double, Long> h = new TreeMap<>();
        if (hist == null || !hist.isObject()) {
            return h;
        }
        hist.fields().forEachRemaining(e -> h.merge(Double.parseDouble(e.getKey()) * scale, e.getValue().asLong(), Long::sum));
        return h;
    }
}
