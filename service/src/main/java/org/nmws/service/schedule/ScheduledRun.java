package org.nmws.service.schedule;

import java.time.Instant;

/**
 * One planned repetition of a schedule and what became of it.
 *
 * @param status PLANNED, RUNNING, DONE, FAILED (the test ran and failed) or NONSTARTER (it
 *        could not start in its slot: the host was taken, the point was down, backing off)
 */
public record ScheduledRun(long id, long scheduleId, String schedule, long slot, Instant planned, String status,
                           Instant started, Instant ended, String reason, Long observationId) {
    public static final String PLANNED = "PLANNED";
    public static final String RUNNING = "RUNNING";
    public static final String DONE = "DONE";
    public static final String FAILED = "FAILED";
    public static final String NONSTARTER = "NONSTARTER";
}
