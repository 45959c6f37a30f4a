/* nmp_capacity.h -- path capacity by packet-train dispersion (kind "capacity"). */
#ifndef NMP_CAPACITY_H
#define NMP_CAPACITY_H

#include "nmp_clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------- path capacity (packet trains)
 *
 * path.bandwidth.capacity by packet-train dispersion: 'trains' trains of
 * 'train_len' frames of 'size' bytes, each train sent back to back, in one
 * stream session whose receiver takes a kernel timestamp per frame. The
 * first 'skip' frames of every train are left out of its estimate (a token
 * bucket passes its burst at line rate, and the queue at the bottleneck is
 * still filling); the rest, the train's tail, leaves the bottleneck back to
 * back, so its dispersion is the bottleneck's service time:
 *   train estimate = (k - 1) * size * 8 / (last - first arrival of the tail)
 * over the k tail frames received. A train is discarded when fewer than
 * half its tail frames arrived (loss), when tail frames arrived out of
 * order, or when the sender needed more than 80 % of the arrival span to
 * send the tail (the sender, not the path, set the dispersion). The
 * estimate is the median over the trains kept, with quantiles as spread.
 *
 * Levels: "user" counts UDP payload bits; "frame" counts payload + UDP 8 +
 * IP 20 (IPv6 40) + Ethernet header 14, as queues and shapers (tbf) count;
 * "wire" adds FCS 4 + preamble 8 + inter-frame gap 12, the Ethernet line
 * rate. All levels are the user figure times (size + overhead) / size.
 *
 * Spacing of the trains: gap_ns between train starts, or automatically 4x
 * the arrival span of a pilot train (one train in a session of its own),
 * clamped to 1 ms..1 s, so the probe loads the path at most ~25 %. */

#define NMP_CAP_MAX_TRAINS 1000

typedef enum nmp_train_status {
    NMP_TRAIN_USED = 0,              /* estimate kept */
    NMP_TRAIN_LOSS = 1,              /* fewer than half the tail frames arrived */
    NMP_TRAIN_REORDER = 2,           /* tail frames arrived out of order */
    NMP_TRAIN_SENDER = 3,            /* sender-limited: sending the tail took >= 80 % of its arrival span */
    NMP_TRAIN_NOT_SENT = 4           /* cancelled before this train went out */
} nmp_train_status;

typedef struct nmp_capacity_spec {
    const char *host;                /* responder name or literal */
    int port;                        /* responder control port */
    uint32_t trains;                 /* trains, 1..NMP_CAP_MAX_TRAINS; 0 = 40 */
    uint32_t train_len;              /* frames per train, 4..NMP_TRAIN_MAX; 0 = 100 */
    uint32_t size;                   /* UDP payload bytes, NMP_FRAME_HDR..NMP_FRAME_MAX; 0 = 1472 */
    uint32_t skip;                   /* head frames of each train left out, 1..train_len-3; 0 = train_len / 2 */
    uint64_t gap_ns;                 /* train start to train start, 100 us..10 s; 0 = automatic (pilot) */
    uint64_t timeout_ns;             /* wait after the last frame, <= 60 s; 0 = 500 ms */
    int ttl;                         /* outgoing TTL, 0 = system default */
    uint32_t connect_timeout_ms;     /* control timeout, 0 = 5000 */
    const char *key_file;            /* shared key file of an authenticating responder, NULL = none */
} nmp_capacity_spec;

typedef struct nmp_capacity_result {
    uint32_t trains;                 /* trains asked for */
    uint32_t trains_sent;            /* trains sent completely */
    uint32_t trains_used;            /* trains whose estimate was kept */
    uint32_t discarded_loss, discarded_reorder, discarded_sender; /* trains discarded, by reason */
    uint32_t train_len, size, skip;  /* geometry actually used */
    uint64_t gap_ns;                 /* spacing of train starts used */
    double pilot_span_ns;            /* arrival span of the pilot train (NaN without a pilot) */
    uint32_t frames_sent, frames_received; /* all trains */
    uint32_t frame_overhead;         /* bytes added per frame at the frame level (42 IPv4, 62 IPv6) */
    uint32_t wire_overhead;          /* bytes added per frame at the wire level (66 IPv4, 86 IPv6) */
    /* the estimate: median over kept trains (NaN when none was kept) */
    double user_mbps;                /* UDP payload */
    double frame_mbps;               /* payload + UDP/IP/Ethernet headers: what a queue or shaper counts */
    double wire_mbps;                /* Ethernet line rate (adds FCS, preamble, inter-frame gap) */
    /* spread of the per-train user-level estimates (type 7 quantiles) */
    double p10_mbps, p25_mbps, p75_mbps, p90_mbps, iqr_mbps;
    double head_user_mbps;           /* median dispersion rate of the skipped heads (a burst shows here) */
    nmp_walltime_ns start_wall, end_wall; /* test start and end */
    char local_addr[64];             /* sender address */
    char remote_addr[64];            /* responder address */
    int remote_port;                 /* responder control port */
    /* per train, 'trains' entries (owned; free with nmp_capacity_result_free) */
    double *train_user_mbps;         /* tail dispersion rate, NaN when not measurable */
    int32_t *train_status;           /* nmp_train_status */
    uint32_t *train_received;        /* frames of the train received */
} nmp_capacity_result;

/* Runs a capacity test (pilot session, then the trains). On success and on
 * -ECANCELED (trains so far) the result holds the estimate; other errors as
 * nmp_rr_run. Progress counts frames of the main session. */
int nmp_capacity_run(const nmp_capacity_spec *spec, const nmp_control *ctl, nmp_capacity_result *res, char *err,
                     size_t errlen);
void nmp_capacity_result_free(nmp_capacity_result *res);
/* The analysis part, for tests: frame (train t, index i) is seq t * train_len
 * + i; send_wall and arrival_wall are indexed by seq (arrival 0 = lost);
 * 'trains_sent' trains were sent. Allocates the per-train arrays of res and
 * fills every field except gap, pilot, hosts and identity. Returns 0,
 * -EINVAL (geometry) or -ENOMEM. */
int nmp_capacity_analyze(nmp_capacity_result *res, const nmp_walltime_ns *send_wall,
                         const nmp_walltime_ns *arrival_wall, uint32_t trains, uint32_t trains_sent,
                         uint32_t train_len, uint32_t skip, uint32_t size, int ipv6);

#ifdef __cplusplus
}
#endif

#endif /* NMP_CAPACITY_H */
