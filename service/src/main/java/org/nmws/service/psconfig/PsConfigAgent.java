package org.nmws.service.psconfig;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.schedule.Schedule;
import org.nmws.service.schedule.ScheduleRequest;
import org.nmws.service.schedule.ScheduleService;
import org.nmws.service.schedule.ScheduleStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Keeps this point's schedules in step with its pSConfig template: reads it at start and every
 * refresh period, and makes the schedules of its share (the service's own, named
 * psconfig:task:src:dst) through the schedule use case, which checks each test as it would a
 * client's; schedules of tasks or pairs gone from the template are deleted (their stored
 * results stay, under the path and characteristic they were measured as). A template that
 * cannot be read or fails the schema is refused whole: the schedules made from the last good
 * one stay, and the state says why. Everything not run is logged once per change.
 */
public final class PsConfigAgent implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(PsConfigAgent.class);

    private final String source;
    private final Duration refresh;
    private final TemplateReader reader = new TemplateReader();
    private final Planner planner;
    private final ScheduleService schedules;
    private final ScheduleStore store;
    private final String self;
    private final Clock clock;
    private ScheduledExecutorService timer;
    private volatile State state;
    private volatile boolean running;
    private List<Plan.NotRun> lastLogged = List.of();
    private Set<String> lastKept = Set.of();

    /** What GET /api/psconfig shows: the last read, its outcome, and the share this point runs. */
    public record State(String source, Duration refresh, Instant lastRead, Instant lastApplied, String error,
                        List<String> sources, Plan plan, List<String> notes) {
    }

    PsConfigAgent(String source, Duration refresh, Planner planner, ScheduleService schedules, ScheduleStore store,
                         String self, Clock clock) {
        this.source = source;
        this.refresh = refresh;
        this.planner = planner;
        this.schedules = schedules;
        this.store = store;
        this.self = self;
        this.clock = clock;
        this.state = new State(source, refresh, null, null, null, List.of(), null, List.of());
    }

    public State state() {
        return state;
    }

    /** Reads the template and applies it; never throws (a failure is the state's error). Package-private for tests. */
    synchronized void readAndApply() {
        Instant now = clock.instant();
        TemplateReader.Read read;
        try {
            read = reader.read(source);
        } catch (TemplateException e) {
            log.error("pSConfig template refused whole; the schedules of the last good one stay: {}", e.getMessage());
            state = new State(source, refresh, now, state.lastApplied(), e.getMessage(), state.sources(), state.plan(),
                    state.notes());
            return;
        }
        Plan plan = planner.plan(read.template());
        List<Plan.Planned> made = new ArrayList<>();
        List<Plan.NotRun> notRun = new ArrayList<>(plan.notRun());
        Set<String> keep = new HashSet<>();
        // this point's pSConfig schedules as they stand, read once: a windowed pair's kept start
        // comes from here, not from a lookup of its own (17,000 pairs were as many queries a re-read)
        Map<String, Schedule> mine = new HashMap<>();
        for (Schedule s : store.all()) {
            if (s.name().startsWith(Plan.PREFIX) && s.owner() == null && s.point().equals(self)) {
                mine.put(s.name(), s);
            }
        }
        for (Plan.Planned p : plan.runs()) {
            try {
                schedules.put(Caller.SERVICE, p.name(), fixed(p, now, mine.get(p.name())));
                made.add(p);
                keep.add(p.name());
            } catch (IllegalArgumentException | MeasurementException | ArithmeticException | java.time.DateTimeException e) {
                // one pair's refusal (or a window past what a time holds) is that pair's, never the whole apply's
                notRun.add(new Plan.NotRun(p.task(), p.src() + "->" + p.dst(), e.getMessage()));
            }
        }
        int removed = 0;
        for (Schedule s : mine.values()) {
            if (!keep.contains(s.name())) {
                try {
                    if (schedules.delete(Caller.SERVICE, s.name())) {
                        removed++;
                    }
                } catch (MeasurementException e) {
                    log.warn("pSConfig: schedule {} could not be deleted: {}", s.name(), e.getMessage());
                }
            }
        }
        Plan applied = new Plan(made, notRun, plan.archives(), plan.notes());
        List<String> notes = new ArrayList<>(read.notes());
        notes.addAll(plan.notes());
        state = new State(source, refresh, now, now, null, read.sources(), applied, List.copyOf(notes));
        if (removed > 0 || !keep.equals(lastKept) || !notRun.equals(lastLogged)) {
            log.info("pSConfig template {} read: {} schedules of this point's share, {} removed, {} not run", source,
                    made.size(), removed, notRun.size());
        }
        lastKept = keep;
        if (!notRun.equals(lastLogged)) {
            for (Plan.NotRun n : notRun) {
                log.warn("pSConfig task {}{} not run: {}", n.task(), n.pair() == null ? "" : " (" + n.pair() + ")", n.reason());
            }
            lastLogged = notRun;
        }
    }

    /**
     * The schedule's request with a relative start fixed: the start the schedule was first
     * made with while it exists (so a re-read changes nothing), else now plus the offset;
     * the end from it (max-runs, a relative until).
     */
    private static ScheduleRequest fixed(Plan.Planned p, Instant now, Schedule existing) {
        Plan.Window w = p.window();
        if (w == null) {
            return p.request();
        }
        // a schedule made without a start has the epoch's: not a start to keep
        Instant kept = existing == null || existing.start().equals(Instant.EPOCH) ? null : existing.start();
        Instant start = w.start(now, kept);
        Instant end = w.end(start);
        ScheduleRequest r = p.request();
        return new ScheduleRequest(r.characteristic(), r.dst(), r.parameters(), r.period(), r.slip(), start.toString(),
                end == null ? null : end.toString(), r.testClass(), r.point(), r.enabled(), r.continuous(), r.archives(), r.src());
    }

    /** A failure the reading did not foresee is logged, and the next period tries again. */
    private void readAndApplyLogged() {
        try {
            readAndApply();
        } catch (RuntimeException e) {
            log.error("pSConfig: applying template {} failed; the next read tries again", source, e);
        }
    }

    /** The state as JSON-ready maps: schedules by task, what is not run with why, archives. */
    public Map<String, Object> view() {
        State s = state;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("configured", true);
        m.put("source", s.source());
        m.put("refresh", s.refresh().toString());
        m.put("lastRead", s.lastRead() == null ? null : s.lastRead().toString());
        m.put("lastApplied", s.lastApplied() == null ? null : s.lastApplied().toString());
        m.put("error", s.error());
        m.put("sources", s.sources());
        m.put("notes", s.notes());
        Map<String, List<Map<String, Object>>> tasks = new LinkedHashMap<>();
        List<Map<String, Object>> notRun = new ArrayList<>();
        List<Map<String, Object>> archives = new ArrayList<>();
        if (s.plan() != null) {
            for (Plan.Planned p : s.plan().runs()) {
                Map<String, Object> sm = new LinkedHashMap<>();
                sm.put("schedule", p.name());
                sm.put("test", p.test());
                sm.put("src", p.src());
                sm.put("dst", p.dst());
                sm.put("characteristic", p.request().characteristic());
                sm.put("parameters", p.request().parameters());
                sm.put("period", p.request().period());
                sm.put("slip", p.request().slip());
                sm.put("start", p.request().start());
                sm.put("end", p.request().end());
                sm.put("continuous", p.request().continuous());
                sm.put("notes", p.notes());
                tasks.computeIfAbsent(p.task(), k -> new ArrayList<>()).add(sm);
            }
            for (Plan.NotRun n : s.plan().notRun()) {
                Map<String, Object> nm = new LinkedHashMap<>();
                nm.put("task", n.task());
                nm.put("pair", n.pair());
                nm.put("reason", n.reason());
                notRun.add(nm);
            }
            for (Plan.Archive a : s.plan().archives()) {
                Map<String, Object> am = new LinkedHashMap<>();
                am.put("name", a.name());
                am.put("archiver", a.archiver());
                am.put("known", a.known());
                am.put("delivered", a.known()); // through the outbox; each archive's state at /api/archivers
                archives.add(am);
            }
        }
        m.put("tasks", tasks);
        m.put("notRun", notRun);
        m.put("archives", archives);
        return m;
    }

    @Override
    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nmws-psconfig");
            t.setDaemon(true);
            return t;
        });
        running = true;
        timer.scheduleWithFixedDelay(this::readAndApplyLogged, 0, refresh.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        running = false;
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
