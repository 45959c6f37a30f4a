/* nmp_avail.h -- available bandwidth by a rate scan (kind "avail"). */
#ifndef NMP_AVAIL_H
#define NMP_AVAIL_H

#include "nmp_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------- available bandwidth (rate scan)
 *
 * path.bandwidth.available by a rate scan, as UDPmon's throughput-versus-
 * spacing curves: one UDP stream session per step, at rising offered rates
 * (UDP payload Mbit/s) from min_mbps by step_mbps up to max_mbps, each
 * lasting step_ns and followed by a pause that lets queues drain. A step is
 * congested when any of these holds:
 *   - delay: the one-way delay grows: the median OWD of the last quarter of
 *     the received frames minus that of the first quarter exceeds
 *     delay_threshold_ns (the queue at the tight link fills);
 *   - rate: the received rate is below the rate actually sent by more than
 *     rate_tolerance (the received rate stops following the offered rate);
 *   - loss: more than loss_percent of the frames were lost.
 * The coarse scan stops at the first congested step; 'refine' bisection
 * steps then narrow the bracket between the highest uncongested sent rate
 * (lower) and the lowest congested one (upper). The estimate is the middle
 * of the bracket, in user (payload) Mbit/s; the wire figure scales it by
 * (size + 66) / size (IPv4). */

#define NMP_AVAIL_MAX_STEPS 64

enum {
    NMP_AVAIL_DELAY = 1,             /* congestion reason bits of a step */
    NMP_AVAIL_RATE = 2,
    NMP_AVAIL_LOSS = 4,
    NMP_AVAIL_SENDER = 8             /* not a congestion: the sender fell short of the offered rate */
};

typedef struct nmp_avail_spec {
    const char *host;                /* responder name or literal */
    int port;                        /* responder control port */
    uint32_t size;                   /* UDP payload bytes, NMP_FRAME_HDR..NMP_FRAME_MAX; 0 = 1472 */
    double min_mbps;                 /* first offered rate, 0.1..max_mbps; 0 = step_mbps */
    double max_mbps;                 /* highest offered rate, 0.1..100000 (required) */
    double step_mbps;                /* coarse step, > 0; 0 = max_mbps / 10 */
    uint32_t refine;                 /* bisection steps after the coarse scan, 0..20 */
    uint64_t step_ns;                /* sending time per step, 10 ms..10 s; 0 = 500 ms */
    uint64_t pause_ns;               /* pause between steps, <= 10 s; 0 = 200 ms */
    double loss_percent;             /* loss threshold, 0..100; 0 = 1 % */
    double rate_tolerance;           /* received-rate shortfall threshold, 0..0.5; 0 = 0.03 */
    uint64_t delay_threshold_ns;     /* OWD growth threshold, <= 10 s; 0 = 1 ms */
    uint64_t timeout_ns;             /* wait after each step's last frame, <= 60 s; 0 = 500 ms */
    int ttl;                         /* outgoing TTL, 0 = system default */
    uint32_t connect_timeout_ms;     /* control timeout, 0 = 5000 */
    const char *key_file;            /* shared key file of an authenticating responder, NULL = none */
} nmp_avail_spec;

typedef struct nmp_avail_step {
    double offered_mbps;             /* user rate asked for */
    double sent_mbps;                /* user rate actually sent */
    double recv_mbps;                /* user rate received */
    double loss_percent;             /* lost / sent */
    double owd_min_ms;               /* smallest one-way delay */
    double owd_median_ms;            /* median one-way delay */
    double owd_increase_ms;          /* median OWD of the last quarter minus the first quarter */
    double owd_slope_ms_per_s;       /* least-squares slope of OWD over send time */
    uint32_t frames_sent, frames_received;
    int flags;                       /* NMP_AVAIL_* bits; congested when flags & 7 */
    int refine;                      /* nonzero: a bisection step */
} nmp_avail_step;

typedef struct nmp_avail_result {
    uint32_t nsteps;                 /* steps measured, in the order run */
    nmp_avail_step steps[NMP_AVAIL_MAX_STEPS];
    uint32_t size;                   /* payload bytes */
    uint32_t wire_overhead;          /* wire bytes added per frame (66 IPv4, 86 IPv6) */
    double lower_mbps;               /* highest uncongested sent rate (0 if none) */
    double upper_mbps;               /* lowest congested sent rate (NaN if none) */
    double estimate_mbps;            /* (lower + upper) / 2, user level; NaN unless bracketed */
    double estimate_wire_mbps;       /* the same at the wire level */
    int bracketed;                   /* nonzero when both an uncongested and a congested step exist */
    nmp_walltime_ns start_wall, end_wall; /* test start and end */
    char local_addr[64];             /* sender address */
    char remote_addr[64];            /* responder address */
    int remote_port;                 /* responder control port */
} nmp_avail_result;

/* Runs a rate scan; the result needs no freeing. On -ECANCELED it holds the
 * steps so far (and an estimate if they bracket one; a step cancelled
 * before its session started is left out). Other errors as
 * nmp_rr_run (then steps so far are kept too). Progress counts steps. */
int nmp_avail_run(const nmp_avail_spec *spec, const nmp_control *ctl, nmp_avail_result *res, char *err,
                  size_t errlen);
/* Fills the OWD and congestion fields of one step from a stream result, for
 * tests: owd_ns/send_wall per seq (-1 / 0 when lost). */
void nmp_avail_classify(nmp_avail_step *st, const nmp_stream_result *sr, const nmp_avail_spec *spec);

#ifdef __cplusplus
}
#endif

#endif /* NMP_AVAIL_H */
