package org.nmws.service.archive;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.zaxxer.hikari.HikariDataSource;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
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
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Observation.Frame;
import org.nmws.service.observation.PathSubject;
import org.postgresql.PGConnection;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 24's ingest benchmark (bench/archive/ingest.sh): a 50-point full mesh's results, in
 * perfSONAR's default mix, saved into one time-partitioned PostgreSQL archive through
 * Archive.save by concurrent writers, side by side with a binary COPY of the very same rows
 * into the same tables (the physical reference: what the server takes with no client work);
 * then retention, one day's window dropped against the same rows deleted. Not a test: its
 * numbers are the machine's.
 *
 * <p>Arguments: postgres-jdbc-url results writers [rows-of-a-day]
 */
public final class IngestBench {
    private static final int POINTS = 50;
    /** perfSONAR's defaults for a 50-host full mesh: about 45 results a second, 3.9 million a day. */
    private static final double MESH_RATE = 45;
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule());

    private IngestBench() {
    }

    public static void main(String[] args) throws Exception {
        String pgBase = args[0];
        int total = Integer.parseInt(args[1]);
        int writers = Integer.parseInt(args[2]);
        int dayRows = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        Instant now = Instant.now();
        // two days of the mesh's time, compressed: results start evenly from 48 h ago to now
        List<Observation> results = mesh(total, now.minus(Duration.ofDays(2)), now);
        long frames = results.stream().mapToLong(o -> o.frames().size()).sum();
        List<String> report = new ArrayList<>();
        report.add("| measure | through save() | binary COPY of the same rows |");
        report.add("|---|---|---|");
        String a = "ingest_save_" + System.nanoTime();
        String b = "ingest_copy_" + System.nanoTime();
        try (HikariDataSource saveDs = store(pgBase, a, writers); HikariDataSource copyDs = store(pgBase, b, 2)) {
            JdbcArchive saving = TestArchives.archive(saveDs);
            JdbcArchive copying = TestArchives.archive(copyDs);
            saving.maintain(now.minus(Duration.ofDays(2)));
            saving.maintain(now);
            copying.maintain(now.minus(Duration.ofDays(2)));
            copying.maintain(now);

            double[] save = saveAll(saving, results, writers);
            double copySeconds = copyAll(copyDs, results);
            report.add(String.format(Locale.ROOT, "| results/s (%,d results, %,d frames; %d writers for save) | %,.0f | %,.0f |",
                    total, frames, writers, total / save[0], total / copySeconds));
            report.add(String.format(Locale.ROOT, "| headroom over a 50-point mesh at perfSONAR's defaults (45 results/s) | %.0fx | %.0fx |",
                    total / save[0] / MESH_RATE, total / copySeconds / MESH_RATE));
            report.add(String.format(Locale.ROOT, "| raw frames/s | %,.0f | %,.0f |", frames / save[0], frames / copySeconds));
            report.add(String.format(Locale.ROOT, "| one save(), p50 / p99 ms under that load | %.2f / %.2f | |", save[1], save[2]));
            long[] counts = {count(saveDs), count(copyDs)};
            if (counts[0] != total || counts[1] != total) {
                throw new IllegalStateException("stored " + Arrays.toString(counts) + " of " + total);
            }
            report.add(String.format(Locale.ROOT, "| size of the tables, MB | %,.0f | %,.0f |", size(saveDs) / 1e6, size(copyDs) / 1e6));

            // Retention of the oldest day: its whole window dropped (the archive's purge) against
            // DELETE of the same rows (what an unpartitioned table must do).
            Instant cut = Instant.ofEpochSecond(Math.floorDiv(now.minus(Duration.ofDays(1)).getEpochSecond(), 86_400) * 86_400);
            long t0 = System.nanoTime();
            Purged purged = saving.purge(null, cut);
            double dropMs = (System.nanoTime() - t0) / 1e6;
            JdbcTemplate copyJdbc = new JdbcTemplate(copyDs);
            t0 = System.nanoTime();
            int deleted = copyJdbc.update("DELETE FROM observation WHERE start_ns < ?", JdbcArchive.epochNanos(cut));
            copyJdbc.update("DELETE FROM frame_chunk WHERE start_ns < ?", JdbcArchive.epochNanos(cut));
            double deleteMs = (System.nanoTime() - t0) / 1e6;
            if (deleted != purged.observations()) {
                throw new IllegalStateException("dropped " + purged.observations() + ", deleted " + deleted);
            }
            report.add(String.format(Locale.ROOT, "| retention of the results before %s (%,d), ms | %.0f (windows dropped) | %.0f (DELETE) |",
                    cut, deleted, dropMs, deleteMs));
            if (dayRows > 0) {
                // a whole day of the mesh, 30 days back, in both: dropped against deleted
                Instant day = Instant.ofEpochSecond(Math.floorDiv(now.minus(Duration.ofDays(30)).getEpochSecond(), 86_400) * 86_400);
                saving.maintain(day);
                copying.maintain(day);
                t0 = System.nanoTime();
                copyDay(saveDs, day, dayRows);
                double loadS = (System.nanoTime() - t0) / 1e9;
                copyDay(copyDs, day, dayRows);
                t0 = System.nanoTime();
                purged = saving.purge(null, day.plus(Duration.ofDays(1)));
                dropMs = (System.nanoTime() - t0) / 1e6;
                t0 = System.nanoTime();
                deleted = copyJdbc.update("DELETE FROM observation WHERE start_ns < ?", JdbcArchive.epochNanos(day.plus(Duration.ofDays(1))));
                deleteMs = (System.nanoTime() - t0) / 1e6;
                if (deleted != dayRows || purged.observations() != dayRows) {
                    throw new IllegalStateException("a day of " + dayRows + ": dropped " + purged.observations() + ", deleted " + deleted);
                }
                report.add(String.format(Locale.ROOT, "| a day of a 50-point mesh's summaries (%,d results, loaded by COPY in %.0f s): retention, ms"
                        + " | %.0f (its window dropped) | %.0f (DELETE) |", dayRows, loadS, dropMs, deleteMs));
            }
        } finally {
            try (Connection c = DriverManager.getConnection(pgBase); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + a + " CASCADE");
                s.execute("DROP SCHEMA IF EXISTS " + b + " CASCADE");
            }
        }
        report.forEach(System.out::println);
    }

    private static HikariDataSource store(String base, String schema, int pool) throws Exception {
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        HikariDataSource ds = ArchiveDataSources.open(base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema
                + "&reWriteBatchedInserts=true", null, null);
        ds.getHikariConfigMXBean().setMaximumPoolSize(Math.max(pool, 2));
        TestArchives.migrate(ds, "postgresql", null);
        return ds;
    }

    /**
     * The mesh's results in time order: per pair a continuous one-way latency minute (600
     * frames, as powstream's 10 packets a second), and between them round trips (10 frames),
     * traces and throughput tests (summaries only), in perfSONAR's proportions.
     */
    static List<Observation> mesh(int total, Instant from, Instant to) {
        Random r = new Random(24);
        long spanNs = Duration.between(from, to).toNanos();
        List<Observation> out = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
            int src = r.nextInt(POINTS);
            int dst = (src + 1 + r.nextInt(POINTS - 1)) % POINTS;
            Instant start = from.plusNanos(spanNs / total * i);
            int kind = r.nextInt(100);
            ProbeTest test;
            int n;
            Map<String, Double> summary = new LinkedHashMap<>();
            if (kind < 90) {
                test = ProbeTest.UDP_STREAM;
                n = 600;
                summary.put("minDelay", 0.004 + r.nextDouble() / 1000);
                summary.put("medianDelay", 0.0051);
                summary.put("lossPercent", r.nextInt(50) == 0 ? 0.5 : 0.0);
            } else if (kind < 97) {
                test = ProbeTest.ROUND_TRIP;
                n = 10;
                summary.put("minRtt", 0.008);
                summary.put("meanRtt", 0.0101);
                summary.put("lossPercent", 0.0);
            } else {
                test = kind < 99 ? ProbeTest.HOP_LIST : ProbeTest.TCP_STREAM;
                n = 0;
                summary.put(test == ProbeTest.HOP_LIST ? "hops" : "throughputMbps", test == ProbeTest.HOP_LIST ? 7.0 : 940.0);
            }
            Observation base = ArchiveContractTest.observation("point-" + src, host(src), host(dst), start, summary, List.of());
            out.add(new Observation(0, base.measurementPoint(), test, new PathSubject(new Endpoint(host(src), "ipv4"),
                    new Endpoint(host(dst), "ipv4")), host(src), host(dst), base.tool(), base.toolVersion(), base.parameters(),
                    base.environment(), start, start.plusSeconds(60), summary, frames(n, JdbcArchive.epochNanos(start), r)));
        }
        return out;
    }

    private static String host(int point) {
        return "10.24." + (point / 200) + "." + (point % 200 + 1);
    }

    private static List<Frame> frames(int n, long start, Random r) {
        List<Frame> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new Frame(i, start + i * 100_000_000L + r.nextInt(2_000), r.nextInt(500) == 0 ? -1 : 5_000_000 + r.nextInt(200_000),
                    64, 60));
        }
        return out;
    }

    /** Seconds for all, and p50/p99 ms of one save(), with {@code writers} points writing at once. */
    private static double[] saveAll(JdbcArchive archive, List<Observation> results, int writers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        AtomicInteger next = new AtomicInteger();
        double[] latencies = new double[results.size()];
        long t0 = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            done.add(pool.submit(() -> {
                for (int i; (i = next.getAndIncrement()) < results.size(); ) {
                    long s = System.nanoTime();
                    archive.save(results.get(i), UUID.nameUUIDFromBytes(Integer.toString(i).getBytes(StandardCharsets.US_ASCII)));
                    latencies[i] = (System.nanoTime() - s) / 1e6;
                }
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        Arrays.sort(latencies);
        return new double[] {seconds, latencies[latencies.length / 2], latencies[(int) (latencies.length * 0.99)]};
    }

    /**
     * The same rows save() writes (JSON text, environment id, packed chunks), encoded first and
     * then timed through one binary COPY per table and a commit.
     */
    private static double copyAll(HikariDataSource ds, List<Observation> results) throws Exception {
        EnvironmentTable environments = new EnvironmentTable(new JdbcTemplate(ds), JSON);
        ByteArrayOutputStream obsBytes = new ByteArrayOutputStream(results.size() * 1_500);
        ByteArrayOutputStream chunkBytes = new ByteArrayOutputStream(results.size() * 1_500);
        List<Long> ids = new JdbcTemplate(ds).queryForList("SELECT nextval(pg_get_serial_sequence('observation', 'id'))"
                + " FROM generate_series(1, ?)", Long.class, results.size());
        try (DataOutputStream obs = copyStream(obsBytes); DataOutputStream chunks = copyStream(chunkBytes)) {
            for (int i = 0; i < results.size(); i++) {
                Observation o = results.get(i);
                long start = JdbcArchive.epochNanos(o.start());
                row(obs, o, ids.get(i), environments.idOf(EnvironmentParts.of(o.environment()).description()),
                        UUID.nameUUIDFromBytes(Integer.toString(i).getBytes(StandardCharsets.US_ASCII)));
                if (!o.frames().isEmpty()) {
                    List<byte[]> packed = FrameCodec.chunks(o.frames());
                    for (int c = 0; c < packed.size(); c++) {
                        chunks.writeShort(5);
                        field(chunks, ids.get(i));
                        field(chunks, start);
                        chunks.writeInt(4);
                        chunks.writeInt(c);
                        chunks.writeInt(4);
                        chunks.writeInt(Math.min(FrameCodec.CHUNK_FRAMES, o.frames().size() - c * FrameCodec.CHUNK_FRAMES));
                        chunks.writeInt(packed.get(c).length);
                        chunks.write(packed.get(c));
                    }
                }
            }
            obs.writeShort(-1);
            chunks.writeShort(-1);
        }
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            long t0 = System.nanoTime();
            copy.copyIn(OBSERVATION_COPY, new java.io.ByteArrayInputStream(obsBytes.toByteArray()));
            copy.copyIn("COPY frame_chunk (observation_id, start_ns, chunk_no, frame_count, data) FROM STDIN (FORMAT binary)",
                    new java.io.ByteArrayInputStream(chunkBytes.toByteArray()));
            c.commit();
            return (System.nanoTime() - t0) / 1e9;
        }
    }

    private static final String OBSERVATION_COPY = "COPY observation (id, measurement_point, test, src_host, src_type,"
            + " dst_host, dst_type, src_address, dst_address, tool, tool_version, start_ns, end_ns, parameters, environment_id,"
            + " environment, summary, raw_frames, result_key) FROM STDIN (FORMAT binary)";

    /** One observation row as save() writes it, in binary COPY's tuple format. */
    private static void row(DataOutputStream obs, Observation o, long id, long environmentId, UUID key) throws IOException {
        obs.writeShort(19);
        field(obs, id);
        text(obs, o.measurementPoint());
        text(obs, o.test().key());
        text(obs, o.subject().src().host());
        text(obs, o.subject().src().type());
        text(obs, o.subject().dst().host());
        text(obs, o.subject().dst().type());
        text(obs, o.srcAddress());
        text(obs, o.dstAddress());
        text(obs, o.tool());
        text(obs, o.toolVersion());
        field(obs, JdbcArchive.epochNanos(o.start()));
        field(obs, JdbcArchive.epochNanos(o.end()));
        text(obs, JSON.writeValueAsString(o.parameters()));
        field(obs, environmentId);
        text(obs, JSON.writeValueAsString(EnvironmentParts.of(o.environment()).perTest()));
        text(obs, JSON.writeValueAsString(o.summary()));
        obs.writeInt(4);
        obs.writeInt(o.frames().size());
        text(obs, key.toString());
    }

    /**
     * A whole day of a mesh's summaries ({@code rows} results without frames, evenly through
     * the day) streamed into the archive by COPY: the size retention removes each day.
     */
    static void copyDay(HikariDataSource ds, Instant day, int rows) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        EnvironmentTable environments = new EnvironmentTable(jdbc, JSON);
        long first = jdbc.queryForObject("SELECT nextval(pg_get_serial_sequence('observation', 'id'))", Long.class);
        jdbc.queryForObject("SELECT setval(pg_get_serial_sequence('observation', 'id'), ?)", Long.class, first + rows);
        List<Observation> kinds = mesh(1000, day, day.plusSeconds(1));
        long envId = environments.idOf(EnvironmentParts.of(kinds.get(0).environment()).description());
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            var in = c.unwrap(PGConnection.class).getCopyAPI().copyIn(OBSERVATION_COPY);
            ByteArrayOutputStream buf = new ByteArrayOutputStream(1 << 21);
            DataOutputStream out = copyStream(buf);
            for (int i = 0; i < rows; i++) {
                Observation k = kinds.get(i % kinds.size());
                Instant start = day.plusNanos(86_400_000_000_000L / rows * i);
                Observation o = new Observation(0, k.measurementPoint(), k.test(), k.subject(), k.srcAddress(), k.dstAddress(),
                        k.tool(), k.toolVersion(), k.parameters(), k.environment(), start, start.plusSeconds(60), k.summary(),
                        List.of());
                row(out, o, first + 1 + i, envId, new UUID(day.getEpochSecond(), i));
                if (buf.size() > 1 << 20) {
                    out.flush();
                    in.writeToCopy(buf.toByteArray(), 0, buf.size());
                    buf.reset();
                }
            }
            out.writeShort(-1);
            out.flush();
            in.writeToCopy(buf.toByteArray(), 0, buf.size());
            in.endCopy();
            c.commit();
        }
        jdbc.execute("ANALYZE observation");
    }

    /** PostgreSQL's binary COPY header: signature, flags, no extension. */
    private static DataOutputStream copyStream(ByteArrayOutputStream to) throws IOException {
        DataOutputStream out = new DataOutputStream(to);
        out.write("PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1));
        out.writeInt(0);
        out.writeInt(0);
        return out;
    }

    private static void field(DataOutputStream out, long v) throws IOException {
        out.writeInt(8);
        out.writeLong(v);
    }

    private static void text(DataOutputStream out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static long count(HikariDataSource ds) {
        return new JdbcTemplate(ds).queryForObject("SELECT COUNT(*) FROM observation", Long.class);
    }

    private static long size(HikariDataSource ds) {
        return new JdbcTemplate(ds).queryForObject("SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'", Long.class);
    }
}
