package org.nmws.service.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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

/**
 * An archive makes the service send results to a host: a client without the admin role names only
 * loopback or the operator's listed hosts, so no schedule aims the service at a host that never agreed.
 */
class ClientArchivesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static ScheduleRequest withArchive(String archive) throws Exception {
        return new ScheduleRequest("path.delay.roundTrip", "192.0.2.200", Map.of("count", "5"), "60", null, null, null,
                null, null, true, null, JSON.readTree("[" + archive + "]"), null);
    }

    @Test
    void aClientNamesOnlyLoopbackOrListedArchiveHostsAndAnAdminAny() throws Exception {
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            NmwsProperties props = new NmwsProperties(dir, "point-a", 8700, new NmwsProperties.Xml(65536, 32),
                    new NmwsProperties.Limits(1000, Duration.ofSeconds(30), 8, 4, List.of(), 0, 100_000, 0));
            MeasurementService measurements = new MeasurementService(s.archive(), new HostEnvironment(() -> null), props,
                    new RunningTests(), new TestAdmission(List.of(), 0, System::nanoTime), Kinds.measurementKinds(), watchdog);
            ScheduleService schedules = new ScheduleService(new ScheduleStore(s.jdbc(), JSON), measurements, 32,
                    Set.of("archive.example.net"));
            Caller client = new Caller("192.0.2.9", null, true, false, null, null);
            Caller admin = new Caller("192.0.2.10", "root", true, true, null, null);
            String far = "{\"archiver\":\"http\",\"data\":{\"_url\":\"http://203.0.113.7:8080/results\"}}";
            String farKafka = "{\"archiver\":\"kafka\",\"data\":{\"server\":\"127.0.0.1:9092,203.0.113.8:9092\",\"topic\":\"t\"}}";
            MeasurementException refused = assertThrows(MeasurementException.class,
                    () -> schedules.put(client, "to-far", withArchive(far)));
            assertEquals(MeasurementException.Kind.DENIED, refused.kind());
            assertTrue(refused.getMessage().contains("203.0.113.7"), refused.getMessage());
            assertThrows(MeasurementException.class, () -> schedules.put(client, "to-far-kafka", withArchive(farKafka)),
                    "every bootstrap server counts");
            schedules.put(client, "to-loopback", withArchive(
                    "{\"archiver\":\"http\",\"data\":{\"_url\":\"http://127.0.0.1:9200/x\"}}"));
            schedules.put(client, "to-listed", withArchive(
                    "{\"archiver\":\"opensearch\",\"data\":{\"_url\":\"https://archive.example.net:9200\"}}"));
            schedules.put(admin, "admin-to-far", withArchive(far));
        } finally {
            watchdog.shutdownNow();
        }
    }
}
