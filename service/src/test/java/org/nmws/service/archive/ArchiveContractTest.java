package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.transform.stream.StreamSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nmws.schema.NmwgSchemas;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Observation.Frame;
import org.nmws.service.observation.PathSubject;

/**
 * The archive contract: every backend (SQLite, PostgreSQL) runs these same tests on a real
 * database, migrated by the same Flyway scripts the service runs.
 */
public abstract class ArchiveContractTest {
    static final Instant T0 = Instant.parse("2026-03-01T12:00:00.123456789Z");

    /** A fresh, empty store migrated to {@code target} (null: the latest version). */
    abstract TestArchives.Store newStore(String target) throws Exception;

    TestArchives.Store store;
    Archive archive;

    @BeforeEach
    void open() throws Exception {
        store = newStore(null);
        archive = store.archive();
    }

    @AfterEach
    void close() throws Exception {
        if (store != null) { // null when open() was aborted (PostgreSQL opted out)
            store.close();
        }
    }

    public static Observation observation(String point, String src, String dst, Instant start, Map<String, Double> summary,
                                   List<Frame> frames) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("count", Integer.toString(frames.size()));
        params.put("packetSize", "64");
        params.put("interval", "0.001");
        Environment env = new Environment(
                new Environment.Host("src", "probe-a", "10.0.0.1", "Linux 6.1.0", "Xeon E5", 8,
                        new Environment.Nic("eth0", "ixgbe", 10000L, 1500),
                        new Environment.Clock("tsc", true, 16000L, 12L, "synchronised"),
                        new Environment.Load(12.5, 3400L, 0L)),
                new Environment.Host("dst", null, dst, null, null, null, null, null, null));
        return new Observation(0, point, ProbeTest.ROUND_TRIP,
                new PathSubject(src == null ? null : new Endpoint(src, "ipv4"), new Endpoint(dst, "ipv4")),
                src == null ? "10.0.0.1" : src, dst, "nmprobe", "0.1.0", params, env, start, start.plusMillis(1500), summary, frames);
    }

    static Observation simple(String point, String dst, Instant start, double meanRtt) {
        return observation(point, "10.0.0.1", dst, start, Map.of("meanRtt", meanRtt), List.of());
    }

    /** Frames with every awkward case: lost frames, sequence gaps and reordering, TTL changes, negative deltas. */
    static List<Frame> frames(int n, long startNanos) {
        List<Frame> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long seq = i % 97 == 5 ? i + 100_000 : i;
            long send = startNanos + i * 1_000_000L + (i % 3 == 0 ? -250 : 125);
            long value = i % 50 == 7 ? -1 : 80_000 + (i * 7919L) % 40_000;
            out.add(new Frame(seq, send, value, i % 10 == 0 ? 1472 : 64, i % 200 == 3 ? -1 : 64 - i % 2));
        }
        return out;
    }

    @Test
    void aSavedObservationReadsBackEqualWithItsFramesAcrossSeveralChunks() {
        Observation o = observation("mp-a", "10.0.0.1", "10.0.0.2", T0, Map.of("minRtt", 0.08, "meanRtt", 0.1234567890123),
                frames(2 * FrameCodec.CHUNK_FRAMES + 17, JdbcArchive.epochNanos(T0)));
        Observation saved = archive.save(o);
        assertTrue(saved.id() > 0);
        assertEquals(o.withId(saved.id()), archive.findById(saved.id(), true).orElseThrow());
        assertEquals(o.withId(saved.id()).withFrames(List.of()), archive.findById(saved.id(), false).orElseThrow());
        assertEquals(Optional.empty(), archive.findById(saved.id() + 1000, true));
    }

    /** Issue 21: a held result written again after a crash (its spool file kept) must not be kept twice. */
    @Test
    void aSecondSaveUnderTheSameKeyKeepsNothingMoreAndReturnsTheFirst() {
        java.util.UUID key = java.util.UUID.randomUUID();
        Observation o = observation("mp-a", "10.0.0.1", "10.0.0.2", T0, Map.of("meanRtt", 0.5),
                frames(FrameCodec.CHUNK_FRAMES + 3, JdbcArchive.epochNanos(T0)));
        Observation first = archive.save(o, key);
        Observation again = archive.save(o, key);
        assertEquals(first.id(), again.id());
        assertEquals(Optional.of(first.id()), archive.idOf(key));
        assertEquals(1, archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, T0, T0, false, 10)).size());
        assertEquals(o.withId(first.id()), archive.findById(first.id(), true).orElseThrow(), "frames once, not twice");
        Observation other = archive.save(o);
        assertTrue(other.id() != first.id(), "saves without a key are each kept");
        assertEquals(Optional.empty(), archive.idOf(java.util.UUID.randomUUID()));
    }

    @Test
    void anObservationWithoutSourceOrFramesReadsBackEqual() {
        Observation o = observation("mp-a", null, "10.0.0.2", T0, Map.of(), List.of());
        Observation saved = archive.save(o);
        assertEquals(o.withId(saved.id()), archive.findById(saved.id(), true).orElseThrow());
    }

    @Test
    void findReturnsTheInclusiveWindowOldestFirstAndTheNewestWhenLimited() {
        for (int i = 0; i < 5; i++) {
            archive.save(simple("mp-a", "10.0.0.2", T0.plusSeconds(60L * i), i));
        }
        List<Observation> window = archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null,
                T0.plusSeconds(60), T0.plusSeconds(180), false, 100));
        assertEquals(List.of(1.0, 2.0, 3.0), window.stream().map(o -> o.summary().get("meanRtt")).toList());
        List<Observation> newest = archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null,
                null, null, false, 2));
        assertEquals(List.of(3.0, 4.0), newest.stream().map(o -> o.summary().get("meanRtt")).toList());
    }

    /** Issue 25: pages of a cut answer cover every observation exactly once, also when starts coincide. */
    @Test
    void pagesFromTheKeyOfACutAnswerCoverEveryObservationOnceEvenWithEqualStartTimes() {
        for (int i = 0; i < 7; i++) {
            archive.save(simple("mp-a", "10.0.0.2", T0.plusSeconds(i / 2), i)); // pairs share a start time
        }
        org.nmws.service.usecase.StoredResults stored = new org.nmws.service.usecase.StoredResults(archive);
        ObservationQuery q = new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, null, null, false, 3);
        List<Double> seen = new ArrayList<>();
        List<Boolean> cuts = new ArrayList<>();
        PageKey key = null;
        do {
            org.nmws.service.usecase.StoredResults.Found page = stored.find(q.before(key), o -> { });
            List<Double> values = page.results().stream().map(o -> o.summary().get("meanRtt")).toList();
            seen.addAll(0, values);
            cuts.add(page.cut());
            key = page.next();
            if (key != null) {
                assertEquals(key, PageKey.decode(key.encode()), "a key survives its text form");
            }
        } while (key != null);
        assertEquals(List.of(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0), seen, "every observation once, in order");
        assertEquals(List.of(true, true, false), cuts, "cut until the last page, which says it is whole");
        assertThrows(IllegalArgumentException.class, () -> PageKey.decode("1-2-3"));
        assertThrows(IllegalArgumentException.class, () -> PageKey.decode("99999999999999999999-1"));
    }

    @Test
    void findMatchesSourceAndDestinationByNameOrAddress() {
        Observation named = observation("mp-a", "10.0.0.1", "host-b.example.org", T0, Map.of("meanRtt", 1.0), List.of());
        archive.save(named);
        archive.save(observation("mp-a", "10.0.0.9", "10.0.0.2", T0.plusSeconds(1), Map.of("meanRtt", 2.0), List.of()));
        archive.save(observation("mp-a", "10.0.0.1", "10.0.0.3", T0.plusSeconds(2), Map.of("meanRtt", 3.0), List.of()));
        assertEquals(List.of(1.0), means(archive.find(query("host-b.example.org", null))));
        assertEquals(List.of(2.0), means(archive.find(query("10.0.0.2", "10.0.0.9"))));
        assertEquals(List.of(), means(archive.find(query("10.0.0.2", "10.0.0.1"))));
        assertEquals(List.of(2.0), means(archive.find(query("10.0.0.2", null))));
        assertEquals(List.of(2.0), means(archive.find(query(null, "10.0.0.9"))), "by source alone");
        assertEquals(List.of(3.0), means(archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, null, "10.0.0.1", null, null,
                false, 1))), "by source alone, the newest");
    }

    /** The newest by a destination named in some rows and addressed in others: both merged, none twice. */
    @Test
    void theNewestOfADestinationByNameOrAddressMergesBothWithoutDuplicates() {
        archive.save(named("host-b.example.org", "10.0.0.7", T0, 1));
        archive.save(named("10.0.0.7", "10.0.0.7", T0.plusSeconds(1), 2)); // matches as name and as address
        archive.save(named("host-b.example.org", "10.0.0.7", T0.plusSeconds(2), 3));
        archive.save(named("10.0.0.8", "10.0.0.8", T0.plusSeconds(3), 4));
        assertEquals(List.of(1.0, 2.0, 3.0), means(archive.find(query("10.0.0.7", null))));
        assertEquals(List.of(2.0, 3.0), means(archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.7", null,
                null, null, false, 2))));
        assertEquals(List.of(3.0), means(archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "host-b.example.org", null,
                null, null, false, 1))));
        assertEquals(List.of(1.0, 3.0), means(archive.find(query("host-b.example.org", null))));
        assertEquals(List.of(1.0), means(archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.7", null,
                null, T0.plusMillis(500), false, 5))), "the window bounds both reads");
    }

    private static Observation named(String dstHost, String dstAddress, Instant start, double meanRtt) {
        Observation o = simple("mp-a", dstAddress, start, meanRtt);
        return new Observation(o.id(), o.measurementPoint(), o.test(), new PathSubject(o.subject().src(),
                new Endpoint(dstHost, dstHost.equals(dstAddress) ? "ipv4" : "hostname")), o.srcAddress(), dstAddress, o.tool(),
                o.toolVersion(), o.parameters(), o.environment(), o.start(), o.end(), o.summary(), o.frames());
    }

    @Test
    void observationsKeepTheMeasurementPointThatTookThemAndQueriesSpanAllPoints() {
        archive.save(simple("mp-east", "10.0.0.2", T0, 1));
        archive.save(simple("mp-west", "10.0.0.2", T0.plusSeconds(1), 2));
        assertEquals(List.of("mp-east", "mp-west"),
                archive.find(query("10.0.0.2", null)).stream().map(Observation::measurementPoint).toList());
    }

    @Test
    void summaryAggregationGivesExactStatisticsPerEpochAlignedBucket() {
        Instant minute = Instant.parse("2026-03-01T12:00:00Z");
        double[] firstMinute = {4, 1, 3, 2};
        for (int i = 0; i < firstMinute.length; i++) {
            archive.save(simple("mp-a", "10.0.0.2", minute.plusSeconds(10L * i), firstMinute[i]));
        }
        archive.save(simple("mp-a", "10.0.0.2", minute.plusSeconds(61), 7));
        archive.save(simple("mp-a", "10.0.0.2", minute.plusSeconds(62), 5));
        archive.save(simple("mp-a", "10.0.0.2", minute.plusSeconds(63), 6));
        // Left out: another path, a figure missing, and the window's exclusive end.
        archive.save(simple("mp-a", "10.0.0.3", minute.plusSeconds(5), 100));
        archive.save(observation("mp-a", "10.0.0.1", "10.0.0.2", minute.plusSeconds(20), Map.of("minRtt", 1.0), List.of()));
        archive.save(simple("mp-a", "10.0.0.2", minute.plusSeconds(180), 100));

        List<TimeBucket> buckets = archive.aggregate(AggregateQuery.summary(ProbeTest.ROUND_TRIP, "10.0.0.2", null,
                minute, minute.plusSeconds(180), Duration.ofMinutes(1), "meanRtt"));
        assertEquals(List.of(
                new TimeBucket(minute, 4, 2.5, 1, 4, 2.5),
                new TimeBucket(minute.plusSeconds(60), 3, 6, 5, 7, 6)), buckets);
    }

    @Test
    void rawAggregationBucketsFramesBySendTimeAndLeavesLostFramesOut() {
        long base = JdbcArchive.epochNanos(Instant.parse("2026-03-01T12:00:00Z"));
        List<Frame> frames = List.of(
                new Frame(0, base + 100, 10_000, 64, 64),
                new Frame(1, base + 200, -1, 64, -1),
                new Frame(2, base + 300, 30_000, 64, 64),
                new Frame(3, base + 400, 20_000, 64, 64),
                new Frame(4, base + 500, 40_000, 64, 64),
                new Frame(5, base + 1_000_000_000L, 90_000, 64, 64));
        archive.save(observation("mp-a", "10.0.0.1", "10.0.0.2", JdbcArchive.instant(base), Map.of(), frames));
        List<TimeBucket> buckets = archive.aggregate(AggregateQuery.raw(ProbeTest.ROUND_TRIP, "10.0.0.2", "10.0.0.1",
                JdbcArchive.instant(base), JdbcArchive.instant(base + 60_000_000_000L), Duration.ofSeconds(1)));
        assertEquals(List.of(
                new TimeBucket(JdbcArchive.instant(base), 4, 25_000, 10_000, 40_000, 25_000),
                new TimeBucket(JdbcArchive.instant(base + 1_000_000_000L), 1, 90_000, 90_000, 90_000, 90_000)), buckets);
    }

    @Test
    void retentionRemovesExactlyTheRawFramesAndObservationsThatExpired() {
        Instant rawCutoff = T0;
        Instant summaryCutoff = T0.minusSeconds(3600);
        long before = JdbcArchive.epochNanos(T0);
        Observation veryOld = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", summaryCutoff.minusNanos(1),
                Map.of("meanRtt", 1.0), frames(10, before)));
        Observation atSummaryCutoff = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", summaryCutoff,
                Map.of("meanRtt", 2.0), frames(20, before)));
        Observation justBeforeRaw = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", rawCutoff.minusNanos(1),
                Map.of("meanRtt", 3.0), frames(FrameCodec.CHUNK_FRAMES + 1, before)));
        Observation atRawCutoff = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", rawCutoff,
                Map.of("meanRtt", 4.0), frames(40, before)));

        Purged purged = archive.purge(rawCutoff, summaryCutoff);

        assertEquals(new Purged(2, 20 + FrameCodec.CHUNK_FRAMES + 1, 1), purged);
        assertEquals(Optional.empty(), archive.findById(veryOld.id(), true));
        assertEquals(atSummaryCutoff.withFrames(List.of()), archive.findById(atSummaryCutoff.id(), true).orElseThrow());
        assertEquals(justBeforeRaw.withFrames(List.of()), archive.findById(justBeforeRaw.id(), true).orElseThrow());
        assertEquals(atRawCutoff, archive.findById(atRawCutoff.id(), true).orElseThrow());
        assertEquals(1, store.jdbc().queryForObject("SELECT COUNT(*) FROM frame_chunk", Long.class));
        assertEquals(new Purged(0, 0, 0), archive.purge(rawCutoff, summaryCutoff));
    }

    @Test
    void theRetentionJobAppliesTheConfiguredAgesFromItsClock() {
        Instant now = Instant.parse("2026-06-01T00:00:00Z");
        Observation old = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", now.minus(Duration.ofDays(31)),
                Map.of("meanRtt", 1.0), frames(5, 0)));
        Observation recent = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", now.minus(Duration.ofDays(29)),
                Map.of("meanRtt", 1.0), frames(5, 0)));
        Observation ancient = archive.save(observation("mp", "10.0.0.1", "10.0.0.2", now.minus(Duration.ofDays(400)),
                Map.of("meanRtt", 1.0), frames(5, 0)));
        var policy = new ArchiveProperties.Retention(Duration.ofDays(30), Duration.ofDays(365), Duration.ofHours(1),
                Duration.ofMinutes(1));
        Purged purged = new RetentionJob(archive, policy, java.time.Clock.fixed(now, java.time.ZoneOffset.UTC)).runOnce();
        assertEquals(new Purged(1, 5, 1), purged);
        assertEquals(0, archive.findById(old.id(), true).orElseThrow().frames().size());
        assertEquals(5, archive.findById(recent.id(), true).orElseThrow().frames().size());
        assertEquals(Optional.empty(), archive.findById(ancient.id(), false));
    }

    @Test
    void anExportedStoreValidatesAndImportsIntoAnotherArchiveUnchanged() throws Exception {
        List<Observation> saved = new ArrayList<>();
        saved.add(archive.save(observation("mp-east", "10.0.0.1", "10.0.0.2", T0,
                Map.of("minRtt", 0.081, "meanRtt", 0.1 / 3, "lossPercent", 2.0), frames(300, JdbcArchive.epochNanos(T0)))));
        saved.add(archive.save(observation("mp-west", null, "host-b.example.org", T0.plusSeconds(5), Map.of(), List.of())));
        saved.add(archive.save(simple("mp-east", "10.0.0.3", T0.plusSeconds(3600), 9)));

        ByteArrayOutputStream xml = new ByteArrayOutputStream();
        assertEquals(2, NmwgStore.export(archive, T0, T0.plusSeconds(3600), xml));
        NmwgSchemas.schema().newValidator().validate(new StreamSource(new ByteArrayInputStream(xml.toByteArray())));

        try (TestArchives.Store other = newStore(null)) {
            assertEquals(2, NmwgStore.importInto(other.archive(), new ByteArrayInputStream(xml.toByteArray())));
            List<Observation> moved = new ArrayList<>();
            other.archive().forEach(Instant.EPOCH, T0.plusSeconds(86400), true, moved::add);
            assertEquals(List.of(saved.get(0).withId(0), saved.get(1).withId(0)),
                    moved.stream().map(o -> o.withId(0)).toList());
        }
    }

    @Test
    void sampleSeriesBesideTheFramesAreKeptAndGoWithTheRawData() {
        Map<String, long[]> samples = new java.util.LinkedHashMap<>();
        samples.put("offsetNs", new long[] {0, 100_000_000, 200_000_000});
        samples.put("cwndSegments", new long[] {10, 20, 40});
        Observation base = observation("mp-east", "10.0.0.1", "10.0.0.2", T0, Map.of("throughputMbps", 95.5),
                frames(5, JdbcArchive.epochNanos(T0)));
        Observation saved = archive.save(new Observation(0, base.measurementPoint(), base.test(), base.subject(),
                base.srcAddress(), base.dstAddress(), base.tool(), base.toolVersion(), base.parameters(), base.environment(),
                base.start(), base.end(), base.summary(), base.frames(), samples));
        Observation back = archive.findById(saved.id(), true).orElseThrow();
        assertEquals(List.of("offsetNs", "cwndSegments"), List.copyOf(back.samples().keySet()));
        assertTrue(java.util.Arrays.equals(new long[] {10, 20, 40}, back.samples().get("cwndSegments")));

        ByteArrayOutputStream xml = new ByteArrayOutputStream();
        assertEquals(1, NmwgStore.export(archive, T0, T0.plusSeconds(1), xml));
        try {
            NmwgSchemas.schema().newValidator().validate(new StreamSource(new ByteArrayInputStream(xml.toByteArray())));
        } catch (Exception e) {
            throw new AssertionError("export does not validate: " + e.getMessage(), e);
        }
        try (TestArchives.Store other = newStore(null)) {
            assertEquals(1, NmwgStore.importInto(other.archive(), new ByteArrayInputStream(xml.toByteArray())));
            List<Observation> moved = new ArrayList<>();
            other.archive().forEach(Instant.EPOCH, T0.plusSeconds(86400), true, moved::add);
            assertTrue(java.util.Arrays.equals(new long[] {0, 100_000_000, 200_000_000}, moved.get(0).samples().get("offsetNs")),
                    "the series travel with the store");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        archive.purge(T0.plusSeconds(1), null);
        assertTrue(archive.findById(saved.id(), true).orElseThrow().samples().isEmpty(), "raw retention takes the samples too");
    }

    @Test
    void anImportThatFailsHalfwayLeavesTheArchiveAsItWas() throws Exception {
        // review: observations saved before the bad record used to stay
        archive.save(observation("mp-east", "10.0.0.1", "10.0.0.2", T0, Map.of("minRtt", 0.5), frames(10, JdbcArchive.epochNanos(T0))));
        archive.save(observation("mp-east", "10.0.0.1", "10.0.0.2", T0.plusSeconds(60), Map.of("minRtt", 0.6), List.of()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(2, NmwgStore.export(archive, T0, T0.plusSeconds(3600), out));
        String xml = out.toString(StandardCharsets.UTF_8);
        int second = xml.indexOf("startTime=\"", xml.indexOf("startTime=\"") + 1);
        assertTrue(second > 0, xml);
        String broken = xml.substring(0, second) + "startTime=\"not-a-time" + xml.substring(xml.indexOf('"', second + 11));
        try (TestArchives.Store other = newStore(null)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NmwgStore.importAtomically(
                    other.archive(), new ByteArrayInputStream(broken.getBytes(StandardCharsets.UTF_8))));
            assertTrue(e.getMessage().contains("malformed"), e.getMessage());
            assertEquals(0, other.jdbc().queryForObject("SELECT COUNT(*) FROM observation", Long.class));
        }
    }

    @Test
    void importRefusesATextNodeOverItsBoundWithoutReadingItWhole() {
        // issue 21: a 300 MiB text node in an import ran the heap out (a 500); 30 MiB is past the bound.
        String head = "<nmwg:store xmlns:nmwg=\"" + NmwgStore.NMWG + "\" type=\"store\"><nmwg:metadata id=\"m\">"
                + "<nmwg:parameters id=\"p\"><nmwg:parameter name=\"x\">";
        long n = 30L * 1024 * 1024;
        java.io.InputStream text = new java.io.InputStream() {
            private long left = n;

            @Override
            public int read() {
                return left-- > 0 ? 'x' : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left <= 0) {
                    return -1;
                }
                int k = (int) Math.min(len, left);
                java.util.Arrays.fill(b, off, off + k, (byte) 'x');
                left -= k;
                return k;
            }
        };
        java.io.InputStream doc = new java.io.SequenceInputStream(new ByteArrayInputStream(head.getBytes(StandardCharsets.UTF_8)),
                new java.io.SequenceInputStream(text, new ByteArrayInputStream("</nmwg:parameter></nmwg:parameters></nmwg:metadata>"
                        .concat("</nmwg:store>").getBytes(StandardCharsets.UTF_8))));
        NmwgStore.TooLarge e = assertThrows(NmwgStore.TooLarge.class, () -> NmwgStore.importAtomically(archive, doc));
        assertEquals("nmwg:store holds a text node of more than 25165824 characters (the longest series of 1000000 values"
                + " is shorter)", e.getMessage());
        assertEquals(0, store.jdbc().queryForObject("SELECT COUNT(*) FROM observation", Long.class));
    }

    @Test
    void importRefusesADocumentWithADoctype() {
        String xml = "<?xml version=\"1.0\"?><!DOCTYPE s [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<nmwg:store xmlns:nmwg=\"" + NmwgStore.NMWG + "\" type=\"store\">&x;</nmwg:store>";
        assertThrows(IllegalArgumentException.class,
                () -> NmwgStore.importInto(archive, new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))));
        assertEquals(0, store.jdbc().queryForObject("SELECT COUNT(*) FROM observation", Long.class));
    }

    @Test
    void frameRowsOfSchemaVersionOneArePackedByTheMigration() throws Exception {
        try (TestArchives.Store v1 = newStore("1")) {
            long id = v1.jdbc().queryForObject("""
                    INSERT INTO observation (measurement_point, test, dst_host, dst_type, tool, start_ns, end_ns,
                        parameters, environment, summary)
                    VALUES ('mp', 'ROUND_TRIP', '10.0.0.2', 'ipv4', 'nmprobe', 5, 6, '{}', '{"src":null,"dst":null}', '{}')
                    RETURNING id""", Long.class);
            List<Frame> frames = frames(FrameCodec.CHUNK_FRAMES + 3, 1_000);
            for (Frame f : frames) {
                v1.jdbc().update("INSERT INTO frame (observation_id, seq, send_ns, value_ns, bytes, ttl) VALUES (?, ?, ?, ?, ?, ?)",
                        id, f.seq(), f.sendEpochNanos(), f.valueNanos(), f.bytes(), f.ttl());
            }
            TestArchives.migrate(v1.jdbc().getDataSource(), v1.url().startsWith("jdbc:sqlite:") ? "sqlite" : "postgresql", null);
            List<Frame> sorted = new ArrayList<>(frames);
            sorted.sort(java.util.Comparator.comparingLong(Frame::seq));
            assertEquals(sorted, v1.archive().findById(id, true).orElseThrow().frames());
            assertEquals(2, v1.jdbc().queryForObject("SELECT COUNT(*) FROM frame_chunk", Long.class));
        }
    }

    /** The same observation with the source host's clock error and load as another test would find them. */
    static Observation withSourceFigures(Observation o, long maxErrorUs, double cpuBusy) {
        Environment.Host src = o.environment().src();
        Environment.Clock c = src.clock();
        Environment.Host changed = new Environment.Host(src.role(), src.name(), src.address(), src.kernel(), src.cpuModel(),
                src.cpus(), src.nic(), new Environment.Clock(c.source(), c.synchronised(), maxErrorUs, maxErrorUs / 100, c.state()),
                new Environment.Load(cpuBusy, 1000L + maxErrorUs, 0L));
        return new Observation(0, o.measurementPoint(), o.test(), o.subject(), o.srcAddress(), o.dstAddress(), o.tool(),
                o.toolVersion(), o.parameters(), new Environment(changed, o.environment().dst()), o.start(), o.end(),
                o.summary(), o.frames());
    }

    @Test
    void theHostDescriptionIsStoredOnceAndEachTestKeepsItsOwnClockErrorAndLoad() {
        Observation first = simple("mp", "10.0.0.2", T0, 1.0);
        Observation second = withSourceFigures(simple("mp", "10.0.0.2", T0.plusSeconds(60), 2.0), 900, 97.5);
        Observation otherPath = simple("mp", "10.0.0.3", T0.plusSeconds(120), 3.0);
        long a = archive.save(first).id();
        long b = archive.save(second).id();
        long c = archive.save(otherPath).id();
        assertEquals(first.environment(), archive.findById(a, false).orElseThrow().environment());
        assertEquals(second.environment(), archive.findById(b, false).orElseThrow().environment());
        assertEquals(otherPath.environment(), archive.findById(c, false).orElseThrow().environment());
        assertEquals(2, store.jdbc().queryForObject("SELECT COUNT(*) FROM environment", Long.class),
                "one description per path: the load and clock error do not make a new one");
        assertEquals(1, store.jdbc().queryForObject("SELECT COUNT(DISTINCT environment_id) FROM observation WHERE id IN (?, ?)",
                Long.class, a, b));
        int perRow = store.jdbc().queryForObject("SELECT MAX(LENGTH(environment)) FROM observation", Integer.class);
        assertTrue(perRow < 120, "the row keeps only the per-test figures, " + perRow + " characters");
    }

    @Test
    void aWindowOpenToTheFarFutureOrPastIsAnsweredNotAnOverflow() {
        archive.save(simple("mp", "10.0.0.2", T0, 1.0));
        List<Observation> all = new ArrayList<>();
        // What an export without 'from' or 'to' asks: the archive's whole range, and beyond it.
        archive.forEach(Instant.parse("1000-01-01T00:00:00Z"), Instant.parse("9999-12-31T23:59:59Z"), false, all::add);
        assertEquals(1, all.size());
        assertEquals(1, archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null,
                Instant.parse("1000-01-01T00:00:00Z"), Instant.parse("9999-12-31T23:59:59Z"), false, 10, null)).size());
    }

    @Test
    void concurrentSavesOfNewDescriptionsAllSucceed() throws Exception {
        // Each save inserts a description no one has seen: on SQLite a transaction that read
        // before writing would fail at once (SQLITE_BUSY) whenever another had just written.
        int threads = 4;
        int each = 40;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        archive.save(simple("mp", "10." + thread + ".0." + (i + 1), T0.plusSeconds(i), i));
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * each, store.jdbc().queryForObject("SELECT COUNT(*) FROM observation", Long.class));
        assertEquals(threads * each, store.jdbc().queryForObject("SELECT COUNT(*) FROM environment", Long.class));
    }

    @Test
    void aRouteIsPartOfTheTestNotOfTheStoredDescription() {
        Observation plain = simple("mp", "10.0.0.2", T0, 1.0);
        List<Observation> traced = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Environment e = plain.environment();
            List<Environment.RouteHop> route = List.of(new Environment.RouteHop(1, "10.9.0." + i, null),
                    new Environment.RouteHop(2, null, null), new Environment.RouteHop(3, "10.0.0.2", "b.example"));
            traced.add(new Observation(0, plain.measurementPoint(), plain.test(), plain.subject(), plain.srcAddress(),
                    plain.dstAddress(), plain.tool(), plain.toolVersion(), plain.parameters(),
                    new Environment(e.src(), e.dst(), route), T0.plusSeconds(i), T0.plusSeconds(i + 1), plain.summary(),
                    List.of()));
        }
        for (Observation o : traced) {
            assertEquals(o.environment(), archive.findById(archive.save(o).id(), false).orElseThrow().environment());
        }
        assertEquals(1, store.jdbc().queryForObject("SELECT COUNT(*) FROM environment", Long.class),
                "three routes, one host description");
    }

    @Test
    void anExportedRouteImportsWithItsHops() throws Exception {
        // The store's environment is written and read by the one codec every answer uses; the
        // export wrote hosts and tool only, so a hop list's route was lost on the way.
        Observation plain = simple("mp", "10.0.0.2", T0, 1.0);
        List<Environment.RouteHop> route = List.of(new Environment.RouteHop(1, "10.9.0.1", null),
                new Environment.RouteHop(2, null, null), new Environment.RouteHop(3, "10.0.0.2", "b.example"));
        Observation traced = archive.save(new Observation(0, plain.measurementPoint(), plain.test(), plain.subject(),
                plain.srcAddress(), plain.dstAddress(), plain.tool(), plain.toolVersion(), plain.parameters(),
                new Environment(plain.environment().src(), plain.environment().dst(), route), T0, T0.plusSeconds(1),
                plain.summary(), List.of()));
        ByteArrayOutputStream xml = new ByteArrayOutputStream();
        assertEquals(1, NmwgStore.export(archive, T0, T0.plusSeconds(1), xml));
        NmwgSchemas.schema().newValidator().validate(new StreamSource(new ByteArrayInputStream(xml.toByteArray())));
        try (TestArchives.Store other = newStore(null)) {
            assertEquals(1, NmwgStore.importInto(other.archive(), new ByteArrayInputStream(xml.toByteArray())));
            List<Observation> moved = new ArrayList<>();
            other.archive().forEach(Instant.EPOCH, T0.plusSeconds(86400), true, moved::add);
            assertEquals(traced.withId(0), moved.get(0).withId(0));
            assertEquals(route, moved.get(0).environment().route());
        }
    }

    @Test
    void aDescriptionFirstWrittenInARolledBackTransactionIsNotRemembered() {
        Observation a = simple("mp", "10.0.0.2", T0, 1.0);
        assertThrows(IllegalStateException.class, () -> archive.atomically(() -> {
            archive.save(a);
            throw new IllegalStateException("roll back");
        }));
        // SQLite gives the rolled-back row's id out again: to b's description.
        Observation b = simple("mp", "10.0.0.3", T0.plusSeconds(1), 2.0);
        long bid = archive.save(b).id();
        long aid = archive.save(a).id();
        assertEquals(b.environment(), archive.findById(bid, false).orElseThrow().environment());
        assertEquals(a.environment(), archive.findById(aid, false).orElseThrow().environment());
    }

    @Test
    void aRowWrittenWholeByAServiceOlderThanTheEnvironmentTableStillReads() throws Exception {
        // A rolling upgrade: an older service on the shared archive still writes the whole environment.
        Observation o = simple("mp", "10.0.0.2", T0, 1.0);
        long id = store.jdbc().queryForObject("""
                INSERT INTO observation (measurement_point, test, dst_host, dst_type, tool, start_ns, end_ns,
                    parameters, environment, summary)
                VALUES ('mp', 'ROUND_TRIP', '10.0.0.2', 'ipv4', 'nmprobe', 5, 6, '{}', ?, '{}')
                RETURNING id""", Long.class, new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(o.environment()));
        assertEquals(o.environment(), archive.findById(id, false).orElseThrow().environment());
    }

    @Test
    void environmentsWrittenWholeBeforeSchemaVersionFiveAreSplitByTheMigration() throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        Observation first = simple("mp", "10.0.0.2", T0, 1.0);
        Observation second = withSourceFigures(first, 700, 40.0);
        try (TestArchives.Store v4 = newStore("4")) {
            List<Long> ids = new ArrayList<>();
            for (Observation o : List.of(first, second)) {
                ids.add(v4.jdbc().queryForObject("""
                        INSERT INTO observation (measurement_point, test, dst_host, dst_type, tool, start_ns, end_ns,
                            parameters, environment, summary)
                        VALUES ('mp', 'ROUND_TRIP', '10.0.0.2', 'ipv4', 'nmprobe', 5, 6, '{}', ?, '{}')
                        RETURNING id""", Long.class, json.writeValueAsString(o.environment())));
            }
            TestArchives.migrate(v4.jdbc().getDataSource(), v4.url().startsWith("jdbc:sqlite:") ? "sqlite" : "postgresql", null);
            assertEquals(first.environment(), v4.archive().findById(ids.get(0), false).orElseThrow().environment());
            assertEquals(second.environment(), v4.archive().findById(ids.get(1), false).orElseThrow().environment());
            assertEquals(1, v4.jdbc().queryForObject("SELECT COUNT(*) FROM environment", Long.class));
            // A test saved after the migration finds the migrated description rather than adding its twin.
            v4.archive().save(withSourceFigures(first, 5, 1.0));
            assertEquals(1, v4.jdbc().queryForObject("SELECT COUNT(*) FROM environment", Long.class));
        }
    }

    @Test
    void aWriterKilledWithSigkillMidStreamLosesNoAcknowledgedResult() throws Exception {
        Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), DurabilityWriter.class.getName(), store.url())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Map<Long, Integer> acknowledged = new LinkedHashMap<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (!line.startsWith("ACK ")) {
                    continue;
                }
                String[] idAndIndex = line.split(" ");
                acknowledged.put(Long.parseLong(idAndIndex[1]), Integer.parseInt(idAndIndex[2]));
                if (acknowledged.size() == 40) {
                    // SIGKILL through the handle: Process.destroyForcibly would also close the pipe, and
                    // ids the child printed just before dying must still be read and checked.
                    writer.toHandle().destroyForcibly();
                }
            }
        } finally {
            writer.destroyForcibly();
            writer.waitFor();
        }
        assertEquals(137, writer.exitValue(), "the writer must have died by SIGKILL, not ended on its own");
        assertTrue(acknowledged.size() >= 40, "writer acknowledged only " + acknowledged.size());
        for (Map.Entry<Long, Integer> ack : acknowledged.entrySet()) {
            Observation o = archive.findById(ack.getKey(), true).orElseThrow(() ->
                    new AssertionError("acknowledged observation " + ack.getKey() + " is missing after SIGKILL"));
            assertEquals((double) ack.getValue(), o.summary().get("meanRtt"));
            assertEquals(DurabilityWriter.FRAMES, o.frames().size());
        }
    }

    private static ObservationQuery query(String dst, String src) {
        return new ObservationQuery(ProbeTest.ROUND_TRIP, dst, src, null, null, false, 100);
    }

    private static List<Double> means(List<Observation> found) {
        return found.stream().map(o -> o.summary().get("meanRtt")).toList();
    }
}
