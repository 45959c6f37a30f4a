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
} nmp_clock_state;

/* Samples the clock state into *out. The clock source file is optional
 * (source "" when absent); adjtimex failing returns -errno. */
int nmp_clock_state_read(nmp_clock_state *out, char *err, size_t errlen);
/* Derives synchronised and state from an adjtimex return code and status
 * bits (pure; for tests). */
void nmp_clock_state_classify(int adjtimex_rc, int status, int *synchronised, char *state, size_t statelen);

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
    NMP_KIND_STREAM = 2,             /* one-way stream: responder records each arrival */
    NMP_KIND_TCP = 3                 /* TCP streams: responder sinks data connections */
} nmp_test_kind;

/* A tcp session is requested with
 *   NMP/1 SESSION kind=tcp streams=N size=S interval_ns=W duration_ms=D
 *                 [window=B] [bins=K bin_ns=I] [cbr=0|1] [timeout_ms=T]
 * and answered with OK port=<TCP data port> cookie=.. session=..; the client
 * then opens N TCP connections to that port (see NMP_TCP_HELLO). */
#define NMP_TCP_MAX_STREAMS 16
#define NMP_TCP_MSG_MAX (1u << 20)   /* largest TCP message, bytes */
#define NMP_TCP_WINDOW_MAX (256u << 20) /* largest socket buffer a session may ask for */
#define NMP_TCP_MAX_BINS 100000      /* time-series bins per stream */
#define NMP_TCP_MAX_CELLS 400000     /* streams * bins */

typedef struct nmp_session_req {
    nmp_test_kind kind;              /* test kind */
    uint32_t frames;                 /* rr/stream: frames the client will send; tcp: most messages recorded */
    uint32_t size;                   /* rr/stream: UDP payload bytes; tcp: message bytes */
    uint64_t interval_ns;            /* spacing between frames (tcp: between messages of a stream) */
    uint32_t timeout_ms;             /* client's wait after the last frame */
    /* tcp only (0 for other kinds) */
    uint32_t streams;                /* data connections, 1..NMP_TCP_MAX_STREAMS */
    uint32_t duration_ms;            /* sending time */
    uint32_t window;                 /* SO_RCVBUF of the data connections, 0 = autotuning */
    uint32_t bins;                   /* receiver time-series bins per stream (1..NMP_TCP_MAX_BINS) */
    uint64_t bin_ns;                 /* bin width */
    int cbr;                         /* nonzero: record every message's arrival (constant bit rate) */
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

/* ----------------------------------------------------- TCP data framing
 *
 * A tcp session's data connection starts with a hello of NMP_TCP_HELLO
 * bytes: u32 magic 'NMPT', u32 stream index (0..streams-1), u64 session
 * cookie. The responder closes a connection whose hello is wrong, late
 * (5 s), from another IP than the control peer, or for a stream already
 * connected. Then come messages of exactly 'size' bytes, each starting with
 * NMP_TCP_MSG_HDR bytes, big-endian:
 *   0 u32 magic 'NMPM'   4 u32 stream   8 u32 seq (0-based, per stream)
 *   12 u32 flags (0)     16 i64 scheduled send wall ns (CBR) or staging time
 *   24 i64 sender wall ns when the message was handed to the socket
 * and filler. A tcp record (NMP_REC_SIZE bytes on the control connection)
 * is u32 stream, u32 seq, i64 scheduled wall ns, i64 arrival wall ns (when
 * the receiver read the message's last byte). */
#define NMP_TCP_HELLO 16
#define NMP_TCP_HELLO_MAGIC 0x4E4D5054u /* 'NMPT' */
#define NMP_TCP_MSG_HDR 32
#define NMP_TCP_MSG_MAGIC 0x4E4D504Du   /* 'NMPM' */
/* Per-stream totals in a tcp DATA payload: u64 bytes, u64 messages,
 * i64 first-byte wall ns, i64 last-byte wall ns. */
#define NMP_TCP_STREAM_REC 32

typedef struct nmp_tcp_msg_hdr {
    uint32_t stream;                 /* stream index */
    uint32_t seq;                    /* message number within the stream */
    nmp_walltime_ns sched_wall;      /* scheduled send time (CBR) */
    nmp_walltime_ns send_wall;       /* actual hand-over to the socket */
} nmp_tcp_msg_hdr;

typedef struct nmp_tcp_rec {
    uint32_t stream;                 /* stream index */
    uint32_t seq;                    /* message number */
    nmp_walltime_ns sched_wall;      /* scheduled send time from the message */
    nmp_walltime_ns arrival_wall;    /* receiver's wall clock at the message's last byte */
} nmp_tcp_rec;

void nmp_tcp_hello_encode(uint8_t *buf, uint32_t stream, uint64_t cookie);
/* Returns 0 or -EPROTO (bad magic). */
int nmp_tcp_hello_decode(const uint8_t *buf, uint32_t *stream, uint64_t *cookie);
void nmp_tcp_msg_encode(uint8_t *buf, const nmp_tcp_msg_hdr *h);
/* Returns 0 or -EPROTO (bad magic or flags). */
int nmp_tcp_msg_decode(const uint8_t *buf, nmp_tcp_msg_hdr *h);
void nmp_tcp_rec_encode(uint8_t *buf, const nmp_tcp_rec *r);
void nmp_tcp_rec_decode(const uint8_t *buf, nmp_tcp_rec *r);

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
    int stamp_port;                  /* STAMP / TWAMP-Light reflector UDP port, 0 = ephemeral, -1 = none */
    int stamp_stateful;              /* the reflector numbers its reflections per session */
    uint32_t stamp_max_pps;          /* reflections per second at most */
} nmp_responder_cfg;

