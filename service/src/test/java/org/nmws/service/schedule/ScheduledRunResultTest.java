package org.nmws.service.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.archive.JdbcArchive;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Issue 21: a scheduled run is found by its result's key. A point killed after keeping a run's
 * result and before recording the run finds it DONE with that result at its restart, not
 * interrupted; a held result written later makes its run DONE whatever was recorded meanwhile;
 * recording a held run done never drops the result a drain already pointed it at.
 */
class ScheduledRunResultTest {
    private static final Instant T0 = Instant.parse("2026-11-26T08:00:00Z");

    @TempDir
    Path dir;

    @Test
    void onSqlite() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            check(s.archive(), new ScheduleStore(s.jdbc(), new ObjectMapper()));
        }
    }

    @Test
    void onPostgres() throws Exception {
        try (TestArchives.Store s = TestArchives.postgresStore(null)) {
            check(s.archive(), new ScheduleStore(s.jdbc(), new ObjectMapper()));
        }
    }

    private void check(JdbcArchive archive, ScheduleStore store) {
        Schedule s = store.put(new Schedule(0, "rtt", "p", "path.delay.roundTrip", "10.0.0.2", Map.of("count", "5"),
                Duration.ofSeconds(10), Duration.ZERO, T0, null, TestClass.BACKGROUND, true));
        for (long slot = 0; slot < 4; slot++) {
            store.plan(s, slot, T0.plusSeconds(10 * slot));
        }
        List<ScheduledRun> runs = store.runs(s.id(), 10, Instant.MAX); // newest first
        ScheduledRun keptThenKilled = runs.get(3);
        ScheduledRun killedMidTest = runs.get(2);
        ScheduledRun heldThenKilled = runs.get(1);
        ScheduledRun held = runs.get(0);
        UUID k0 = UUID.randomUUID();
        UUID k1 = UUID.randomUUID();
        UUID k2 = UUID.randomUUID();
        UUID k3 = UUID.randomUUID();
        assertTrue(store.claim(keptThenKilled.id(), T0, k0));
        assertTrue(store.claim(killedMidTest.id(), T0.plusSeconds(10), k1));
        assertTrue(store.claim(heldThenKilled.id(), T0.plusSeconds(20), k2));
        assertTrue(store.claim(held.id(), T0.plusSeconds(30), k3));
        long id0 = archive.save(observation(T0), k0).id(); // kept; the point is killed before recording the run

        // A held run recorded done, then its result written: it points at the result.
        store.finishHeld(held.id(), T0.plusSeconds(32), "held");
        long id3 = archive.save(observation(T0.plusSeconds(30)), k3).id();
        store.kept(k3, id3, T0.plusSeconds(40));
        // Written first and recorded after (the record waited for the database): the pointer stays.
        store.finishHeld(held.id(), T0.plusSeconds(32), "held");

        assertEquals(2, store.interrupted("p", T0.plusSeconds(50)), "the run killed mid-test and the held one");
        // The held result of a run recorded as interrupted is written at the restart.
        long id2 = archive.save(observation(T0.plusSeconds(20)), k2).id();
        store.kept(k2, id2, T0.plusSeconds(60));
        store.kept(k2, id2, T0.plusSeconds(61)); // told again after a crash: nothing changes

        runs = store.runs(s.id(), 10, Instant.MAX);
        assertEquals(ScheduledRun.DONE, runs.get(3).status());
        assertEquals(id0, runs.get(3).observationId(), "found by its key, not interrupted");
        assertEquals(ScheduledRun.FAILED, runs.get(2).status());
        assertNull(runs.get(2).observationId());
        assertTrue(runs.get(2).reason().startsWith("interrupted"), runs.get(2).reason());
        assertEquals(ScheduledRun.DONE, runs.get(1).status());
        assertEquals(id2, runs.get(1).observationId());
        assertEquals(ScheduledRun.DONE, runs.get(0).status());
        assertEquals(id3, runs.get(0).observationId());
        assertEquals(Instant.ofEpochSecond(T0.plusSeconds(32).getEpochSecond()), runs.get(0).ended());
    }

    private static Observation observation(Instant start) {
        return new Observation(0, "p", ProbeTest.ROUND_TRIP, new PathSubject(null, new Endpoint("10.0.0.2", "ipv4")),
                "10.0.0.1", "10.0.0.2", "nmprobe", "t", Map.of("count", "5"), new Environment(null, null), start,
                start.plusSeconds(1), Map.of("meanRtt", 1.0), List.of());
    }
}
