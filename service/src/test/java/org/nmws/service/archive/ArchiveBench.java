package org.nmws.service.archive;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Observation.Frame;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The archive benchmarks of issue 6, both backends side by side in one run (bench/archive/run.sh):
 * ingest of raw per-frame rows through Archive.save, a one-day one-minute consolidation of one
 * path among {@code summaries} stored observations, and a median over one million raw frames;
 * with at least eight days of summaries also issue 24's month-size queries (a path's week, a
 * day of hourly loss summaries, the grid's newest result of every path). Not a test: it needs minutes and gigabytes, and its numbers depend on the machine.
 *
 * <p>Arguments: sqlite-directory postgres-jdbc-url summaries
 */
public final class ArchiveBench {
    private static final int PATHS = 100;
    private static final Instant EPOCH = Instant.parse("2025-01-01T00:00:00Z");

    private ArchiveBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String pgBase = args[1];
        long summaries = Long.parseLong(args[2]);
        Files.createDirectories(dir);
        List<String> report = new ArrayList<>();
        report.add(String.format(Locale.ROOT, "| measure | SQLite | PostgreSQL | goal |"));
        report.add("|---|---|---|---|");

        String sqliteUrl = "jdbc:sqlite:" + dir.resolve("bench-" + System.nanoTime() + ".db");
        String schema = "bench_" + System.nanoTime();
        try (Connection c = DriverManager.getConnection(pgBase); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        String pgUrl = pgBase + (pgBase.contains("?") ? "&" : "?") + "currentSchema=" + schema + "&reWriteBatchedInserts=true";
        try (HikariDataSource lite = ArchiveDataSources.open(sqliteUrl, null, null);
             HikariDataSource pg = ArchiveDataSources.open(pgUrl, null, null)) {
            TestArchives.migrate(lite, "sqlite", null);
            TestArchives.migrate(pg, "postgresql", null);
            JdbcArchive a = TestArchives.archive(lite);
            JdbcArchive b = TestArchives.archive(pg);

            double[] ingest = {ingest(a), ingest(b)};
            report.add(row("ingest of raw frames through save(), frames/s (20 tests of 100,000 frames, one commit each)",
                    "%,.0f", ingest, ">= 1,000,000 (SQLite)"));

            double[][] median = {medianOverMillion(a), medianOverMillion(b)};
            report.add(row("median over 1,000,000 raw frames (aggregate RAW, one bucket), p50 ms", "%.1f",
                    new double[] {median[0][0], median[1][0]}, "< 200"));
            report.add(row("  same, p95 ms", "%.1f", new double[] {median[0][1], median[1][1]}, ""));

            double[] load = {loadSummaries(lite, summaries, false), loadSummaries(pg, summaries, true)};
            report.add(row("bulk load of " + String.format(Locale.ROOT, "%,d", summaries)
                    + " observations (summaries, " + PATHS + " paths, one a minute), rows/s", "%,.0f", load, ""));
            double[][] day = {oneDay(a, summaries), oneDay(b, summaries)};
            report.add(row("one path, one day, one-minute buckets of meanRtt (aggregate SUMMARY, 1,440 buckets), p50 ms",
                    "%.2f", new double[] {day[0][0], day[1][0]}, "< 20"));
            report.add(row("  same, p95 ms", "%.2f", new double[] {day[0][1], day[1][1]}, ""));
            report.add(row("  find() of the same day, 1,440 observations without frames, p50 ms", "%.2f",
                    new double[] {day[0][2], day[1][2]}, ""));
            if (summaries / PATHS / 1440 >= 8) {
                double[][] week = {weekAndGrid(a, summaries), weekAndGrid(b, summaries)};
                report.add(row("one path, one week, one-hour buckets of meanRtt (aggregate SUMMARY, 168 buckets), p50 ms",
                        "%.1f", new double[] {week[0][0], week[1][0]}, ""));
                report.add(row("  same, p99 ms", "%.1f", new double[] {week[0][1], week[1][1]}, ""));
                report.add(row("  find() of the same week, 10,080 observations without frames, p50 ms", "%.1f",
                        new double[] {week[0][2], week[1][2]}, ""));
                report.add(row("  same, p99 ms", "%.1f", new double[] {week[0][3], week[1][3]}, ""));
                report.add(row("a day of hourly loss summaries (esmond's packet-loss-rate aggregation, window 3600), p50 ms",
                        "%.2f", new double[] {week[0][4], week[1][4]}, ""));
                report.add(row("  same, p99 ms", "%.2f", new double[] {week[0][5], week[1][5]}, ""));
                report.add(row("the grid: the newest result of each of the " + PATHS + " paths (one find each), p50 ms",
                        "%.1f", new double[] {week[0][6], week[1][6]}, ""));
                report.add(row("  same, p99 ms", "%.1f", new double[] {week[0][7], week[1][7]}, ""));
            }
            report.add(row("database size after the run, MB", "%,.0f", new double[] {
                    Files.size(Path.of(sqliteUrl.substring("jdbc:sqlite:".length()))) / 1e6,
                    new org.springframework.jdbc.core.JdbcTemplate(pg).queryForObject(
                            "SELECT pg_database_size(current_database())", Long.class) / 1e6}, ""));
        } finally {
            try (Connection c = DriverManager.getConnection(pgBase); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
        report.forEach(System.out::println);
    }

    private static String row(String what, String fmt, double[] v, String goal) {
        return "| " + what + " | " + String.format(Locale.ROOT, fmt, v[0]) + " | " + String.format(Locale.ROOT, fmt, v[1])
                + " | " + goal + " |";
    }

    private static List<Frame> frames(int n, long start, Random r) {
        List<Frame> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new Frame(i, start + i * 100_000L + r.nextInt(500), r.nextInt(100) == 0 ? -1 : 80_000 + r.nextInt(60_000),
                    1472, 64));
        }
        return out;
    }

