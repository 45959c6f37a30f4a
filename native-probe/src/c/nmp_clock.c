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
