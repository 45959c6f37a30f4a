package org.nmws.service.perfsonar;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.observation.Observation;
import org.nmws.service.usecase.StoredResults;

/**
 * esmond queries over a day of one-minute latency results (bench/esmond.sh): 1440 one-way
 * results of 60 frames each in a SQLite archive on the production pool settings, then each
 * query asked repeatedly through the esmond engine (in process, no HTTP) and its p50 and p99
 * printed. Not a test: its numbers depend on the machine.
 */
public final class EsmondBench {
    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory(args.length > 0 ? Path.of(args[0]) : Path.of("/tmp"), "esmond-bench");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        try (TestArchives.Store store = TestArchives.sqliteStore(dir, null)) {
            Archive archive = store.archive();
            Observation template = PschedulerFormsTest.stream();
            Instant day = Instant.parse("2026-05-01T00:00:00Z");
            long t0 = System.nanoTime();
            for (int i = 0; i < 1440; i++) {
                List<Observation.Frame> frames = new ArrayList<>();
                long start = day.plusSeconds(60L * i).toEpochMilli() * 1_000_000;
                for (int f = 0; f < 60; f++) {
                    frames.add(new Observation.Frame(f, start + f * 100_000_000L, 10_000_000 + (f * 37L + i) % 500_000, 1000, -1));
                }
                Map<String, Double> s = new LinkedHashMap<>(template.summary());
                s.put("sent", 60.0);
                s.put("lost", (double) (i % 3));
                s.put("received", 60.0 - i % 3);
                archive.save(new Observation(0, "bench", template.test(), template.subject(), template.srcAddress(),
                        template.dstAddress(), template.tool(), template.toolVersion(), template.parameters(),
                        template.environment(), day.plusSeconds(60L * i), day.plusSeconds(60L * i + 6), s, frames));
            }
            System.out.printf("stored 1440 results (86,400 frames) in %.1f s%n", (System.nanoTime() - t0) / 1e9);
            Esmond esmond = new Esmond(new StoredResults(archive), 100_000);
            String key = esmond.search(Map.of(), null).get(0).get("metadata-key").asText();
            Map<String, String> dayRange = Map.of("time-start", Long.toString(day.getEpochSecond()), "time-range", "86400");
            Map<String, Supplier<Object>> queries = new LinkedHashMap<>();
            queries.put("search ?event-type=histogram-owdelay", () -> esmond.search(Map.of("event-type", "histogram-owdelay"), null));
            queries.put("metadata key", () -> esmond.metadata(key));
            queries.put("packet-loss-rate/base, a day (first 1000, the default limit)", () -> esmond.data(key, "packet-loss-rate", "base", "0", dayRange));
            queries.put("histogram-owdelay/base, a day (first 1000 of 1440)", () -> esmond.data(key, "histogram-owdelay", "base", "0", dayRange));
            queries.put("histogram-owdelay/statistics/0, a day (first 1000)", () -> esmond.data(key, "histogram-owdelay", "statistics", "0", dayRange));
            queries.put("histogram-owdelay/statistics/3600, a day", () -> esmond.data(key, "histogram-owdelay", "statistics", "3600", dayRange));
            queries.put("packet-loss-rate/aggregations/3600, a day", () -> esmond.data(key, "packet-loss-rate", "aggregations", "3600", dayRange));
            System.out.println("| query | p50 ms | p99 ms | points |");
            System.out.println("|---|---|---|---|");
            for (Map.Entry<String, Supplier<Object>> q : queries.entrySet()) {
                Object last = null;
                for (int i = 0; i < 3; i++) {
                    last = q.getValue().get(); // warm-up
                }
                double[] ms = new double[rounds];
                for (int i = 0; i < rounds; i++) {
                    long a = System.nanoTime();
                    last = q.getValue().get();
                    ms[i] = (System.nanoTime() - a) / 1e6;
                }
                Arrays.sort(ms);
                System.out.printf("| %s | %.1f | %.1f | %d |%n", q.getKey(), ms[rounds / 2],
                        ms[Math.min(rounds - 1, (int) Math.ceil(rounds * 0.99) - 1)],
                        ((com.fasterxml.jackson.databind.JsonNode) last).size());
            }
        }
    }
}
