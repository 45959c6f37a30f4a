package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;
import org.nmws.service.usecase.StoredResults;

/**
 * The cluster is asked only about paths this archive holds nothing of, and a cluster that
 * cannot answer is an archive that could not answer, never an empty answer. (What a real
 * OpenSearch answers, mapped back into observations, is ArchiversEndToEndTest's.)
 */
class ClusterBackedArchiveTest {
    private static final Instant T0 = Instant.parse("2026-05-01T10:00:00Z");

    @TempDir
    Path dir;

    @Test
    void thisArchivesOwnResultsComeFirstAndAnUnreachableClusterIsAnError() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort(); // nothing listens there once closed
        }
        JdbcArchive local = TestArchives.sqlite(dir);
        Observation mine = local.save(ArchiveContractTest.simple("mp", "10.0.0.2", T0, 1.5));
        Archive archive = new ClusterBackedArchive(local, new OpenSearchResults("http://127.0.0.1:" + closed,
                Duration.ofSeconds(2)));

        List<Observation> found = archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.0.0.2", null, null, null, false, 10));
        assertEquals(List.of(mine), found, "a path this point measured: its own results, the cluster not asked");

        ObservationQuery other = new ObservationQuery(ProbeTest.ROUND_TRIP, "10.9.9.9", null, null, null, false, 10);
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> archive.find(other));
        assertTrue(e.getMessage().contains("OpenSearch at http://127.0.0.1:" + closed), e.getMessage());
        StoredResults.Unavailable told = assertThrows(StoredResults.Unavailable.class,
                () -> new StoredResults(archive).find(other, o -> { }));
        assertTrue(told.getMessage().startsWith("the archive could not answer: "), told.getMessage());

        // a series of this point's own making (parameters named) and kinds perfSONAR has none of: not asked
        assertEquals(List.of(), archive.find(new ObservationQuery(ProbeTest.ROUND_TRIP, "10.9.9.9", null, null, null, false, 10,
                Map.of("count", "10"), null, null)));
        assertEquals(List.of(), archive.find(new ObservationQuery(ProbeTest.CAPACITY, "10.9.9.9", null, null, null, false, 10)));
    }
}
