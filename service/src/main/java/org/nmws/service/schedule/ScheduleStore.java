package org.nmws.service.schedule;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.nmws.service.archive.ArchiveTarget;
import org.nmws.service.measure.TestClass;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Schedules and their runs in the archive's database, so that they survive restarts and,
 * on PostgreSQL, are shared by every point. A run is claimed by an UPDATE that succeeds for
 * one caller only, and planned slots are unique: a restarted point plans the same slots
 * again and none runs twice. The upserts (ON CONFLICT) are the same in SQLite and PostgreSQL.
 */
public final class ScheduleStore {
    private static final String RUN_COLUMNS = "r.id, r.schedule_id, s.name, r.slot, r.planned_ms, r.status, r.started_ms, "
            + "r.ended_ms, r.reason, r.observation_id";

    private final JdbcTemplate jdbc;
    private final ObjectMapper json;

    public ScheduleStore(JdbcTemplate jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /** Creates the schedule, or replaces the one of the same name; returns it as stored. */
    public Schedule put(Schedule s) {
        return putIfOwnedBy(s, null).orElseThrow();
    }

    /**
     * Creates the schedule, or replaces the one of the same name only while its owner is
     * {@code owner} (any owner when null): the check and the write are one statement, so
     * points sharing one archive cannot both take a name they each found free or theirs.
     * Empty when another owner holds the name.
     */
    public Optional<Schedule> putIfOwnedBy(Schedule s, String owner) {
        Optional<Schedule> existing = byName(s.name());
        if (existing.isPresent() && same(existing.get(), s)) {
            return existing; // a restart re-reading its configuration changes nothing
        }
        int n = jdbc.update("INSERT INTO schedule (name, point, characteristic, dst, parameters, period_ms, slip_ms, start_ms, end_ms, "
                        + "test_class, enabled, created_ms, owner, owner_address, archives, src) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                        + "ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, owner_address = excluded.owner_address, "
                        + "point = excluded.point, characteristic = excluded.characteristic, dst = excluded.dst, "
                        + "parameters = excluded.parameters, period_ms = excluded.period_ms, slip_ms = excluded.slip_ms, "
                        + "start_ms = excluded.start_ms, end_ms = excluded.end_ms, test_class = excluded.test_class, "
                        + "enabled = excluded.enabled, archives = excluded.archives, src = excluded.src"
                        + (owner == null ? "" : " WHERE schedule.owner = ?"),
                owner == null ? new Object[] {s.name(), s.point(), s.characteristic(), s.dst(), write(s.parameters()),
                        s.period().toMillis(), s.slip().toMillis(), s.start().toEpochMilli(),
                        s.end() == null ? null : s.end().toEpochMilli(), s.testClass().label(), s.enabled(),
                        System.currentTimeMillis(), s.owner(), s.ownerAddress(), archives(s), s.src()}
                        : new Object[] {s.name(), s.point(), s.characteristic(), s.dst(), write(s.parameters()),
                        s.period().toMillis(), s.slip().toMillis(), s.start().toEpochMilli(),
                        s.end() == null ? null : s.end().toEpochMilli(), s.testClass().label(), s.enabled(),
                        System.currentTimeMillis(), s.owner(), s.ownerAddress(), archives(s), s.src(), owner});
        if (n == 0) {
            return Optional.empty();
        }
        Schedule stored = byName(s.name()).orElseThrow();
        // A changed schedule plans afresh: slots not yet run are dropped and planned again.
        jdbc.update("DELETE FROM scheduled_run WHERE schedule_id = ? AND status = ?", stored.id(), ScheduledRun.PLANNED);
        return Optional.of(stored);
    }

    /** Whether b would store as a: every field a put writes but the id and creation time. */
    static boolean same(Schedule a, Schedule b) {
        return a.point().equals(b.point()) && a.characteristic().equals(b.characteristic()) && a.dst().equals(b.dst())
                && a.parameters().equals(b.parameters()) && a.period().equals(b.period()) && a.slip().equals(b.slip())
                && a.start().equals(b.start()) && java.util.Objects.equals(a.end(), b.end()) && a.testClass() == b.testClass()
                && a.enabled() == b.enabled() && java.util.Objects.equals(a.owner(), b.owner())
                && java.util.Objects.equals(a.ownerAddress(), b.ownerAddress())
                && java.util.Objects.equals(archives(a), archives(b)) && java.util.Objects.equals(a.src(), b.src());
    }

    /** The archives as a JSON array of their specs; null for none. */
    private static String archives(Schedule s) {
        if (s.archives().isEmpty()) {
            return null;
        }
        return "[" + String.join(",", s.archives().stream().map(ArchiveTarget::canonical).toList()) + "]";
    }

    public Optional<Schedule> byName(String name) {
        return jdbc.query("SELECT * FROM schedule WHERE name = ?", this::schedule, name).stream().findFirst();
    }

    public List<Schedule> all() {
        return jdbc.query("SELECT * FROM schedule ORDER BY name", this::schedule);
    }

    /** The enabled schedules a point runs. */
    public List<Schedule> of(String point) {
        return jdbc.query("SELECT * FROM schedule WHERE point = ? AND enabled = ? ORDER BY id", this::schedule, point, true);
    }

    /**
     * This point's enabled schedules to one destination host, however its dst was written (the
     * name or literal, bracketed for IPv6): what an added schedule competes with at its far end,
     * without reading every schedule of the point (a 450-schedule pSConfig share read them all
     * for each of its schedules, 0.6 s of its 1.3 s).
     */
    public List<Schedule> of(String point, String dstHost) {
        return jdbc.query("SELECT * FROM schedule WHERE point = ? AND enabled = ? AND TRIM(dst) IN (?, ?) ORDER BY id", this::schedule,
                point, true, dstHost, "[" + dstHost + "]");
    }

    public boolean delete(String name) {
        return jdbc.update("DELETE FROM schedule WHERE name = ?", name) > 0;
    }

    /** Deletes the schedule only while {@code owner} owns it (one statement, as putIfOwnedBy). */
    public boolean deleteIfOwnedBy(String name, String owner) {
        return jdbc.update("DELETE FROM schedule WHERE name = ? AND owner = ?", name, owner) > 0;
    }

    /** Plans a slot unless it is planned already (by this point before a restart, say). */
    public void plan(Schedule s, long slot, Instant at) {
        jdbc.update("INSERT INTO scheduled_run (schedule_id, slot, planned_ms, status) VALUES (?,?,?,?) "
                + "ON CONFLICT (schedule_id, slot) DO NOTHING", s.id(), slot, at.toEpochMilli(), ScheduledRun.PLANNED);
    }


    /** The point's runs planned or running that end after from, for availability. */
    public List<ScheduledRun> pending(String point) {
        return jdbc.query("SELECT " + RUN_COLUMNS + " FROM scheduled_run r JOIN schedule s ON s.id = r.schedule_id "
                + "WHERE s.point = ? AND r.status IN (?, ?) ORDER BY r.planned_ms", this::run, point, ScheduledRun.PLANNED,
                ScheduledRun.RUNNING);
    }

    /** When this point's next planned run is due after a time, if one is planned. */
    public Optional<Instant> nextPlanned(String point, Instant after) {
        List<Long> t = jdbc.queryForList("SELECT MIN(r.planned_ms) FROM scheduled_run r JOIN schedule s ON s.id = r.schedule_id "
                + "WHERE s.point = ? AND r.status = ? AND r.planned_ms > ?", Long.class, point, ScheduledRun.PLANNED,
                after.toEpochMilli());
        return t.isEmpty() || t.get(0) == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(t.get(0)));
    }

