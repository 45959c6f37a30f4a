package org.nmws.service.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The scheduler's settings, and schedules from the configuration file (created or updated by
 * name at start-up, beside those made through the API).
 *
 * @param enabled whether this point runs its schedules
 * @param workers runs at once (each holds a thread while its test runs)
 * @param horizon how far ahead runs are planned (at least a period)
 * @param schedules schedules kept in the configuration
 * @param maxPerOwner schedules one client may own (0: no cap); the configuration's are not counted
 * @param agreeSlots whether runs to an nmprobe-responder agree their time with its calendar
 *        before they start (issue 24); off, they meet other points' runs there as busy
 * @param ownResponder "HOST:PORT" of this host's own responder (its loopback address, e.g.
 *        127.0.0.1:8700): exclusive runs hold it too, so no test towards this host meets them;
 *        empty: not held
 */
@ConfigurationProperties("nmws.scheduler")
public record ScheduleProperties(@DefaultValue("true") boolean enabled, @DefaultValue("4") int workers,
                                 @DefaultValue("PT5M") Duration horizon, @DefaultValue List<Entry> schedules,
                                 @DefaultValue("32") int maxPerOwner, @DefaultValue("true") boolean agreeSlots,
                                 @DefaultValue("") String ownResponder) {
    public ScheduleProperties {
        if (maxPerOwner < 0 || maxPerOwner > 100_000) {
            throw new IllegalArgumentException("nmws.scheduler.max-per-owner must be 0..100000, was " + maxPerOwner);
        }
        if (workers < 1 || workers > 64) {
            throw new IllegalArgumentException("nmws.scheduler.workers must be 1..64, was " + workers);
        }
        schedules = List.copyOf(schedules);
    }

    /**
     * One configured schedule; unset start means slots aligned to the epoch, unset class the
     * characteristic's; archives, when set, is a JSON array of pScheduler archive specs.
     */
    public record Entry(String name, String characteristic, String dst, @DefaultValue Map<String, String> parameters,
                        Duration period, @DefaultValue("PT0S") Duration slip, Instant start, Instant end, String testClass,
                        @DefaultValue("true") boolean enabled, @DefaultValue("false") boolean continuous, String archives) {
    }
}
