package org.nmws.service.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.measure.TestClass;

/**
 * Planning and availability on a real store (SQLite and PostgreSQL), on a clock the test
 * sets: slots are planned once however often (and by however many restarted schedulers) they
 * are planned, slips stay within the slip and are the same after a restart, and availability
 * finds the first window each class may use.
 */
class SchedulerPlanTest {
    private static final Instant T0 = Instant.parse("2026-11-25T12:00:00Z");

    @TempDir
    Path dir;

    @Test
    void onSqlite() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            check(new ScheduleStore(s.jdbc(), new ObjectMapper()));
        }
    }

    @Test
    void onPostgres() throws Exception {
        try (TestArchives.Store s = TestArchives.postgresStore(null)) {
            check(new ScheduleStore(s.jdbc(), new ObjectMapper()));
        }
    }

    /**
     * Two points' schedules with the same database id and slot numbers slip apart (issue 24:
     * slips drawn from the id made every point pick the same instants and meet at one responder).
     */
    @Test
    void pointsThatNumberTheirSchedulesAlikeStillSlipApart() {
        int same = 0;
        for (int k = 0; k < 100; k++) {
            Schedule a = new Schedule(1, "owd:a:c", "a", "path.delay.oneWay", "10.0.0.3", Map.of(),
                    Duration.ofSeconds(30), Duration.ofSeconds(30), T0, null, TestClass.NORMAL, true);
            Schedule b = new Schedule(1, "owd:b:c", "b", "path.delay.oneWay", "10.0.0.3", Map.of(),
                    Duration.ofSeconds(30), Duration.ofSeconds(30), T0, null, TestClass.NORMAL, true);
            if (Math.abs(Duration.between(a.plannedAt(k), b.plannedAt(k)).toMillis()) < 2000) {
                same++;
            }
            assertTrue(!a.plannedAt(k).isBefore(T0.plusSeconds(30L * k)) && a.plannedAt(k).isBefore(T0.plusSeconds(30L * k + 30)));
        }
        // two uniform slips in 30 s fall within 2 s of each other about 13 % of the time
        assertTrue(same < 30, same + " of 100 slots within 2 s of each other");
    }

    private void check(ScheduleStore store) {
        Schedule x = store.put(new Schedule(0, "x", "p", "path.bandwidth.achievable.TCP", "10.0.0.2", Map.of("count", "1"),
                Duration.ofSeconds(60), Duration.ZERO, T0, null, TestClass.EXCLUSIVE, true));
        Schedule n = store.put(new Schedule(0, "n", "p", "path.delay.oneWay", "10.0.0.3", Map.of(),
                Duration.ofSeconds(60), Duration.ZERO, T0.plusSeconds(20), null, TestClass.NORMAL, true));
        Schedule j = store.put(new Schedule(0, "jitter", "p", "path.delay.roundTrip", "10.0.0.4", Map.of(),
                Duration.ofSeconds(10), Duration.ofSeconds(5), T0, null, TestClass.BACKGROUND, true));
        store.put(new Schedule(0, "elsewhere", "q", "path.delay.roundTrip", "10.0.0.5", Map.of(),
                Duration.ofSeconds(10), Duration.ZERO, T0, null, TestClass.BACKGROUND, true));

        Instant now = T0.minusSeconds(1);
        Scheduler a = scheduler(store, now);
        for (Schedule s : store.of("p")) {
            a.plan(s, now);
            a.plan(s, now); // again: nothing new
        }
        List<ScheduledRun> pending = store.pending("p");
        // horizon 2 min: x and n 2 slots each, jitter 12 (slots 0..11 within T0-1 .. T0+119)
        assertEquals(2 + 2 + 12, pending.size(), pending.toString());
        assertTrue(store.pending("q").isEmpty(), "only this point's schedules are planned here");
        // A restarted scheduler plans the same slots, at the same slipped times.
        List<Instant> before = store.runs(j.id(), 100, Instant.MAX).stream().map(ScheduledRun::planned).toList();
        Scheduler restarted = scheduler(store, now);
        for (Schedule s : store.of("p")) {
            restarted.plan(s, now);
        }
        assertEquals(pending.size(), store.pending("p").size());
        assertEquals(before, store.runs(j.id(), 100, Instant.MAX).stream().map(ScheduledRun::planned).toList());
        for (ScheduledRun r : store.runs(j.id(), 100, Instant.MAX)) {
            long off = Duration.between(T0.plusSeconds(10 * r.slot()), r.planned()).toMillis();
            assertTrue(off >= 0 && off < 5000, "slip within 5 s: " + off);
        }
        // A run is claimed once.
        ScheduledRun first = store.runs(x.id(), 10, Instant.MAX).get(1); // oldest last: slot 0
        assertEquals(0, first.slot());
        assertTrue(store.claim(first.id(), T0));
        assertTrue(!store.claim(first.id(), T0), "a second claim fails");

        // Availability (runs of unknown length count 10 s): x [T0, T0+10] (running since T0),
        // n [T0+20, T0+30], the background round trips never count.
        assertEquals(T0.plusSeconds(10), a.availability(TestClass.EXCLUSIVE, Duration.ofSeconds(5), now));
        assertEquals(T0.plusSeconds(30), a.availability(TestClass.EXCLUSIVE, Duration.ofSeconds(15), now));
        assertEquals(T0.plusSeconds(10), a.availability(TestClass.NORMAL, Duration.ofSeconds(15), now));
        assertEquals(now, a.availability(TestClass.BACKGROUND, Duration.ofMinutes(5), now));
        assertEquals(now, a.availability(TestClass.NORMAL, Duration.ofMillis(900), now));
        assertTrue(n.id() > 0);

        // Two failed runs in a row: the next 3 slots back off, the 4th starts again.
        List<ScheduledRun> js = new java.util.ArrayList<>(store.runs(j.id(), 100, Instant.MAX));
        js.sort(java.util.Comparator.comparingLong(ScheduledRun::slot));
        for (int i = 0; i < 2; i++) {
            assertTrue(store.claim(js.get(i).id(), T0));
            store.finish(js.get(i).id(), ScheduledRun.FAILED, T0, "refused", null);
        }
        for (int i = 2; i <= 4; i++) {
            assertTrue(a.backOff(j, js.get(i)) != null && a.backOff(j, js.get(i)).contains("2 failed runs"), "slot " + i);
        }
        assertEquals(null, a.backOff(j, js.get(5)));

        // A run its own point's stop interrupted is no failure of the path: after a success it starts
        // no back-off, and it neither adds to nor ends a run of failures.
        assertTrue(store.claim(js.get(5).id(), T0));
        store.finish(js.get(5).id(), ScheduledRun.DONE, T0, null, null);
        assertTrue(store.claim(js.get(6).id(), T0));
        assertTrue(store.interrupted(j.point(), T0) >= 1, "the run under way when the point stopped");
        assertEquals(0, store.failuresInARow(j.id()));
        assertEquals(null, a.backOff(j, js.get(7)), "a restarted point does not back off from a healthy far end");
    }

    /**
     * Disabling a schedule drops its planned runs; enabled again as it was, it plans from now
     * (it planned nothing until its old horizon had passed: found by the dashboard's test, which
     * stops a schedule for a while and starts it again).
     */
    @Test
    void aScheduleDisabledAndEnabledAgainPlansItsSlotsAgain() throws Exception {
        try (TestArchives.Store db = TestArchives.sqliteStore(dir, null)) {
            ScheduleStore store = new ScheduleStore(db.jdbc(), new ObjectMapper());
            Schedule on = new Schedule(0, "again", "p", "path.delay.roundTrip", "10.0.0.2", Map.of(), Duration.ofSeconds(60),
                    Duration.ZERO, T0, null, TestClass.NORMAL, true);
            Schedule off = new Schedule(0, "again", "p", "path.delay.roundTrip", "10.0.0.2", Map.of(), Duration.ofSeconds(60),
                    Duration.ZERO, T0, null, TestClass.NORMAL, false);
            Scheduler scheduler = scheduler(store, T0);
            Schedule stored = store.put(on);
            scheduler.tick(T0.minusSeconds(3));
            assertEquals(List.of(1L, 0L), slots(store, stored));
            store.put(off);
            assertEquals(List.of(), slots(store, stored), "disabled: its planned runs are dropped");
            scheduler.tick(T0.minusSeconds(2));
            store.put(on);
            scheduler.tick(T0.minusSeconds(1));
            assertEquals(List.of(1L, 0L), slots(store, stored), "enabled again: planned again");
        }
    }

    private static List<Long> slots(ScheduleStore store, Schedule s) {
        return store.runs(s.id(), 100, Instant.MAX).stream().map(ScheduledRun::slot).toList();
    }

    private static Scheduler scheduler(ScheduleStore store, Instant now) {
        return new Scheduler(store, null, "p", Duration.ofMinutes(2), 1, Clock.fixed(now, ZoneOffset.UTC), false);
    }
}
