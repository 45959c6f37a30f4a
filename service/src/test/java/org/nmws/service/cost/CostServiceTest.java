package org.nmws.service.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.archive.JdbcArchive;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

class CostServiceTest {
    static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
    static final long GB = 1_000_000_000L;

    @TempDir
    Path dir;
    JdbcArchive archive;
    CostService costs;

    @BeforeEach
    void setUp() {
        archive = TestArchives.sqlite(dir);
        costs = new CostService(archive, Clock.fixed(NOW, ZoneOffset.UTC), null);
    }

    private void store(ProbeTest test, String dst, Instant at, Map<String, Double> summary) {
        archive.save(new Observation(0, "mp", test, new PathSubject(null, new Endpoint(dst, "ipv4")), "10.0.0.1", dst,
                "nmprobe", "t", Map.of(), new Environment(null, null), at, at.plusSeconds(1), summary, List.of()));
    }

    @Test
    void anotherSourceIsReadFromTheSharedArchiveAndUdpFromTheUdpSeries() {
        // what a point at 10.0.0.9 measured, kept in the archive it shares with this one
        archive.save(new Observation(0, "point-b", ProbeTest.TCP_STREAM, new PathSubject(null, new Endpoint("10.0.0.2", "ipv4")),
                "10.0.0.9", "10.0.0.2", "nmprobe", "t", Map.of(), new Environment(null, null), NOW.minusSeconds(60),
                NOW.minusSeconds(59), Map.of("throughputMbps", 40.0), List.of()));
        store(ProbeTest.UDP_STREAM, "10.0.0.2", NOW.minusSeconds(30), Map.of("receiverUserMbps", 97.0));
        TransferCost fromB = costs.rank(org.nmws.service.measure.Caller.SERVICE, new CostQuery("10.0.0.9", List.of("10.0.0.2"), GB, Duration.ofHours(1), false, null, 1))
                .get(0);
        assertEquals("10.0.0.9", fromB.src());
        assertEquals(40.0, fromB.rateMbps(), 1e-9, "the source's own measurement: " + fromB);
        TransferCost fromNobody = costs.rank(org.nmws.service.measure.Caller.SERVICE, new CostQuery("10.0.0.8", List.of("10.0.0.2"), GB, Duration.ofHours(1), false,
                null, 1)).get(0);
        assertEquals("none", fromNobody.basis());
        assertTrue(fromNobody.note().contains("nothing from 10.0.0.8"), fromNobody.note());
        TransferCost udp = costs.rank(org.nmws.service.measure.Caller.SERVICE, new CostQuery(null, List.of("10.0.0.2"), GB, Duration.ofHours(1), true, null, 1, null,
                "udp")).get(0);
        assertEquals("achievable-udp", udp.basis());
        assertEquals(97.0, udp.rateMbps(), 1e-9);
        assertEquals(null, udp.note(), "fresh UDP data needs no refresh");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new CostQuery(null,
                List.of("10.0.0.2"), GB, Duration.ofHours(1), false, null, 1, null, "SCTP"));
    }

    @Test
    void destinationsAreRankedByEstimatedTimeWithTheBasisOfEachEstimate() {
        store(ProbeTest.TCP_STREAM, "10.0.0.2", NOW.minusSeconds(600), Map.of("throughputMbps", 95.5));
        store(ProbeTest.ROUND_TRIP, "10.0.0.2", NOW.minusSeconds(300), Map.of("medianRtt", 20.0, "lossPercent", 0.0));
        store(ProbeTest.ROUND_TRIP, "10.0.0.3", NOW.minusSeconds(300), Map.of("medianRtt", 10.0, "lossPercent", 1.0));
        store(ProbeTest.AVAILABLE, "10.0.0.4", NOW.minusSeconds(60), Map.of("availableMbps", 50.0));

        List<TransferCost> ranked = costs.rankChecked(List.of("10.0.0.5", "10.0.0.3", "10.0.0.4", "10.0.0.2"), GB, Duration.ofHours(24));

        assertEquals(List.of("10.0.0.2", "10.0.0.4", "10.0.0.3", "10.0.0.5"), ranked.stream().map(TransferCost::dst).toList());
        TransferCost tcp = ranked.get(0);
        assertEquals("achievable-tcp", tcp.basis());
        assertEquals(8e9 / 95.5e6 + 0.040, tcp.seconds(), 1e-9, "bytes over rate plus two 20 ms round trips");
        TransferCost avail = ranked.get(1);
        assertEquals("available", avail.basis());
        assertEquals(160.0, avail.seconds(), 1e-9);
        TransferCost mathis = ranked.get(2);
        assertEquals("mathis", mathis.basis());
        // 1448-byte segments, 10 ms RTT, 1 % loss: 1448*8/0.010 * 1.22/sqrt(0.01) = 14.13248 Mbit/s.
        assertEquals(14.13248, mathis.rateMbps(), 1e-9);
        assertEquals(8e9 / 14.13248e6 + 0.020, mathis.seconds(), 1e-6);
        assertNull(ranked.get(3).seconds(), "nothing measured: no estimate, ranked last");
        assertEquals("none", ranked.get(3).basis());
    }

    @Test
    void aSeriesOfThroughputIsForecastWithItsExpectedErrorAndFollowsAChange() {
        for (int i = 0; i < 12; i++) {
            store(ProbeTest.TCP_STREAM, "10.0.0.7", NOW.minusSeconds(1200 - 60L * i), Map.of("throughputMbps", i < 8 ? 100.0 : 50.0));
        }
        TransferCost c = costs.rankChecked(List.of("10.0.0.7"), GB, Duration.ofHours(24)).get(0);
        assertEquals("achievable-tcp", c.basis());
        assertEquals(50.0, c.rateMbps(), 2.5, "the forecast follows the bottleneck's change: " + c);
        assertEquals(12, c.samples());
        assertTrue(c.predictor() != null && c.expectedErrorPercent() > 0, "the change shows in the expected error: " + c);
        assertEquals(540, c.ageSeconds(), "the newest sample is 9 minutes old");
    }

    @Test
    void measurementsOlderThanTheAgeLimitAreNotUsed() {
        store(ProbeTest.TCP_STREAM, "10.0.0.2", NOW.minus(Duration.ofDays(2)), Map.of("throughputMbps", 95.5));
        assertNull(costs.rankChecked(List.of("10.0.0.2"), GB, Duration.ofHours(24)).get(0).seconds());
        assertEquals("achievable-tcp", costs.rankChecked(List.of("10.0.0.2"), GB, Duration.ofDays(3)).get(0).basis());
    }

    @Test
    void aMeasuredAvailableBandwidthBelowTheTcpRateCapsTheEstimate() {
        store(ProbeTest.TCP_STREAM, "10.0.0.2", NOW.minusSeconds(600), Map.of("throughputMbps", 95.5));
        store(ProbeTest.AVAILABLE, "10.0.0.2", NOW.minusSeconds(60), Map.of("availableMbps", 40.0));
        TransferCost c = costs.rankChecked(List.of("10.0.0.2"), GB, Duration.ofHours(24)).get(0);
        assertEquals("available", c.basis());
        assertEquals(40.0, c.rateMbps(), 0.0);
    }
}