void nmp_responder_cfg_default(nmp_responder_cfg *c);
/* Binds and listens. On success *out owns the sockets; free with
 * nmp_responder_close. Logs go to stderr with timestamps. */
int nmp_responder_open(const nmp_responder_cfg *cfg, nmp_responder **out, char *err, size_t errlen);
/* The control port actually bound (useful with port 0). */
int nmp_responder_port(const nmp_responder *r);
/* The STAMP reflector's UDP port, or -1 when it has none. */
int nmp_responder_stamp_port(const nmp_responder *r);
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
    uint32_t hist_bins;              /* inter-arrival histogram bins, 0 = 50 */
    uint64_t hist_width_ns;          /* bin width, 0 = automatic */
    uint32_t train_len;              /* 0 or 1: frames evenly spaced interval_ns apart; 2..NMP_TRAIN_MAX:
                                        trains of this many frames sent back to back, train starts
                                        interval_ns apart (the session declares interval_ns / train_len,
                                        the mean spacing, to the responder) */
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

/* Progress counts frames over all sizes. Result ownership as nmp_rr_run;
 * on -ECANCELED the points are the sizes measured so far (a size cancelled
 * before its session started is left out). */
int nmp_scan_run(const nmp_scan_spec *spec, const nmp_control *ctl, nmp_scan_result *res, char *err,
                 size_t errlen);
void nmp_scan_result_free(nmp_scan_result *res);

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

/* ------------------------------------------------------ TCP throughput
 *
 * Memory-to-memory TCP (TCPstream's lineage): 'streams' connections carry
 * messages of 'msg_size' bytes to a responder that sinks them (kind=tcp).
 * Modes: back to back (interval 0); spaced (each stream waits interval_ns
 * after a message is handed to the kernel before the next); constant bit
 * rate (cbr: message i of every stream is due at start + i * interval_ns;
 * a late message goes as soon as the socket takes it, and the receiver
 * records when each message's last byte arrived, so lateness = arrival -
 * schedule shows TCP falling behind after loss; needs a shared clock).
 * Sending stops at duration_ns or once 'bytes' (if non-zero) are handed
 * over, whichever is first, always at a message boundary; then each stream
 * is shut down for writing and the sender waits (up to timeout_ns) until
 * every byte is acknowledged.
 *
 * Throughput: per stream and in total, receiver bytes * 8 / (last byte -
 * first byte arrival) and sender bytes * 8 / (first send .. all acked).
 * Time series: bytes the receiver read per bin of sample_ns per stream
 * (bins from the receiver's first byte). TCP_INFO of every sender socket is
 * sampled every sample_ns (and once at the end). */

