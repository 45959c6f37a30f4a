package org.nmws.service.grid;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.nmws.service.schedule.ScheduledRun;

/**
 * What a test definition's grid cell says of it: the rule, kept apart from the reading so it
 * can be read (and tested) on its own.
 * <ul>
 * <li>{@code pending}: no run has ended yet (a new definition);
 * <li>{@code failing}: none of its last two ended runs gave a result (failed, or could not
 *     start), or it never gave one;
 * <li>{@code stale}: its latest result is older than {@code staleAfterPeriods} periods (the
 *     definition stopped running: disabled, its point stopped, its runs no longer planned);
 * <li>{@code ok}: its latest result is fresh.
 * </ul>
 * Two runs, not one, make a cell failing: in a busy mesh one run in a while finds the far end
 * taken, and a cell that blinks red for each would hide the cells that really fail.
 *
 * @param state pending, failing, stale or ok
 * @param reason why, in words, for the cell's tooltip
 */
public record DefinitionState(String state, String reason) {
    public static final String PENDING = "pending";
    public static final String FAILING = "failing";
    public static final String STALE = "stale";
    public static final String OK = "ok";

    /**
     * @param recent the definition's latest runs, newest first (planned and running ones are skipped)
     * @param latestResult when its latest result ended, or null when it has none
     * @param period how often it runs
     * @param staleAfterPeriods how many periods old a result may be before it is stale
     */
    public static DefinitionState of(List<ScheduledRun> recent, Instant latestResult, Duration period, double staleAfterPeriods,
                                     Instant now) {
        List<ScheduledRun> ended = recent.stream().filter(r -> !r.status().equals(ScheduledRun.PLANNED)
                && !r.status().equals(ScheduledRun.RUNNING)).limit(2).toList();
        if (ended.isEmpty() && latestResult == null) {
            return new DefinitionState(PENDING, "no run has ended yet");
        }
        boolean noneGave = !ended.isEmpty() && ended.stream().noneMatch(r -> r.status().equals(ScheduledRun.DONE));
        if (latestResult == null || noneGave) {
            ScheduledRun last = ended.isEmpty() ? null : ended.get(0);
            String what = last == null ? "no result yet"
                    : (last.status().equals(ScheduledRun.NONSTARTER) ? "its last run did not start" : "its last run failed")
                    + (last.reason() == null || last.reason().isBlank() ? "" : ": " + last.reason());
            return new DefinitionState(FAILING, latestResult == null ? "never gave a result; " + what : what);
        }
        Duration age = Duration.between(latestResult, now);
        long limitMs = (long) (period.toMillis() * staleAfterPeriods);
        if (age.toMillis() > limitMs) {
            return new DefinitionState(STALE, "latest result is " + Ages.words(age) + " old, more than "
                    + fmt(staleAfterPeriods) + " periods of " + Ages.words(period));
        }
        return new DefinitionState(OK, "latest result is " + Ages.words(age) + " old");
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
