/* nmprobe.h -- the whole public API of the nmws native probe engine.
 *
 * The engine measures UDP request-response latency (and, in later stages,
 * UDP streams) between this host and an nmprobe responder. A TCP control
 * connection negotiates each test session; test frames travel over UDP.
 *
 * Conventions used by every call below:
 *  - return 0 on success or a negative errno value on failure;
 *  - calls that can fail take a caller-supplied buffer (err, errlen) that
 *    receives "call: reason" text on failure (never NULL-terminated beyond
 *    errlen; errlen may be 0 to ignore the text);
 *  - state lives in handles and structs the caller passes in, never in
 *    globals; the library never calls exit() or abort();
 *  - round-trip times come from the monotonic clock only (nmp_monotime_ns);
 *  - wall-clock stamps (nmp_walltime_ns) are CLOCK_REALTIME nanoseconds
 *    since the Unix epoch and are used only for reporting and for one-way
 *    delay between hosts that share a clock. */
#ifndef NMPROBE_H
#define NMPROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NMP_VERSION "0.1.0"
#define NMP_PROTO_VERSION 1          /* control protocol and frame version */
#define NMP_DEFAULT_PORT 8700        /* responder control port */
#define NMP_ERRLEN 256               /* suggested size of error buffers */

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

/* ---------------------------------------------------------- statistics */

/* All functions below take a sample array that they never modify and a
 * count n. Functions that need sorted data copy the input (heap); they
 * return 0, -EINVAL when n == 0, or -ENOMEM. */

/* Linear-interpolation quantile (type 7, as R's default and numpy's):
 * h = (n-1)*q, result = x[floor h] + (h - floor h)*(x[floor h + 1] - x[floor h]). */
int nmp_stats_quantile(const double *x, size_t n, double q, double *out);
/* Median: the middle value, or the mean of the two middle values. */
int nmp_stats_median(const double *x, size_t n, double *out);
/* Interquartile range: quantile(0.75) - quantile(0.25), type 7. */
int nmp_stats_iqr(const double *x, size_t n, double *out);

typedef struct nmp_summary {
    size_t n;          /* number of samples */
    double min;        /* smallest sample */
    double max;        /* largest sample */
    double mean;       /* arithmetic mean */
    double median;     /* see nmp_stats_median */
    double stddev;     /* sample standard deviation (n-1); 0 when n < 2 */
} nmp_summary;

/* Fills *out for n >= 1 samples; returns -EINVAL when n == 0. */
int nmp_stats_summarize(const double *x, size_t n, nmp_summary *out);

/* Inter-packet delay as PingER reports it, from consecutive values of a
 * delay series (e.g. RTTs of consecutively received frames):
 * d_i = x_i - x_(i-1), i = 1..n-1. min/mean/max are taken over |d_i|, iqr is
 * the IQR (type 7) of the signed d_i. Needs n >= 2 (else -EINVAL). */
typedef struct nmp_ipd {
    size_t n;          /* number of differences (n samples - 1) */
    double min_abs;    /* smallest |d_i| */
    double mean_abs;   /* mean of |d_i| */
    double max_abs;    /* largest |d_i| */
    double iqr;        /* IQR of the signed d_i */
} nmp_ipd;

int nmp_stats_ipd(const double *x, size_t n, nmp_ipd *out);

/* Least-squares line y = slope*x + intercept with r^2 = 1 - SSres/SStot
 * (r^2 = 1 when all y are equal and fit exactly). Needs n >= 2 and x not
 * all equal (else -EINVAL). */
typedef struct nmp_linfit {
    double slope;      /* dy/dx */
    double intercept;  /* y at x = 0 */
    double r2;         /* coefficient of determination */
} nmp_linfit;

int nmp_stats_linfit(const double *x, const double *y, size_t n, nmp_linfit *out);

/* Counts x into nbins bins [lo + i*width, lo + (i+1)*width); values below lo
 * go to *under, values at or above the last edge to *over (either pointer
 * may be NULL). counts[] is zeroed first. Returns 0 or -EINVAL (width <= 0
 * or nbins == 0). */
int nmp_stats_histogram(const double *x, size_t n, double lo, double width, uint32_t nbins, uint64_t *counts,
                        uint64_t *under, uint64_t *over);