    /** Takes a planned run for this caller; false when another took it first. */
    public boolean claim(long runId, Instant now) {
        return claim(runId, now, null);
    }

    /**
     * Takes a planned run for this caller, recording the key its result will be kept under
     * (so that the run is found by its result after a crash); false when another took it first.
     */
    public boolean claim(long runId, Instant now, UUID resultKey) {
        return jdbc.update("UPDATE scheduled_run SET status = ?, started_ms = ?, result_key = ? WHERE id = ? AND status = ?",
                ScheduledRun.RUNNING, now.toEpochMilli(), resultKey == null ? null : resultKey.toString(), runId,
                ScheduledRun.PLANNED) == 1;
    }

    /**
     * A claim made while the database was down, written when it returned: as claim, and when the
     * result kept under its key was written from the spool before this (its {@link #kept} found
     * no run with the key then), the run is done with it now.
     */
    public void claimLate(long runId, Instant started, UUID resultKey) {
        claim(runId, started, resultKey);
        List<Long> written = jdbc.queryForList("SELECT id FROM observation WHERE result_key = ?", Long.class, resultKey.toString());
        if (!written.isEmpty()) {
            kept(resultKey, written.get(0), started);
        }
    }

    /**
     * A run whose result was held (the archive could not keep it then): done, its observation
     * id left for {@link #kept} unless that came first, or the result is in the archive already
     * (a record written late, from the scheduler's journal, after the spool wrote the result).
     */
    public void finishHeld(long runId, Instant ended, String reason) {
        jdbc.update("UPDATE scheduled_run SET status = ?, ended_ms = ?, reason = ?, observation_id = (SELECT o.id FROM "
                        + "observation o WHERE o.result_key = scheduled_run.result_key) WHERE id = ? AND observation_id IS NULL",
                ScheduledRun.DONE, ended.toEpochMilli(), clip(reason), runId);
    }

