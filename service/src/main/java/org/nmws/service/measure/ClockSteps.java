package org.nmws.service.measure;

/**
 * Whether this host's clock was stepped while a test ran: the offset of the wall clock
 * (CLOCK_REALTIME) from the monotonic clock moves only by slewing otherwise, at most 500 ppm
 * (the kernel's limit for NTP and PTP daemons), so a larger move is a step (settime, ntpdate,
 * chronyd's makestep, a VM resumed). Read from the JVM: Instant.now() and System.nanoTime() are
 * those two clocks on Linux.
 */
final class ClockSteps {
    /** The most a slewed clock moves against the monotonic one, per ns elapsed. */
    private static final double SLEW_LIMIT = 500e-6;
    /** Besides the slew and the reading's own spread: a step smaller than this is not reported. */
    private static final long FLOOR_NS = 1_000_000;

    private ClockSteps() {
    }

    /** The offset of the wall clock from the monotonic clock at one moment, and how exactly it was read. */
    record Mark(long offsetNs, long spreadNs, long monotonicNs) {
        /** The step since this mark, ns; null when the move is within what slewing and reading allow. */
        Long stepSince() {
            Mark now = mark();
            long moved = now.offsetNs - offsetNs;
            long allowed = FLOOR_NS + spreadNs + now.spreadNs + (long) (SLEW_LIMIT * (now.monotonicNs - monotonicNs));
            return Math.abs(moved) > allowed ? moved : null;
        }
    }

    /** Reads the offset three times and keeps the reading taken between the closest monotonic reads. */
    static Mark mark() {
        Mark best = null;
        for (int i = 0; i < 3; i++) {
            long before = System.nanoTime();
            java.time.Instant wall = java.time.Instant.now();
            long after = System.nanoTime();
            long mid = before + (after - before) / 2;
            Mark m = new Mark(wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - mid, after - before, mid);
            if (best == null || m.spreadNs < best.spreadNs) {
                best = m;
            }
        }
        return best;
    }
}
