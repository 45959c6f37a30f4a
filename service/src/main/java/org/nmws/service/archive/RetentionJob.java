package org.nmws.service.archive;

import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Applies the retention policy in the background: raw series go after
 * nmws.archive.retention.raw, whole observations after nmws.archive.retention.summary.
 * A pass that fails is logged and retried at the next interval; writes never wait for it.
 */
public class RetentionJob {
    private static final Logger log = LoggerFactory.getLogger(RetentionJob.class);

    private final Archive archive;
    private final ArchiveProperties.Retention policy;
    private final Clock clock;

    public RetentionJob(Archive archive, ArchiveProperties.Retention policy, Clock clock) {
        this.archive = archive;
        this.policy = policy;
        this.clock = clock;
    }

    @Scheduled(fixedDelayString = "${nmws.archive.retention.interval:PT1H}",
            initialDelayString = "${nmws.archive.retention.initial-delay:PT1M}")
    void scheduled() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            log.warn("retention pass failed, retrying in {}: {}", policy.interval(), e.toString(), e);
        }
    }

    /** One pass now: what expired by the clock's current time is removed. */
    public Purged runOnce() {
        Instant now = clock.instant();
        Instant rawBefore = policy.raw().isZero() ? null : now.minus(policy.raw());
        Instant summaryBefore = policy.summary().isZero() ? null : now.minus(policy.summary());
        long t0 = System.nanoTime();
        try {
            archive.maintain(now);
        } catch (RuntimeException e) {
            // the windows are made again at the next pass; retention does not wait for them
            log.warn("archive maintenance failed, retrying at the next pass: {}", e.toString());
        }
        Purged purged = archive.purge(rawBefore, summaryBefore);
        if (purged.rawObservations() + purged.observations() > 0) {
            log.info("retention removed raw frames of {} observations ({} frames) and {} whole observations in {} ms",
                    purged.rawObservations(), purged.rawFrames(), purged.observations(), (System.nanoTime() - t0) / 1_000_000);
        }
        return purged;
    }
}
