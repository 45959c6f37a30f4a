package org.nmws.service.archiver;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How results are delivered to the archives schedules name.
 *
 * @param enabled whether this point delivers (off: rows wait in the outbox)
 * @param defaultTtl how long a result is tried when its archive spec has no ttl
 * @param maxBacklog rows one archive may have waiting before tests meant for it are refused
 * @param batch rows read and sent at once per archiver
 * @param backoffMin the wait after a first failed attempt; doubled after each further one
 * @param backoffMax the longest wait between attempts
 * @param poll how often the outbox is looked at when nothing woke the delivery
 */
@ConfigurationProperties("nmws.archivers")
public record ArchiverProperties(@DefaultValue("true") boolean enabled, @DefaultValue("PT24H") Duration defaultTtl,
                                 @DefaultValue("100000") long maxBacklog, @DefaultValue("500") int batch,
                                 @DefaultValue("PT1S") Duration backoffMin, @DefaultValue("PT5M") Duration backoffMax,
                                 @DefaultValue("PT1S") Duration poll) {
    public ArchiverProperties {
        if (defaultTtl.isNegative() || defaultTtl.isZero() || defaultTtl.toDays() > 366) {
            throw new IllegalArgumentException("nmws.archivers.default-ttl must be above 0 and at most 366 days, was " + defaultTtl);
        }
        if (maxBacklog < 1 || maxBacklog > 100_000_000) {
            throw new IllegalArgumentException("nmws.archivers.max-backlog must be 1..100000000, was " + maxBacklog);
        }
        if (batch < 1 || batch > 5000) {
            throw new IllegalArgumentException("nmws.archivers.batch must be 1..5000, was " + batch);
        }
        if (backoffMin.toMillis() < 10 || backoffMax.compareTo(backoffMin) < 0 || backoffMax.toHours() > 24) {
            throw new IllegalArgumentException("nmws.archivers.backoff-min must be at least 10 ms and backoff-max between it and 24 h,"
                    + " were " + backoffMin + " and " + backoffMax);
        }
        if (poll.toMillis() < 10 || poll.toMinutes() > 10) {
            throw new IllegalArgumentException("nmws.archivers.poll must be 10 ms..10 min, was " + poll);
        }
    }
}
