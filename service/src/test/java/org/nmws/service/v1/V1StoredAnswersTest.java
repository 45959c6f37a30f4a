package org.nmws.service.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.JdbcArchive;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.kind.Kinds;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.measure.TestAdmission;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.usecase.Measure;
import org.nmws.service.usecase.StoredResults;

/** GGF v1's stored answers: one per series, its latest; none left out when the newest results do not reach every series. */
class V1StoredAnswersTest {
    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");

    @TempDir
    Path dir;
    private final java.util.concurrent.ScheduledExecutorService watchdog =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        watchdog.shutdownNow();
    }

    private static Observation obs(Instant start, String count, double minRtt) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("count", count);
        params.put("packetSize", "64");
        Environment env = new Environment(new Environment.Host("src", "here", "10.9.0.254", null, null, null, null, null, null),
                Environment.Host.remote("10.9.0.1", "10.9.0.1"));
        return new Observation(0, "test-point", Characteristic.ProbeTest.ROUND_TRIP,
                new PathSubject(null, Endpoint.parse("10.9.0.1", "ipv4")), "10.9.0.254", "10.9.0.1", "nmprobe", "test",
                params, env, start, start.plusSeconds(1), Map.of("minRtt", minRtt), List.of());
    }

    @Test
    void aSeriesOlderThanTheNewestThousandResultsIsStillAnsweredWithItsLatest() {
        JdbcArchive archive = TestArchives.sqlite(dir);
        archive.save(obs(T0, "10", 42.0)); // the only result of series count=10, older than all below
        for (int i = 1; i <= StoredResults.MAX_RESULTS + 5; i++) {
            archive.save(obs(T0.plusSeconds(i), "5", i));
        }
        NmwsProperties props = new NmwsProperties(dir, "test-point", 8700, new NmwsProperties.Xml(65536, 32),
                new NmwsProperties.Limits(1000, Duration.ofSeconds(30), 8, 4, List.of(), 0, 100_000, 0));
        MeasurementService measurements = new MeasurementService(archive, new HostEnvironment(() -> null), props,
                new RunningTests(), new TestAdmission(List.of(), 0, System::nanoTime), Kinds.measurementKinds(), watchdog);
        V1Service v1 = new V1Service(measurements, new Measure(measurements, null, null), archive, props);
        V1Outcome out = v1.execute(new V1Request("path.delay.roundTrip", new PathSubject(null,
                Endpoint.parse("10.9.0.1", "ipv4")), null, null, null, Map.of(), List.of(), V1Request.UNBOUNDED, false),
                Caller.SERVICE);
        assertNull(out.fault(), () -> "fault: " + out.fault());
        assertEquals(2, out.measurements().size(), "one answer per series, the old one too");
        Map<String, String> countOfEach = new LinkedHashMap<>();
        for (V1Outcome.Measurement m : out.measurements()) {
            countOfEach.put(m.parameters().get("count"), m.start().toString());
        }
        assertEquals(Map.of("10", T0.toString(), "5", T0.plusSeconds(StoredResults.MAX_RESULTS + 5).toString()), countOfEach);
    }
}
