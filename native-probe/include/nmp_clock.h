/* nmp_clock.h -- monotonic and wall-clock time, pacing, and the host clock's
 * synchronisation state (adjtimex). */
#ifndef NMP_CLOCK_H
#define NMP_CLOCK_H

#include "nmp_base.h"
#include "nmp_ptp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- clock */

typedef uint64_t nmp_monotime_ns;    /* CLOCK_MONOTONIC, ns; only differences mean anything */
typedef int64_t nmp_walltime_ns;     /* CLOCK_REALTIME, ns since the Unix epoch */

nmp_monotime_ns nmp_mono_now(void);
nmp_walltime_ns nmp_wall_now(void);
/* Converts a timespec of the monotonic clock to nmp_monotime_ns. */
nmp_monotime_ns nmp_mono_from_timespec(long sec, long nsec);
/* Sleeps (clock_nanosleep, TIMER_ABSTIME) until 'deadline' minus 'spin_ns',
 * then busy-waits until 'deadline'. Returns at or just after the deadline;
 * returns immediately when the deadline has passed. EINTR is retried. */
void nmp_sleep_until(nmp_monotime_ns deadline, uint64_t spin_ns);

/* The monotonic time of a recent CLOCK_REALTIME instant 'wall' (a kernel
 * receive stamp), or 'fallback' when 'wall' is not within the last second
 * (no stamp, a clock step). The clocks' offset is read between two monotonic
 * reads, the tightest of three brackets kept, and the later end used: the
 * answer is at most the bracket's width late and never early, so an RTT
 * measured with it is never shortened. */
nmp_monotime_ns nmp_mono_of_wall(nmp_walltime_ns wall, nmp_monotime_ns fallback);
/* Its arithmetic: 'wall' seen 'wall_read' on the wall clock, read between
 * monotonic 'm1' and 'm2'. Returns m2 - (wall_read - wall), or 'fallback'
 * when wall_read - wall is outside 0..1 s or larger than m2. */
nmp_monotime_ns nmp_mono_of_wall_read(nmp_walltime_ns wall, nmp_walltime_ns wall_read, nmp_monotime_ns m1,
                                      nmp_monotime_ns m2, nmp_monotime_ns fallback);

/* ---------------------------------------------------------- clock state
 *
 * The state of this host's system clock, for the observation environment
 * of a measurement (one-way delays are only as good as the clocks):
 * the kernel clock source and what adjtimex(2) says about NTP discipline.
 * Read-only: adjtimex is called with modes = 0 and changes nothing. */

typedef struct nmp_clock_state {
    char source[32];                 /* current_clocksource, e.g. "tsc"; "" if unreadable */
    int synchronised;                /* 1 when !(status & STA_UNSYNC) and adjtimex != TIME_ERROR */
    int adjtimex_rc;                 /* adjtimex return: TIME_OK, TIME_INS, ..., TIME_ERROR */
    int status;                      /* timex.status bits (STA_*) */
    int64_t max_error_us;            /* timex.maxerror: maximum error, us */
    int64_t est_error_us;            /* timex.esterror: estimated error, us */
    int64_t offset_ns;               /* timex.offset (ns when STA_NANO, else us * 1000) */
    char state[24];                  /* "ok", "unsynchronised", "leap-insert", "leap-delete",
                                        "leap-in-progress", "leap-occurred" */
    nmp_ptp_state ptp;               /* a running ptp4l's view (ptp.present 0 when none answers) */
    /* What a one-way delay can rely on: the reference this clock follows
     * ("ptp:<grandmaster>" while a ptp4l measures it against one, "utc"
     * while the kernel says NTP keeps it, "none") and its error bound
     * against that reference; utc_error_ns is the bound against UTC (the
     * kernel's estimate, or PTP's when the grandmaster is traceable). */
    char reference[32];
    int64_t error_ns;
    int64_t utc_error_ns;
} nmp_clock_state;

/* Samples the clock state into *out. The clock source file is optional
 * (source "" when absent); adjtimex failing returns -errno. */
int nmp_clock_state_read(nmp_clock_state *out, char *err, size_t errlen);
/* The largest clock error a peer may state, ns (~11.6 days; the kernel caps at 16 s). */
#define NMP_CLOCK_ERROR_MAX_NS 1000000000000000LL

/* Fills reference, error_ns and utc_error_ns from the kernel and PTP parts
 * (pure; for tests). */
void nmp_clock_state_reference(nmp_clock_state *cs);
/* The uncertainty of a one-way delay between clocks A and B, ns: the sum of
 * their errors against a grandmaster both follow, else against UTC. */
int64_t nmp_clock_uncertainty_ns(const char *ref_a, int64_t err_a, int64_t utc_a, const char *ref_b, int64_t err_b,
                                 int64_t utc_b);
/* Derives synchronised and state from an adjtimex return code and status
 * bits (pure; for tests). */
void nmp_clock_state_classify(int adjtimex_rc, int status, int *synchronised, char *state, size_t statelen);

#ifdef __cplusplus
}
#endif

#endif /* NMP_CLOCK_H */
