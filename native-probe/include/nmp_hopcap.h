/* nmp_hopcap.h -- per-hop capacity, Trace-Rate style (part of the public API;
 * nmprobe.h includes it).
 *
 * For each TTL 1..N the client sends short back-to-back trains (or pairs) of
 * large UDP frames to a high port of the destination with the TTL set to
 * expire at that hop. The router there answers every frame with an ICMP
 * time-exceeded (the destination's kernel with a port-unreachable); the
 * answers come back on the socket's error queue (IP_RECVERR /
 * IPV6_RECVERR), unprivileged and without a responder. Their dispersion
 * is the dispersion of the frames when they reached that hop, i.e. the
 * narrowest link up to it: "capacity up to hop h".
 *
 * Timestamps: every answer is stamped by the kernel when it arrives
 * (SO_TIMESTAMPING with SOF_TIMESTAMPING_RX_SOFTWARE, delivered with
 * MSG_ERRQUEUE too). A train whose answers do not all carry a kernel stamp
 * is timed with CLOCK_MONOTONIC read at recvmsg instead (coarse: answers
 * read in one batch look simultaneous); both are counted per hop.
 *
 * Per train (frames 0..len-1, the first 'skip' left out, as a token bucket
 * passes its burst at line rate there):
 *   rate = (len - 1 - skip) * size * 8 / (reply[len-1] - reply[skip])
 * A train is MISSING when an answer of its tail is missing (router or
 * destination rate limits, loss), REORDERED when the tail's answers arrived
 * out of order or the span is not positive, SENDER-limited when the sender
 * needed >= 80 % of the answers' span to send the tail (then the path up
 * to that hop is at least as fast as the sender). A hop's estimate is the
 * median over its USED trains; when the sender-limited trains outnumber the
 * used ones it is the median over both and flagged as a lower bound.
 * Spread: type 7 quantiles and the mode (densest +-5 % window) of the same
 * trains. Levels as the capacity test: user (payload), frame (+ UDP 8, IP
 * 20/40, Ethernet 14: what queues and tbf count), wire (+ FCS, preamble,
 * IFG). Per-train values and the spread are at the frame level.
 *
 * Routers that rate-limit ICMP (Linux: a burst of 6 answers to one host,
 * then 1 a second; most routers do something alike) answer only the head
 * of a train. When a hop's first 3 trains all come back cut short that way
 * (fewer than half the frames answered, and those the first ones, or none;
 * loss scatters instead) and some were answered, the hop (unless it is the
 * destination) switches to "ends only" trains, the way
 * pathneck probes: only frames 'skip' and len-1 expire at the hop, the
 * others pass on with TTL 255 (so the hop's queue still sees the whole
 * train), and the 2 answers time the same span. Ends-only trains are paced
 * to the router's budget: 1 s after the switch, then after a MISSING train
 * the pause doubles (up to 2.5 s) and the train is sent again, up to 4
 * times; at most NMP_HOPCAP_ENDS_TRAINS are recorded after the 3 full ones
 * (which stay on record as MISSING); no ends-only train starts after 30 s
 * on one hop, nor after 120 s on the whole run (a later rate-limiting hop
 * then keeps its MISSING full trains). The destination cannot be probed
 * this way (the passing frames reach it too and spend its budget): a
 * rate-limiting destination's hop has no estimate. Counters (replies,
 * probes_sent) cover both kinds of train, retries included.
 *
 * Limits of the method: ICMP answers quote only the start of the frame, so
 * they are small (Linux: 576 bytes IP) and their return path must carry
 * them at least at (576 / frame size) of the forward rate; routers that
 * generate ICMP on a slow path stretch answers (trains then read low). */
#ifndef NMP_HOPCAP_H
#define NMP_HOPCAP_H

#include "nmp_capacity.h"
#include "nmp_clock.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NMP_HOPCAP_MAX_TRAINS 1000   /* trains per hop */
#define NMP_HOPCAP_MAX_LEN 1000      /* frames per train */
#define NMP_HOPCAP_MAX_FRAMES 2000000u /* hops * trains * len */
#define NMP_HOPCAP_SENDER_LIMIT 0.8  /* tail send span / answer span at or above this: sender-limited */
#define NMP_HOPCAP_MODE_WINDOW 0.05  /* the mode's half window, relative */
#define NMP_HOPCAP_ENDS_TRAINS 10    /* trains per hop in ends-only mode (each costs a router ~2 s of budget) */

typedef enum nmp_hc_status {
    NMP_HC_USED = 0,                 /* complete and in order: in the estimate */
    NMP_HC_SENDER = 1,               /* complete and in order, but sender-limited */
    NMP_HC_MISSING = 2,              /* an answer of the tail missing */
    NMP_HC_REORDERED = 3,            /* tail answers out of order, or no positive span */
    NMP_HC_NOT_SENT = 4              /* not sent (cancelled, or beyond the hops measured) */
} nmp_hc_status;

