package org.nmws.service.measure;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.nmws.probe.ProbeControl;

/**
 * The tests running now, with their progress, so that an operator can watch a long test
 * and cancel it. Progress comes from the engine's callback (at most every ~100 ms), so
 * reading it costs nothing on the test's path.
 */
public final class RunningTests {

    /** A snapshot of one running test. */
    public record Running(String id, String characteristic, String dst, Instant started, int done, int total,
                          TestClass testClass) {
    }

    /** A test being run: its control and its progress counters. */
    public static final class Entry {
        final String id = UUID.randomUUID().toString().substring(0, 8);
        final String characteristic;
        final TestClass testClass;
        final String dst;
        final Instant started = Instant.now();
        final AtomicInteger done = new AtomicInteger();
        final AtomicInteger total = new AtomicInteger();
        final ProbeControl control;
        /** Who started it: "account NAME", "address A", or null inside the service (a schedule). */
        final String owner;

        /** The id clients list and cancel the test by. */
        public String id() {
            return id;
        }

        /** Whether someone cancelled the test (or it overran). */
        public boolean cancelled() {
            return control.isCancelled();
        }

        /** Reports progress: done of total steps. */
        public void progress(int stepsDone, int stepsTotal) {
            done.set(stepsDone);
            total.set(stepsTotal);
        }

        Entry(String characteristic, String dst, String owner, TestClass testClass) {
            this.testClass = testClass;
            this.characteristic = characteristic;
            this.dst = dst;
            this.owner = owner;
            this.control = new ProbeControl((d, t) -> {
                done.set(d);
                total.set(t);
            });
        }

        Running snapshot() {
            return new Running(id, characteristic, dst, started, done.get(), total.get(), testClass);
        }
    }

    private final ConcurrentHashMap<String, Entry> tests = new ConcurrentHashMap<>();

    public Entry start(String characteristic, String dst, String owner, TestClass testClass) {
        Entry e = new Entry(characteristic, dst, owner, testClass);
        tests.put(e.id, e);
        return e;
    }

    public void finish(Entry e) {
        tests.remove(e.id);
    }

    public List<Running> list() {
        List<Running> out = new ArrayList<>();
        for (Entry e : tests.values()) {
            out.add(e.snapshot());
        }
        out.sort(Comparator.comparing(Running::started));
        return out;
    }

    /**
     * When the test now running to dst should be over: extrapolated from its progress, else
     * the longest a test may run (the watchdog's bound); at least a second.
     */
    long secondsUntilFree(String dst, java.time.Duration maxDuration) {
        long best = maxDuration.toSeconds();
        Instant now = Instant.now();
        for (Entry e : tests.values()) {
            if (!e.dst.equals(dst)) {
                continue;
            }
            double elapsed = java.time.Duration.between(e.started, now).toMillis() / 1000.0;
            int done = e.done.get(), total = e.total.get();
            double left = done > 0 && total >= done ? elapsed * (total - done) / done : maxDuration.toSeconds() - elapsed;
            best = Math.min(best, (long) Math.ceil(left));
        }
        return Math.max(1, best);
    }

    /** When every test now running should be over (see {@link #secondsUntilFree}). */
    long secondsUntilAllFree(java.time.Duration maxDuration) {
        long worst = 1;
        for (Entry e : tests.values()) {
            worst = Math.max(worst, secondsUntilFree(e.dst, maxDuration));
        }
        return worst;
    }

    /** What a cancel came to. */
    public enum Cancel { CANCELLED, NOT_FOUND, NOT_YOURS }

    /**
     * Asks a running test to stop, if the caller started it or is an admin (a scheduled test
     * belongs to no client: only admins cancel those).
     */
    public Cancel cancel(String id, String caller, boolean admin) {
        Entry e = tests.get(id);
        if (e == null) {
            return Cancel.NOT_FOUND;
        }
        if (!admin && (e.owner == null || !e.owner.equals(caller))) {
            return Cancel.NOT_YOURS;
        }
        e.control.cancel();
        return Cancel.CANCELLED;
    }
}
