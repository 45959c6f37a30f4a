package org.nmws.service.grid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.kind.Kinds;
import org.nmws.service.measure.TestClass;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.schedule.Schedule;
import org.nmws.service.schedule.ScheduleStore;
import org.nmws.service.schedule.ScheduledRun;

/**
 * The grid's cells from a real archive (SQLite, its migrations, schedules and runs as the
 * scheduler records them): each bound to its test definition, with the age of that
 * definition's latest result and its state; a test run on demand colours nothing.
 */
class MeshGridTest {
    private static final Instant T0 = Instant.parse("2026-05-01T12:00:00Z");
    private static final Mesh MESH = new Mesh(List.of(
            new Mesh.Point("cern", "http://127.0.0.1:1", "192.0.2.10", 0, null, null),
            new Mesh.Point("ral", "http://127.0.0.1:1", "198.51.100.7", 0, null, null)),
            List.of(new Mesh.Group("latency", "path.delay.roundTrip", Map.of(), "PT1M", null, null, null, null)));

    @TempDir
    Path dir;
    private TestArchives.Store db;
    private ScheduleStore store;
    private RemoteGrids remote;

    /** The archive the grid reads: SQLite here, PostgreSQL in {@link MeshGridPostgresTest}. */
    TestArchives.Store newStore(Path dir) throws Exception {
        return TestArchives.sqliteStore(dir, null);
    }

    @BeforeEach
    void open() throws Exception {
        db = newStore(dir);
        store = new ScheduleStore(db.jdbc(), new ObjectMapper());
        remote = new RemoteGrids(Duration.ofSeconds(1), 1 << 20);
    }

    @AfterEach
    void close() throws Exception {
        remote.close();
        db.close();
    }

    @Test
    void aCellShowsItsDefinitionsLatestResultAndAgeAndAnOnDemandTestChangesNothing() {
        Schedule rtt = schedule("latency:cern:ral", "198.51.100.7", Duration.ofMinutes(1));
        Observation kept = run(rtt, 1, ScheduledRun.DONE, T0, 8.5);
        // newer, and from the same point to the same place, but asked for on demand
        save(ProbeTest.ROUND_TRIP, T0.plusSeconds(20), 99.0);
        Map<String, Object> d = definition(grid(T0.plusSeconds(31)), "cern", "ral", "latency:cern:ral");
        assertEquals("ok", d.get("state"));
        assertEquals("latency", d.get("definition"));
        assertEquals("mesh", d.get("origin"));
        Map<String, Object> result = map(d.get("result"));
        assertEquals(kept.id(), result.get("observationId"));
        assertEquals(Map.of("rttMs", 8.5, "lossPercent", 0.0), result.get("figures"));
        assertEquals(30.0, result.get("ageSeconds"), "ended at T0 + 1 s, read at T0 + 31 s");
        assertEquals("latest result is 30 s old", d.get("reason"));
    }

    @Test
    void aResultOlderThanThreePeriodsIsStale() {
        Schedule rtt = schedule("latency:cern:ral", "198.51.100.7", Duration.ofMinutes(1));
        run(rtt, 1, ScheduledRun.DONE, T0, 8.5);
        Map<String, Object> fresh = definition(grid(T0.plusSeconds(181)), "cern", "ral", "latency:cern:ral");
        assertEquals("ok", fresh.get("state"), "exactly three periods old is not yet stale");
        Map<String, Object> old = definition(grid(T0.plusSeconds(182)), "cern", "ral", "latency:cern:ral");
        assertEquals("stale", old.get("state"));
        assertEquals("latest result is 3 min old, more than 3 periods of 60 s", old.get("reason"));
        assertEquals(181.0, map(old.get("result")).get("ageSeconds"));
    }

    @Test
    void twoRunsWithoutAResultMakeACellFailingThoughAnOlderResultIsFresh() {
        Schedule rtt = schedule("latency:cern:ral", "198.51.100.7", Duration.ofMinutes(1));
        run(rtt, 1, ScheduledRun.DONE, T0, 8.5);
        run(rtt, 2, ScheduledRun.FAILED, T0.plusSeconds(60), 0);
        Map<String, Object> one = definition(grid(T0.plusSeconds(90)), "cern", "ral", "latency:cern:ral");
        assertEquals("ok", one.get("state"), "one failure in a while is not a failing cell");
        run(rtt, 3, ScheduledRun.NONSTARTER, T0.plusSeconds(120), 0);
        Map<String, Object> g = grid(T0.plusSeconds(125));
        Map<String, Object> two = definition(g, "cern", "ral", "latency:cern:ral");
        assertEquals("failing", two.get("state"));
        assertEquals("its last run did not start: slot 3 taken", two.get("reason"));
        assertEquals(8.5, map(map(two.get("result")).get("figures")).get("rttMs"), "the latest result is still shown");
        assertEquals("failing", cell(g, "cern", "ral").get("state"));
    }

    @Test
    void aDefinitionThatNeverRanIsPendingAndOneThatNeverSucceededIsFailing() {
        schedule("latency:cern:ral", "198.51.100.7", Duration.ofMinutes(1));
        Schedule owd = schedule("owd-to-ral", "198.51.100.7", Duration.ofMinutes(1));
        run(owd, 1, ScheduledRun.FAILED, T0, 0);
        // an on-demand success to the same pair does not make the never-successful schedule green
        save(ProbeTest.ROUND_TRIP, T0.plusSeconds(5), 1.0);
        Map<String, Object> g = grid(T0.plusSeconds(10));
        assertEquals("pending", definition(g, "cern", "ral", "latency:cern:ral").get("state"));
        Map<String, Object> failing = definition(g, "cern", "ral", "owd-to-ral");
        assertEquals("failing", failing.get("state"));
        assertEquals("never gave a result; its last run failed: slot 1 failed", failing.get("reason"));
        assertNull(failing.get("result"));
        assertEquals("schedule", failing.get("origin"));
        assertEquals("failing", cell(g, "cern", "ral").get("state"), "the cell looks as its worst definition");
    }