    /** frames/s through the real save path: synchronous commits, chunk encoding included. */
    private static double ingest(JdbcArchive archive) {
        Random r = new Random(1);
        List<List<Frame>> inputs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            inputs.add(frames(100_000, JdbcArchive.epochNanos(EPOCH.plusSeconds(60L * i)), r));
        }
        long t0 = System.nanoTime();
        long n = 0;
        for (int i = 0; i < inputs.size(); i++) {
            Instant start = EPOCH.plusSeconds(60L * i);
            archive.save(ArchiveContractTest.observation("bench", "10.0.0.1", "10.0.0.2", start,
                    Map.of("meanRtt", 0.1), inputs.get(i)));
            n += inputs.get(i).size();
        }
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    /** p50 and p95 ms of a median over the first 10 ingested tests (1,000,000 frames, ~1% lost). */
    private static double[] medianOverMillion(JdbcArchive archive) {
        AggregateQuery q = AggregateQuery.raw(ProbeTest.ROUND_TRIP, "10.0.0.2", "10.0.0.1", EPOCH,
                EPOCH.plusSeconds(600), Duration.ofDays(1));
        long count = archive.aggregate(q).get(0).count();
        if (count < 980_000 || count > 1_000_000) {
            throw new IllegalStateException("median bench read " + count + " frames, expected ~990,000");
        }
        return percentiles(15, () -> archive.aggregate(q), 2);
    }

