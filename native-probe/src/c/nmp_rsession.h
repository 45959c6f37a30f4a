/* nmp_rsession.h -- a responder session, and the table through which each
 * test kind serves it: what the responder's loop (nmp_responder.c) shares
 * with the kinds' session files (nmp_rsession_rr.c, nmp_rsession_stream.c,
 * nmp_rsession_tcp.c; UDP helpers of the first two in nmp_rsession_udp.c).
 *
 * The loop admits a session, keeps its control connection (lines in,
 * answers queued out), times it (lifetime, quiet limit, pace) and ends it;
 * it knows a kind only through its nmp_rkind row. The kind's file opens what
 * its test needs, watches its own sockets, counts what arrives and builds
 * its answer to RESULTS. Internal to the engine. */
#ifndef NMP_RSESSION_H
#define NMP_RSESSION_H

#include <poll.h>
#include <sys/socket.h>

#include "nmprobe.h"
#include "nmp_net.h"
#include "nmp_tcpsink.h"

#define NMP_RSESSION_DRAIN_BATCH 256 /* datagrams a kind handles per poll wake-up */
#define NMP_RSESSION_MAX_FDS NMP_TCPSINK_MAX_FDS /* fds a kind may watch: the most is the tcp sink's */

typedef struct nmp_rsession nmp_rsession;

/* What differs between test kinds on the responder side: one row per kind,
 * defined by the kind's file. Every function gets the session, which the
 * loop owns; a kind keeps its own state behind s->kstate. */
typedef struct nmp_rkind {
    const char *name;                /* "rr", "stream", "tcp": as SESSION kind= names it */
    /* Opens what the test needs (its data socket, which sets s->port, and
     * state) once the session's cookie and id are drawn. Returns 0 or -errno
     * with err set; stop is called on failure too. */
    int (*start)(nmp_rsession *s, char *err, size_t errlen);
    /* Fills up to max pollfds with the kind's sockets; returns how many. */
    int (*pollfds)(nmp_rsession *s, struct pollfd *p, int max);
    /* Handles the events of the fds pollfds gave, this loop round. */
    void (*ready)(nmp_rsession *s, const struct pollfd *p, int n);
    /* RESULTS: queues the answer (nmp_rsession_out_reserve) or starts
     * preparing it (s->draining). NULL: the kind has none, RESULTS is refused. */
    void (*results)(nmp_rsession *s);
    /* Every loop round, or NULL. */
    void (*tick)(nmp_rsession *s);
    /* Closes and frees what start opened (also after a failed start). */
    void (*stop)(nmp_rsession *s);
    /* How long the client sends, as it asked. */
    uint64_t (*send_ns)(const nmp_session_req *q);
    /* The largest answer to RESULTS the request can get, in bytes (0: none). */
    double (*answer_bytes)(const nmp_session_req *q);
    /* Writes the request's terms for the log ("frames=.. size=.. udp"); returns snprintf's. */
    int (*describe)(const nmp_session_req *q, char *buf, size_t len);
    int paced;                       /* rx counts the frames of the announced schedule (the loop checks its pace) */
} nmp_rkind;

extern const nmp_rkind nmp_rkind_rr;
extern const nmp_rkind nmp_rkind_stream;
extern const nmp_rkind nmp_rkind_tcp;

/* A test session; a responder runs one exclusive session, or up to its
 * max_sessions shared ones (SESSION class=normal|background) at once. */
