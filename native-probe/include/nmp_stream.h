/* nmp_stream.h -- the one-way UDP stream test (kind "stream"). */
#ifndef NMP_STREAM_H
#define NMP_STREAM_H

#include "nmp_clock.h"
#include "nmp_host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------- UDP stream
 *
 * The client sends 'count' frames of 'size' bytes, 'interval_ns' apart
 * (0 = as fast as possible; busy-wait pacing on the monotonic clock), to a
 * responder that records each arrival with its kernel receive timestamp
 * (SO_TIMESTAMPNS). After 'timeout_ns' the client fetches the records and
 * the responder's host counters over the control connection and computes
 * everything below. One-way delays compare the receiver's clock with the
 * sender's (both CLOCK_REALTIME): exact when both share a clock.
 *
 * Rates: "user" counts UDP payload bits; "wire" counts, per frame, payload
 * + UDP 8 + IP 20 (IPv6 40) + Ethernet header 14 + FCS 4 + preamble/SFD 8 +
 * inter-frame gap 12 bytes (= payload + 66 for IPv4), i.e. what the frame
 * occupies on an Ethernet link. Buffer estimates count bytes as a queue
 * holds them: payload + UDP + IP + Ethernet header (no FCS, preamble, IFG). */

#define NMP_HIST_MAX 1000            /* most histogram bins */
#define NMP_TRAIN_MAX 10000          /* most frames in one back-to-back train */

typedef struct nmp_stream_spec {
    const char *host;                /* responder name or literal */
    int port;                        /* responder control port */
    uint32_t count;                  /* frames to send */
    uint32_t size;                   /* UDP payload bytes, NMP_FRAME_HDR..NMP_FRAME_MAX */
    uint64_t interval_ns;            /* spacing, 0 = back to back */
    uint64_t timeout_ns;             /* wait after the last send before fetching records */
    int ttl;                         /* outgoing TTL, 0 = system default */
    uint32_t connect_timeout_ms;     /* control timeout, 0 = 5000 */
    const char *key_file;            /* shared key file of an authenticating responder, NULL = none */
    uint32_t hist_bins;              /* inter-arrival histogram bins, 0 = 50 */
    uint64_t hist_width_ns;          /* bin width, 0 = automatic */
    uint32_t train_len;              /* 0 or 1: frames evenly spaced interval_ns apart; 2..NMP_TRAIN_MAX:
                                        trains of this many frames sent back to back, train starts
                                        interval_ns apart (the session declares interval_ns / train_len,
                                        the mean spacing, to the responder) */
    int shared;                      /* nonzero: SESSION class=normal, may run beside other shared sessions
                                        on a responder serving several (nmprobe-responder --sessions) */
} nmp_stream_spec;

