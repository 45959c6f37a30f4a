package org.nmws.service.psconfig;

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
                          List<String> notes) {
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
