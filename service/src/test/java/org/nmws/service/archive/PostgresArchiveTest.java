package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.nmws.service.observation.Observation;

/**
 * The archive contract on a real PostgreSQL server (scripts/test.sh starts one and hands its
 * URL in). Each store is a schema of its own, dropped afterwards. Without a server this
 * fails rather than skips, unless -Dnmws.test.postgres=skip asks otherwise. Beyond the
 * contract: the time partitions of schema V11.
 */
class PostgresArchiveTest extends ArchiveContractTest {
    private static final Instant NOW = Instant.parse("2026-06-10T12:00:00Z");
    private static final Instant DAY = Instant.parse("2026-06-10T00:00:00Z");

    @Override
    TestArchives.Store newStore(String target) throws Exception {
        return TestArchives.postgresStore(target);
    }

    /** The partition of the table that holds a row, by its start. */
    private String partitionOf(String table, String where, Object... args) {
        return store.jdbc().queryForObject("SELECT tableoid::regclass::text FROM " + table + " WHERE " + where, String.class, args);
    }

    private List<String> partitions(String table) {
        return store.jdbc().queryForList("SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                + " WHERE i.inhparent = ?::regclass ORDER BY 1", String.class, table);
    }

    @Test
    void windowsExistAroundTheClockAndResultsLandInTheirs() {
        archive.maintain(NOW);
        // the day before, today, and two days ahead (2026-06-12T12:00 falls in the 12th)
        assertEquals(List.of("observation_default", "observation_p20260609_0000", "observation_p20260610_0000",
                "observation_p20260611_0000", "observation_p20260612_0000"), partitions("observation"));
        assertEquals(4, partitions("frame_chunk").size() - 1);
        Observation o = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", NOW, Map.of("meanRtt", 1.0),
                frames(5, JdbcArchive.epochNanos(NOW))));
        assertEquals("observation_p20260610_0000", partitionOf("observation", "id = ?", o.id()));
        assertEquals("frame_chunk_p20260610_0000", partitionOf("frame_chunk", "observation_id = ?", o.id()));
        assertEquals(o, archive.findById(o.id(), true).orElseThrow());
        archive.maintain(NOW);
        assertEquals(5, partitions("observation").size(), "a second pass changes nothing");
    }

    @Test
    void rowsTheDefaultPartitionTookMoveToTheirWindowWhenItIsMade() {
        Instant weekAgo = NOW.minus(Duration.ofDays(7));
        UUID key = UUID.randomUUID();
        Observation old = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", weekAgo, Map.of("meanRtt", 1.0),
                frames(FrameCodec.CHUNK_FRAMES + 3, JdbcArchive.epochNanos(weekAgo))), key);
        Observation future = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", NOW.plus(Duration.ofDays(400)),
                Map.of("meanRtt", 2.0), List.of()));
        assertEquals("observation_default", partitionOf("observation", "id = ?", old.id()));
        store.archive().makeWindows(NOW); // start-up's: the windows around the clock only
        assertEquals("observation_default", partitionOf("observation", "id = ?", old.id()));
        assertEquals(5, partitions("observation").size());
        archive.maintain(NOW); // the retention pass's: DEFAULT's rows adopted
        assertEquals("observation_p20260603_0000", partitionOf("observation", "id = ?", old.id()));
        assertEquals(List.of("frame_chunk_p20260603_0000"), store.jdbc().queryForList(
                "SELECT DISTINCT tableoid::regclass::text FROM frame_chunk WHERE observation_id = ?", String.class, old.id()));
        assertEquals("observation_default", partitionOf("observation", "id = ?", future.id()), "a wrong clock's year stays");
        assertEquals(old, archive.findById(old.id(), true).orElseThrow());
        // the key still holds once: written again, the result is found, not added
        assertEquals(old.id(), archive.save(old, key).id());
        assertEquals(1L, store.jdbc().queryForObject("SELECT COUNT(*) FROM observation WHERE result_key = ?", Long.class,
                key.toString()));
    }

    @Test
    void retentionDropsWholeWindowsAndDeletesRowsOnlyWhereABoundCutsOne() {
        // one observation with 5 frames at noon of each of 40 days back, each moved to its window
        long[] ids = new long[41];
        for (int d = 0; d <= 40; d++) {
            Instant t = NOW.minus(Duration.ofDays(d));
            ids[d] = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", t, Map.of("meanRtt", 1.0),
                    frames(5, JdbcArchive.epochNanos(t)))).id();
        }
        archive.maintain(NOW);
        // one more in DEFAULT, 60 days back (no window was made for it)
        Instant ancient = NOW.minus(Duration.ofDays(60));
        long inDefault = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", ancient, Map.of("meanRtt", 1.0),
                frames(5, JdbcArchive.epochNanos(ancient)))).id();
        int windowsBefore = partitions("observation").size();

        // summaries older than 35 days 06:00 (cuts the window of day 35 after its noon: kept), raw older than 10 days
        Instant summaryCut = DAY.minus(Duration.ofDays(35)).plus(Duration.ofHours(6));
        Instant rawCut = DAY.minus(Duration.ofDays(10));
        Purged purged = archive.purge(rawCut, summaryCut);
        // days 36..40 whole windows, and the one in DEFAULT row by row
        assertEquals(6, purged.observations());
        assertEquals(windowsBefore - 5, partitions("observation").size());
        // days 11..35 lost their frames: 25 observations of 5 frames
        assertEquals(new Purged(25, 125, 6), purged);
        assertEquals(Optional.empty(), archive.findById(ids[36], false));
        assertEquals(Optional.empty(), archive.findById(inDefault, false));
        assertEquals(0, archive.findById(ids[35], true).orElseThrow().frames().size());
        assertEquals(0, archive.findById(ids[11], true).orElseThrow().frames().size());
        assertEquals(5, archive.findById(ids[10], true).orElseThrow().frames().size(), "day 10 is inside the raw bound");
        assertTrue(partitions("frame_chunk").stream().noneMatch(p -> p.equals("frame_chunk_p20260530_0000")),
                "day 11's frame window went whole");
        assertEquals(0L, store.jdbc().queryForObject("SELECT COUNT(*) FROM frame_chunk c WHERE NOT EXISTS (SELECT 1 FROM"
                + " observation o WHERE o.id = c.observation_id AND o.raw_frames > 0)", Long.class), "no orphan frames");
        assertEquals(new Purged(0, 0, 0), archive.purge(rawCut, summaryCut));
    }
}
