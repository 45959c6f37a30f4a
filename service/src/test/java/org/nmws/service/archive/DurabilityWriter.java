package org.nmws.service.archive;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Instant;
import java.util.Map;
import org.nmws.service.observation.Observation;

/**
 * The child process of the durability test: saves observations as fast as it can through
 * the production pool settings and prints each id once save() has returned, i.e. once the
 * result is acknowledged. The test kills it with SIGKILL mid-stream.
 */
public final class DurabilityWriter {
    public static final int FRAMES = 2000;

    private DurabilityWriter() {
    }

    public static void main(String[] args) {
        try (HikariDataSource ds = ArchiveDataSources.open(args[0], null, null)) {
            JdbcArchive archive = TestArchives.archive(ds);
            Instant t = Instant.parse("2026-01-01T00:00:00Z");
            for (int i = 0; ; i++) {
                Instant start = t.plusSeconds(i);
                Observation o = archive.save(ArchiveContractTest.observation("writer", "10.0.0.1", "10.0.0.2", start,
                        Map.of("meanRtt", (double) i), ArchiveContractTest.frames(FRAMES, JdbcArchive.epochNanos(start))));
                System.out.println("ACK " + o.id() + " " + i); // the pool logs to stdout too
                System.out.flush();
            }
        }
    }
}