typedef struct nmp_hopcap_spec {
    const char *host;                /* destination name or literal */
    int hops;                        /* measure TTL 1..hops (1..NMP_HOPS_MAX_TTL); 0 = find them with the hop list */
    int max_ttl;                     /* hop-list limit when hops == 0, 1..NMP_HOPS_MAX_TTL; 0 = 30 */
    uint32_t trains;                 /* trains per hop, 1..NMP_HOPCAP_MAX_TRAINS; 0 = 30 */
    uint32_t train_len;              /* frames per train, 2..NMP_HOPCAP_MAX_LEN (2 = packet pairs); 0 = 64 */
    int skip;                        /* head frames left out, 0..train_len-2; -1 = train_len / 2 (0 for pairs) */
    uint32_t size;                   /* UDP payload bytes, NMP_FRAME_HDR..NMP_FRAME_MAX (sent with DF); 0 = 1472 */
    uint64_t gap_ns;                 /* pause after each train, <= 10 s; 0 = 3x its answer span, 1 ms..1 s */
    uint32_t wait_ms;                /* wait for a train's answers after its last frame, <= 60000; 0 = 1000 */
    int port;                        /* first destination port, 1..65535 (probes cycle over 4096); 0 = 33434 */
} nmp_hopcap_spec;

typedef struct nmp_hopcap_hop {
    int ttl;                         /* TTL of the probes */
    char addr[64];                   /* address that answered first ("" if none) */
    int other_addrs;                 /* answers from another address (load balancing) */
    int destination;                 /* nonzero: the destination answered (port unreachable) */
    uint32_t trains_sent;            /* trains sent completely */
    uint32_t trains_used;            /* trains in the estimate */
    uint32_t missing, reordered, sender_limited; /* trains by status */
    uint32_t probes_sent;            /* frames sent */
    uint32_t replies;                /* answers matched to a frame */
    uint32_t kernel_stamped;         /* answers with a kernel receive timestamp */
    uint32_t trains_user_stamped;    /* trains timed at recvmsg (no kernel stamp on every answer) */
    int lower_bound;                 /* nonzero: mostly sender-limited, the estimate is a lower bound */
    int ends_only;                   /* nonzero: this hop cut full trains short (it rate-limits ICMP): ends-only trains followed */
    double user_mbps, frame_mbps, wire_mbps; /* the estimate (median); NaN when no train counts */
    double mode_frame_mbps;          /* densest +-5 % window of the same trains */
    double p10_mbps, p25_mbps, p75_mbps, p90_mbps, iqr_mbps; /* frame level */
    double head_frame_mbps;          /* median rate over the skipped heads (a token bucket's burst shows here) */
} nmp_hopcap_hop;

typedef struct nmp_hopcap_result {
    int nhops;                       /* hops with an entry: TTL 1..nhops */
    nmp_hopcap_hop hops[NMP_HOPS_MAX_TTL]; /* by TTL - 1 */
    int discovered;                  /* nonzero: the hop list ran first */
    int reached;                     /* the destination answered (port unreachable) */
    int hop_count;                   /* its TTL (0 if not reached) */
    uint32_t trains, train_len, skip, size; /* geometry used */
    uint32_t frame_overhead;         /* 42 IPv4, 62 IPv6 */
    uint32_t wire_overhead;          /* 66 IPv4, 86 IPv6 */
    char dest_addr[64];              /* resolved destination */
    nmp_walltime_ns start_wall, end_wall; /* test start and end */
    /* per train at the frame level, row (TTL - 1) * trains + train, 'rows' rows
     * (owned; free with nmp_hopcap_result_free) */
    uint32_t rows;                   /* rows allocated (>= nhops) */
    double *train_frame_mbps;        /* tail rate, NaN when not measurable */
    int32_t *train_status;           /* nmp_hc_status */
} nmp_hopcap_result;

/* Runs the per-hop capacity test. On success and on -ECANCELED the result
 * holds the hops measured so far (a hop cancelled part-way keeps its
 * trains so far; the per-train arrays are allocated before anything can be
 * cancelled, so they are present whenever rows > 0). Other errors: -EINVAL
 * (spec), -ENOENT (name), -EMSGSIZE (size above the path MTU), socket
 * errors as -errno; then nothing needs freeing (freeing is harmless).
 * Progress counts trains over all hops. No responder is needed. */
int nmp_hopcap_run(const nmp_hopcap_spec *spec, const nmp_control *ctl, nmp_hopcap_result *res, char *err,
                   size_t errlen);
void nmp_hopcap_result_free(nmp_hopcap_result *res);

/* Analyses one train (pure, for tests): send_ns (any clock), reply_ns (0 =
 * missing; one clock for the whole train) and rank (arrival order from 1,
 * 0 = missing) per frame. Sets *frame_mbps (NaN unless measurable) and
 * *head_frame_mbps (frames 0..skip; NaN unless complete and in order) and
 * returns the nmp_hc_status, or -EINVAL for a bad geometry. */
int nmp_hopcap_train(const int64_t *send_ns, const int64_t *reply_ns, const uint32_t *rank, uint32_t len,
                     uint32_t skip, uint32_t size, uint32_t frame_overhead, double *frame_mbps,
                     double *head_frame_mbps);
/* The same for an ends-only train: only frames skip and len-1 were answered
 * (the others are not looked at); *frame_mbps over the same span. */
int nmp_hopcap_train_ends(const int64_t *send_ns, const int64_t *reply_ns, const uint32_t *rank, uint32_t len,
                          uint32_t skip, uint32_t size, uint32_t frame_overhead, double *frame_mbps);
/* Fills the estimate and spread of *h (pure, for tests) from n trains'
 * frame-level rates, statuses and head rates (NaN heads are ignored);
 * counts by status are recomputed too. Returns 0 or -ENOMEM. */
int nmp_hopcap_summarize(nmp_hopcap_hop *h, const double *frame_mbps, const int32_t *status, const double *head,
                         uint32_t n, uint32_t size, uint32_t frame_overhead, uint32_t wire_overhead);

#ifdef __cplusplus
}
#endif

#endif /* NMP_HOPCAP_H */