typedef struct nmp_tcp_spec {
    const char *host;                /* responder name or literal */
    int port;                        /* responder control port */
    uint32_t streams;                /* 1..NMP_TCP_MAX_STREAMS */
    uint32_t msg_size;               /* message bytes, NMP_TCP_MSG_HDR..NMP_TCP_MSG_MAX */
    uint64_t interval_ns;            /* spacing or CBR period per stream, 0 = back to back (<= 60 s) */
    int cbr;                         /* nonzero: constant bit rate with per-message lateness (interval > 0) */
    uint32_t window;                 /* SO_SNDBUF here and SO_RCVBUF at the responder, 0 = autotuning;
                                        else 2048..NMP_TCP_WINDOW_MAX */
    uint64_t duration_ns;            /* sending time, 1 ms..3600 s */
    uint64_t bytes;                  /* stop after this many bytes (all streams), 0 = no limit */
    uint64_t sample_ns;              /* time-series bin and TCP_INFO interval, >= 1 ms; 0 = 100 ms */
    uint64_t timeout_ns;             /* wait for acknowledgement and receiver results, 0 = 5 s */
    uint32_t connect_timeout_ms;     /* control and data connect timeout, 0 = 5000 */
} nmp_tcp_spec;

/* One TCP_INFO sample of one sender socket. */
typedef struct nmp_tcp_info_sample {
    uint64_t t_ns;                   /* since the start of sending (monotonic) */
    uint32_t stream;                 /* stream index */
    uint32_t cwnd;                   /* tcpi_snd_cwnd, segments */
    uint32_t mss;                    /* tcpi_snd_mss, bytes */
    uint32_t srtt_us;                /* tcpi_rtt: smoothed RTT, us */
    uint32_t rttvar_us;              /* tcpi_rttvar, us */
    uint32_t retransmits;            /* tcpi_retransmits: current unrecovered RTOs */
    uint32_t total_retrans;          /* tcpi_total_retrans: segments retransmitted so far */
    uint64_t pacing_rate;            /* tcpi_pacing_rate, bytes/s */
    uint64_t delivery_rate;          /* tcpi_delivery_rate, bytes/s */
    uint64_t bytes_acked;            /* tcpi_bytes_acked */
} nmp_tcp_info_sample;

typedef struct nmp_tcp_stream_result {
    uint64_t bytes_sent;             /* bytes handed to the kernel */
    uint64_t bytes_received;         /* bytes the receiver read */
    uint64_t messages_sent;          /* whole messages sent */
    uint64_t messages_received;      /* whole messages the receiver read */
    double send_mbps;                /* bytes_sent * 8 / sender time (first send .. acked) */
    double recv_mbps;                /* bytes_received * 8 / (last - first byte arrival) */
    nmp_walltime_ns first_arrival_wall, last_arrival_wall; /* receiver's first and last byte */
    uint32_t total_retrans;          /* segments retransmitted (last TCP_INFO) */
    uint32_t final_srtt_us;          /* smoothed RTT at the end */
} nmp_tcp_stream_result;

typedef struct nmp_tcp_result {
    uint32_t streams;                /* streams used */
    uint32_t msg_size;               /* message bytes */
    uint64_t bytes_sent, bytes_received; /* all streams */
    double sender_seconds;           /* first send .. everything acknowledged */
    double receiver_seconds;         /* receiver's first .. last byte, all streams */
    double send_mbps;                /* bytes_sent * 8 / sender_seconds */
    double recv_mbps;                /* bytes_received * 8 / receiver_seconds: the throughput */
    uint32_t total_retrans;          /* sum over streams */
    nmp_tcp_stream_result per[NMP_TCP_MAX_STREAMS]; /* per stream, 'streams' used */
    /* receiver time series */
    uint32_t bins;                   /* bins per stream */
    uint64_t bin_ns;                 /* bin width (= sample_ns) */
    nmp_walltime_ns series_start_wall; /* receiver's first byte; bin 0 starts here */
    uint64_t *series;                /* streams * bins bytes, row per stream (owned) */
    /* sender TCP_INFO samples, in time order (owned) */
    uint32_t nsamples;
    nmp_tcp_info_sample *samples;
    /* constant bit rate: one entry per message received (owned; 0 otherwise) */
    uint32_t nmsgs;
    uint32_t *msg_stream, *msg_seq;  /* stream and message number */
    nmp_walltime_ns *msg_sched_wall; /* scheduled send time */
    nmp_walltime_ns *msg_arrival_wall; /* receiver's time at the last byte */
    int64_t *msg_late_ns;            /* arrival - schedule */
    double late_min_ns, late_median_ns, late_p99_ns, late_max_ns; /* NaN without CBR records */
    uint64_t records_over;           /* CBR arrivals the receiver could not keep */
    uint32_t refused;                /* data connections the responder refused */
    nmp_walltime_ns start_wall, end_wall; /* test start and end */
    char local_addr[64];             /* sender address */
    char remote_addr[64];            /* responder address */
    int remote_port;                 /* responder control port */
} nmp_tcp_result;

