package org.nmws.service.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.kind.Kinds;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.measure.TestAdmission;

/** Issue 21: clients creating one schedule name at the same moment: exactly one owns it, the others are told so. */
class ScheduleOwnersRaceTest {
    @TempDir
    Path dir;

    @Test
    void oneOfManyClientsCreatingOneNameAtOnceOwnsItAndTheRestAreRefused() throws Exception {
        java.util.concurrent.ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            NmwsProperties props = new NmwsProperties(dir, "point-a", 8700, new NmwsProperties.Xml(65536, 32),
                    new NmwsProperties.Limits(1000, Duration.ofSeconds(30), 8, 4, List.of(), 0, 100_000, 0));
            MeasurementService measurements = new MeasurementService(s.archive(), new HostEnvironment(() -> null), props,
                    new RunningTests(), new TestAdmission(List.of(), 0, System::nanoTime), Kinds.measurementKinds(), watchdog);
            ScheduleStore store = new ScheduleStore(s.jdbc(), new ObjectMapper());
            ScheduleService schedules = new ScheduleService(store, measurements, 32);
            for (int round = 0; round < 20; round++) {
                String name = "race-" + round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<String>> tries = new ArrayList<>();
                for (int c = 0; c < 8; c++) {
                    Caller caller = new Caller("192.0.2." + (c + 1), null, true, false, null, null);
                    tries.add(pool.submit(() -> {
                        go.await();
                        try {
                            schedules.put(caller, name, new ScheduleRequest("path.delay.roundTrip", "192.0.2.200",
                                    Map.of("count", "5"), "60", null, null, null, null, null, true, null));
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
                        assertTrue(r.contains("belongs to"), r);
                    }
                }
                assertEquals(1, owners.size(), "round " + round + ": " + owners);
                assertEquals(owners.get(0), store.byName(name).orElseThrow().owner(), "the one told ok is the owner kept");
            }
        } finally {
            pool.shutdownNow();
            watchdog.shutdownNow();
        }
    }
}
