package org.nmws.service.schedule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How long a schedule's run holds its far end, for the slot it asks for and for the fit check
 * when a schedule is added: the last run's length with a margin once one ran, else what its
 * parameters say (count x interval, the stream's bytes at its rate, timeDuration) and a start-up
 * allowance. An estimate: a run that overruns its slot meets the next holder's as busy and is
 * retried within its grace; the far end gives back what a shorter run leaves unused.
 */
final class SlotDemand {
    private static final Duration SETUP = Duration.ofMillis(500);
    private static final Duration UNKNOWN = Duration.ofSeconds(2);
    /**
     * The least a run holds: a control exchange and its first frames. It was a second, which made
     * 20 five-frame round trips every 10 s (a 60 ms test each) need 200 % of one responder, and
     * half of them non-starters where none had been before slots were agreed (bench/scheduler.sh).
     */
    private static final Duration FLOOR = Duration.ofMillis(250);

    private SlotDemand() {
    }

    static Duration estimate(Schedule s, Duration last) {
        Duration d = last != null ? Duration.ofMillis(last.toMillis() * 5 / 4).plusMillis(200) : fromParameters(s.parameters());
        d = d.compareTo(FLOOR) < 0 ? FLOOR : d;
        d = d.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : d;
        // No more than its period: a run still going when its next is due makes that one a
        // non-starter anyway, and a continuous stream's minutes follow each other back to back.
        return d.compareTo(s.period()) > 0 ? s.period() : d;
    }

    /** From the NMWG parameters alone; lenient, as they were checked strictly when the schedule was made. */
    static Duration fromParameters(Map<String, String> p) {
        double count = number(p.get("count"));
        double interval = number(p.get("interval"));
        double seconds = number(p.get("timeDuration"));
        if (count > 0 && interval >= 0 && p.containsKey("interval")) {
            // a closed loop (ping-pong) may wait its timeout for every frame: its longest run; read as
            // the kind reads it (true or 1), the timeout's default 1 s as RoundTripParameters' own
            double loop = closedLoop(p) ? (p.containsKey("timeout") ? Math.max(0, number(p.get("timeout"))) : 1.0) : 0;
            seconds = Math.max(seconds, count * (interval + loop));
        }
        double rate = rate(p.get("bandwidthLimit"));
        if (count > 0 && rate > 0) {
            double size = number(p.getOrDefault("packetSize", p.getOrDefault("bufferLength", "1000")));
            seconds = Math.max(seconds, count * (size > 0 ? size : 1000) * 8 / rate);
        }
        if (!(seconds > 0)) {
            return UNKNOWN;
        }
        return Duration.ofMillis((long) Math.ceil(Math.min(seconds, 3600) * 1000)).plus(SETUP);
    }

    /** As below, for a far end that serves one test at a time. */
    static String overBooked(String farEnd, Collection<Schedule> schedules, java.util.function.Function<Schedule, Duration> last,
                             boolean exclusive) {
        return overBooked(farEnd, schedules, last, exclusive, 1);
    }

    /**
     * Whether schedules need more of one far end's time than there is: the message names them
     * and their demands, else null. With {@code exclusive} only the exclusive ones count (they
     * can share the far end with nothing, so more than its time can never run); else all do:
     * an exclusive test holds the responder alone, and light ones share it {@code sessions} at
     * a time (nmprobe-responder --sessions, as many as this point runs to one path,
     * nmws.limits.shared-tests-per-path), so each needs that share of its own length.
     */
    static String overBooked(String farEnd, Collection<Schedule> schedules, java.util.function.Function<Schedule, Duration> last,
                             boolean exclusive, int sessions) {
        return overBooked(farEnd, schedules, last, exclusive, sessions, null);
    }

    /**
     * As above, with what the far end's responder said of its sessions ({@code said}, null when it
     * has not): light tests then share it as many at a time as both it serves and this point
     * runs to one path.
     */
    static String overBooked(String farEnd, Collection<Schedule> schedules, java.util.function.Function<Schedule, Duration> last,
                             boolean exclusive, int local, Integer said) {
        int sessions = said == null ? local : Math.min(local, said);
        double share = 0;
        List<String> parts = new ArrayList<>();
        for (Schedule s : schedules) {
            boolean alone = s.testClass() == org.nmws.service.measure.TestClass.EXCLUSIVE;
            if (exclusive && !alone) {
                continue;
            }
            Duration d = estimate(s, last.apply(s));
            share += (double) d.toMillis() / s.period().toMillis() / (alone ? 1 : Math.max(1, sessions));
            parts.add(s.name() + " (" + d.toMillis() / 1000.0 + " s every " + s.period().toMillis() / 1000.0 + " s)");
        }
        if (share <= 1.0) {
            return null;
        }
        String serves;
        if (said != null && !exclusive) {
            serves = "its responder serves " + said + (said == 1 ? " session" : " sessions") + " at once, as it said when last"
                    + " asked, and this point runs " + local + " light " + (local == 1 ? "test" : "tests") + " to one path at once"
                    + " (nmws.limits.shared-tests-per-path): " + (sessions == 1 ? "one test at a time"
                    : sessions + " light tests at once, an exclusive one alone");
        } else {
            serves = exclusive || sessions <= 1 ? "its responder serves one test at a time"
                    : "its responder taken to serve " + sessions + " light tests at once, as nmws.limits.shared-tests-per-path"
                            + " says (start it with --sessions " + sessions + "), an exclusive one alone";
        }
        return String.format(Locale.ROOT, "no time available at %s: %s%s need %.0f %% of its time "
                + "(%s); lengthen a period or move a schedule", farEnd,
                exclusive ? "exclusive tests " : "", String.join(", ", parts), share * 100, serves);
    }

    private static boolean closedLoop(Map<String, String> p) {
        try {
            return org.nmws.service.observation.Params.bool(p, "closedLoop");
        } catch (IllegalArgumentException e) {
            return false; // checked strictly when the schedule was made; lenient here as the rest is
        }
    }

    private static double number(String v) {
        if (v == null) {
            return -1;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** bit/s with an optional k/M/G suffix, as the stream kinds read bandwidthLimit. */
    private static double rate(String v) {
        if (v == null || v.isBlank()) {
            return -1;
        }
        String t = v.trim();
        char u = Character.toUpperCase(t.charAt(t.length() - 1));
        double scale = u == 'K' ? 1e3 : u == 'M' ? 1e6 : u == 'G' ? 1e9 : 1;
        return scale == 1 ? number(t) : number(t.substring(0, t.length() - 1)) * scale;
    }
}