/* Runs one TCP throughput test. Result ownership and errors as nmp_rr_run
 * (on -ECANCELED sending stops early and the result holds what the
 * receiver got; cancelled before the session started, it holds nothing
 * sent, an all-zero series and NaN rates). */
int nmp_tcp_run(const nmp_tcp_spec *spec, const nmp_control *ctl, nmp_tcp_result *res, char *err, size_t errlen);
void nmp_tcp_result_free(nmp_tcp_result *res);

/* ------------------------------------------------------------ hop list
 *
 * TTL-limited UDP probes to a high port of the destination, traceroute
 * style and unprivileged: the socket has IP_RECVERR / IPV6_RECVERR, so the
 * ICMP time-exceeded of each router and the port-unreachable of the
 * destination's kernel arrive on its error queue with the offender's
 * address. Each probe goes to its own destination port (port + index), so
 * answers are matched by the port quoted back. At most 'parallel' probes
 * are outstanding; TTLs beyond the destination are no longer sent once it
 * answered. No responder is needed. */

#define NMP_HOPS_MAX_TTL 64
#define NMP_HOPS_MAX_PROBES 10

typedef struct nmp_hops_spec {
    const char *host;                /* destination name or literal */
    int max_ttl;                     /* 1..NMP_HOPS_MAX_TTL, 0 = 30 */
    uint32_t probes;                 /* probes per hop, 1..NMP_HOPS_MAX_PROBES, 0 = 3 */
    uint32_t wait_ms;                /* wait for each probe's answer, 1..60000, 0 = 1000 */
    int port;                        /* first destination port, 1..65535 (index added), 0 = 33434 */
    uint32_t size;                   /* UDP payload bytes, 0..1472 */
    uint32_t parallel;               /* probes in flight, 1..64, 0 = 16 */
    int resolve;                     /* nonzero: reverse-resolve hop addresses */
    uint32_t resolve_timeout_ms;     /* per address, 0 = 500 */
} nmp_hops_spec;

typedef struct nmp_hop {
    int ttl;                         /* TTL / hop limit of the probes */
    int answered;                    /* probes answered */
    char addr[64];                   /* address that answered first ("" if none) */
    char name[256];                  /* its reverse name ("" if not asked or unresolved) */
    int other_addrs;                 /* answers from a different address (load balancing) */
    int64_t rtt_ns[NMP_HOPS_MAX_PROBES]; /* per probe, -1 when unanswered */
    int icmp_type, icmp_code;        /* of the first answer, -1 if none */
    int destination;                 /* nonzero: the destination answered (port unreachable) */
    int unreachable;                 /* nonzero: another destination-unreachable ended the path */
} nmp_hop;

typedef struct nmp_hops_result {
    int nhops;                       /* hops listed: TTL 1..nhops */
    nmp_hop hops[NMP_HOPS_MAX_TTL];  /* by TTL - 1 */
    int reached;                     /* the destination answered */
    int hop_count;                   /* TTL at which it answered (0 if not reached) */
    uint32_t probes_sent;            /* probes sent in all */
    char dest_addr[64];              /* resolved destination */
    double elapsed_ms;               /* time of the whole test */
} nmp_hops_result;

/* Runs one hop list; the result needs no freeing. Errors: -EINVAL (spec),
 * -ENOENT (name), socket errors as -errno; -ECANCELED keeps the hops so far. */
int nmp_hops_run(const nmp_hops_spec *spec, const nmp_control *ctl, nmp_hops_result *res, char *err,
                 size_t errlen);

/* ------------------------------------------------------------- errors */

/* snprintf-style helper: writes "fmt..." into err (if errlen > 0). */
void nmp_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#include "nmp_hopcap.h"              /* per-hop capacity (Trace-Rate style), part of this API */

#endif /* NMPROBE_H */
