package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * Issue 21, the archive down: a result the archive cannot keep is held on disk, answered as
 * held, and written once when the archive returns, also when the point crashed after writing
 * it and before removing its file; the spool is bounded with a clear refusal. On real SQLite
 * and PostgreSQL archives, made to refuse writes the way a stopped database does.
 */
class ResultKeeperTest {
    private static final Instant T0 = Instant.parse("2026-11-26T10:00:00.123456789Z");

    @TempDir
    Path dir;

    @Test
    void onSqliteAHeldResultIsWrittenOnceWhenTheArchiveReturns() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            heldAndWrittenOnce(s.archive());
        }
    }

    @Test
    void onPostgresAHeldResultIsWrittenOnceWhenTheArchiveReturns() throws Exception {
        try (TestArchives.Store s = TestArchives.postgresStore(null)) {
            heldAndWrittenOnce(s.archive());
        }
    }

    @Test
    void onSqliteACrashBetweenTheWriteAndTheFilesRemovalWritesNothingTwice() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            crashAfterWrite(s.archive());
        }
    }

    @Test
    void onPostgresACrashBetweenTheWriteAndTheFilesRemovalWritesNothingTwice() throws Exception {
        try (TestArchives.Store s = TestArchives.postgresStore(null)) {
            crashAfterWrite(s.archive());
        }
    }

    private void heldAndWrittenOnce(Archive real) throws Exception {
        Flaky archive = new Flaky(real);
        ResultKeeper keeper = ResultKeeper.spooling(archive, dir.resolve("spool"), 100, 64L << 20, Duration.ofSeconds(1));
        List<UUID> told = new ArrayList<>();
        keeper.addListener((key, id) -> told.add(key));

        ResultKeeper.Kept before = keeper.keep(observation(T0, 1.0), UUID.randomUUID());
        assertFalse(before.held());
        assertTrue(before.observation().id() > 0);

        archive.down = true;
        Observation withFrames = observation(T0.plusSeconds(1), 2.0).withFrames(ArchiveContractTest.frames(
                FrameCodec.CHUNK_FRAMES + 9, JdbcArchive.epochNanos(T0.plusSeconds(1))));
        withFrames = new Observation(0, withFrames.measurementPoint(), withFrames.test(), withFrames.subject(),
                withFrames.srcAddress(), withFrames.dstAddress(), withFrames.tool(), withFrames.toolVersion(),
                withFrames.parameters(), withFrames.environment(), withFrames.start(), withFrames.end(), withFrames.summary(),
                withFrames.frames(), Map.of("offsetNs", new long[] {0, 1_000_000}, "cwndSegments", new long[] {10, 20}));
        ResultKeeper.Kept held1 = keeper.keep(withFrames, UUID.randomUUID());
        assertTrue(held1.held());
        assertEquals(0, held1.observation().id());
        assertEquals(1, archive.refusedWrites, "the first held result tried the archive");
        // While results are held, the next joins them without waiting for the archive.
        ResultKeeper.Kept held2 = keeper.keep(observation(T0.plusSeconds(2), 3.0), UUID.randomUUID());
        assertTrue(held2.held());
        assertEquals(1, archive.refusedWrites);
        assertEquals(2, keeper.held());
        assertEquals(0, keeper.drain(), "still down: nothing written");
        assertEquals(2, keeper.held());

        archive.down = false;
        assertEquals(2, keeper.drain());
        assertEquals(0, keeper.held());
        assertEquals(0, keeper.heldBytes());
        assertEquals(List.of(held1.key(), held2.key()), told, "told in the order they were held");
        assertEquals(0, keeper.drain(), "nothing twice");
        List<Observation> all = real.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, T0,
                T0.plusSeconds(10), true, 100));
        assertEquals(List.of(1.0, 2.0, 3.0), all.stream().map(o -> o.summary().get("meanRtt")).toList());
        Observation back = all.get(1);
        assertEquals(withFrames.withId(back.id()).frames(), back.frames(), "frames held and written whole");
        assertEquals(withFrames.withId(back.id()).withFrames(List.of()).parameters(), back.parameters());
        assertEquals(withFrames.environment(), back.environment());
        assertEquals(List.of(0L, 1_000_000L), java.util.Arrays.stream(back.samples().get("offsetNs")).boxed().toList());
        assertEquals(Optional.of(back.id()), real.idOf(held1.key()));
        assertEquals(2, keeper.heldTotal());
        assertEquals(2, keeper.written());
        try (var files = Files.list(dir.resolve("spool"))) {
            assertEquals(List.of(), files.filter(Files::isRegularFile).toList());
        }
    }

    private void crashAfterWrite(Archive real) throws Exception {
        Flaky archive = new Flaky(real);
        Path spool = dir.resolve("spool-crash");
        ResultKeeper keeper = ResultKeeper.spooling(archive, spool, 100, 64L << 20, Duration.ofSeconds(1));
        archive.down = true;
        ResultKeeper.Kept held = keeper.keep(observation(T0, 4.0), UUID.randomUUID());
        assertTrue(held.held());
        // The drain wrote it and the point was killed before the file went: the row is in, the file stays.
        archive.down = false;
        long id = real.save(observation(T0, 4.0), held.key()).id();
        Files.writeString(spool.resolve(".writing-00000000000000000099-x.held"), "{\"half"); // a write cut short
        keeper.close();

        ResultKeeper restarted = ResultKeeper.spooling(real, spool, 100, 64L << 20, Duration.ofSeconds(1));
        List<Long> told = new ArrayList<>();
        restarted.addListener((key, observationId) -> told.add(observationId));
        assertEquals(1, restarted.held(), "the partial file is no held result");
        assertEquals(1, restarted.drain());
        assertEquals(List.of(id), told, "the run is told the one row there is");
        assertEquals(1, real.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, T0, T0, false, 10)).size());
        try (var files = Files.list(spool)) {
            assertEquals(List.of(), files.filter(Files::isRegularFile).toList());
        }
    }

    /** Issue 23: a result held while the archive was down keeps its archives, and gets its outbox rows when written, once. */
    @Test
    void aHeldResultIsQueuedForItsArchivesWhenItIsWritten() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            Flaky archive = new Flaky(s.archive());
            com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
            Outbox outbox = new Outbox(s.jdbc(), json, "mp-a", Duration.ofHours(1), 100, java.time.Clock.systemUTC());
            ResultKeeper keeper = ResultKeeper.spooling(archive, dir.resolve("spool-outbox"), 100, 64L << 20, Duration.ofSeconds(1));
            keeper.setOutbox(outbox);
            ArchiveTarget os = ArchiveTarget.parse(json.readTree("{\"archiver\":\"opensearch\",\"ttl\":\"PT2H\",\"data\":"
                    + "{\"_url\":\"http://127.0.0.1:9200\"}}"), "os");
            archive.down = true;
            UUID key = UUID.randomUUID();
            assertTrue(keeper.keep(observation(T0, 1.0), key, List.of(os)).held());
            assertEquals(0L, s.jdbc().queryForObject("SELECT COUNT(*) FROM outbox", Long.class));

            ResultKeeper restarted = ResultKeeper.spooling(archive, dir.resolve("spool-outbox"), 100, 64L << 20, Duration.ofSeconds(1));
            restarted.setOutbox(outbox);
            archive.down = false;
            assertEquals(1, restarted.drain());
            assertEquals(List.of(key.toString()), s.jdbc().queryForList("SELECT result_key FROM outbox", String.class));
            long created = s.jdbc().queryForObject("SELECT created_ms FROM outbox", Long.class);
            assertEquals(created + Duration.ofHours(2).toMillis(), s.jdbc().queryForObject("SELECT expires_ms FROM outbox", Long.class),
                    "the archive's ttl came with it");
            // kept again under its key (a drain repeated after a crash before the file went): no second row
            restarted.keep(observation(T0, 1.0), key, List.of(os));
            assertEquals(1L, s.jdbc().queryForObject("SELECT COUNT(*) FROM observation", Long.class));
            assertEquals(1L, s.jdbc().queryForObject("SELECT COUNT(*) FROM outbox", Long.class));
        }
    }

    @Test
    void pastItsBoundsTheSpoolRefusesClearlyAndNoTestStarts() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            Flaky archive = new Flaky(s.archive());
            ResultKeeper keeper = ResultKeeper.spooling(archive, dir.resolve("spool-bound"), 2, 64L << 20, Duration.ofSeconds(1));
            archive.down = true;
            keeper.checkRoom();
            assertTrue(keeper.keep(observation(T0, 1.0), UUID.randomUUID()).held());
            assertTrue(keeper.keep(observation(T0.plusSeconds(1), 2.0), UUID.randomUUID()).held());
            ResultKeeper.NotKept full = assertThrows(ResultKeeper.NotKept.class, () -> keeper.keep(observation(T0.plusSeconds(2),
                    3.0), UUID.randomUUID()));
            assertTrue(full.getMessage().contains("the spool of held results is full (2 of 2 results"), full.getMessage());
            assertTrue(full.getMessage().contains("this result was not kept"), full.getMessage());
            ResultKeeper.NotKept noTest = assertThrows(ResultKeeper.NotKept.class, keeper::checkRoom);
            assertTrue(noTest.getMessage().contains("no test starts until they are written"), noTest.getMessage());
            assertEquals(2, keeper.refused());
            assertEquals(2, keeper.held());

            // Bytes bound the same way: a spool of 64 KB takes no result of 5000 frames (~50 KB) twice.
            ResultKeeper small = ResultKeeper.spooling(archive, dir.resolve("spool-bytes"), 100, 64 * 1024, Duration.ofSeconds(1));
            Observation big = observation(T0, 5.0).withFrames(ArchiveContractTest.frames(5000, JdbcArchive.epochNanos(T0)));
            assertTrue(small.keep(big, UUID.randomUUID()).held());
            ResultKeeper.NotKept bytes = assertThrows(ResultKeeper.NotKept.class, () -> small.keep(big, UUID.randomUUID()));
            assertTrue(bytes.getMessage().contains("of 65536 bytes"), bytes.getMessage());

            archive.down = false;
            assertEquals(2, keeper.drain());
            keeper.checkRoom(); // room again
            assertEquals(1, small.drain());
        }
    }

    @Test
    void anUnreadableHeldFileIsSetAsideAndDoesNotStopTheOthers() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            Flaky archive = new Flaky(s.archive());
            Path spool = dir.resolve("spool-bad");
            ResultKeeper keeper = ResultKeeper.spooling(archive, spool, 100, 64L << 20, Duration.ofSeconds(1));
            archive.down = true;
            keeper.keep(observation(T0.plusSeconds(1), 2.0), UUID.randomUUID());
            Files.writeString(spool.resolve("00000000000000000001-bad.held"), "not json"); // sorts first
            ResultKeeper restarted = ResultKeeper.spooling(archive, spool, 100, 64L << 20, Duration.ofSeconds(1));
            archive.down = false;
            assertEquals(2, restarted.held());
            assertEquals(1, restarted.drain());
            assertEquals(1, restarted.setAside());
            assertEquals(0, restarted.held());
            assertTrue(Files.exists(spool.resolve("failed").resolve("00000000000000000001-bad.held")));
        }
    }

    private static Observation observation(Instant start, double meanRtt) {
        return ArchiveContractTest.observation("mp-a", "10.0.0.1", "10.0.0.2", start, Map.of("meanRtt", meanRtt), List.of());
    }

    /** A real archive that refuses writes as a stopped database does while {@link #down}. */
    private static final class Flaky implements Archive {
        private final Archive real;
        volatile boolean down;
        volatile int refusedWrites;

        Flaky(Archive real) {
            this.real = real;
        }

        @Override
        public Observation save(Observation o) {
            return save(o, UUID.randomUUID());
        }

        @Override
        public Observation save(Observation o, UUID key) {
            if (down) {
                refusedWrites++;
                throw new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection: connection refused (test)");
            }
            return real.save(o, key);
        }

        @Override
        public Optional<Long> idOf(UUID key) {
            return real.idOf(key);
        }

        @Override
        public List<Observation> find(ObservationQuery query) {
            return real.find(query);
        }

        @Override
        public Optional<Observation> findById(long id, boolean withFrames) {
            return real.findById(id, withFrames);
        }

        @Override
        public <T> T atomically(Supplier<T> work) {
            return real.atomically(work);
        }

        @Override
        public List<Series> series(SeriesQuery query) {
            return real.series(query);
        }

        @Override
        public List<TimeBucket> aggregate(AggregateQuery query) {
            return real.aggregate(query);
        }

        @Override
        public Purged purge(Instant rawBefore, Instant summaryBefore) {
            return real.purge(rawBefore, summaryBefore);
        }

        @Override
        public void forEach(Instant from, Instant to, boolean withFrames, Consumer<Observation> sink) {
            real.forEach(from, to, withFrames, sink);
        }
    }
}