    /**
     * The result kept under a key reached the archive (written from the spool of held
     * results): the run that measured it is done, with it, whatever was recorded before (a
     * point killed meanwhile recorded it as interrupted at its restart). Told again for the
     * same key after a crash, it changes nothing more.
     */
    public void kept(UUID resultKey, long observationId, Instant now) {
        jdbc.update("UPDATE scheduled_run SET status = ?, observation_id = ?, ended_ms = COALESCE(ended_ms, ?), reason = ? "
                        + "WHERE result_key = ? AND (observation_id IS NULL OR status <> ?)", ScheduledRun.DONE, observationId,
                now.toEpochMilli(), "its result was held while the archive could not keep it, and written later",
                resultKey.toString(), ScheduledRun.DONE);
    }

    public void finish(long runId, String status, Instant ended, String reason, Long observationId) {
        jdbc.update("UPDATE scheduled_run SET status = ?, ended_ms = ?, reason = ?, observation_id = ? WHERE id = ?",
                status, ended.toEpochMilli(), reason == null ? null : clip(reason), observationId, runId);
    }

    /** Moves a planned run to the start its far end granted; false when it is no longer planned. */
    public boolean replan(long runId, Instant at) {
        return jdbc.update("UPDATE scheduled_run SET planned_ms = ? WHERE id = ? AND status = ?", at.toEpochMilli(), runId,
                ScheduledRun.PLANNED) == 1;
    }

    /** A planned run that will not start: its slot passed, or the host was taken. */
    public boolean nonStarter(long runId, String reason) {
        return jdbc.update("UPDATE scheduled_run SET status = ?, reason = ? WHERE id = ? AND status = ?",
                ScheduledRun.NONSTARTER, clip(reason), runId, ScheduledRun.PLANNED) == 1;
    }

