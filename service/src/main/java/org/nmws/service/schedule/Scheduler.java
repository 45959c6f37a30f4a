package org.nmws.service.schedule;


import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.PathSubject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs this point's schedules. A planner, once a second, plans each schedule's slots up to a
 * horizon ahead and hands the runs that are due to a small pool; each run is claimed in the
 * store (so only one point, one thread, once), takes the class interlock and the path within
 * its slot's grace or is recorded as a non-starter with the reason, and its result is kept
 * like any other. A schedule whose runs keep failing backs off (the next 2^n - 1 slots are
 * non-starters, up to 31). After a restart, runs that were running are recorded as
 * interrupted, slots that passed while the point was down as missed, and nothing runs twice.
 *
 * <p>A run to an nmprobe-responder agrees its time with it first (issue 24): up to a period
 * ahead, a booker asks the responder's calendar for the run's estimated length from its
 * planned time to the end of its window (the rest of its period: it ends before its next slot); a granted start that differs moves the run there, and a run that gets no slot in
 * its window is a non-starter naming who holds the time, rather than a test that fails busy. A
 * far end that keeps no calendar (an older responder) is not asked again for five minutes and
 * its runs go ahead as before.
 */
public final class Scheduler implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
    private static final Duration TICK = Duration.ofSeconds(1);

    private final ScheduleStore store;
    private final MeasurementService measurements;
    private final ScheduleOwners owners;
    private final String point;
    private final Duration horizon;
    private final int workers;
    private final Clock clock;
    private final Set<Long> inHand = ConcurrentHashMap.newKeySet();
    /** One run of a schedule at a time: a run that overruns its period delays the next. */
    private final Map<Long, Boolean> busySchedules = new ConcurrentHashMap<>();
    private ScheduledExecutorService planner;
    private ExecutorService pool;
    /**
     * Long background runs (a continuous stream's minute) each on a thread of their own, as
     * perfSONAR runs a powstream process per stream: in the pool of {@code workers} a point's
     * streams would take every thread and starve its other runs. As many as such runs are due
     * at once: at most two per continuous schedule (one ending as the next begins).
     */
    private ExecutorService streams;
    /** A background run expected to last this long or longer goes to {@link #streams}. */
    static final Duration LONG_RUN = Duration.ofSeconds(10);
    /** Threads {@link #streams} may hold at once; past them, long runs queue on the workers. */
    static final int MAX_STREAM_THREADS = 2048;
    private volatile boolean running;
    private final boolean autoStartup;
    private final RunListener listener;
    /** Agrees runs' times with their far ends; null: runs go ahead unagreed. */
    private final SlotBooker slots;
    private ExecutorService booker;
    /** Runs being or been agreed, by run id: what the far end granted (reservation 0: not agreed). */
    private final Map<Long, Booked> booked = new ConcurrentHashMap<>();
    /**
     * Planned runs already placed by the booker (granted, or agreed with nothing): each later one
     * is placed around them on this host, first booked first served. Runs merely planned are not
     * commitments: two exclusive runs planned at one instant would each yield to the other.
     */
    private final Set<Long> placed = ConcurrentHashMap.newKeySet();
    /** Runs refused for an on-demand session in progress: when to ask for their slot again. */
    private final Map<Long, Instant> retryBooking = new ConcurrentHashMap<>();
    /** How soon a run refused for a session in progress is booked again. */
    private static final Duration RETRY_BOOKING = Duration.ofSeconds(1);
    /** Far ends ("host:port") that keep no calendar or could not be asked, until when they are not asked again. */
    private final Map<String, Instant> noCalendar = new ConcurrentHashMap<>();
    private static final Duration NO_CALENDAR_PAUSE = Duration.ofMinutes(5);

    /**
     * A run's agreement: its far end and the reservation there (0 while asking or when not
     * agreed), and the hold on this host's own responder (an exclusive run's, else 0).
     */
    private record Booked(String host, int port, long reservation, long own) {
        static final Booked NONE = new Booked("", 0, 0, 0);
    }
    /** This host's own responder {host, port} (nmws.scheduler.own-responder), or null. */
    private final String[] own;

    /**
     * Told how each run that came due ended (metrics): status DONE, FAILED or NONSTARTER and,
     * for the last two, a cause from a fixed set (missed, backoff, overlap, removed, busy,
     * noslot, rate, failed, internal). Called on the run's thread; must be fast and must not throw.
     */
    public interface RunListener {
        void ended(String status, String cause);
    }

    public Scheduler(ScheduleStore store, MeasurementService measurements, String point, Duration horizon, int workers,
                     Clock clock, boolean autoStartup) {
        this(store, measurements, point, horizon, workers, clock, autoStartup, (status, cause) -> { });
    }

    public Scheduler(ScheduleStore store, MeasurementService measurements, String point, Duration horizon, int workers,
                     Clock clock, boolean autoStartup, RunListener listener) {
        this(store, measurements, point, horizon, workers, clock, autoStartup, listener, Scheduler::unauthenticatedOwner);
    }

    /** @param owners who each schedule's runs are run as */
    public Scheduler(ScheduleStore store, MeasurementService measurements, String point, Duration horizon, int workers,
                     Clock clock, boolean autoStartup, RunListener listener, ScheduleOwners owners) {
        this(store, measurements, point, horizon, workers, clock, autoStartup, listener, owners, null);
    }

    /** @param slots agrees runs' times with their far ends (null: not agreed) */
    public Scheduler(ScheduleStore store, MeasurementService measurements, String point, Duration horizon, int workers,
                     Clock clock, boolean autoStartup, RunListener listener, ScheduleOwners owners, SlotBooker slots) {
        this(store, measurements, point, horizon, workers, clock, autoStartup, listener, owners, slots, null);
    }

    /**
     * @param ownResponder "host:port" of this host's own responder, which exclusive runs hold
     *        too (so that no test towards this host meets them), or null
     */
    public Scheduler(ScheduleStore store, MeasurementService measurements, String point, Duration horizon, int workers,
                     Clock clock, boolean autoStartup, RunListener listener, ScheduleOwners owners, SlotBooker slots,
                     String ownResponder) {
        if (ownResponder != null && !ownResponder.isBlank()) {
            int colon = ownResponder.lastIndexOf(':');
            try {
                own = new String[] {ownResponder.substring(0, colon).replaceAll("^\\[|\\]$", ""),
                        Integer.toString(Integer.parseInt(ownResponder.substring(colon + 1)))};
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("nmws.scheduler.own-responder must be HOST:PORT, was '" + ownResponder + "'");
            }
        } else {
            own = null;
        }
        this.slots = slots;
        this.owners = owners;
        this.listener = listener;
        this.autoStartup = autoStartup;
        this.store = store;
        this.measurements = measurements;
        this.point = point;
        this.horizon = horizon;
        this.workers = workers;
        this.clock = clock;
    }

    /**
     * Without nmws.security (unit tests): the service's own schedules run as the service, a
     * client's as an unauthenticated client of its address, which may test from nowhere.
     */
    private static org.nmws.service.measure.Caller unauthenticatedOwner(Schedule s) {
        return s.owner() == null ? org.nmws.service.measure.Caller.SERVICE
                : new org.nmws.service.measure.Caller(s.ownerAddress(), null, false, false, null, null);
    }

    @Override
    public void start() {
        Instant now = clock.instant();
        if (journal != null) {
            // a point killed while its database was down: the records it kept, first and in order
            List<RunJournal.Kept> left = journal.load();
            unrecorded.addAll(left);
            recordLate();
            if (!left.isEmpty()) {
                log.info("{} scheduled run records kept while the database was down written at the start ({} still wait)",
                        left.size() - unrecorded.size(), unrecorded.size());
            }
        }
        int interrupted = store.interrupted(point, now);
        if (interrupted > 0) {
            log.info("{} scheduled runs were interrupted when this point stopped", interrupted);
        }
        pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "nmws-scheduled-run");
            t.setDaemon(true);
            return t;
        });
        streams = new java.util.concurrent.ThreadPoolExecutor(0, MAX_STREAM_THREADS, 60, TimeUnit.SECONDS,
                new java.util.concurrent.SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "nmws-stream-run");
                    t.setDaemon(true);
                    return t;
                });
        booker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "nmws-slot-booker");
            t.setDaemon(true);
            return t;
        });
        planner = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nmws-planner");
            t.setDaemon(true);
            return t;
        });
        running = true;
        planner.execute(this::tickAndPlanNext);
    }

    @Override
    public void stop() {
        running = false;
        if (planner != null) {
            planner.shutdownNow();
        }
        if (booker != null) {
            booker.shutdownNow();
        }
        if (pool != null) {
            pool.shutdownNow();
            streams.shutdownNow();
            // Let running tests end and record themselves while the archive is still open; one
            // that does not within the wait is recorded as interrupted at the next start.
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                pool.awaitTermination(10, TimeUnit.SECONDS);
                streams.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Ticks, then sleeps until the next planned run is due or a tick's length, whichever is
     * first: a fixed one-second tick started slots up to a second late and let their phase
     * drift (issue 25: start lateness mean 833 ms).
     */
    private void tickAndPlanNext() {
        Instant now = clock.instant();
        long delayMs = TICK.toMillis();
        try {
            tick(now);
            Instant next = storeDown ? nextKnown(now) : store.nextPlanned(point, now).orElse(null);
            if (next != null) {
                delayMs = Math.max(0, Math.min(delayMs, Duration.between(clock.instant(), next).toMillis()));
            }
        } catch (RuntimeException e) {
            log.warn("scheduler tick failed: {}", e.toString()); // the next tick tries again
        }
        if (running) {
            try {
                planner.schedule(this::tickAndPlanNext, delayMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // the planner was shut down meanwhile
            }
        }
    }

    /** Plans ahead and starts what is due. Package-private for tests. */
    void tick(Instant now) {
        List<ScheduledRun> due;
        if (storeDown) {
            // not asked again here: each ask waits out the pool's connection timeout (5 s), which made
            // every run planned meanwhile miss its slot; a probe on a thread of its own says when it is back
            probe(now);
            due = dueOffline(now);
        } else {
            due = online(now);
        }
        dispatch(due);
    }

    /** Plans and books from the database and reads what is due; down, what the last good read planned. */
    private List<ScheduledRun> online(Instant now) {
        recordLate();
        List<ScheduledRun> due;
        try {
            java.util.Set<Long> enabled = new java.util.HashSet<>();
            List<Schedule> schedules = store.of(point);
            for (Schedule s : schedules) {
                plan(s, now);
                enabled.add(s.id());
            }
            // A schedule disabled (or deleted) lost its planned runs: enabled again as it was, it
            // plans from now, not from where its runs were planned up to before (a hole up to the horizon).
            planned.keySet().retainAll(enabled);
            List<ScheduledRun> pending = store.pending(point);
            if (slots != null) {
                bookAhead(schedules, pending, now);
            }
            // what is due is what the one read of planned runs holds up to now: no second query a tick
            due = dueIn(pending, now);
            known = new Known(schedules, pending);
            startedOffline.retainAll(pending.stream().map(ScheduledRun::id).collect(java.util.stream.Collectors.toSet()));
        } catch (RuntimeException down) {
            // The archive's database (which holds the schedules) is down: the runs planned before it
            // went are run as planned, from what the last tick read, and recorded when it returns;
            // their results are held meanwhile (ResultKeeper). Before, no run started while it was down.
            storeDown = true;
            retryStoreAt = now.plus(STORE_RETRY);
            log.warn("schedules' database unreachable ({}); running the {} planned run(s) read before from memory until it"
                    + " returns", down.toString(), known.pending().size());
            due = dueOffline(now);
        }
        return due;
    }

    /**
     * While the database is down: asks it again, at most every STORE_RETRY, on a thread of its own
     * (the booker's queue holds bookings that each wait out the pool's timeout while it is down).
     */
    private void probe(Instant now) {
        if (now.isBefore(retryStoreAt) || !running || !probing.compareAndSet(false, true)) {
            return;
        }
        try {
            Instant started = clock.instant();
            Thread probe = new Thread(() -> {
                try {
                    store.nextPlanned(point, clock.instant());
                    storeDown = false;
                    log.info("schedules' database reachable again: {} run record(s) to write", unrecorded.size());
                } catch (RuntimeException stillDown) {
                    // from the probe's start: a probe that waited out the pool's timeout has waited enough
                    retryStoreAt = started.plus(STORE_RETRY);
                } finally {
                    probing.set(false);
                }
            }, "nmws-schedule-store-probe");
            probe.setDaemon(true);
            probe.start();
        } catch (RuntimeException | OutOfMemoryError cannotStart) {
            probing.set(false);
        }
    }

    private static final Duration STORE_RETRY = Duration.ofSeconds(5);
    private volatile boolean storeDown;
    private volatile Instant retryStoreAt = Instant.MIN;
    private final java.util.concurrent.atomic.AtomicBoolean probing = new java.util.concurrent.atomic.AtomicBoolean();

    private void dispatch(List<ScheduledRun> due) {
        for (ScheduledRun r : due) {
            if (!running) {
                return; // stopping: the pool takes no more
            }
            if (startedOffline.contains(r.id()) && !known.offline(r.id())) {
                continue; // it ran while the database was down; its records are still on their way
            }
            if (inHand.add(r.id())) {
                Planned p = planned.get(r.scheduleId());
                Runnable task = () -> {
                    try {
                        run(r);
                    } catch (RuntimeException e) {
                        if (running) {
                            log.warn("scheduled run {} failed to record: {}", r.id(), e.toString());
                        } // stopping: the archive may be closed; the next start records it as interrupted
                    } finally {
                        inHand.remove(r.id());
                    }
                };
                if (p != null && longRun(p.schedule())) {
                    try {
                        streams.execute(task);
                        continue;
                    } catch (java.util.concurrent.RejectedExecutionException full) {
                        // MAX_STREAM_THREADS held: on the workers, as all runs went before
                    }
                }
                pool.execute(task);
            }
        }
    }

    /** A background run that holds its thread long: a continuous stream's minute, not a round trip. */
    static boolean longRun(Schedule s) {
        return s.testClass() == TestClass.BACKGROUND && SlotDemand.estimate(s, null).compareTo(LONG_RUN) >= 0;
    }

    /** Plans a schedule's slots from now to the horizon. Package-private for tests. */
    void plan(Schedule s, Instant now) {
        Instant from = now.isAfter(s.start()) ? now : s.start();
        Instant until = now.plus(horizon.compareTo(s.period()) < 0 ? s.period() : horizon);
        // Each tick plans only the slots that entered the horizon since the last: a changed
        // schedule (a new record) starts afresh; after a restart the store's unique slots dedupe.
        Planned last = planned.get(s.id());
        long k = last != null && last.schedule().equals(s) ? Math.max(last.nextSlot(), s.slotAt(from)) : s.slotAt(from);
        for (; ; k++) {
            Instant at = s.plannedAt(k);
            if (at.isAfter(until) || (s.end() != null && !at.isBefore(s.end()))) {
                break;
            }
            store.plan(s, k, at);
        }
        planned.put(s.id(), new Planned(s, k));
    }

    /**
     * Hands the planned runs that are up to a period ahead (5 s..10 min) to the booker, each once;
     * forgets the agreements of runs no longer planned or running.
     */
    private void bookAhead(List<Schedule> schedules, List<ScheduledRun> planned, Instant now) {
        Map<Long, Schedule> byId = new java.util.HashMap<>();
        for (Schedule s : schedules) {
            byId.put(s.id(), s);
        }
        Set<Long> pending = new java.util.HashSet<>();
        for (ScheduledRun r : planned) {
            pending.add(r.id());
            Schedule s = byId.get(r.scheduleId());
            if (s == null || !ScheduledRun.PLANNED.equals(r.status()) || booked.containsKey(r.id())
                    || retryBooking.getOrDefault(r.id(), Instant.MIN).isAfter(now)) {
                continue;
            }
            Duration ahead = s.period().compareTo(Duration.ofSeconds(5)) < 0 ? Duration.ofSeconds(5)
                    : s.period().compareTo(Duration.ofMinutes(10)) > 0 ? Duration.ofMinutes(10) : s.period();
            if (r.planned().isAfter(now.plus(ahead))) {
                continue;
            }
            String[] far = responderOf(s);
            if (far == null || !r.planned().isAfter(now.plusMillis(100)) || noCalendar.getOrDefault(far[0] + ":" + far[1],
                    Instant.MIN).isAfter(now)) {
                booked.put(r.id(), Booked.NONE); // nothing to agree with, or too late to ask
                continue;
            }
            booked.put(r.id(), Booked.NONE);
            try {
                booker.execute(() -> book(r, s, far[0], Integer.parseInt(far[1])));
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                return;
            }
        }
        booked.keySet().retainAll(pending);
        placed.retainAll(pending);
        retryBooking.keySet().retainAll(pending);
    }

    /** The far end's responder {host, port} of a schedule's runs, or null when its test needs none. */
    private String[] responderOf(Schedule s) {
        if (measurements == null) {
            return null;
        }
        try {
            Characteristic c = Characteristic.lookup(s.characteristic()).orElse(null);
            if (c == null || measurements.farEndOf(c, s.parameters()) != org.nmws.service.measure.FarEnd.RESPONDER) {
                return null;
            }
            String port = s.parameters().get("port");
            return new String[] {Endpoint.parse(s.dst(), null).host(),
                    port != null ? Integer.toString(Integer.parseInt(port.trim())) : Integer.toString(measurements.responderPort())};
        } catch (IllegalArgumentException e) {
            return null; // its run fails with the reason when it comes due
        }
    }

    /**
     * Asks the far end for the run's slot (on the booker thread): granted, the run moves to its
     * start; refused, it is a non-starter that names who holds the time; the far end not
     * answering the calendar, the run goes ahead as planned.
     */
    private void book(ScheduledRun r, Schedule s, String host, int port) {
        Instant now = clock.instant();
        Duration d = SlotDemand.estimate(s, store.lastDuration(s.id()));
        Instant base = s.plannedAt(r.slot()).minusMillis(slipOf(s, r)); // the slot's start before its slip
        // The window: the rest of its period, so that it ends before its next slot is due. A run
        // moved within its period still measures the path once a period; a narrower window (half
        // the period) left 14 % of a 6-point mesh's runs without a slot, as the runs towards one
        // responder were planned close together (docs/benchmarks.md).
        Instant latest = base.plus(s.period()).minus(d);
        Instant from = r.planned().isBefore(now.plusMillis(100)) ? now.plusMillis(100) : r.planned();
        if (latest.isBefore(from)) {
            latest = from;
        }
        String holder = point + "/" + s.name();
        // This host first: a start its own planned runs leave free for the run's class (an
        // exclusive run and a normal one of this point would otherwise meet at its interlock).
        Instant free = availability(s.testClass(), d, from, r.id());
        if (free.isAfter(latest)) {
            if (store.nonStarter(r.id(), "no time on this host in its window (to " + latest + "): its own " + "runs hold it "
                    + "until " + free)) {
                told(ScheduledRun.NONSTARTER, "noslot");
            }
            return;
        }
        from = free;
        // An exclusive run holds this host's own responder too, first: then the far end from
        // the start this host is free, and this host again if the far end is free only later.
        SlotBooker.Booking mine = null;
        boolean both = own != null && s.testClass() == TestClass.EXCLUSIVE
                && !noCalendar.getOrDefault(own[0] + ":" + own[1], Instant.MIN).isAfter(now);
        int ownPort = both ? Integer.parseInt(own[1]) : 0;
        if (both) {
            mine = ask(own[0], ownPort, from, latest, d, s, holder, true);
            if (mine != null && !mine.granted()) {
                if (!askAgainLater(r, mine)) {
                    noSlot(r, own[0], ownPort, mine, latest, " (this host's own responder)");
                }
                return;
            }
            if (mine != null) {
                from = mine.start();
            }
        }
        SlotBooker.Booking b = ask(host, port, from, latest, d, s, holder, false);
        if (b != null && b.granted() && mine != null && !b.start().equals(mine.start())) {
            slots.release(own[0], ownPort, mine.reservation());
            mine = ask(own[0], ownPort, b.start(), b.start(), d, s, holder, true);
            if (mine != null && !mine.granted()) {
                slots.release(host, port, b.reservation());
                noSlot(r, own[0], ownPort, mine, b.start(), " (this host's own responder)");
                return;
            }
        }
        long ownId = mine != null && mine.granted() ? mine.reservation() : 0;
        if (b == null || b.granted()) {
            Instant at = b != null ? b.start() : mine != null ? mine.start() : r.planned();
            booked.put(r.id(), new Booked(host, port, b != null ? b.reservation() : 0, ownId));
            if (!at.equals(r.planned()) && !store.replan(r.id(), at)) {
                releaseSlot(r.id()); // it started or ended meanwhile
                return;
            }
            placed.add(r.id());
            return;
        }
        if (ownId != 0) {
            slots.release(own[0], ownPort, ownId);
        }
        if (askAgainLater(r, b)) {
            return;
        }
        noSlot(r, host, port, b, latest, "");
    }

    /**
     * Whether a run refused for an on-demand session in progress is left planned, to be booked
     * again on a later tick: that session's "free from" is its longest expected end (a 5 s TCP
     * test holds about 15 s), and a run refused for it a period ahead was a non-starter even when
     * the session ended long before the run was due.
     */
    private boolean askAgainLater(ScheduledRun r, SlotBooker.Booking b) {
        Instant now = clock.instant();
        if (!b.heldByLiveSession() || !r.planned().isAfter(now.plus(RETRY_BOOKING))) {
            return false;
        }
        retryBooking.put(r.id(), now.plus(RETRY_BOOKING));
        booked.remove(r.id());
        return true;
    }

    /** One request to a calendar; null when it cannot be asked (not asked again for a while). */
    private SlotBooker.Booking ask(String host, int port, Instant from, Instant latest, Duration d, Schedule s, String holder,
                                   boolean local) {
        try {
            return slots.book(host, port, from, latest, d, s.testClass(), holder, local);
        } catch (RuntimeException e) {
            if (noCalendar.put(host + ":" + port, clock.instant().plus(NO_CALENDAR_PAUSE)) == null) {
                log.info("runs {} {}:{} go ahead without an agreed slot for {} min: {}", local ? "holding" : "to", host, port,
                        NO_CALENDAR_PAUSE.toMinutes(), e.getMessage());
            }
            return null;
        }
    }

    private void noSlot(ScheduledRun r, String host, int port, SlotBooker.Booking b, Instant latest, String which) {
        if (store.nonStarter(r.id(), "no slot at " + host + ":" + port + which + ": held by " + b.heldBy() + " (free from "
                + b.next() + ", after this run's window closed at " + latest + ")")) {
            told(ScheduledRun.NONSTARTER, "noslot");
        }
    }

    /** The slip of run r: its planned time less its slot's start, as planned (a granted move is not slip). */
    private static long slipOf(Schedule s, ScheduledRun r) {
        return Duration.between(s.start().plus(s.period().multipliedBy(r.slot())), s.plannedAt(r.slot())).toMillis();
    }

    /** Gives back the slots of a run that will not use them (the far end's, and this host's hold). */
    private void releaseSlot(long runId) {
        release(booked.remove(runId), true);
    }

    private void release(Booked b, boolean farToo) {
        if (b == null || booker == null || (b.own() == 0 && (!farToo || b.reservation() == 0))) {
            return;
        }
        try {
            booker.execute(() -> {
                if (farToo && b.reservation() != 0) {
                    slots.release(b.host(), b.port(), b.reservation());
                }
                if (b.own() != 0) {
                    slots.release(own[0], Integer.parseInt(own[1]), b.own());
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            // stopping: the far end lets an unused slot lapse within seconds; a hold ends at its end
        }
    }

    /** What was planned of a schedule: the record as planned, and the first slot not yet planned. */
    private record Planned(Schedule schedule, long nextSlot) {
    }

    private final Map<Long, Planned> planned = new ConcurrentHashMap<>();

    /**
     * Whether a due run falls in a back-off: after n failed runs in a row, the 2^n - 1 slots
     * (at most 31) after the last failure do not start. Decided when the run comes due, as
     * runs are planned well ahead of any failure.
     */
    String backOff(Schedule s, ScheduledRun r) {
        int failures = store.failuresInARow(s.id());
        if (failures == 0) {
            return null;
        }
        Long lastFailed = store.lastFailedSlot(s.id());
        long skip = (1L << Math.min(failures, 5)) - 1;
        return lastFailed != null && r.slot() > lastFailed && r.slot() - lastFailed <= skip
                ? "backing off after " + failures + " failed runs in a row" : null;
    }

    private void run(ScheduledRun r) {
        boolean offline = known.offline(r.id());
        Schedule s = (offline ? known.schedules() : store.of(point)).stream().filter(x -> x.id() == r.scheduleId())
                .findFirst().orElse(null);
        if (s == null) {
            record(RunJournal.Entry.nonStarter(r.id(), "the schedule was disabled or removed"));
            told(ScheduledRun.NONSTARTER, "removed");
            releaseSlot(r.id());
            return;
        }
        Instant now = clock.instant();
        Duration grace = grace(s);
        if (now.isAfter(r.planned().plus(grace))) {
            String missed = "missed its slot by " + Duration.between(r.planned(), now).toSeconds()
                    + " s (the point was down or its runs were over-booked)";
            record(RunJournal.Entry.nonStarter(r.id(), missed));
            told(ScheduledRun.NONSTARTER, "missed");
            releaseSlot(r.id());
            return;
        }
        String backingOff = offline ? null : backOff(s, r); // the failures in a row are in the database
        if (backingOff != null) {
            record(RunJournal.Entry.nonStarter(r.id(), backingOff));
            told(ScheduledRun.NONSTARTER, "backoff");
            releaseSlot(r.id());
            return;
        }
        if (busySchedules.putIfAbsent(s.id(), Boolean.TRUE) != null) {
            record(RunJournal.Entry.nonStarter(r.id(), "the schedule's previous run was still running"));
            told(ScheduledRun.NONSTARTER, "overlap");
            releaseSlot(r.id());
            return;
        }
        try {
            UUID key = UUID.randomUUID();
            if (offline) {
                // claimed in memory; the claim is written before the run's end when the database returns
                Instant claimedAt = now;
                record(RunJournal.Entry.claimLate(r.id(), claimedAt, key));
            } else if (!store.claim(r.id(), now, key)) {
                return; // taken by another thread or point
            }
            long waitMs = Math.max(0, Duration.between(clock.instant(), r.planned().plus(grace)).toMillis());
            Characteristic c = Characteristic.lookup(s.characteristic()).orElse(null);
            if (c == null) {
                store.finish(r.id(), ScheduledRun.FAILED, clock.instant(), "unknown characteristic " + s.characteristic(), null);
                told(ScheduledRun.FAILED, "internal");
                return;
            }
            try {
                MeasurementService.Measured m = measureWithinGrace(c, s, r.planned().plus(grace), waitMs, key);
                Instant ended = clock.instant();
                if (m.held()) {
                    record(RunJournal.Entry.finishHeld(r.id(), ended, "its result is held: the archive could not keep it "
                            + "now; it is written, and this run points at it, when the archive returns"));
                } else {
                    record(RunJournal.Entry.finish(r.id(), ScheduledRun.DONE, ended, null, m.observation().id()));
                }
                told(ScheduledRun.DONE, "");
            } catch (MeasurementException e) {
                boolean noStart = e.kind() == MeasurementException.Kind.BUSY || e.kind() == MeasurementException.Kind.RATE_LIMITED;
                Instant ended = clock.instant();
                record(RunJournal.Entry.finish(r.id(), noStart ? ScheduledRun.NONSTARTER : ScheduledRun.FAILED, ended,
                        e.getMessage(), null));
                told(noStart ? ScheduledRun.NONSTARTER : ScheduledRun.FAILED,
                        e.kind() == MeasurementException.Kind.BUSY ? "busy"
                                : e.kind() == MeasurementException.Kind.RATE_LIMITED ? "rate" : "failed");
            } catch (RuntimeException e) {
                log.warn("scheduled run {} of {} failed", r.slot(), s.name(), e);
                Instant ended = clock.instant();
                record(RunJournal.Entry.finish(r.id(), ScheduledRun.FAILED, ended, "internal error: " + e, null));
                told(ScheduledRun.FAILED, "internal");
            }
        } finally {
            busySchedules.remove(s.id());
            // the far end frees the rest of its slot when the session ends; this host's hold is given back
            release(booked.remove(r.id()), false);
        }
    }

    /**
     * Runs the test; a busy far end (its responder serving another point's test) is tried again
     * until the slot's grace is spent, as points of a mesh meet at each other's responders.
     */
    private MeasurementService.Measured measureWithinGrace(Characteristic c, Schedule s, Instant deadline, long waitMs,
                                                          UUID key) throws MeasurementException {
        while (true) {
            try {
                // as its owner: the owner's role, networks, durations and rates hold for every run
                return measurements.measure(owners.callerOf(s), c, new PathSubject(s.src() == null ? null : Endpoint.parse(s.src(), null),
                                Endpoint.parse(s.dst(), null)), s.parameters(),
                        s.testClass(), waitMs, key, s.archives());
            } catch (MeasurementException e) {
                Instant now = clock.instant();
                if (e.kind() != MeasurementException.Kind.BUSY || !running || now.plusMillis(RETRY_MS).isAfter(deadline)) {
                    throw e;
                }
                try {
                    Thread.sleep(RETRY_MS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                waitMs = Math.max(0, Duration.between(clock.instant(), deadline).toMillis());
            }
        }
    }

    private static final long RETRY_MS = 250;

    /**
     * Records how a run ended; when the store cannot take it now (the archive's database is
     * down), the record waits in memory and each tick tries it again, so a run that ran is not
     * left RUNNING (and, at the next start, called interrupted) for want of a write.
     */
    private void record(RunJournal.Entry e) {
        if (storeDown || !unrecorded.isEmpty()) {
            // down, a try would wait out the pool's timeout and hold the schedule's next run; with
            // records still waiting, this one goes behind them (a run's claim before its end)
            defer(e);
            return;
        }
        try {
            e.apply(store);
        } catch (RuntimeException ex) {
            log.warn("scheduled run {} ended but cannot be recorded now ({}); retrying", e.runId(), ex.toString());
            defer(e);
        }
    }

    /** Queues a record for the store's return, and keeps it on disk meanwhile (a kill must not lose it). */
    private void defer(RunJournal.Entry e) {
        java.nio.file.Path file = null;
        if (journal != null) {
            try {
                file = journal.append(e);
            } catch (java.io.UncheckedIOException ex) {
                log.error("scheduled run {}: its record waits in memory only ({})", e.runId(), ex.getMessage());
            }
        }
        unrecorded.add(new RunJournal.Kept(e, file));
    }

    /** The records that waited, oldest first, until one still fails (it goes to the back: none blocks the others for good). */
    private void recordLate() {
        for (int n = unrecorded.size(); n > 0; n--) {
            RunJournal.Kept k = unrecorded.poll();
            try {
                k.entry().apply(store);
            } catch (RuntimeException e) {
                unrecorded.add(k); // the store is still down: the next tick tries again
                return;
            }
            if (k.file() != null) {
                journal.remove(k.file());
            }
        }
    }

    private final java.util.Queue<RunJournal.Kept> unrecorded = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile RunJournal journal;

    /**
     * Keeps the records the database cannot take in this directory until it does, and writes
     * those a previous run of this point left there at {@link #start()}. Call before it.
     */
    public void keepRecordsIn(java.nio.file.Path dir) {
        journal = new RunJournal(dir);
    }

    /**
     * What the last tick that reached the database read: this point's schedules and planned runs
     * (up to the horizon), and which of those runs were handed out while the database was down.
     */
    private record Known(List<Schedule> schedules, List<ScheduledRun> pending, Set<Long> offlineIds) {
        Known(List<Schedule> schedules, List<ScheduledRun> pending) {
            this(List.copyOf(schedules), List.copyOf(pending), ConcurrentHashMap.newKeySet());
        }

        boolean offline(long runId) {
            return offlineIds.contains(runId);
        }
    }

    private volatile Known known = new Known(List.of(), List.of());
    /** Runs started from memory while the database was down, until it lists them no more as planned. */
    private final Set<Long> startedOffline = ConcurrentHashMap.newKeySet();

    /** The earliest run the last good read planned after now, not yet started (the database being down). */
    private Instant nextKnown(Instant now) {
        Instant next = null;
        for (ScheduledRun r : known.pending()) {
            if (r.planned().isAfter(now) && !startedOffline.contains(r.id()) && (next == null || r.planned().isBefore(next))) {
                next = r.planned();
            }
        }
        return next;
    }

    /** The planned (not running) runs of a read that are due by now, oldest first as read. */
    private static List<ScheduledRun> dueIn(List<ScheduledRun> pending, Instant now) {
        List<ScheduledRun> out = new ArrayList<>();
        for (ScheduledRun r : pending) {
            if (ScheduledRun.PLANNED.equals(r.status()) && !r.planned().isAfter(now)) {
                out.add(r);
            }
        }
        return out;
    }

    /** The runs the last good read planned, now due, not yet started from memory. */
    private List<ScheduledRun> dueOffline(Instant now) {
        Known k = known;
        List<ScheduledRun> out = new ArrayList<>();
        for (ScheduledRun r : dueIn(k.pending(), now)) {
            if (startedOffline.add(r.id())) {
                k.offlineIds().add(r.id());
                out.add(r);
            }
        }
        return out;
    }

    private void told(String status, String cause) {
        try {
            listener.ended(status, cause);
        } catch (RuntimeException e) {
            log.warn("scheduler listener failed: {}", e.toString());
        }
    }

    /** How late a run may start: a tenth of its period, between 2 and 30 s. */
    static Duration grace(Schedule s) {
        long ms = Math.max(2000, Math.min(30_000, s.period().toMillis() / 10));
        return Duration.ofMillis(ms);
    }

    /**
     * When a test of this class and duration could start, given this point's planned and
     * running scheduled runs: the first moment at or after now whose window meets no run it
     * cannot share the host with (exclusive meets everything but background; normal meets
     * exclusive; background meets nothing).
     */
    public Instant availability(TestClass c, Duration duration, Instant now) {
        return availability(c, duration, now, -1);
    }

    /**
     * As availability, leaving out one planned run (the one being placed: except >= 0), and then
     * counting only the planned runs already placed, each held for its slot's estimate
     * (SlotDemand) rather than its last length or 10 s.
     */
    private Instant availability(TestClass c, Duration duration, Instant now, long except) {
        if (c == TestClass.BACKGROUND) {
            return now;
        }
        Map<Long, Schedule> byId = new java.util.HashMap<>();
        for (Schedule s : store.of(point)) {
            byId.put(s.id(), s);
        }
        List<Instant[]> busy = new ArrayList<>();
        Map<Long, Duration> lengths = new java.util.HashMap<>(); // one query per schedule
        for (ScheduledRun r : store.pending(point)) {
            Schedule s = byId.get(r.scheduleId());
            if (r.id() == except || s == null || s.testClass() == TestClass.BACKGROUND
                    || (c == TestClass.NORMAL && s.testClass() != TestClass.EXCLUSIVE)
                    || (except >= 0 && ScheduledRun.PLANNED.equals(r.status()) && !placed.contains(r.id()))) {
                continue;
            }
            Duration d = lengths.computeIfAbsent(s.id(), id -> {
                Duration last = store.lastDuration(id);
                return except >= 0 ? SlotDemand.estimate(s, last) : last == null ? Duration.ofSeconds(10) : last;
            });
            Instant from = r.started() != null ? r.started() : r.planned();
            busy.add(new Instant[] {from, from.plus(d)});
        }
        // Tests running now (on demand too) hold the host until their progress says they end.
        if (measurements != null) {
            for (MeasurementService.Busy b : measurements.busyNow()) {
                if (b.testClass() == TestClass.EXCLUSIVE || (c == TestClass.EXCLUSIVE && b.testClass() == TestClass.NORMAL)) {
                    busy.add(new Instant[] {b.from(), b.until()});
                }
            }
        }
        busy.sort((a, b) -> a[0].compareTo(b[0]));
        Instant t = now;
        for (Instant[] b : busy) {
            if (t.plus(duration).isAfter(b[0]) && t.isBefore(b[1])) {
                t = b[1];
            }
        }
        return t;
    }

    public String point() {
        return point;
    }
}
