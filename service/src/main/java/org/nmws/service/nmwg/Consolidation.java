package org.nmws.service.nmwg;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.nmws.service.observation.Observation;
import org.nmws.service.usecase.ErrorCodes;

/**
 * Aggregates stored observations' summary figures over time buckets, as a select filter's
 * consolidationFunction and resolution ask. Buckets are aligned to multiples of the
 * resolution since the epoch (as round-robin archives align them), so the same request
 * gives the same buckets whenever it is asked.
 */
final class Consolidation {
    private Consolidation() {
    }

    enum Function {
        AVERAGE, MIN, MAX, MEDIAN;

        /** The function's name on the wire. */
        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Function parse(String text) throws NmwgException {
            String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
            return switch (t) {
                case "average", "avg", "mean" -> AVERAGE;
                case "min", "minimum" -> MIN;
                case "max", "maximum" -> MAX;
                case "median" -> MEDIAN;
                default -> throw new NmwgException(ErrorCodes.PARAMETER, "select consolidationFunction is '" + t
                        + "'; supported: average, min, max, median");
            };
        }

        double apply(double[] sorted) {
            return switch (this) {
                case MIN -> sorted[0];
                case MAX -> sorted[sorted.length - 1];
                case AVERAGE -> Arrays.stream(sorted).sum() / sorted.length;
                case MEDIAN -> sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
            };
        }
    }

    /**
     * One bucket: its start, how many observations fell in it, and each summary figure
     * consolidated over them (a figure only some observations have is consolidated over those).
     */
    record Bucket(Instant start, int observations, Map<String, Double> figures) {
    }

    /**
     * @param resolutionSeconds bucket width; 0 puts everything in one bucket starting at the oldest observation
     */
    static List<Bucket> buckets(List<Observation> observations, Function function, long resolutionSeconds) {
        TreeMap<Long, List<Observation>> byBucket = new TreeMap<>();
        for (Observation o : observations) {
            long key = resolutionSeconds == 0 ? 0 : Math.floorDiv(o.start().getEpochSecond(), resolutionSeconds) * resolutionSeconds;
            byBucket.computeIfAbsent(key, k -> new ArrayList<>()).add(o);
        }
        List<Bucket> out = new ArrayList<>(byBucket.size());
        for (Map.Entry<Long, List<Observation>> e : byBucket.entrySet()) {
            List<Observation> in = e.getValue();
            Map<String, List<Double>> values = new LinkedHashMap<>();
            for (Observation o : in) {
                for (Map.Entry<String, Double> f : o.summary().entrySet()) {
                    if (f.getValue() != null && !f.getValue().isNaN()) {
                        values.computeIfAbsent(f.getKey(), k -> new ArrayList<>()).add(f.getValue());
                    }
                }
            }
            Map<String, Double> figures = new LinkedHashMap<>();
            for (Map.Entry<String, List<Double>> v : values.entrySet()) {
                double[] sorted = v.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
                figures.put(v.getKey(), function.apply(sorted));
            }
            Instant start = resolutionSeconds == 0 ? in.get(0).start() : Instant.ofEpochSecond(e.getKey());
            out.add(new Bucket(start, in.size(), figures));
        }
        return out;
    }
}