/* Fits an exponential distribution to positive samples by maximum likelihood
 * (rate = 1 / mean) and measures the fit with the Kolmogorov-Smirnov
 * statistic D = max |F_empirical - (1 - exp(-rate x))|. Needs n >= 1 and a
 * positive mean (else -EINVAL). */
typedef struct nmp_expfit {
    size_t n;          /* samples */
    double mean;       /* sample mean */
    double rate;       /* 1 / mean */
    double ks_d;       /* Kolmogorov-Smirnov distance, 0..1 (smaller = better fit) */
} nmp_expfit;

int nmp_stats_expfit(const double *x, size_t n, nmp_expfit *out);

/* ------------------------------------------------------- host counters */

typedef struct nmp_host_counters {
    int valid;                       /* nonzero when sampled successfully */
    uint64_t cpu_total;              /* /proc/stat "cpu" jiffies: user..steal */
    uint64_t cpu_idle;               /* idle + iowait jiffies */
    uint64_t interrupts;             /* /proc/stat "intr" total since boot */
    uint64_t udp_in;                 /* UDP InDatagrams (+ Udp6InDatagrams) of this netns */
    uint64_t udp_rcvbuf_errors;      /* RcvbufErrors (+ Udp6RcvbufErrors): drops at full socket buffers */
    uint64_t udp_in_errors;          /* InErrors (+ Udp6InErrors) */
} nmp_host_counters;

/* Samples all counters. Returns 0 or -errno (err names the file). */
int nmp_host_sample(nmp_host_counters *c, char *err, size_t errlen);
/* Parsers of /proc/stat and /proc/net/snmp (+ optional snmp6) text, for tests.
 * Return 0 or -EPROTO; they fill only their own fields. */
int nmp_host_parse_stat(const char *text, nmp_host_counters *c);
int nmp_host_parse_snmp(const char *snmp, const char *snmp6, nmp_host_counters *c);
/* Percentage of non-idle CPU time (all CPUs) between two samples; 0 if unknown. */
double nmp_host_cpu_busy_percent(const nmp_host_counters *before, const nmp_host_counters *after);

/* -------------------------------------------------------- control protocol
 *
 * Text lines, each at most NMP_CTL_MAXLINE bytes including the final '\n':
 *     NMP/1 <VERB>[ key=value]...\n
 * Keys are [a-z_]{1,23}; values are 1..127 bytes of [A-Za-z0-9._:%/+=,()*-];
 * a key may appear once; at most NMP_CTL_MAXKV pairs. A trailing '\r' is
 * tolerated. Which keys each verb allows is checked by the verb-specific
 * decoders (nmp_ctl_session_decode, ...); unknown keys are rejected.
 *
 *   client -> responder
 *     NMP/1 SESSION kind=rr|stream frames=N size=S interval_ns=W timeout_ms=T
 *     NMP/1 RESULTS                        (stream sessions: receiver records)
 *     NMP/1 END
 *   responder -> client
 *     NMP/1 OK port=P cookie=<16 hex digits> session=<8 hex digits>
 *     NMP/1 BUSY session=<hex> kind=rr peer=<addr> age_ms=A remaining_ms=R
 *     NMP/1 ERR reason=<token> text=<message, spaces written as '+'>
 *     NMP/1 BYE rx=<frames received> tx=<frames reflected>
 *     NMP/1 DATA records=R bytes=B rx=.. over=.. invalid=.. <host counters>
 *       followed by exactly B = R * NMP_REC_SIZE bytes of receiver records
 *       (see nmp_rec_decode); host counters are the responder's before
 *       (session admission) and after (RESULTS): cpu_total_b cpu_idle_b
 *       intr_b udp_in_b rcvbuf_b and the same with _a.
 */

#define NMP_CTL_MAXLINE 512
#define NMP_CTL_MAXKV 16
#define NMP_CTL_KEYMAX 23
#define NMP_CTL_VALMAX 127

typedef enum nmp_ctl_verb {
    NMP_CTL_SESSION = 1,
    NMP_CTL_END,
    NMP_CTL_OK,
    NMP_CTL_BUSY,
    NMP_CTL_ERR,
    NMP_CTL_BYE,
    NMP_CTL_RESULTS,
    NMP_CTL_DATA
} nmp_ctl_verb;

