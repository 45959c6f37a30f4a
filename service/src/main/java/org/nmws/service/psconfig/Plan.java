package org.nmws.service.psconfig;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.nmws.service.schedule.ScheduleRequest;

/**
 * This point's share of a template: the schedules it runs (named psconfig:task:src:dst), what
 * it does not run with why, and the template's archives.
 */
public record Plan(List<Planned> runs, List<NotRun> notRun, List<Archive> archives, List<String> notes) {
    public static final String PREFIX = "psconfig:";

    public Plan {
        runs = List.copyOf(runs);
        notRun = List.copyOf(notRun);
        archives = List.copyOf(archives);
        notes = List.copyOf(notes);
    }

    /**
     * A schedule of a task's pair.
     *
     * @param notes what of the task's test or schedule the schedule holds otherwise than pScheduler would
     */
    public record Planned(String task, String name, String src, String dst, String test, ScheduleRequest request,
                          List<String> notes, Window window) {
        public Planned(String task, String name, String src, String dst, String test, ScheduleRequest request,
                       List<String> notes) {
            this(task, name, src, dst, test, request, notes, null);
        }
    }

    /**
     * A schedule's start and end that depend on when it is first made (pSConfig's relative
     * times and max-runs): the start is fixed then and kept while the schedule is; the end
     * follows from the start.
     *
     * @param at an absolute start, or null
     * @param after a start this long after the schedule is first made (with at null)
     * @param until an absolute end, or null
     * @param untilAfter an end this long after the start, or null
     * @param repeat the schedule's period
     * @param maxRuns at most this many runs from the start, or null
     */
    public record Window(Instant at, Duration after, Instant until, Duration untilAfter, Duration repeat, Long maxRuns) {
        /**
         * Time for a run of a schedule just made to be planned and agreed with its far end before
         * it is due: a schedule starting "now" would see its first slot pass before it is planned.
         */
        public static final Duration LEAD = Duration.ofSeconds(5);

        /** The start for a schedule made now, or kept from the one made before ({@code kept}, may be null). */
        public Instant start(Instant now, Instant kept) {
            return at != null ? at : kept != null ? kept : now.plus(after.compareTo(LEAD) < 0 ? LEAD : after);
        }

        /** The end that follows from the start; null: none. */
        public Instant end(Instant start) {
            Instant end = until != null ? until : untilAfter != null ? start.plus(untilAfter) : null;
            if (maxRuns != null) {
                Instant last = start.plus(repeat.multipliedBy(maxRuns));
                end = end == null || last.isBefore(end) ? last : end;
            }
            return end;
        }
    }

    /** A task, or one pair of it (pair null: the whole task), this point does not run, and why. */
    public record NotRun(String task, String pair, String reason) {
    }

    /**
     * An archive the template defines; the schedules of the tasks that name it send each result
     * to it through the outbox (nmws's own archive keeps it too).
     */
    public record Archive(String name, String archiver, boolean known) {
    }
}
