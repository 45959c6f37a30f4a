/* nmp_wire.h -- the wire protocol between the engine and nmprobe-responder:
 * control lines, UDP test frames, receiver records, TCP data framing. Private
 * to the engine: nothing outside libnmprobe speaks it. */
#ifndef NMP_WIRE_H
#define NMP_WIRE_H

#include <sys/socket.h>
#include "nmp_clock.h"
#include "nmp_host.h"
#include "nmp_responder.h"
#include "nmp_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 *     NMP/1 BUSY remaining_ms=R            (nothing about the owner's test)
 *     NMP/1 ERR reason=<token> text=<message, spaces written as '+'>
 *     NMP/1 BYE rx=<frames received> tx=<frames reflected>
 *     NMP/1 DATA records=R bytes=B rx=.. over=.. invalid=.. <host counters>
 *       followed by exactly B = R * NMP_REC_SIZE bytes of receiver records
 *       (see nmp_rec_decode); host counters are the responder's before
 *       (session admission) and after (RESULTS): cpu_total_b cpu_idle_b
 *       intr_b udp_in_b rcvbuf_b and the same with _a; then, optionally,
 *       clock=<reference>,<error_ns>,<utc_error_ns>: the responder's clock
 *       at admission (nmp_clock_state), for the one-way delays' uncertainty.
 *
 * Authenticated sessions (a responder started with --key-file; nmp_auth.h),
 * version 2: SESSION is answered with
 *     NMP/1 CHALLENGE nonce=<32 hex digits: 16 random bytes, new each time>
 *                     auth=2 peer=<the client's address as the responder sees it>
 * and the client proves it holds the shared key with
 *     NMP/1 AUTH mac=<64 hex digits>
 *       HMAC-SHA256(key, "nmp-auth/2\nnonce=<nonce>\nresponder=<address> <port>\n"
 *                        "client=<peer>\n" <the SESSION line as sent, without its
 *                        final "\n" and a "\r" before it>)
 *       where responder is the address and port the client dialled (numeric;
 *       IPv4-mapped IPv6 written as IPv4) and client the CHALLENGE's peer
 * before the responder decodes the request and answers OK, BUSY or ERR as
 * above. The responder checks the MAC with the address and port the
 * connection came in on (or one given with --auth-address): an answer to a
 * challenge relayed from another responder is refused. Anything else than a
 * valid AUTH after CHALLENGE is answered ERR reason=auth and closed. A
 * client answers only auth=2 (version 1, which MACed nonce || SESSION line,
 * bound neither end). Only the control conversation is authenticated: test
 * frames still carry the session's random cookie.
 *
 * Reserved slots (nmp_calendar.h), each on a connection of its own, in
 * place of SESSION (and authenticated as SESSION is on a keyed responder):
 *     NMP/1 RESERVE start_ms=<wall-clock ms> [latest_ms=<ms>] duration_ms=D
 *                   class=exclusive|normal|background holder=<label> [local=1]
 *       (local=1, only from a loopback address: a hold for a test this host
 *       runs itself; no session redeems it, it lasts to its end)
 *       -> NMP/1 OK reservation=<8 hex digits> start_ms=S end_ms=E
 *          (the earliest free start in [start_ms, latest_ms])
 *       -> NMP/1 BUSY remaining_ms=R next_ms=<earliest free start> holder=<label
 *          of the reservation in the way, or a+session+in+progress>
 *       -> NMP/1 ERR reason=limit|request text=..
 *     NMP/1 RELEASE reservation=<id>        (only from the address that reserved)
 *       -> NMP/1 OK reservation=<id>, or ERR reason=request
 * While another client's reservation covers a SESSION's expected length,
 * the SESSION is answered BUSY remaining_ms=<until it ends> holder=<label>;
 * the holder's own session is admitted from 1 s before its start.
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
    NMP_CTL_DATA,
    NMP_CTL_CHALLENGE,
    NMP_CTL_AUTH,
    NMP_CTL_RESERVE,
    NMP_CTL_RELEASE
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
    /* rr/stream: SESSION's class=normal or class=background (the client's test
     * class, as RESERVE names it). A shared session may run beside other shared
     * ones on a responder serving more than one session (--sessions); without
     * the key, and always for tcp, a session is exclusive: it runs alone. */
    int shared;
} nmp_session_req;

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
 * The rest of the frame is filler up to the requested size.
 *
 * An rr reply whose flags carry NMP_FRAME_F_TURNAROUND holds, at
 * NMP_FRAME_TURNAROUND_OFF, a u32: the ns from the request's arrival at the
 * responder (the kernel's receive stamp) to the reply's send, saturated at
 * UINT32_MAX. That is the reflecting host's part of the round trip: a
 * responder preempted on a busy host shows it there rather than as path
 * delay (issue 25). A client zeroes the field and the flags, so a responder
 * that predates it reflects "no turnaround known". */

#define NMP_FRAME_F_TURNAROUND 0x0001u
#define NMP_FRAME_TURNAROUND_OFF 32

#define NMP_FRAME_MAGIC 0x4E4D5031u

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
    uint16_t flags;                  /* NMP_FRAME_F_* (decoded; encode writes 0) */
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

/* ---- the stream test's analysis of receiver records ---- */

/* The analysis part of nmp_stream_run, for tests: res must be allocated and
 * hold requested, sent, send_wall[] and (optionally, else send_wall is used)
 * send_mono[] per seq; recs are the receiver records in arrival order; size
 * is the payload size and ipv6 selects header sizes; hist_width_ns 0 =
 * automatic. Fills every derived field except hosts and identity. */
int nmp_stream_analyze(nmp_stream_result *res, const nmp_monotime_ns *send_mono, const nmp_rec *recs, size_t nrec,
                       uint32_t size, int ipv6, uint64_t hist_width_ns);

#ifdef __cplusplus
}
#endif

#endif /* NMP_WIRE_H */