typedef struct nmp_ctl_msg {
    nmp_ctl_verb verb;                          /* parsed verb */
    int nkv;                                    /* number of pairs used */
    char key[NMP_CTL_MAXKV][NMP_CTL_KEYMAX + 1];   /* NUL-terminated keys */
    char val[NMP_CTL_MAXKV][NMP_CTL_VALMAX + 1];   /* NUL-terminated values */
} nmp_ctl_msg;

/* Parses one line of 'len' bytes (with or without its final '\n'; no NUL
 * needed). Returns 0, -EMSGSIZE when the line is too long or has too many
 * pairs, -EPROTO when it is malformed. *out is overwritten. */
int nmp_ctl_parse(const char *line, size_t len, nmp_ctl_msg *out, char *err, size_t errlen);
/* Returns the value for 'key' or NULL. */
const char *nmp_ctl_get(const nmp_ctl_msg *m, const char *key);
/* Parses a value as an unsigned decimal in [lo, hi]: 0, -EINVAL (not a
 * number) or -ERANGE (out of range). */
int nmp_ctl_get_u64(const nmp_ctl_msg *m, const char *key, uint64_t lo, uint64_t hi, uint64_t *out,
                    char *err, size_t errlen);
/* Formats "NMP/1 VERB k=v...\n" into buf; returns the length or -EMSGSIZE. */
int nmp_ctl_format(char *buf, size_t buflen, nmp_ctl_verb verb, const char *kvfmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *nmp_ctl_verb_name(nmp_ctl_verb v);
/* Turns free text into a 'text=' value: spaces become '+', bytes outside the
 * value charset become '_', and the result is cut to NMP_CTL_VALMAX bytes.
 * dst must hold NMP_CTL_VALMAX + 1 bytes. Never fails. */
void nmp_ctl_text_encode(char *dst, const char *src);
/* Reverses the '+' encoding into dst (dstlen bytes, NUL-terminated). */
void nmp_ctl_text_decode(char *dst, size_t dstlen, const char *src);

typedef enum nmp_test_kind {
    NMP_KIND_RR = 1,                 /* request-response: responder reflects each frame */
    NMP_KIND_STREAM = 2              /* one-way stream: responder records each arrival */
} nmp_test_kind;

typedef struct nmp_session_req {
    nmp_test_kind kind;              /* test kind */
    uint32_t frames;                 /* number of frames the client will send */
    uint32_t size;                   /* UDP payload bytes per frame */
    uint64_t interval_ns;            /* spacing between frames */
    uint32_t timeout_ms;             /* client's wait after the last frame */
} nmp_session_req;

typedef struct nmp_limits {
    uint32_t max_frames;             /* most frames per session */
    uint32_t max_size;               /* largest frame (<= NMP_FRAME_MAX) */
    double max_rate_mbps;            /* highest offered rate size*8/interval, Mbit/s */
    uint32_t max_duration_ms;        /* longest session: frames*interval + timeout */
} nmp_limits;

void nmp_limits_default(nmp_limits *l);
/* Decodes and range-checks a SESSION message against 'lim'. Returns 0,
 * -EPROTO (wrong verb, unknown or missing key), -EINVAL (bad number) or
 * -ERANGE (out of limits); err names the key and the allowed range. */
int nmp_ctl_session_decode(const nmp_ctl_msg *m, const nmp_limits *lim, nmp_session_req *out,
                           char *err, size_t errlen);

/* ---------------------------------------------------------- test frames
 *
 * Every UDP test frame starts with this 32-byte header, in network byte order:
 *   0  u32 magic 'NMP1'      4  u8 version   5 u8 type   6 u16 flags (0)
 *   8  u64 session cookie   16  u32 seq     20 u32 total frames
 *   24 i64 sender wall clock ns (CLOCK_REALTIME) at send
 * The rest of the frame is filler up to the requested size. */

#define NMP_FRAME_MAGIC 0x4E4D5031u
#define NMP_FRAME_HDR 32
#define NMP_FRAME_MAX 9000

typedef enum nmp_frame_type {
    NMP_FRAME_RR_REQ = 1,            /* client -> responder, to be reflected */
    NMP_FRAME_RR_REPLY = 2,          /* responder -> client */
    NMP_FRAME_STREAM = 3             /* client -> responder, recorded */
} nmp_frame_type;

typedef struct nmp_frame_hdr {
    uint8_t type;                    /* nmp_frame_type */
    uint64_t cookie;                 /* session cookie */
    uint32_t seq;                    /* 0-based sequence number */
    uint32_t total;                  /* frames in the test */
    nmp_walltime_ns send_wall;       /* sender's wall clock at send */
} nmp_frame_hdr;

void nmp_frame_encode(uint8_t *buf, const nmp_frame_hdr *h);
/* Returns 0 or -EPROTO (short, bad magic or version). */
int nmp_frame_decode(const uint8_t *buf, size_t len, nmp_frame_hdr *h);

/* Receiver record of one stream arrival, NMP_REC_SIZE bytes big-endian on
 * the control connection: u32 seq, u32 bytes, i64 sender wall ns (from the
 * frame), i64 arrival wall ns (kernel receive timestamp, SO_TIMESTAMPNS). */
#define NMP_REC_SIZE 24

typedef struct nmp_rec {
    uint32_t seq;                    /* frame sequence number */
    uint32_t bytes;                  /* UDP payload bytes */
    nmp_walltime_ns send_wall;       /* sender's wall clock at send */
    nmp_walltime_ns arrival_wall;    /* receiver's kernel timestamp */
} nmp_rec;

void nmp_rec_encode(uint8_t *buf, const nmp_rec *r);
void nmp_rec_decode(const uint8_t *buf, nmp_rec *r);

/* ------------------------------------------------------------- network */

/* Formats a socket address as "addr" (no port) into buf. */
void nmp_addr_str(const struct sockaddr *sa, char *buf, size_t buflen);
int nmp_addr_port(const struct sockaddr *sa);

/* ----------------------------------------------------------- responder */

typedef struct nmp_responder nmp_responder;

typedef struct nmp_responder_cfg {
    const char *bind_addr;           /* numeric address or NULL for "0.0.0.0" */
    int port;                        /* control port, 0 = ephemeral */
    nmp_limits limits;               /* admission limits */
    uint32_t idle_timeout_ms;        /* session ends after this much silence */
    int verbose;                     /* 0 quiet, 1 sessions, 2 debug */
    int quiet;                       /* nonzero: log nothing but errors */
} nmp_responder_cfg;

void nmp_responder_cfg_default(nmp_responder_cfg *c);
/* Binds and listens. On success *out owns the sockets; free with
 * nmp_responder_close. Logs go to stderr with timestamps. */
int nmp_responder_open(const nmp_responder_cfg *cfg, nmp_responder **out, char *err, size_t errlen);
/* The control port actually bound (useful with port 0). */
int nmp_responder_port(const nmp_responder *r);
/* Serves until nmp_responder_stop is called (from a signal handler or
 * another thread: it only writes to a pipe). Returns 0 after stop. */
int nmp_responder_run(nmp_responder *r, char *err, size_t errlen);
void nmp_responder_stop(nmp_responder *r);
void nmp_responder_close(nmp_responder *r);

/* -------------------------------------------------- test control (client) */

typedef void (*nmp_progress_fn)(void *ctx, uint32_t done, uint32_t total);

/* Shared between the thread that runs a test and the threads that watch or
 * cancel it. The runner reads 'cancel' in each loop iteration and calls
 * 'progress' (if set) at most every ~100 ms and once at the end. */
typedef struct nmp_control {
    volatile int32_t *cancel;        /* points at a flag; nonzero = stop; may be NULL */
    nmp_progress_fn progress;        /* may be NULL */
    void *progress_ctx;              /* passed to progress */
} nmp_control;

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
} nmp_rr_spec;

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
    double ipd_min_ns, ipd_mean_ns, ipd_max_ns, ipd_iqr_ns;      /* nmp_stats_ipd of RTTs */
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
} nmp_rr_result;