    /** Bulk-loads observations as save() would write them, minus frames; returns rows/s. */
    private static double loadSummaries(HikariDataSource ds, long total, boolean postgres) throws Exception {
        ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule());
        Observation template = ArchiveContractTest.observation("bench", "10.0.0.1", "10.1.0.1", EPOCH, Map.of(), List.of());
        String params = json.writeValueAsString(template.parameters());
        Random r = new Random(2);
        long perPath = total / PATHS;
        long t0 = System.nanoTime();
        // One stored description per path, as save() leaves them; each row its own clock error and load.
        EnvironmentTable environments = new EnvironmentTable(new JdbcTemplate(ds), json);
        long[] environmentIds = new long[PATHS];
        for (int p = 0; p < PATHS; p++) {
            Observation o = ArchiveContractTest.observation("bench", "10.0.0.1", dst(p), EPOCH, Map.of(), List.of());
            environmentIds[p] = environments.idOf(EnvironmentParts.of(o.environment()).description());
        }
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO observation (measurement_point, test, src_host, src_type, dst_host, dst_type,
                        src_address, dst_address, tool, tool_version, start_ns, end_ns, parameters, environment_id, environment,
                        summary, raw_frames)
                    VALUES ('bench', 'ROUND_TRIP', '10.0.0.1', 'ipv4', ?, 'ipv4', '10.0.0.1', ?, 'nmprobe', '0.1.0', ?, ?, ?, ?, ?, ?, 0)""")) {
                int batch = 0;
                // Time-major, as points write in production: every path's minute m before minute m + 1.
                for (long m = 0; m < perPath; m++) {
                    long start = JdbcArchive.epochNanos(EPOCH) + m * 60_000_000_000L;
                    for (int p = 0; p < PATHS; p++) {
                        String dst = dst(p);
                        Map<String, Double> summary = new LinkedHashMap<>();
                        double mean = 0.08 + r.nextDouble() * 0.05;
                        summary.put("minRtt", mean - 0.01);
                        summary.put("meanRtt", mean);
                        summary.put("medianRtt", mean);
                        summary.put("maxRtt", mean + 0.03);
                        summary.put("lossPercent", r.nextInt(100) == 0 ? 1.0 : 0.0);
                        summary.put("duplicates", 0.0);
                        summary.put("outOfOrder", 0.0);
                        ps.setString(1, dst);
                        ps.setString(2, dst);
                        ps.setLong(3, start);
                        ps.setLong(4, start + 10_000_000_000L);
                        ps.setString(5, params);
                        ps.setLong(6, environmentIds[p]);
                        Observation measured = ArchiveContractTest.withSourceFigures(template, 1_000 + r.nextInt(20_000),
                                r.nextInt(1000) / 10.0);
                        ps.setString(7, json.writeValueAsString(EnvironmentParts.of(measured.environment()).perTest()));
                        ps.setString(8, json.writeValueAsString(summary));
                        ps.addBatch();
                        if (++batch == 5_000) {
                            ps.executeBatch();
                            c.commit();
                            batch = 0;
                        }
                    }
                }
                ps.executeBatch();
                c.commit();
            }
            try (Statement s = c.createStatement()) {
                s.execute("ANALYZE"); // fresh statistics, as autovacuum or a DBA would leave them
            }
            c.commit();
        }
        return perPath * PATHS / ((System.nanoTime() - t0) / 1e9);
    }

    private static String dst(int path) {
        return "10.1." + (path / 250) + "." + (path % 250 + 1);
    }

    /** p50, p95 of the one-day consolidation and p50 of find() for the same day, ms, over random days of random paths. */
    private static double[] oneDay(JdbcArchive archive, long total) {
        long days = total / PATHS / 1440;
        if (days < 2) {
            throw new IllegalStateException("too few summaries for a one-day query: " + total);
        }
        Random r = new Random(3);
        List<AggregateQuery> queries = new ArrayList<>();
        List<ObservationQuery> finds = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            int p = r.nextInt(PATHS);
            String dst = dst(p);
            Instant from = EPOCH.plus(Duration.ofDays(r.nextLong(days - 1)));
            queries.add(AggregateQuery.summary(ProbeTest.ROUND_TRIP, dst, null, from, from.plus(Duration.ofDays(1)),
                    Duration.ofMinutes(1), "meanRtt"));
            finds.add(new ObservationQuery(ProbeTest.ROUND_TRIP, dst, null, from, from.plus(Duration.ofDays(1)).minusNanos(1),
                    false, 100_000));
        }
        if (archive.aggregate(queries.get(0)).size() != 1440 || archive.find(finds.get(0)).size() != 1440) {
            throw new IllegalStateException("one-day query did not see 1,440 one-minute observations");
        }
        int[] i = {0};
        double[] agg = percentiles(queries.size(), () -> archive.aggregate(queries.get(i[0]++ % queries.size())), 5);
        int[] j = {0};
        double[] find = percentiles(finds.size(), () -> archive.find(finds.get(j[0]++ % finds.size())), 5);
        return new double[] {agg[0], agg[1], find[0]};
    }

    /**
     * Issue 24's queries over a month-size archive: a path's week (hourly buckets, and every
     * summary), a day of hourly loss summaries as esmond's packet-loss-rate aggregation reads
     * them, and the grid's newest result of every path. p50 and p99 of each over random paths
     * and weeks.
     */
    private static double[] weekAndGrid(JdbcArchive archive, long total) {
        long days = total / PATHS / 1440;
        Random r = new Random(4);
        List<AggregateQuery> weeks = new ArrayList<>();
        List<ObservationQuery> weekFinds = new ArrayList<>();
        List<AggregateQuery> lossDays = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            String dst = dst(r.nextInt(PATHS));
            Instant from = EPOCH.plus(Duration.ofDays(r.nextLong(days - 7)));
            weeks.add(AggregateQuery.summary(ProbeTest.ROUND_TRIP, dst, null, from, from.plus(Duration.ofDays(7)),
                    Duration.ofHours(1), "meanRtt"));
            weekFinds.add(new ObservationQuery(ProbeTest.ROUND_TRIP, dst, null, from, from.plus(Duration.ofDays(7)).minusNanos(1),
                    false, 100_000));
            Instant day = from.plus(Duration.ofDays(r.nextInt(7)));
            lossDays.add(AggregateQuery.summary(ProbeTest.ROUND_TRIP, dst, null, day, day.plus(Duration.ofDays(1)),
                    Duration.ofHours(1), "lossPercent"));
        }
        if (archive.aggregate(weeks.get(0)).size() != 168 || archive.find(weekFinds.get(0)).size() != 10_080) {
            throw new IllegalStateException("the week query did not see 168 hours of one-minute observations");
        }
        Instant newest = EPOCH.plus(Duration.ofMinutes(total / PATHS));
        Runnable grid = () -> {
            for (int p = 0; p < PATHS; p++) {
                List<Observation> last = archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, dst(p), null,
                        newest.minus(Duration.ofDays(1)), newest, false, 1));
                if (last.size() != 1) {
                    throw new IllegalStateException("no newest result of path " + dst(p));
                }
            }
        };
        int[] i = {0};
        double[] week = percentiles(weeks.size(), () -> archive.aggregate(weeks.get(i[0]++ % weeks.size())), 5);
        int[] j = {0};
        double[] find = percentiles(100, () -> archive.find(weekFinds.get(j[0]++ % weekFinds.size())), 3);
        int[] k = {0};
        double[] loss = percentiles(lossDays.size(), () -> archive.aggregate(lossDays.get(k[0]++ % lossDays.size())), 5);
        double[] g = percentiles(100, grid, 3);
        return new double[] {week[0], week[2], find[0], find[2], loss[0], loss[2], g[0], g[2]};
    }

    private static double[] percentiles(int runs, Runnable work, int warmup) {
        for (int i = 0; i < warmup; i++) {
            work.run();
        }
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            work.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return new double[] {ms[runs / 2], ms[Math.min(runs - 1, (int) Math.ceil(runs * 0.95) - 1)],
            ms[Math.min(runs - 1, (int) Math.ceil(runs * 0.99) - 1)]};
    }
}