typedef struct nmp_stream_result {
    uint32_t requested;              /* frames asked for */
    uint32_t sent;                   /* frames sent */
    uint32_t received;               /* distinct frames recorded by the receiver */
    uint32_t lost;                   /* sent - received */
    uint32_t duplicates;             /* extra arrivals of a seq */
    uint32_t reordered;              /* RFC 4737 reordered arrivals (seq below next expected) */
    uint64_t records_over;           /* arrivals the receiver could not record */
    uint64_t invalid;                /* datagrams the receiver ignored */
    double loss_percent;             /* 100 * lost / sent */
    /* sender */
    nmp_walltime_ns first_send_wall, last_send_wall; /* wall clock of the first and last send */
    double send_spacing_ns;          /* achieved mean spacing (monotonic), (last - first) / (sent - 1) */
    double send_user_mbps;           /* payload rate offered */
    double send_wire_mbps;           /* wire rate offered */
    /* receiver */
    nmp_walltime_ns first_arrival_wall, last_arrival_wall; /* kernel timestamps */
    double recv_user_mbps;           /* (received - 1) * size * 8 / (last - first arrival) */
    double recv_wire_mbps;           /* the same with wire bytes per frame */
    uint32_t wire_overhead;          /* wire bytes added to each payload (66 IPv4, 86 IPv6) */
    /* reordering, RFC 4737 over first arrivals */
    double reorder_ratio;            /* reordered / received */
    uint32_t reorder_max_extent;     /* largest reordering extent (arrival positions) */
    double n_reorder_ratio[3];       /* n-reordering ratio for n = 1, 2, 3 */
    /* one-way delay over first arrivals, ns */
    double owd_min_ns, owd_median_ns, owd_mean_ns, owd_p95_ns, owd_p99_ns, owd_max_ns;
    double jitter_ns;                /* owd p95 - p50 */
    double ipdv_mean_abs_ns;         /* RFC 3393: mean |owd(i+1) - owd(i)| over consecutive seqs both received */
    uint32_t ipdv_pairs;             /* pairs used */
    /* inter-arrival times between consecutive first arrivals, ns */
    double iat_min_ns, iat_mean_ns, iat_max_ns;
    double hist_lo_ns;               /* left edge of bin 0 */
    double hist_width_ns;            /* bin width */
    uint32_t hist_bins;              /* bins in hist */
    uint64_t *hist;                  /* counts (owned) */
    uint64_t hist_under, hist_over;  /* values outside the bins */
    /* loss pattern: gaps in frames between consecutive lost seqs */
    uint32_t loss_intervals;         /* number of gaps (losses - 1) */
    double loss_interval_mean;       /* mean gap, frames */
    double loss_exp_rate;            /* fitted exponential rate, 1/frames */
    double loss_exp_ks_d;            /* Kolmogorov-Smirnov distance of the fit (NaN if < 2 gaps) */
    /* loss onset and bottleneck buffer */
    int64_t first_loss_seq;          /* lowest lost seq, -1 if none */
    double rate_before_loss_mbps;    /* payload rate received before the first loss */
    double rate_after_loss_mbps;     /* payload rate received after it */
    double buffer_est_frames;        /* frames sent before the first loss minus frames delivered meanwhile */
    double buffer_est_bytes;         /* the same in queued bytes (payload + 42 IPv4 / 62 IPv6) */
    double queue_delay_at_loss_ns;   /* owd of the last frame before the loss minus the minimum owd */
    double buffer_est_delay_bytes;   /* that delay times the post-loss rate, in queued bytes */
    /* hosts */
    double sender_cpu_percent;       /* busy CPU share on the sender during the test */
    double receiver_cpu_percent;     /* on the receiver, admission to RESULTS */
    uint64_t sender_interrupts;      /* interrupt count delta */
    uint64_t receiver_interrupts;
    uint64_t receiver_udp_in;        /* UDP datagrams delivered on the receiver (its netns) */
    uint64_t receiver_rcvbuf_drops;  /* UDP drops at full socket buffers on the receiver */
    uint32_t network_lost;           /* lost minus receiver socket drops, >= 0 */
    /* clocks: what the one-way delays rest on (nmp_clock_state) */
    char sender_clock_ref[32];       /* "ptp:<grandmaster>", "utc" or "none" */
    char receiver_clock_ref[32];     /* the same, "" when the responder did not say */
    double sender_clock_error_ns;    /* against its reference */
    double receiver_clock_error_ns;  /* NaN when the responder did not say */
    double owd_uncertainty_ns;       /* of every one-way delay (nmp_clock_uncertainty_ns); NaN unknown */
    /* identity */
    nmp_walltime_ns start_wall, end_wall; /* test start and end */
    char local_addr[64];             /* sender address */
    char remote_addr[64];            /* responder address */
    int remote_port;                 /* responder control port */
    /* per-frame arrays of 'requested' entries, indexed by seq (owned) */
    int32_t *seq;                    /* 0..requested-1 */
    nmp_walltime_ns *send_wall;      /* sender wall clock, 0 if not sent */
    nmp_walltime_ns *arrival_wall;   /* first arrival (kernel timestamp), 0 if lost */
    int64_t *owd_ns;                 /* one-way delay, -1 if lost */
    int32_t *bytes;                  /* payload bytes received, 0 if lost */
} nmp_stream_result;

/* Decodes the responder's "clock=reference,error_ns,utc_error_ns" value
 * (nmp_wire.h); 0 or -EPROTO. For tests. */
int nmp_stream_clock_decode(const char *v, char *ref, size_t reflen, int64_t *error_ns, int64_t *utc_error_ns);
/* Runs one stream test; result ownership and errors as nmp_rr_run. */
int nmp_stream_run(const nmp_stream_spec *spec, const nmp_control *ctl, nmp_stream_result *res, char *err,
                   size_t errlen);
/* Allocates the per-frame arrays and histogram of res for 'count' frames
 * and 'bins' bins (seq filled, others zero / -1). Returns 0 or -ENOMEM. */
int nmp_stream_result_alloc(nmp_stream_result *res, uint32_t count, uint32_t bins);
void nmp_stream_result_free(nmp_stream_result *res);


#ifdef __cplusplus
}
#endif

#endif /* NMP_STREAM_H */