    /**
     * Runs a point had begun when it stopped: those whose result reached the archive (the
     * point was killed after keeping it, before recording the run) are done with it; the others
     * ended with the point. Returns how many were interrupted.
     */
    public int interrupted(String point, Instant now) {
        // done runs still waiting for a result the archive has (told to no one: written by the
        // spool before its listener was there, or before the run's record came from the journal)
        jdbc.update("UPDATE scheduled_run SET observation_id = (SELECT o.id FROM observation o WHERE o.result_key = "
                        + "scheduled_run.result_key) WHERE status = ? AND observation_id IS NULL AND result_key IN (SELECT result_key "
                        + "FROM observation WHERE result_key IS NOT NULL) AND schedule_id IN (SELECT id FROM schedule WHERE point = ?)",
                ScheduledRun.DONE, point);
        jdbc.update("UPDATE scheduled_run SET status = ?, ended_ms = ?, reason = ?, observation_id = (SELECT o.id FROM observation o "
                        + "WHERE o.result_key = scheduled_run.result_key) WHERE status = ? AND result_key IN (SELECT result_key "
                        + "FROM observation WHERE result_key IS NOT NULL) AND schedule_id IN (SELECT id FROM schedule WHERE point = ?)",
                ScheduledRun.DONE, now.toEpochMilli(), "its result was kept; the point stopped before it recorded the run",
                ScheduledRun.RUNNING, point);
        return jdbc.update("UPDATE scheduled_run SET status = ?, ended_ms = ?, reason = ? WHERE status = ? AND schedule_id IN "
                        + "(SELECT id FROM schedule WHERE point = ?)", ScheduledRun.FAILED, now.toEpochMilli(),
                INTERRUPTED, ScheduledRun.RUNNING, point);
    }

    /** A schedule's runs planned up to a time (Instant.MAX: the planned future too), newest first. */
    public List<ScheduledRun> runs(long scheduleId, int limit, Instant until) {
        long u = until.equals(Instant.MAX) ? Long.MAX_VALUE : until.toEpochMilli();
        return jdbc.query("SELECT " + RUN_COLUMNS + " FROM scheduled_run r JOIN schedule s ON s.id = r.schedule_id "
                + "WHERE r.schedule_id = ? AND r.planned_ms <= ? ORDER BY r.slot DESC LIMIT ?", this::run, scheduleId, u, limit);
    }

    /** The schedule's latest run that kept a result, if one did: the result its grid cell shows. */
    public Optional<ScheduledRun> latestDone(long scheduleId) {
        return jdbc.query("SELECT " + RUN_COLUMNS + " FROM scheduled_run r JOIN schedule s ON s.id = r.schedule_id "
                + "WHERE r.schedule_id = ? AND r.status = ? AND r.observation_id IS NOT NULL ORDER BY r.slot DESC LIMIT 1",
                this::run, scheduleId, ScheduledRun.DONE).stream().findFirst();
    }

