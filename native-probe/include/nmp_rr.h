/* nmp_rr.h -- the request-response latency test (kind "rr"). */
#ifndef NMP_RR_H
#define NMP_RR_H

#include "nmp_clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ request-response test */

typedef struct nmp_rr_spec {
    const char *host;                /* responder name or literal (v4/v6) */
    int port;                        /* responder control port */
    uint32_t count;                  /* frames to send, 1..max */
    uint32_t size;                   /* UDP payload bytes, NMP_FRAME_HDR..NMP_FRAME_MAX */
    uint64_t interval_ns;            /* spacing between sends (0 = back to back) */
    uint64_t timeout_ns;             /* wait after the last send for replies */
    int ttl;                         /* outgoing TTL / hop limit, 0 = system default */
    uint32_t connect_timeout_ms;     /* control connect and reply wait, 0 = 5000 */
    const char *key_file;            /* shared key file of an authenticating responder, NULL = none */
    int closed_loop;                 /* nonzero: ping-pong, as sockperf's: a frame leaves only once the one
                                      * before it was answered or waited timeout_ns for, and interval_ns
                                      * after it left at the earliest */
    int shared;                      /* nonzero: SESSION class=normal, may run beside other shared sessions
                                      * on a responder serving several (nmprobe-responder --sessions) */
} nmp_rr_spec;

/* A frame whose host part (the reflector's turnaround plus a preempted
 * send call here) is at least this long is counted as a host stall: the round
 * trip then measures a preempted host rather than the path. */
#define NMP_RR_STALL_NS 1000000ll

typedef struct nmp_rr_result {
    uint32_t requested;              /* frames asked for (spec.count) */
    uint32_t sent;                   /* frames actually sent */
    uint32_t received;               /* distinct frames answered */
    uint32_t lost;                   /* sent - received */
    uint32_t duplicates;             /* replies for a seq already answered */
    uint32_t out_of_order;           /* replies with seq below the highest seen */
    uint32_t invalid;                /* datagrams ignored (bad magic, cookie, size) */
    double loss_percent;             /* 100 * lost / sent */
    double rtt_min_ns, rtt_mean_ns, rtt_median_ns, rtt_max_ns;   /* over received frames */
    double rtt_p99_ns;               /* 99th percentile (type 7) over received frames */
    double ipd_min_ns, ipd_mean_ns, ipd_max_ns, ipd_iqr_ns;      /* nmp_stats_ipd of RTTs */
    uint32_t stalls;                 /* received frames whose host part >= NMP_RR_STALL_NS */
    uint32_t turnaround_known;       /* replies that carried the reflector's turnaround */
    double host_max_ns;              /* largest host part of a received frame */
    double path_p99_ns;              /* p99 of the RTT less its host part: the path's share */
    nmp_walltime_ns start_wall;      /* wall clock at first send */
    nmp_walltime_ns end_wall;        /* wall clock at the end of the wait */
    char local_addr[64];             /* local UDP address */
    char remote_addr[64];            /* responder address */
    int remote_port;                 /* responder control port */
    /* Per-frame arrays of 'requested' entries, owned by the result (free
     * with nmp_rr_result_free). */
    int32_t *seq;                    /* 0..requested-1 */
    nmp_walltime_ns *send_wall;      /* wall clock at send, 0 if never sent */
    int64_t *rtt_ns;                 /* round-trip time, -1 if lost or never sent */
    int32_t *bytes;                  /* reply payload bytes, 0 if lost */
    int32_t *ttl;                    /* reply IP TTL / hop limit, -1 if lost or unknown */
    int64_t *host_ns;                /* host part of the RTT: the reflector's turnaround when the reply
                                      * carried it, plus this send call when it took NMP_RR_STALL_NS or
                                      * more (preempted); never above the RTT;
                                      * -1 if lost or never sent */
} nmp_rr_result;

/* Runs one request-response test. On success and on -ECANCELED the result
 * holds what was measured (free it with nmp_rr_result_free): every
 * per-frame array is allocated with 'requested' entries, even when the
 * cancel came before the responder answered SESSION (then sent == 0 and
 * the arrays hold their "not sent" values); on other
 * errors it holds nothing that needs freeing (but freeing is harmless).
 * Errors: -EINVAL (spec), -EBUSY (responder busy; err carries its reason),
 * -EPERM (responder refused the parameters), name resolution and socket
 * errors as -errno, -EPROTO (bad control reply), -ETIMEDOUT. */
int nmp_rr_run(const nmp_rr_spec *spec, const nmp_control *ctl, nmp_rr_result *res, char *err,
               size_t errlen);
void nmp_rr_result_free(nmp_rr_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NMP_RR_H */