    @Test
    void aPsConfigTasksScheduleIsNamedByItsTask() {
        Schedule task = schedule("psconfig:rtt-every-minute:cern:ral", "198.51.100.7", Duration.ofMinutes(1));
        run(task, 1, ScheduledRun.DONE, T0, 2.0);
        Map<String, Object> d = definition(grid(T0.plusSeconds(5)), "cern", "ral", "psconfig:rtt-every-minute:cern:ral");
        assertEquals("rtt-every-minute", d.get("definition"));
        assertEquals("psconfig", d.get("origin"));
        assertEquals("ok", d.get("state"));
        assertEquals("PT1M", d.get("period"));
        assertEquals(Map.of("status", "DONE", "planned", T0.toString(), "reason", "none"),
                withNone(map(d.get("lastRun"))));
    }

    private static Map<String, Object> withNone(Map<String, Object> m) {
        Map<String, Object> out = new java.util.HashMap<>(m);
        out.replaceAll((k, v) -> v == null ? "none" : v);
        return out;
    }

    @Test
    void withoutAMeshRowsAreThePointsAndColumnsTheDestinationsAsNamed() {
        Schedule rtt = schedule("mine", "203.0.113.9", Duration.ofMinutes(1));
        run(rtt, 1, ScheduledRun.DONE, T0, 3.0);
        Map<String, Object> g = new MeshGrid(store, db.archive(), Mesh.NONE, "cern", Kinds.measurementKinds(), remote,
                Clock.fixed(T0.plusSeconds(2), ZoneOffset.UTC), 3).grid(false);
        assertEquals(List.of("cern"), g.get("rows"));
        assertEquals(List.of("203.0.113.9"), g.get("columns"));
        assertEquals("ok", definition(g, "cern", "203.0.113.9", "mine").get("state"));
        assertEquals(List.of(), g.get("points"));
    }

    @Test
    void aMeshPointThatCannotBeReachedIsShownSoAndItsRowStaysEmpty() {
        Map<String, Object> g = grid(T0);
        List<Map<String, Object>> points = list(g.get("points"));
        assertEquals(2, points.size());
        assertEquals("cern", points.get(0).get("name"));
        assertEquals(true, points.get(0).get("reachable"));
        Map<String, Object> ral = points.get(1);
        assertEquals("ral", ral.get("name"));
        assertEquals("remote", ral.get("source"));
        assertEquals(false, ral.get("reachable"));
        assertTrue(String.valueOf(ral.get("error")).startsWith("cannot be reached at http://127.0.0.1:1"), ral.toString());
        assertEquals(List.of("cern", "ral"), g.get("rows"));
        assertFalse(list(g.get("cells")).stream().anyMatch(c -> "ral".equals(c.get("src"))));
    }

    // ---- helpers --------------------------------------------------------------------------

    private Map<String, Object> grid(Instant now) {
        return new MeshGrid(store, db.archive(), MESH, "cern", Kinds.measurementKinds(), remote,
                Clock.fixed(now, ZoneOffset.UTC), 3).grid(false);
    }

    private Schedule schedule(String name, String dst, Duration period) {
        return store.put(new Schedule(0, name, "cern", "path.delay.roundTrip", dst, Map.of("count", "5"), period, Duration.ZERO,
                T0.minusSeconds(3600), null, TestClass.NORMAL, true));
    }

    /** A run as the scheduler records it: planned, claimed, ended DONE with its observation, or not. */
    private Observation run(Schedule s, long slot, String status, Instant at, double rtt) {
        store.plan(s, slot, at);
        ScheduledRun r = store.runs(s.id(), 100, Instant.MAX).stream().filter(x -> x.slot() == slot).findFirst().orElseThrow();
        if (status.equals(ScheduledRun.NONSTARTER)) {
            assertTrue(store.nonStarter(r.id(), "slot " + slot + " taken"));
            return null;
        }
        assertTrue(store.claim(r.id(), at));
        Observation o = status.equals(ScheduledRun.DONE) ? save(ProbeTest.ROUND_TRIP, at, rtt) : null;
        store.finish(r.id(), status, at.plusSeconds(1), o == null ? "slot " + slot + " failed" : null, o == null ? null : o.id());
        return o;
    }

    private Observation save(ProbeTest test, Instant at, double rtt) {
        return db.archive().save(new Observation(0, "cern", test, new PathSubject(null, new Endpoint("198.51.100.7", "ipv4")),
                "192.0.2.10", "198.51.100.7", "nmprobe", "t", Map.of("count", "5"), new Environment(null, null), at,
                at.plusSeconds(1), Map.of("medianRtt", rtt, "lossPercent", 0.0), List.of()));
    }

    private static Map<String, Object> cell(Map<String, Object> grid, String src, String dst) {
        return list(grid.get("cells")).stream().filter(c -> src.equals(c.get("src")) && dst.equals(c.get("dst"))).findFirst()
                .orElseThrow(() -> new AssertionError("no cell " + src + " -> " + dst + " in " + grid.get("cells")));
    }

    private static Map<String, Object> definition(Map<String, Object> grid, String src, String dst, String name) {
        return list(cell(grid, src, dst).get("definitions")).stream().filter(d -> name.equals(d.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no definition " + name + " in " + cell(grid, src, dst)));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object o) {
        return (List<Map<String, Object>>) o;
    }
}
