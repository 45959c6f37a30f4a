/* nmp_clock.c -- monotonic and wall clocks, and precise pacing.
 *
 * RTTs and pacing use CLOCK_MONOTONIC only; CLOCK_REALTIME is read solely
 * to stamp results with wall-clock time. Pacing sleeps most of the way with
 * clock_nanosleep(TIMER_ABSTIME) and busy-waits the last stretch, because a
 * sleep can overshoot by the timer slack (50 us by default). */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>

#include "nmprobe.h"

nmp_monotime_ns nmp_mono_from_timespec(long sec, long nsec) {
    return (nmp_monotime_ns)sec * 1000000000ull + (nmp_monotime_ns)nsec;
}

nmp_monotime_ns nmp_mono_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return nmp_mono_from_timespec(ts.tv_sec, ts.tv_nsec);
}

nmp_walltime_ns nmp_wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (nmp_walltime_ns)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

nmp_monotime_ns nmp_mono_of_wall_read(nmp_walltime_ns wall, nmp_walltime_ns wall_read, nmp_monotime_ns m1,
                                      nmp_monotime_ns m2, nmp_monotime_ns fallback) {
    (void)m1; /* the bracket's early end: the true instant lies in [m1, m2], m2 errs late */
    int64_t since = wall_read - wall;
    if (since < 0 || since >= 1000000000 || (uint64_t)since > m2) return fallback;
    return m2 - (uint64_t)since;
}

/* Why bracketed: reading the monotonic clock and then the wall clock counted the
 * gap between the two reads (and any preemption in it) as time since arrival,
 * which made an arrival early and an RTT short (one read 0.17 us on a veth,
 * issue 25). */
nmp_monotime_ns nmp_mono_of_wall(nmp_walltime_ns wall, nmp_monotime_ns fallback) {
    nmp_monotime_ns best_m1 = 0, best_m2 = 0;
    nmp_walltime_ns best_w = 0;
    for (int i = 0; i < 3; i++) {
        nmp_monotime_ns m1 = nmp_mono_now();
        nmp_walltime_ns w = nmp_wall_now();
        nmp_monotime_ns m2 = nmp_mono_now();
        if (i == 0 || m2 - m1 < best_m2 - best_m1) {
            best_m1 = m1;
            best_m2 = m2;
            best_w = w;
        }
    }
    return nmp_mono_of_wall_read(wall, best_w, best_m1, best_m2, fallback);
}

/* No ownership; never fails. A deadline in the past returns at once. */
void nmp_sleep_until(nmp_monotime_ns deadline, uint64_t spin_ns) {
    nmp_monotime_ns now = nmp_mono_now();
    if (now >= deadline) return;
    if (deadline - now > spin_ns) {
        nmp_monotime_ns wake = deadline - spin_ns;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull),
                              .tv_nsec = (long)(wake % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
    }
    while (nmp_mono_now() < deadline) {
    }
}
