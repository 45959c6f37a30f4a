package org.nmws.service.archive;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Archive settings, validated once at start-up.
 *
 * @param retention how long each kind of data is kept, and how often that is enforced
 * @param importEnabled whether POST /archive/store may add observations (off: an open import
 *     lets anyone who reaches the port write results in this point's archive)
 */
@ConfigurationProperties("nmws.archive")
public record ArchiveProperties(@DefaultValue Retention retention, @DefaultValue("false") boolean importEnabled) {

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
