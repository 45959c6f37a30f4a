package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.schedule.Schedule;
import org.nmws.service.schedule.ScheduleStore;
import org.nmws.service.schedule.ScheduledRun;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 21, the upgrade: an archive written by the release tagged {@code wave2} (schema V7,
 * made by that tag's own migration scripts, kept under test resources upgrade/wave2) and
 * filled the way that release wrote (its save and schedule statements) migrates to this
 * build's schema and answers the same queries with the same values: observations by path and
 * window with their frames, samples and environments, one by id, series and their maKeys,
 * consolidation, the export scan, schedules and their runs. Flyway's checksums prove the V1..V7
 * scripts are the ones the release ran. On SQLite and PostgreSQL.
 */
class UpgradeFromWave2Test {
    private static final Instant T0 = Instant.parse("2026-10-01T06:00:00.000000123Z");
    /** Schedules keep milliseconds. */
    private static final Instant T0S = Instant.parse("2026-10-01T06:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule());

    @TempDir
    Path dir;

    @Test
    void aSqliteArchiveOfWave2MigratesAndAnswersTheSame() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("wave2.db");
        try (HikariDataSource ds = ArchiveDataSources.open(url, null, null)) {
            upgrade(ds, "sqlite");
        }
    }

    @Test
    void aPostgresArchiveOfWave2MigratesAndAnswersTheSame() throws Exception {
        String base = TestArchives.postgresUrl();
        String schema = "wave2_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        try (HikariDataSource ds = ArchiveDataSources.open(base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema,
                null, null)) {
            upgrade(ds, "postgresql");
        } finally {
            try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private void upgrade(DataSource ds, String vendor) throws Exception {
        // The release's schema, from the release's scripts.
        Flyway.configure().dataSource(ds).locations("classpath:upgrade/wave2/" + vendor)
                .javaMigrations(new V3__Pack_frame_rows(), new V6__Split_environments()).load().migrate();
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        assertEquals("7", jdbc.queryForObject("SELECT MAX(CAST(version AS INTEGER)) FROM flyway_schema_history "
                + "WHERE version IS NOT NULL", String.class));
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
        Wave2Writer old = new Wave2Writer(jdbc, tx);

        List<Observation> written = new ArrayList<>();
        Observation big = ArchiveContractTest.observation("mp-old", "10.0.0.1", "10.0.0.2", T0,
                Map.of("minRtt", 0.08, "meanRtt", 0.125), ArchiveContractTest.frames(FrameCodec.CHUNK_FRAMES + 100,
                        JdbcArchive.epochNanos(T0)));
        written.add(old.save(big));
        for (int i = 1; i <= 5; i++) {
            written.add(old.save(ArchiveContractTest.simple("mp-old", "10.0.0.2", T0.plusSeconds(60L * i), 0.1 + i / 100.0)));
        }
        Observation noSrc = ArchiveContractTest.observation("mp-other", null, "10.0.0.3", T0.plusSeconds(30), Map.of("meanRtt", 2.5),
                List.of());
        written.add(old.save(noSrc));
        Observation withRoute = new Observation(0, "mp-old", ProbeTest.UDP_STREAM, big.subject(), "10.0.0.1", "10.0.0.2",
                "nmprobe", "0.1.0", Map.of("count", "3"), new Environment(big.environment().src(), big.environment().dst(),
                List.of(new Environment.RouteHop(1, "10.0.0.254", "gw"), new Environment.RouteHop(2, null, null))),
                T0.plusSeconds(90), T0.plusSeconds(91), Map.of("lossPercent", 0.0), ArchiveContractTest.frames(3,
                JdbcArchive.epochNanos(T0.plusSeconds(90))), Map.of("offsetNs", new long[] {0, 5}, "cwndSegments", new long[] {10, 11}));
        written.add(old.save(withRoute));

        Schedule rtt = old.schedule(new Schedule(0, "rtt-old", "mp-old", "path.delay.roundTrip", "10.0.0.2",
                Map.of("count", "5", "interval", "0.01"), Duration.ofSeconds(60), Duration.ofSeconds(5), T0S, null,
                TestClass.BACKGROUND, true));
        Schedule bw = old.schedule(new Schedule(0, "bw-old", "mp-old", "path.bandwidth.achievable.UDP", "10.0.0.3",
                Map.of("count", "100"), Duration.ofMinutes(10), Duration.ZERO, T0S, T0S.plus(Duration.ofDays(1)),
                TestClass.EXCLUSIVE, false));
        old.run(rtt.id(), 0, T0, ScheduledRun.DONE, written.get(1).id(), null);
        old.run(rtt.id(), 1, T0.plusSeconds(60), ScheduledRun.FAILED, null, "responder unreachable");
        old.run(rtt.id(), 2, T0.plusSeconds(120), ScheduledRun.NONSTARTER, null, "missed its slot by 40 s");
        old.run(rtt.id(), 3, T0.plusSeconds(180), ScheduledRun.RUNNING, null, null);
        old.run(rtt.id(), 4, T0.plusSeconds(240), ScheduledRun.PLANNED, null, null);

        // The queries, answered by an archive that never had the release's schema, holding the same
        // results under the same ids (this build reads V7's frames no longer: V11 gave chunks their
        // start), and the runs by the release's schema ...
        Answers before;
        try (TestArchives.Store fresh = vendor.equals("sqlite") ? TestArchives.sqliteStore(dir, null)
                : TestArchives.postgresStore(null)) {
            for (Observation o : written) {
                assertEquals(o.id(), fresh.archive().save(o).id());
            }
            before = answers(fresh.archive(), null, written, List.of());
        }
        ScheduleStore schedules = new ScheduleStore(jdbc, JSON);
        for (long scheduleId : List.of(rtt.id(), bw.id())) {
            before.runs.add(schedules.runs(scheduleId, 100, Instant.MAX));
        }
        assertEquals(json(written), json(before.all), "everything written reads back, as written");

        // ... and after this build's migrations (Flyway validates V1..V7's checksums first).
        TestArchives.migrate(ds, vendor, null);
        assertEquals("11", jdbc.queryForObject("SELECT MAX(CAST(version AS INTEGER)) FROM flyway_schema_history "
                + "WHERE version IS NOT NULL", String.class));
        JdbcArchive upgraded = TestArchives.archive(ds);
        Answers after = answers(upgraded, schedules, written, List.of(rtt.id(), bw.id()));
        // Compared as JSON: sample series are arrays, which records compare by identity.
        assertEquals(json(before.found), json(after.found));
        assertEquals(json(before.byId), json(after.byId));
        assertEquals(before.series, after.series);
        assertEquals(before.maKeys, after.maKeys);
        assertEquals(before.buckets, after.buckets);
        assertEquals(json(before.all), json(after.all));
        assertEquals(before.runs, after.runs);
        assertEquals(json(written), json(after.all), "as written");
        assertEquals(7, before.found.get(0).size() + before.found.get(3).size(), "the queries found what was written");
        assertEquals(4, before.runs.get(0).size() - 1, "four runs reached their time, one planned");
        assertEquals(4, before.series.get(0).size(), "series: the long test, the five short ones, another point's, the UDP one");
        // Schedules read with this build's reader: as written, without an owner (the service's own).
        assertEquals(List.of(bw, rtt), schedules.all());
        assertNull(schedules.all().get(0).owner());

        // The upgraded archive keeps new results exactly once beside the old ones.
        UUID key = UUID.randomUUID();
        Observation fresh = ArchiveContractTest.simple("mp-new", "10.0.0.2", T0.plusSeconds(3600), 0.2);
        long id = upgraded.save(fresh, key).id();
        assertEquals(id, upgraded.save(fresh, key).id());
        assertEquals(7, upgraded.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, T0,
                T0.plusSeconds(7200), false, 100)).size(), "six of the release's and the new one");
        // A run the release left RUNNING is recorded as interrupted by this build's scheduler start.
        assertEquals(1, schedules.interrupted("mp-old", T0.plusSeconds(300)));
    }

    /** The same questions each time. */
    private static Answers answers(Archive a, ScheduleStore schedules, List<Observation> written, List<Long> scheduleIds) {
        Answers r = new Answers();
        r.found.add(a.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, T0, T0.plusSeconds(3600), true, 100)));
        r.found.add(a.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", "10.0.0.1", T0.plusSeconds(60),
                T0.plusSeconds(180), false, 2)));
        r.found.add(a.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.3", null, T0, T0.plusSeconds(3600), false, 10)));
        r.found.add(a.find(new ObservationQuery(ProbeTest.UDP_STREAM, "10.0.0.2", null, T0, T0.plusSeconds(3600), true, 10)));
        for (Observation o : written) {
            r.byId.add(a.findById(o.id(), true).orElseThrow());
        }
        r.series.add(a.series(new SeriesQuery(null, null, null, Map.of(), 100)));
        r.series.add(a.series(new SeriesQuery(ProbeTest.ROUND_TRIP, "10.0.0.1", "10.0.0.2", Map.of("packetSize", "64"), 100)));
        for (List<Observation> f : r.found) {
            if (!f.isEmpty()) {
                r.maKeys.add(SeriesKeys.of(f));
            }
        }
        r.buckets.add(a.aggregate(new AggregateQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, T0, T0.plusSeconds(600),
                Duration.ofSeconds(120), "meanRtt", AggregateQuery.Source.SUMMARY)));
        r.buckets.add(a.aggregate(new AggregateQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, T0, T0.plusSeconds(60),
                Duration.ofSeconds(1), null, AggregateQuery.Source.RAW)));
        a.forEach(T0.minusSeconds(1), T0.plusSeconds(7200), true, r.all::add);
        for (long id : scheduleIds) {
            r.runs.add(schedules.runs(id, 100, Instant.MAX));
        }
        return r;
    }

    private static final class Answers {
        final List<List<Observation>> found = new ArrayList<>();
        final List<Observation> byId = new ArrayList<>();
        final List<List<Series>> series = new ArrayList<>();
        final List<String> maKeys = new ArrayList<>();
        final List<List<TimeBucket>> buckets = new ArrayList<>();
        final List<Observation> all = new ArrayList<>();
        final List<List<ScheduledRun>> runs = new ArrayList<>();
    }

    private static String json(Object value) throws JsonProcessingException {
        return JSON.writeValueAsString(value);
    }

    /**
     * What the release tagged wave2 wrote, statement for statement: JdbcArchive.save (the
     * environment's description once in its table, the row, the packed frame chunks, in one
     * transaction) and ScheduleStore.put / plan / claim / finish, against schema V7.
     */
    private static final class Wave2Writer {
        private final JdbcTemplate jdbc;
        private final TransactionTemplate tx;
        private final EnvironmentTable environments;

        Wave2Writer(JdbcTemplate jdbc, TransactionTemplate tx) {
            this.jdbc = jdbc;
            this.tx = tx;
            this.environments = new EnvironmentTable(jdbc, JSON);
        }

        Observation save(Observation o) {
            EnvironmentParts env = EnvironmentParts.of(o.environment());
            Long id = tx.execute(status -> {
                Long newId = jdbc.queryForObject("""
                        INSERT INTO observation (measurement_point, test, src_host, src_type, dst_host, dst_type,
                            src_address, dst_address, tool, tool_version, start_ns, end_ns, parameters, environment_id,
                            environment, summary, raw_frames, samples)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""", Long.class,
                        o.measurementPoint(), o.test().key(),
                        o.subject().src() == null ? null : o.subject().src().host(),
                        o.subject().src() == null ? null : o.subject().src().type(),
                        o.subject().dst().host(), o.subject().dst().type(),
                        o.srcAddress(), o.dstAddress(), o.tool(), o.toolVersion(),
                        JdbcArchive.epochNanos(o.start()), JdbcArchive.epochNanos(o.end()),
                        write(o.parameters()), environments.idOf(env.description()), write(env.perTest()),
                        write(o.summary()), o.frames().size(),
                        o.samples().isEmpty() ? null : write(o.samples()));
                List<byte[]> chunks = o.frames().isEmpty() ? List.of() : FrameCodec.chunks(o.frames());
                for (int i = 0; i < chunks.size(); i++) {
                    int count = Math.min(FrameCodec.CHUNK_FRAMES, o.frames().size() - i * FrameCodec.CHUNK_FRAMES);
                    jdbc.update("INSERT INTO frame_chunk (observation_id, chunk_no, frame_count, data) VALUES (?, ?, ?, ?)",
                            newId, i, count, chunks.get(i));
                }
                return newId;
            });
            return o.withId(id);
        }

        Schedule schedule(Schedule s) {
            jdbc.update("INSERT INTO schedule (name, point, characteristic, dst, parameters, period_ms, slip_ms, start_ms, end_ms, "
                            + "test_class, enabled, created_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    s.name(), s.point(), s.characteristic(), s.dst(), write(new java.util.TreeMap<>(s.parameters())),
                    s.period().toMillis(), s.slip().toMillis(), s.start().toEpochMilli(),
                    s.end() == null ? null : s.end().toEpochMilli(), s.testClass().label(), s.enabled(), System.currentTimeMillis());
            long id = jdbc.queryForObject("SELECT id FROM schedule WHERE name = ?", Long.class, s.name());
            return new Schedule(id, s.name(), s.point(), s.characteristic(), s.dst(), s.parameters(), s.period(), s.slip(),
                    s.start(), s.end(), s.testClass(), s.enabled());
        }

        void run(long scheduleId, long slot, Instant planned, String status, Long observationId, String reason) {
            jdbc.update("INSERT INTO scheduled_run (schedule_id, slot, planned_ms, status) VALUES (?,?,?,?) "
                    + "ON CONFLICT (schedule_id, slot) DO NOTHING", scheduleId, slot, planned.toEpochMilli(), ScheduledRun.PLANNED);
            long runId = jdbc.queryForObject("SELECT id FROM scheduled_run WHERE schedule_id = ? AND slot = ?", Long.class,
                    scheduleId, slot);
            if (status.equals(ScheduledRun.PLANNED)) {
                return;
            }
            if (status.equals(ScheduledRun.NONSTARTER)) {
                jdbc.update("UPDATE scheduled_run SET status = ?, reason = ? WHERE id = ? AND status = ?", status, reason, runId,
                        ScheduledRun.PLANNED);
                return;
            }
            jdbc.update("UPDATE scheduled_run SET status = ?, started_ms = ? WHERE id = ? AND status = ?",
                    ScheduledRun.RUNNING, planned.plusMillis(20).toEpochMilli(), runId, ScheduledRun.PLANNED);
            if (!status.equals(ScheduledRun.RUNNING)) {
                jdbc.update("UPDATE scheduled_run SET status = ?, ended_ms = ?, reason = ?, observation_id = ? WHERE id = ?",
                        status, planned.plusSeconds(2).toEpochMilli(), reason, observationId, runId);
            }
        }

        private static String write(Object value) {
            try {
                return JSON.writeValueAsString(value);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