    /**
     * Which of these schedules' runs kept these observations, by observation id: the test
     * definition each result belongs to (an observation not in the map was asked for on demand,
     * or by a schedule not among these). Searched within the schedules' own runs, which the
     * (schedule_id, slot) key finds without reading every run of the archive.
     */
    public java.util.Map<Long, String> definitionsOf(java.util.Collection<Long> scheduleIds,
                                                     java.util.Collection<Long> observationIds) {
        java.util.Map<Long, String> out = new java.util.HashMap<>();
        if (scheduleIds.isEmpty() || observationIds.isEmpty()) {
            return out;
        }
        List<Long> ids = List.copyOf(observationIds);
        String schedules = String.join(",", java.util.Collections.nCopies(scheduleIds.size(), "?"));
        // in chunks: both databases bound the parameters of one statement
        for (int from = 0; from < ids.size(); from += 400) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + 400));
            List<Object> args = new java.util.ArrayList<>(scheduleIds);
            args.addAll(chunk);
            jdbc.query("SELECT r.observation_id, s.name FROM scheduled_run r JOIN schedule s ON s.id = r.schedule_id "
                    + "WHERE r.schedule_id IN (" + schedules + ") AND r.observation_id IN ("
                    + String.join(",", java.util.Collections.nCopies(chunk.size(), "?")) + ")", rs -> {
                        out.put(rs.getLong(1), rs.getString(2));
                    }, args.toArray());
        }
        return out;
    }

    /** Why a run under way when its point stopped failed: the point's doing, not the path's. */
    static final String INTERRUPTED = "interrupted: the point stopped while the test ran";

    /**
     * How many of a schedule's latest finished runs failed in a row. A run its own point's stop
     * interrupted is no failure of the far end or the path, and counts neither way: a point
     * restarted would otherwise back off from a healthy far end.
     */
    public int failuresInARow(long scheduleId) {
        int n = 0;
        for (Map<String, Object> r : jdbc.queryForList("SELECT status, reason FROM scheduled_run WHERE schedule_id = ? "
                + "AND status IN (?, ?) ORDER BY slot DESC LIMIT 16", scheduleId, ScheduledRun.DONE, ScheduledRun.FAILED)) {
            if (INTERRUPTED.equals(r.get("reason"))) {
                continue;
            }
            if (!ScheduledRun.FAILED.equals(r.get("status"))) {
                break;
            }
            n++;
        }
        return n;
    }

    /** The slot of the schedule's latest failed run (one its point's stop interrupted aside), or null. */
    public Long lastFailedSlot(long scheduleId) {
        List<Long> s = jdbc.queryForList("SELECT MAX(slot) FROM scheduled_run WHERE schedule_id = ? AND status = ? AND "
                + "(reason IS NULL OR reason <> ?)", Long.class, scheduleId, ScheduledRun.FAILED, INTERRUPTED);
        return s.isEmpty() ? null : s.get(0);
    }

    /** The last run's duration, to plan around it; null when none has run. */
    public Duration lastDuration(long scheduleId) {
        List<Long> d = jdbc.queryForList("SELECT ended_ms - started_ms FROM scheduled_run WHERE schedule_id = ? AND "
                + "ended_ms IS NOT NULL AND started_ms IS NOT NULL ORDER BY slot DESC LIMIT 1", Long.class, scheduleId);
        return d.isEmpty() ? null : Duration.ofMillis(Math.max(0, d.get(0)));
    }

    private static String clip(String s) {
        return s.length() <= 1000 ? s : s.substring(0, 1000) + "...";
    }

    private Schedule schedule(ResultSet rs, int row) throws SQLException {
        long end = rs.getLong("end_ms");
        return new Schedule(rs.getLong("id"), rs.getString("name"), rs.getString("point"), rs.getString("characteristic"),
                rs.getString("dst"), read(rs.getString("parameters")), Duration.ofMillis(rs.getLong("period_ms")),
                Duration.ofMillis(rs.getLong("slip_ms")), Instant.ofEpochMilli(rs.getLong("start_ms")),
                rs.wasNull() || end == 0 ? null : Instant.ofEpochMilli(end), TestClass.parse(rs.getString("test_class")),
                rs.getBoolean("enabled"), rs.getString("owner"), rs.getString("owner_address"), archives(rs.getString("archives")),
                rs.getString("src"));
    }

    private List<ArchiveTarget> archives(String text) {
        if (text == null) {
            return List.of();
        }
        try {
            return ArchiveTarget.parseAll(json.readTree(text));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalStateException("a schedule's archives cannot be read: " + e.getMessage(), e);
        }
    }

    /** How many schedules a client owns (its Caller.owner()). */
    public int ownedBy(String owner) {
        Integer n = jdbc.queryForObject("SELECT COUNT(*) FROM schedule WHERE owner = ?", Integer.class, owner);
        return n == null ? 0 : n;
    }

    private ScheduledRun run(ResultSet rs, int row) throws SQLException {
        return new ScheduledRun(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getLong(4), Instant.ofEpochMilli(rs.getLong(5)),
                rs.getString(6), instant(rs, 7), instant(rs, 8), rs.getString(9), nullableLong(rs, 10));
    }

    private static Instant instant(ResultSet rs, int col) throws SQLException {
        long v = rs.getLong(col);
        return rs.wasNull() ? null : Instant.ofEpochMilli(v);
    }

    private static Long nullableLong(ResultSet rs, int col) throws SQLException {
        long v = rs.getLong(col);
        return rs.wasNull() ? null : v;
    }

    private String write(Map<String, String> p) {
        try {
            return json.writeValueAsString(new java.util.TreeMap<>(p));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private Map<String, String> read(String text) {
        try {
            return json.readValue(text, new TypeReference<Map<String, String>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("schedule parameters are not JSON: " + e.getMessage(), e);
        }
    }
}