/* Runs one request-response test. On success and on -ECANCELED the result
 * holds what was measured (free it with nmp_rr_result_free); on other
 * errors it holds nothing that needs freeing (but freeing is harmless).
 * Errors: -EINVAL (spec), -EBUSY (responder busy; err carries its reason),
 * -EPERM (responder refused the parameters), name resolution and socket
 * errors as -errno, -EPROTO (bad control reply), -ETIMEDOUT. */
int nmp_rr_run(const nmp_rr_spec *spec, const nmp_control *ctl, nmp_rr_result *res, char *err,
               size_t errlen);
void nmp_rr_result_free(nmp_rr_result *res);

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

typedef struct nmp_stream_spec {
    const char *host;                /* responder name or literal */
    int port;                        /* responder control port */
    uint32_t count;                  /* frames to send */
    uint32_t size;                   /* UDP payload bytes, NMP_FRAME_HDR..NMP_FRAME_MAX */
    uint64_t interval_ns;            /* spacing, 0 = back to back */
    uint64_t timeout_ns;             /* wait after the last send before fetching records */
    int ttl;                         /* outgoing TTL, 0 = system default */
    uint32_t connect_timeout_ms;     /* control timeout, 0 = 5000 */
    uint32_t hist_bins;              /* inter-arrival histogram bins, 0 = 50 */
    uint64_t hist_width_ns;          /* bin width, 0 = automatic */
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

/* Runs one stream test; result ownership and errors as nmp_rr_run. */
int nmp_stream_run(const nmp_stream_spec *spec, const nmp_control *ctl, nmp_stream_result *res, char *err,
                   size_t errlen);
/* Allocates the per-frame arrays and histogram of res for 'count' frames
 * and 'bins' bins (seq filled, others zero / -1). Returns 0 or -ENOMEM. */
int nmp_stream_result_alloc(nmp_stream_result *res, uint32_t count, uint32_t bins);
void nmp_stream_result_free(nmp_stream_result *res);

/* The analysis part of nmp_stream_run, for tests: res must be allocated and
 * hold requested, sent, send_wall[] and (optionally, else send_wall is used)
 * send_mono[] per seq; recs are the receiver records in arrival order; size
 * is the payload size and ipv6 selects header sizes; hist_width_ns 0 =
 * automatic. Fills every derived field except hosts and identity. */
int nmp_stream_analyze(nmp_stream_result *res, const nmp_monotime_ns *send_mono, const nmp_rec *recs, size_t nrec,
                       uint32_t size, int ipv6, uint64_t hist_width_ns);

/* -------------------------------------------------- latency vs frame size
 *
 * Runs one rr test per size (each its own session) and fits a line through
 * the per-size minimum RTT: slope (us per byte) reflects the sum of the
 * transfer rates on the path, intercept (us) the fixed per-packet costs. */

#define NMP_SCAN_MAX_SIZES 64

typedef struct nmp_scan_point {
    uint32_t size;                   /* UDP payload bytes */
    uint32_t sent, received;         /* frames */
    double min_ns, mean_ns, median_ns, max_ns; /* RTT over received frames (NaN if none) */
    double hist_lo_ns, hist_width_ns; /* RTT histogram geometry */
    uint64_t *hist;                  /* hist_bins counts (owned by the scan result) */
    uint64_t hist_under, hist_over;  /* RTTs outside the bins */
} nmp_scan_point;

typedef struct nmp_scan_spec {
    nmp_rr_spec rr;                  /* host, port, count, interval, timeout, ttl (size ignored) */
    const uint32_t *sizes;           /* sizes to test, in order */
    uint32_t nsizes;                 /* 2..NMP_SCAN_MAX_SIZES */
    uint32_t hist_bins;              /* RTT histogram bins per size, 0 = 50 */
    uint64_t hist_width_ns;          /* bin width, 0 = automatic per size */
} nmp_scan_spec;

typedef struct nmp_scan_result {
    uint32_t npoints;                /* points measured */
    nmp_scan_point points[NMP_SCAN_MAX_SIZES]; /* one per size */
    uint32_t hist_bins;              /* bins per point */
    double slope_us_per_byte;        /* least-squares fit of min RTT vs size */
    double intercept_us;
    double r2;
    int fit_ok;                      /* nonzero when the fit exists (>= 2 sizes answered) */
    char remote_addr[64];            /* responder address */
} nmp_scan_result;

/* Progress counts frames over all sizes. Result ownership as nmp_rr_run. */
int nmp_scan_run(const nmp_scan_spec *spec, const nmp_control *ctl, nmp_scan_result *res, char *err,
                 size_t errlen);
void nmp_scan_result_free(nmp_scan_result *res);

/* ------------------------------------------------------------- errors */

/* snprintf-style helper: writes "fmt..." into err (if errlen > 0). */
void nmp_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif /* NMPROBE_H */
