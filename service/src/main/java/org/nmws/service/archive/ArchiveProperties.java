package org.nmws.service.archive;

import java.time.Duration;
import org.springframework.util.unit.DataSize;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Archive settings, validated once at start-up.
 *
 * @param retention how long each kind of data is kept, and how often that is enforced
 * @param importEnabled whether POST /archive/store may add observations (off: an open import
 *     lets anyone who reaches the port write results in this point's archive)
 * @param spool where results wait while the archive cannot keep them
 * @param partitionWidth PostgreSQL only: the time each partition of the results holds, so
 *     retention drops whole partitions of this size (from PT1H to P366D)
 * @param opensearchUrl an OpenSearch cluster (https://user:password@host:9200) whose pscheduler_*
 *     streams answer stored-results queries about paths this archive holds none of; empty: none
 * @param opensearchTimeout how long such a query may wait for the cluster
 */
@ConfigurationProperties("nmws.archive")
public record ArchiveProperties(@DefaultValue Retention retention, @DefaultValue("false") boolean importEnabled,
                                @DefaultValue Spool spool, @DefaultValue("P1D") Duration partitionWidth,
                                @DefaultValue("") String opensearchUrl, @DefaultValue("PT10S") Duration opensearchTimeout) {
    /** A day: a 50-point mesh writes some 3.9 million results in one, and retention is set in days. */
    public static final Duration DEFAULT_PARTITION_WIDTH = Duration.ofDays(1);

    /**
     * Results measured while the archive cannot keep them (its database down, its disk full)
     * are held in {data-dir}/spool, one file each, and written when it returns.
     *
     * @param maxEntries most results held; past it a result is refused and no test starts
     * @param maxBytes most bytes held; past it likewise
     * @param drainInterval pause between two attempts to write what is held
     * @param dir where results are held; null: {data-dir}/spool. Another file system than
     *     SQLite's keeps results when the archive's disk is full
     */
    public record Spool(@DefaultValue("10000") int maxEntries, @DefaultValue("256MB") DataSize maxBytes,
                        @DefaultValue("PT2S") Duration drainInterval, java.nio.file.Path dir) {
        public Spool {
            if (maxEntries < 1) {
                throw new IllegalArgumentException("nmws.archive.spool.max-entries must be >= 1, was " + maxEntries);
            }
            if (maxBytes.toBytes() < 64 * 1024) {
                throw new IllegalArgumentException("nmws.archive.spool.max-bytes must be >= 64KB, was " + maxBytes);
            }
            if (drainInterval.toMillis() < 100) {
                throw new IllegalArgumentException("nmws.archive.spool.drain-interval must be >= 100ms, was " + drainInterval);
            }
        }
    }

    /**
     * @param raw how long raw per-frame series are kept after their test started; 0 keeps them forever
     * @param summary how long whole observations (summaries and metadata) are kept; 0 keeps them forever
     * @param interval pause between two retention passes
     * @param initialDelay wait before the first pass after start-up
     */
    public record Retention(@DefaultValue("P30D") Duration raw, @DefaultValue("0s") Duration summary,
                            @DefaultValue("PT1H") Duration interval, @DefaultValue("PT1M") Duration initialDelay) {
        public Retention {
            if (raw.isNegative()) throw new IllegalArgumentException("nmws.archive.retention.raw must be >= 0, was " + raw);
            if (summary.isNegative()) throw new IllegalArgumentException("nmws.archive.retention.summary must be >= 0, was " + summary);
            if (!summary.isZero() && !raw.isZero() && raw.compareTo(summary) > 0) {
                // Raw data without its observation is unreachable: it would go with the summary anyway.
                throw new IllegalArgumentException("nmws.archive.retention.raw (" + raw
                        + ") must not outlast nmws.archive.retention.summary (" + summary + ")");
            }
            if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("nmws.archive.retention.interval must be >= 1s, was " + interval);
            }
        }
    }
}
