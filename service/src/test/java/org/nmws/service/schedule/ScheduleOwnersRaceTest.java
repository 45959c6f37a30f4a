package org.nmws.service.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.ArchiveDataSources;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.kind.Kinds;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.measure.TestAdmission;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 21: clients creating one schedule name at the same moment: exactly one owns it, the
 * others are told so; on one point, and across two points sharing one archive (SQLite file and
 * PostgreSQL), where the points' locks know nothing of each other.
 */
class ScheduleOwnersRaceTest {
    @TempDir
    Path dir;

    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService pool = Executors.newFixedThreadPool(8);

    @AfterEach
    void stop() {
        pool.shutdownNow();
        watchdog.shutdownNow();
    }

    @Test
    void oneOfManyClientsCreatingOneNameAtOnceOwnsItAndTheRestAreRefused() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            ScheduleStore store = new ScheduleStore(s.jdbc(), new ObjectMapper());
            race(store, schedules(store, "point-a"));
        }
    }

    @Test
    void twoPointsSharingASqliteArchiveNeverBothOwnOneName() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            sharedArchive(s);
        }
    }

    @Test
    void twoPointsSharingAPostgresArchiveNeverBothOwnOneName() throws Exception {
        try (TestArchives.Store s = TestArchives.postgresStore(null)) {
            sharedArchive(s);
        }
    }

    /** Two points, each its own pool on the one archive (as two services would be), 8 clients split between them. */
    private void sharedArchive(TestArchives.Store s) throws Exception {
        try (HikariDataSource other = ArchiveDataSources.open(s.url(), null, null)) {
            ScheduleStore storeA = new ScheduleStore(s.jdbc(), new ObjectMapper());
            ScheduleStore storeB = new ScheduleStore(new JdbcTemplate(other), new ObjectMapper());
            ScheduleService a = schedules(storeA, "point-a");
            ScheduleService b = schedules(storeB, "point-b");
            race(storeA, a, b);
            // the owner, through the other point, deletes it; another client cannot
            Caller owner = new Caller("192.0.2.1", null, true, false, null, null);
            Caller stranger = new Caller("192.0.2.99", null, true, false, null, null);
            a.put(owner, "shared", request());
            MeasurementException denied = org.junit.jupiter.api.Assertions.assertThrows(MeasurementException.class,
                    () -> b.delete(stranger, "shared"));
            assertTrue(denied.getMessage().contains("belongs to"), denied.getMessage());
            assertTrue(b.delete(owner, "shared"));
            assertFalse(storeA.byName("shared").isPresent());
        }
    }

    private ScheduleService schedules(ScheduleStore store, String point) {
        NmwsProperties props = new NmwsProperties(dir, point, 8700, new NmwsProperties.Xml(65536, 32),
                new NmwsProperties.Limits(1000, Duration.ofSeconds(30), 8, 4, List.of(), 0, 100_000, 0));
        MeasurementService measurements = new MeasurementService(null, new HostEnvironment(() -> null), props,
                new RunningTests(), new TestAdmission(List.of(), 0, System::nanoTime), Kinds.measurementKinds(), watchdog);
        return new ScheduleService(store, measurements, 32);
    }

    private static ScheduleRequest request() {
        return new ScheduleRequest("path.delay.roundTrip", "192.0.2.200", Map.of("count", "5"), "60", null, null, null, null,
                null, true, null);
    }

    /** 20 rounds of 8 clients creating one name at once, through the points in turn: one is told ok and is the owner kept. */
    private void race(ScheduleStore store, ScheduleService... points) throws Exception {
        for (int round = 0; round < 20; round++) {
            String name = "race-" + round;
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> tries = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                Caller caller = new Caller("192.0.2." + (c + 1), null, true, false, null, null);
                ScheduleService via = points[c % points.length];
                tries.add(pool.submit(() -> {
                    go.await();
                    try {
                        via.put(caller, name, request());
                        return "ok " + caller.owner();
                    } catch (MeasurementException e) {
                        return "refused: " + e.getMessage();
                    }
                }));
            }
            go.countDown();
            List<String> owners = new ArrayList<>();
            for (Future<String> f : tries) {
                String r = f.get();
                if (r.startsWith("ok ")) {
                    owners.add(r.substring(3));
                } else {
                    assertTrue(r.contains("belongs to") || r.contains("try again"), r);
                }
            }
            assertEquals(1, owners.size(), "round " + round + ": " + owners);
            assertEquals(owners.get(0), store.byName(name).orElseThrow().owner(), "the one told ok is the owner kept");
        }
    }
}