struct nmp_rsession {
    nmp_responder *r;                /* the responder serving it (its log) */
    int active;                      /* nonzero while a session runs */
    uint32_t id;                     /* random id shown in logs */
    uint64_t cookie;                 /* random cookie every test frame must carry */
    nmp_session_req req;             /* admitted parameters */
    const nmp_rkind *kind;           /* behaviour of the session's test kind */
    void *kstate;                    /* the kind's own state (its file's), NULL until start */
    int ctl;                         /* control connection */
    nmp_linebuf lb;                  /* control bytes received */
    struct sockaddr_storage peer;    /* control peer; test traffic must come from this IP */
    struct sockaddr_storage local;   /* local address of the control connection */
    int port;                        /* the session's data port (UDP or TCP), told in OK */
    uint64_t rx;                     /* valid frames received (tcp: bytes) */
    uint64_t tx;                     /* frames reflected */
    uint64_t invalid;                /* datagrams ignored */
    uint64_t refused;                /* datagrams from a reflecting path's refused sources (nmp_reflguard.h) */
    nmp_monotime_ns opened;          /* admission time */
    nmp_monotime_ns last_activity;   /* last control or valid test activity */
    nmp_monotime_ns hard_deadline;   /* session ends here whatever happens (moved on by the sender's progress) */
    nmp_monotime_ns first_deadline;  /* hard_deadline at admission: how far it may move is counted from here */
    uint64_t follow_rx;              /* rx when its progress was last seen */
    nmp_monotime_ns first_progress;  /* when its first frame (tcp: byte) was seen, 0 = none yet */
    nmp_monotime_ns last_progress;   /* when rx last grew */
    nmp_monotime_ns pace_at;         /* start of the window its pace is checked over */
    uint64_t pace_rx;                /* rx at pace_at */
    int results_sent;                /* nonzero once RESULTS was answered (only one per session) */
    uint8_t *out;                    /* control bytes queued, not yet taken by the socket (heap) */
    size_t out_off, out_len, out_cap; /* written so far, queued, allocated */
    int ending;                      /* END answered: close once the output is written */
    int draining;                    /* RESULTS asked, the answer is being prepared (tcp: streams read to their end) */
    nmp_monotime_ns drain_until;     /* while draining: the answer goes out then at the latest */
    int reserved;                    /* it runs in its client's reservation (nmp_calendar.h) */
    uint32_t cal_id;                 /* that reservation's id, given back when the session ends (0: none) */
};

/* ---- what the loop offers the kinds (nmp_responder.c) ---- */

/* Logs like the responder (level 0 errors, 1 normal, 2 verbose). */
void nmp_rsession_log(const nmp_rsession *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Makes room for n more bytes of output at s->out + s->out_len (the kind
 * writes them and adds n to out_len). Returns 0 or -ENOMEM. */
int nmp_rsession_out_reserve(nmp_rsession *s, size_t n);
/* Writes queued output until the socket pushes back (the loop goes on later). */
void nmp_rsession_flush(nmp_rsession *s);
/* Sends ERR reason=.. text=.. on the control connection (one non-blocking send). */
void nmp_rsession_err(nmp_rsession *s, const char *reason, const char *text);
/* Ends the session: stops the kind, closes the control connection, logs why. */
void nmp_rsession_close(nmp_rsession *s, const char *why);
/* Handles control lines that waited while an answer was prepared. */
void nmp_rsession_ctl_lines(nmp_rsession *s);
/* This host's clock state (nmp_clock_state_read), read at most once a
 * second (asking ptp4l takes a moment of the single loop), or NULL when it
 * cannot be read (logged). Owned by the responder. */
const nmp_clock_state *nmp_rsession_clock(nmp_rsession *s);

/* ---- the UDP socket of rr and stream sessions (nmp_rsession_udp.c) ---- */

/* A session's UDP socket and the client address it serves. */
typedef struct nmp_rsession_udp {
    int fd;                          /* bound to the control connection's local address, -1 when closed */
    struct sockaddr_storage client;  /* client UDP address, pinned by the first valid frame */
    socklen_t client_len;            /* 0 until pinned */
} nmp_rsession_udp;

/* Opens u's socket on s->local (port chosen by the kernel; s->port gets
 * it). Returns 0 or -errno with err set. */
int nmp_rsession_udp_open(nmp_rsession *s, nmp_rsession_udp *u, char *err, size_t errlen);
/* Checks that a datagram belongs to the session: source IP of the control
 * peer, right cookie, type and size, seq in range; pins the client's UDP
 * address on the first valid frame, and then takes frames from it only.
 * Returns 1 if valid (h decoded), else 0. */
int nmp_rsession_udp_valid(nmp_rsession *s, nmp_rsession_udp *u, const uint8_t *buf, size_t len, uint8_t type,
                           const struct sockaddr_storage *from, socklen_t fromlen, nmp_frame_hdr *h);
void nmp_rsession_udp_close(nmp_rsession_udp *u);
/* A frame schedule's sending time: frames x interval (nmp_rkind.send_ns). */
uint64_t nmp_rsession_udp_send_ns(const nmp_session_req *q);
/* "frames=.. size=.. interval_ns=.. timeout_ms=.. udp" (nmp_rkind.describe). */
int nmp_rsession_udp_describe(const nmp_session_req *q, char *buf, size_t len);

#endif /* NMP_RSESSION_H */
