/* nmp_responder.c -- the responder engine: accepts control connections,
 * admits one test session at a time (interlock), and serves the session
 * until END, control close, idle timeout, the duration limit, or its frames
 * falling far behind the schedule it asked for.
 * An rr session reflects each request; a stream session records each
 * arrival with its kernel receive timestamp and returns the records on
 * RESULTS, together with this host's CPU, interrupt and UDP-drop counters.
 * A tcp session listens on a TCP data port instead, accepts up to
 * 'streams' connections that prove the cookie in their hello, sinks their
 * messages (bytes per time bin per stream, and in CBR mode the arrival of
 * every message) and returns the totals on RESULTS.
 *
 * This file is the loop: admission (limits, BUSY, authentication), the
 * control connection (lines in, answers queued out), the session's timers;
 * each kind's session lives in its own file behind the nmp_rkind table
 * (nmp_rsession.h: rr, stream, tcp), and the loop has no kind branches.
 *
 * Single-threaded poll() loop; all state lives in the nmp_responder handle.
 * Test traffic is sent only to the address that opened the session over
 * TCP, only in answer to frames carrying that session's random cookie, and
 * never more frames than the session asked for. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include "nmprobe.h"
#include "nmp_responder.h"
#include "nmp_net.h"
#include "nmp_stamp.h"
#include "nmp_auth.h"
#include "nmp_rsession.h"
#include "nmp_calendar.h"

#define MAX_PENDING 8               /* control connections waiting for their first line */
#define MAX_PENDING_PER_IP 2        /* of those, from one source address */
/* A session lasts at most what it asked for (see session_lifetime_ns): */
#define SESSION_MARGIN_NS 2000000000ull /* + setup, the client's lateness, END */
#define FOLLOW_MIN_NS 5000000000ull /* a late sender moves the deadline at most its sending time, and this at least */
#define FRAME_FLOOR_NS 10000ull     /* + each frame at least this long (back to back: 1M rr frames took 4.8 s on a 2-core VM) */
#define RESULTS_MIN_BPS 4000000.0   /* + its largest answer written at this rate (bytes/s) */
#define OUT_KEEP 65536              /* output buffer kept between answers; larger ones are freed */
#define PENDING_TIMEOUT_MS 5000     /* a connection must send its request within this */
#define AUTH_NAMES 4                /* --auth-address entries at most */
/* Pace of a frame schedule (see session_behind): each window of the schedule
 * must bring at least 1/PACE_SHARE of the frames it announced. */
#define PACE_WINDOW_NS 2000000000ull /* window: at least this long */
#define PACE_WINDOW_FRAMES 16        /* and at least this many intervals */
#define PACE_SHARE 8

/* A control connection that has not (yet) become a session. */
typedef struct pending_conn {
    int fd;                         /* -1 when the slot is free */
    struct sockaddr_storage peer;   /* remote address */
    nmp_linebuf lb;                 /* bytes received so far */
    nmp_monotime_ns opened;         /* accept time */
    struct sockaddr_storage local;  /* our address the peer dialled (the MAC binds it) */
    int challenged;                 /* keyed responder: CHALLENGE sent, AUTH awaited */
    uint8_t nonce[NMP_AUTH_NONCE];  /* the challenge */
    char req[NMP_CTL_MAXLINE + 1];  /* the SESSION line it answers, as received */
    size_t req_len;                 /* its length */
} pending_conn;

struct nmp_responder {
    nmp_responder_cfg cfg;          /* configuration (bind_addr copied below) */
    char bind_addr[64];             /* copy of cfg.bind_addr */
    int lfd;                        /* listening socket */
    int port;                       /* bound control port */
    int stop_pipe[2];               /* nmp_responder_stop writes here */
    pending_conn pend[MAX_PENDING]; /* connections before their request */
    nmp_rsession ss[NMP_RESPONDER_SESSIONS_MAX]; /* sessions; active ones have s.active set */
    int max_sessions;               /* shared sessions at once (cfg.max_sessions, at least 1) */
    nmp_stamp_reflector *stamp;     /* STAMP / TWAMP-Light reflector, or NULL */
    int stamp_auth;                  /* the reflector answers authenticated STAMP only */
    int keyed;                      /* nonzero: sessions must authenticate with key */
    nmp_auth_key key;               /* the shared key (--key-file) */
    nmp_auth_ends names[AUTH_NAMES]; /* other addresses clients dial us at (--auth-address), client unset */
    int nnames;                     /* names used */
    nmp_clock_state clock;          /* this host's clock, as last read (nmp_rsession_clock) */
    nmp_monotime_ns clock_at;       /* when, 0 = never */
    int clock_ok;                   /* nonzero when that read succeeded */
    nmp_cal cal;                    /* reserved slots (RESERVE / RELEASE) */
};

/* Writes "2024-05-01T12:00:00.123Z nmprobe-responder: ..." to stderr.
 * level 0 = always (errors), 1 = normal, 2 = verbose. */
static void vrlog(const nmp_responder *r, int level, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void vrlog(const nmp_responder *r, int level, const char *fmt, va_list ap) {
    if (level > 0 && r->cfg.quiet) return;
    if (level > 1 + r->cfg.verbose) return;
    char ts[40], msg[600];
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    fprintf(stderr, "%s.%03ldZ nmprobe-responder: %s\n", ts, now.tv_nsec / 1000000, msg);
}

static void rlog(const nmp_responder *r, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rlog(const nmp_responder *r, int level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vrlog(r, level, fmt, ap);
    va_end(ap);
}

void nmp_rsession_log(const nmp_rsession *s, int level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vrlog(s->r, level, fmt, ap);
    va_end(ap);
}

void nmp_responder_cfg_default(nmp_responder_cfg *c) {
    memset(c, 0, sizeof(*c));
    c->bind_addr = NULL;
    c->port = NMP_DEFAULT_PORT;
    nmp_limits_default(&c->limits);
    c->idle_timeout_ms = 1000;
    c->verbose = 0;
    c->quiet = 0;
    c->stamp_port = -1;
    c->stamp_max_pps = 10000;
}

/* Reads --auth-address: up to AUTH_NAMES comma-separated ADDR:PORT (IPv6
 * as [ADDR]:PORT), numeric, into r->names. Returns 0 or -EINVAL. */
static int parse_auth_addresses(nmp_responder *r, const char *list, char *err, size_t errlen) {
    char buf[512], *save = NULL;
    snprintf(buf, sizeof(buf), "%s", list);
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(t, ':'), *addr = t, *end = NULL;
        long port = colon ? strtol(colon + 1, &end, 10) : -1;
        if (colon) *colon = '\0';
        if (addr[0] == '[' && colon && colon > addr + 1 && colon[-1] == ']') {
            addr++;
            colon[-1] = '\0';
        }
        if (r->nnames == AUTH_NAMES || colon == NULL || end == colon + 1 || *end != '\0' || port < 1 ||
            port > 65535 ||
            nmp_auth_addr_text(addr, r->names[r->nnames].responder, sizeof(r->names[0].responder)) < 0) {
            nmp_seterr(err, errlen, "auth address '%s': give at most %d numeric ADDR:PORT ([ADDR]:PORT for IPv6), "
                       "comma-separated", list, AUTH_NAMES);
            return -EINVAL;
        }
        r->names[r->nnames++].responder_port = (int)port;
    }
    return 0;
}

int nmp_responder_open(const nmp_responder_cfg *cfg, nmp_responder **out, char *err, size_t errlen) {
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICHOST},
                    *ai = NULL;
    char portstr[16];
    int rc = 0, one = 1;
    nmp_responder *r = calloc(1, sizeof(*r));
    *out = NULL;
    if (r == NULL) {
        nmp_seterr(err, errlen, "responder: out of memory");
        return -ENOMEM;
    }
    r->cfg = *cfg;
    snprintf(r->bind_addr, sizeof(r->bind_addr), "%s", cfg->bind_addr ? cfg->bind_addr : "0.0.0.0");
    r->cfg.bind_addr = r->bind_addr;
    r->lfd = r->stop_pipe[0] = r->stop_pipe[1] = -1;
    r->max_sessions = cfg->max_sessions < 1 ? 1
                      : cfg->max_sessions > NMP_RESPONDER_SESSIONS_MAX ? NMP_RESPONDER_SESSIONS_MAX
                                                                       : cfg->max_sessions;
    for (int i = 0; i < NMP_RESPONDER_SESSIONS_MAX; i++) {
        r->ss[i].ctl = -1;
        r->ss[i].r = r;
    }
    /* shared reservations may overlap as many as shared sessions run at once */
    nmp_cal_init(&r->cal, r->max_sessions);
    for (int i = 0; i < MAX_PENDING; i++) r->pend[i].fd = -1;
    if (pipe2(r->stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "pipe: %s", strerror(errno));
        goto error;
    }
    snprintf(portstr, sizeof(portstr), "%d", cfg->port);
    int g = getaddrinfo(r->bind_addr, portstr, &hints, &ai);
    if (g != 0) {
        rc = -EINVAL;
        nmp_seterr(err, errlen, "bind address %s: %s", r->bind_addr, gai_strerror(g));
        goto error;
    }
    r->lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (r->lfd < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "socket: %s", strerror(errno));
        goto error;
    }
    setsockopt(r->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(r->lfd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(r->lfd, 16) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "bind %s:%d: %s", r->bind_addr, cfg->port, strerror(errno));
        goto error;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    getsockname(r->lfd, (struct sockaddr *)&ss, &sl);
    r->port = nmp_addr_port((struct sockaddr *)&ss);
    if (cfg->key_file != NULL) {
        if ((rc = nmp_auth_key_load(cfg->key_file, &r->key, err, errlen)) < 0) goto error;
        r->keyed = 1;
    }
    r->cfg.key_file = NULL; /* read once; the path is the caller's */
    if (cfg->auth_addresses != NULL && (rc = parse_auth_addresses(r, cfg->auth_addresses, err, errlen)) < 0)
        goto error;
    r->cfg.auth_addresses = NULL;
    if (cfg->stamp_port >= 0) {
        /* on the control socket's address; "0.0.0.0" widens to "::" so IPv6 senders reach it too */
        nmp_stamp_reflector_cfg sc = {.bind_addr = strcmp(r->bind_addr, "0.0.0.0") == 0 ? "::" : r->bind_addr,
                                      .port = cfg->stamp_port, .stateful = cfg->stamp_stateful,
                                      .max_pps = cfg->stamp_max_pps, .source_pps = cfg->stamp_source_pps,
                                      .key_file = cfg->stamp_key_file};
        if ((rc = nmp_stamp_reflector_open(&sc, &r->stamp, err, errlen)) < 0) goto error;
    }
    r->stamp_auth = cfg->stamp_key_file != NULL;
    r->cfg.stamp_key_file = NULL; /* read once; the path is the caller's */
    freeaddrinfo(ai);
    *out = r;
    return 0;
error:
    if (ai) freeaddrinfo(ai);
    nmp_responder_close(r);
    return rc;
}

int nmp_responder_port(const nmp_responder *r) { return r->port; }

int nmp_responder_stamp_port(const nmp_responder *r) { return r->stamp ? nmp_stamp_reflector_port(r->stamp) : -1; }

void nmp_responder_stop(nmp_responder *r) {
    char c = 1;
    ssize_t n = write(r->stop_pipe[1], &c, 1); /* async-signal-safe */
    (void)n;
}

/* Sends one formatted control line to a connection about to be closed, in
 * one non-blocking send: a line fits any socket buffer that is not full,
 * and one that is full belongs to a client not reading, which must not
 * stall the loop. Errors are only logged. */
static void send_line(nmp_responder *r, int fd, const char *line, int len) {
    if (len < 0) return;
    ssize_t n;
    do {
        n = send(fd, line, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n != len) rlog(r, 1, "control write: %s", n < 0 ? strerror(errno) : "short");
}

/* Closes a connection after reading what it still has queued (a little):
 * closing with unread bytes sends a reset, and the peer could lose the last
 * line written to it. */
static void close_read_out(int *fd) {
    char sink[512];
    for (int i = 0; *fd >= 0 && i < 8; i++)
        if (recv(*fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0) break;
    nmp_net_close(fd);
}

static void send_err(nmp_responder *r, int fd, const char *reason, const char *text) {
    char line[NMP_CTL_MAXLINE + 1], enc[NMP_CTL_VALMAX + 1];
    nmp_ctl_text_encode(enc, text);
    send_line(r, fd, line, nmp_ctl_format(line, sizeof(line), NMP_CTL_ERR, "reason=%s text=%s", reason, enc));
}

static int64_t wall_ms(void) { return (int64_t)(nmp_wall_now() / 1000000); }

/* Ends a session: closes its sockets and logs why. */
static void session_close(nmp_rsession *s, const char *why) {
    nmp_responder *r = s->r;
    char peer[64];
    if (!s->active) return;
    nmp_addr_str((struct sockaddr *)&s->peer, peer, sizeof(peer));
    rlog(r, 1, "session %08x closed (%s): peer %s rx %llu tx %llu invalid %llu refused %llu, %.3f s", s->id, why,
         peer, (unsigned long long)s->rx, (unsigned long long)s->tx, (unsigned long long)s->invalid,
         (unsigned long long)s->refused,
         (double)(nmp_mono_now() - s->opened) / 1e9);
    close_read_out(&s->ctl);
    nmp_cal_session_ended(&s->r->cal, s->cal_id, peer); /* the rest of its own reservation is free again */
    s->kind->stop(s);
    free(s->out);
    s->out = NULL;
    s->out_off = s->out_len = s->out_cap = 0;
    s->active = 0;
}

/* Makes room for n more bytes of output. Returns 0 or -ENOMEM. */
int nmp_rsession_out_reserve(nmp_rsession *s, size_t n) {
    if (s->out_off > 0) { /* what was written is dropped first */
        memmove(s->out, s->out + s->out_off, s->out_len - s->out_off);
        s->out_len -= s->out_off;
        s->out_off = 0;
    }
    if (n <= s->out_cap - s->out_len) return 0;
    void *p = realloc(s->out, s->out_len + n);
    if (p == NULL) return -ENOMEM;
    s->out = p;
    s->out_cap = s->out_len + n;
    return 0;
}

/* Writes queued output until the socket pushes back; the poll loop calls it
 * again when the socket can take more. The client reading is a sign of life.
 * A failed write ends the session, and so does a written END answer. */
static void session_flush(nmp_rsession *s) {
    while (s->active && s->out_off < s->out_len) {
        ssize_t n = send(s->ctl, s->out + s->out_off, s->out_len - s->out_off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        if (n < 0) {
            char e[NMP_ERRLEN];
            nmp_seterr(e, sizeof(e), "control write: %s", strerror(errno));
            session_close(s, e);
            return;
        }
        s->out_off += (size_t)n;
        s->last_activity = nmp_mono_now();
    }
    if (!s->active) return;
    s->out_off = s->out_len = 0;
    if (s->out_cap > OUT_KEEP) { /* a big answer is done: give its memory back */
        free(s->out);
        s->out = NULL;
        s->out_cap = 0;
    }
    if (s->ending) session_close(s, "END");
}

/* Queues one formatted line (len from nmp_ctl_format) and writes what the
 * socket takes now. */
static void session_send(nmp_rsession *s, const char *line, int len) {
    if (len < 0) return;
    if (nmp_rsession_out_reserve(s, (size_t)len) < 0) {
        session_close(s, "out of memory for a control line");
        return;
    }
    memcpy(s->out + s->out_len, line, (size_t)len);
    s->out_len += (size_t)len;
    session_flush(s);
}

static void session_ctl_lines(nmp_rsession *s);

/* The loop's services to the kinds' session files (nmp_rsession.h). */
void nmp_rsession_flush(nmp_rsession *s) { session_flush(s); }
void nmp_rsession_err(nmp_rsession *s, const char *reason, const char *text) { send_err(s->r, s->ctl, reason, text); }
void nmp_rsession_close(nmp_rsession *s, const char *why) { session_close(s, why); }
void nmp_rsession_ctl_lines(nmp_rsession *s) { session_ctl_lines(s); }

const nmp_clock_state *nmp_rsession_clock(nmp_rsession *s) {
    nmp_responder *r = s->r;
    char e[NMP_ERRLEN];
    nmp_monotime_ns now = nmp_mono_now();
    if (r->clock_at == 0 || now - r->clock_at > 1000000000ull) {
        r->clock_ok = nmp_clock_state_read(&r->clock, e, sizeof(e)) == 0;
        if (!r->clock_ok) rlog(r, 1, "clock: %s", e);
        r->clock_at = now;
    }
    return r->clock_ok ? &r->clock : NULL;
}

/* The kinds a SESSION may ask for, by nmp_test_kind. */
static const nmp_rkind *const kinds[] = {[NMP_KIND_RR] = &nmp_rkind_rr, [NMP_KIND_STREAM] = &nmp_rkind_stream,
                                         [NMP_KIND_TCP] = &nmp_rkind_tcp};

/* Expected length of a session: sending time plus the client's wait. */
static uint64_t session_expected_ns(const nmp_rsession *s) {
    return s->kind->send_ns(&s->req) + s->req.timeout_ms * 1000000ull;
}

/* The longest a session may last, whatever its client does (trickles
 * frames, never reads its answer, never says END): what it asked for --
 * its sending time (a frame schedule's frames each given at least
 * FRAME_FLOOR_NS); the client's wait; its largest possible answer written
 * at RESULTS_MIN_BPS -- plus SESSION_MARGIN_NS. The admitted limits keep
 * every term finite (frames <= max_frames, interval <= 60 s). */
static uint64_t session_lifetime_ns(const nmp_rkind *k, const nmp_session_req *q) {
    uint64_t frame_ns = q->interval_ns > FRAME_FLOOR_NS ? q->interval_ns : FRAME_FLOOR_NS;
    double send = k->paced ? (double)q->frames * (double)frame_ns : (double)k->send_ns(q);
    double answer = k->answer_bytes ? k->answer_bytes(q) : 0;
    return (uint64_t)(send + q->timeout_ms * 1e6 + answer / RESULTS_MIN_BPS * 1e9) + SESSION_MARGIN_NS;
}

/* When a session has been silent too long (the idle timeout, 1 s by
 * default, past the moment the client should next have been heard). While
 * it sends, that is one interval after its last frame, or when its own
 * schedule -- frames received so far x interval after admission -- makes
 * the next frame due, whichever is later: a slow schedule may be quiet, a
 * client that asked for a fast one and trickles frames is not. Once the
 * schedule is done (or every frame came), the client's wait for stragglers
 * (timeout_ms) comes first. After RESULTS only the answer's reading keeps
 * it alive: each write that makes progress counts. */
static nmp_monotime_ns session_quiet_limit(const nmp_responder *r, const nmp_rsession *s, nmp_monotime_ns now) {
    const nmp_session_req *q = &s->req;
    nmp_monotime_ns t = s->last_activity, send_end = s->opened + s->kind->send_ns(q);
    if (s->results_sent) return t + (uint64_t)r->cfg.idle_timeout_ms * 1000000ull;
    if (now >= send_end || (s->kind->paced && s->rx >= q->frames)) {
        t = (t > send_end ? t : send_end) + q->timeout_ms * 1000000ull;
    } else {
        /* a frame schedule is due frame by frame; other kinds' (tcp) from the start */
        nmp_monotime_ns due = s->opened + (s->kind->paced ? s->rx * q->interval_ns : 0); /* rx < frames */
        t += q->interval_ns;
        if (due > t) t = due;
    }
    return t + (uint64_t)r->cfg.idle_timeout_ms * 1000000ull;
}

/* Moves a session's hard deadline after a sender that fell behind its
 * schedule (issue 25: on a busy host a stream sender that was preempted
 * moves its schedule back rather than bursting, and the responder ended
 * the session as outliving what it asked for, every frame delivered).
 * Progress is rx growing (frames, up to the number asked for; tcp: bytes,
 * of which only the first counts). A paced sender still owes
 * frames - rx frames after its last one, a frame per interval: its sending
 * ends then at the earliest; a tcp sender sends its duration from its first
 * byte. The deadline becomes that end plus what the lifetime gives after
 * sending (the client's wait, the answer, the margin), if later -- but never
 * more than the session's own sending time (FOLLOW_MIN_NS at least) past
 * its first deadline, so a client cannot hold the responder by being late:
 * the pace check (session_behind) still ends a sender that falls far
 * behind, and the quiet limit one that stops. */
static void session_follow(nmp_rsession *s, nmp_monotime_ns now) {
    const nmp_session_req *q = &s->req;
    if (s->rx == s->follow_rx || s->results_sent) return;
    if (s->kind->paced && s->follow_rx >= q->frames) return; /* frames past those it asked for are no progress */
    s->follow_rx = s->rx;
    s->last_progress = now;
    if (s->first_progress == 0) s->first_progress = now;
    uint64_t lifetime = session_lifetime_ns(s->kind, q);
    uint64_t send = s->kind->paced ? 0 : s->kind->send_ns(q);
    nmp_monotime_ns send_end = s->first_progress + send;
    if (s->kind->paced) {
        uint64_t iv = q->interval_ns > FRAME_FLOOR_NS ? q->interval_ns : FRAME_FLOOR_NS;
        send = q->frames * iv;
        send_end = now + (s->rx < q->frames ? (q->frames - s->rx) * iv : 0);
    }
    nmp_monotime_ns want = send_end + (lifetime > send ? lifetime - send : 0);
    nmp_monotime_ns cap = s->first_deadline + (send > FOLLOW_MIN_NS ? send : FOLLOW_MIN_NS);
    if (want > cap) want = cap;
    if (want > s->hard_deadline) s->hard_deadline = want;
}

/* Whether a session's frames fell far behind the schedule it announced.
 * The quiet limit alone follows the last frame: a client that asks for a
 * fast schedule and sends a frame now and then, each within the idle
 * timeout, held the responder to its hard deadline (issue 21, finding 7: an
 * rr session asking ~100 s, fed one frame every 0.8 s, kept others BUSY for
 * 93 s). So while the schedule runs, each window of it -- PACE_WINDOW_NS, or
 * PACE_WINDOW_FRAMES intervals when longer, from admission on -- must bring
 * at least 1/PACE_SHARE of the frames the schedule puts in it (a frame per
 * interval, or per FRAME_FLOOR_NS when shorter). A sender that
 * starts late, stalls for a while or runs well below its rate on a busy
 * host (issue 25) still brings that many; a trickler does not, and neither
 * does a path losing more than 7/8 of the frames for a whole window: that
 * client is told why rather than holding everyone else off for the rest of
 * its schedule. Windows that end past
 * the schedule are not judged (the quiet limit and the hard deadline end
 * those). Moves the window on when it passed. */
static int session_behind(nmp_rsession *s, nmp_monotime_ns now) {
    const nmp_session_req *q = &s->req;
    if (!s->kind->paced || q->interval_ns == 0 || s->rx >= q->frames) return 0;
    /* a frame at least every FRAME_FLOOR_NS, as the lifetime counts them: a
     * schedule faster than any sender keeps is judged by what one can send */
    uint64_t iv = q->interval_ns > FRAME_FLOOR_NS ? q->interval_ns : FRAME_FLOOR_NS;
    uint64_t win = iv * PACE_WINDOW_FRAMES;
    if (win < PACE_WINDOW_NS) win = PACE_WINDOW_NS;
    nmp_monotime_ns end = s->pace_at + win;
    if (now < end || end > s->opened + (uint64_t)q->frames * iv) return 0;
    uint64_t due = win / iv, left = q->frames - s->pace_rx;
    if (due > left) due = left;
    if ((s->rx - s->pace_rx) * PACE_SHARE < due) return 1;
    s->pace_at = end;
    s->pace_rx = s->rx;
    return 0;
}

/* Answers RESERVE or RELEASE from 'peer' on fd (nmp_calendar.h). A
 * session in progress outside any reservation (an on-demand test) keeps
 * the slots until its expected end. */
/* Whether a peer is this host (a loopback address, IPv4-mapped too). */
static int is_loopback(const struct sockaddr_storage *ss) {
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    if (ss->ss_family != AF_INET6) return 0;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

static void handle_calendar(nmp_responder *r, int fd, const nmp_ctl_msg *m, const char *peer,
                            const struct sockaddr_storage *peer_addr) {
    char e[NMP_ERRLEN], out[NMP_CTL_MAXLINE + 1], holder[NMP_CTL_VALMAX + 1];
    int64_t now = wall_ms();
    if (m->verb == NMP_CTL_RELEASE) {
        uint32_t id = 0;
        int rc = nmp_cal_decode_release(m, &id, e, sizeof(e));
        if (rc == 0 && nmp_cal_release(&r->cal, id, peer) < 0) {
            nmp_seterr(e, sizeof(e), "no reservation %08x of %s", id, peer);
            rc = -ENOENT;
        }
        if (rc < 0) {
            send_err(r, fd, "request", e);
            return;
        }
        rlog(r, 2, "released %08x for %s", id, peer);
        send_line(r, fd, out, nmp_ctl_format(out, sizeof(out), NMP_CTL_OK, "reservation=%08x", id));
        return;
    }
    nmp_cal_req q;
    nmp_cal_grant g;
    int64_t busy_until = 0;
    for (int i = 0; i < r->max_sessions; i++) {
        const nmp_rsession *o = &r->ss[i];
        if (!o->active || o->reserved) continue;
        nmp_monotime_ns mono = nmp_mono_now(), expect = o->opened + session_expected_ns(o);
        int64_t until = now + (expect > mono ? (int64_t)((expect - mono) / 1000000) : 0);
        if (until > busy_until) busy_until = until;
    }
    int rc = nmp_cal_decode_reserve(m, &q, e, sizeof(e));
    if (rc == 0 && q.local && !is_loopback(peer_addr)) {
        /* a hold no session redeems: only this host's own point may place one */
        nmp_seterr(e, sizeof(e), "reserve: local=1 only from this host (a loopback address)");
        rc = -EPROTO;
    }
    if (rc == 0) rc = nmp_cal_reserve(&r->cal, now, busy_until, &q, peer, &g, e, sizeof(e));
    if (rc == -EBUSY) {
        rlog(r, 1, "reserve for %s (%s): %s", peer, q.holder, e);
        nmp_ctl_text_encode(holder, g.holder);
        send_line(r, fd, out,
                  nmp_ctl_format(out, sizeof(out), NMP_CTL_BUSY, "remaining_ms=%lld next_ms=%lld holder=%s sessions=%d",
                                 (long long)(g.next_ms > now ? g.next_ms - now : 0), (long long)g.next_ms, holder,
                                 r->max_sessions));
        return;
    }
    if (rc < 0) {
        rlog(r, 1, "reject reserve from %s: %s", peer, e);
        send_err(r, fd, rc == -EPROTO || rc == -EINVAL ? "request" : "limit", e);
        return;
    }
    rlog(r, 1, "reserved %08x for %s (%s, %s): %lld ms from now for %u ms", g.id, peer, q.holder,
         nmp_cal_class_name(q.cls), (long long)(g.start_ms - now), q.duration_ms);
    send_line(r, fd, out,
              nmp_ctl_format(out, sizeof(out), NMP_CTL_OK, "reservation=%08x start_ms=%lld end_ms=%lld sessions=%d", g.id,
                             (long long)g.start_ms, (long long)g.end_ms, r->max_sessions));
}

/* Handles the first line of a pending connection: admits a session, or
 * answers BUSY / ERR; RESERVE and RELEASE go to the calendar. The pending
 * slot is always released. */
static void handle_request(nmp_responder *r, pending_conn *pc, const char *line, size_t len) {
    char e[NMP_ERRLEN], out[NMP_CTL_MAXLINE + 1], peer[64], terms[NMP_CTL_MAXLINE];
    nmp_ctl_msg m;
    nmp_session_req req;
    nmp_rsession *s = NULL;
    int fd = pc->fd;
    pc->fd = -1;
    nmp_addr_str((struct sockaddr *)&pc->peer, peer, sizeof(peer));
    int rc = nmp_ctl_parse(line, len, &m, e, sizeof(e));
    if (rc == 0 && (m.verb == NMP_CTL_RESERVE || m.verb == NMP_CTL_RELEASE)) {
        handle_calendar(r, fd, &m, peer, &pc->peer);
        goto end;
    }
    if (rc == 0) rc = nmp_ctl_session_decode(&m, &r->cfg.limits, &req, e, sizeof(e));
    if (rc < 0) {
        rlog(r, 1, "reject %s: %s", peer, e);
        send_err(r, fd, rc == -ERANGE ? "limit" : "request", e);
        goto end;
    }
    if (r->max_sessions == 1 || req.kind == NMP_KIND_TCP) req.shared = 0; /* tcp always runs alone */
    int active = 0, exclusive = 0;
    const nmp_rsession *busy = NULL; /* the session whose end frees room for this one */
    nmp_monotime_ns now = nmp_mono_now(), free_at = 0;
    for (int i = 0; i < r->max_sessions; i++) {
        nmp_rsession *o = &r->ss[i];
        if (!o->active) {
            if (s == NULL) s = o;
            continue;
        }
        active++;
        exclusive |= !o->req.shared;
        nmp_monotime_ns expect = o->opened + session_expected_ns(o);
        if (expect <= now) expect = o->hard_deadline; /* running late: the latest it can end */
        /* an exclusive request waits for all to end, a shared one for the first */
        if (busy == NULL || (req.shared ? expect < free_at : expect > free_at)) busy = o, free_at = expect;
    }
    if (active > 0 && (!req.shared || exclusive || active >= r->max_sessions || s == NULL)) {
        /* Others learn only when to retry: who runs what from where is the owner's
         * business (the log keeps it for the operator). */
        rlog(r, 1, "reject %s: busy with session %08x (%s%s, %d running)", peer, busy->id, busy->kind->name,
             busy->req.shared ? ", shared" : "", active);
        send_line(r, fd, out,
                  nmp_ctl_format(out, sizeof(out), NMP_CTL_BUSY, "remaining_ms=%llu",
                                 (unsigned long long)(free_at > now ? (free_at - now) / 1000000 : 0)));
        goto end;
    }
    {
        /* a session must not run into another client's reserved slot */
        int64_t retry = 0;
        char holder[NMP_CAL_HOLDER_MAX + 1], enc[NMP_CTL_VALMAX + 1];
        const nmp_rkind *k = kinds[req.kind];
        int64_t expected = (int64_t)((k->send_ns(&req) + req.timeout_ms * 1000000ull) / 1000000);
        uint32_t cal_id = 0;
        int adm = req.shared ? nmp_cal_admit_shared(&r->cal, wall_ms(), expected, peer, active, &retry, holder, &cal_id)
                             : nmp_cal_admit(&r->cal, wall_ms(), expected, peer, &retry, holder, &cal_id);
        if (adm < 0) {
            rlog(r, 1, "reject %s: the slot is reserved for %s", peer, holder);
            nmp_ctl_text_encode(enc, holder);
            send_line(r, fd, out, nmp_ctl_format(out, sizeof(out), NMP_CTL_BUSY, "remaining_ms=%lld holder=%s",
                                                 (long long)retry, enc));
            goto end;
        }
        memset(s, 0, sizeof(*s));
        s->reserved = adm > 0;
        s->cal_id = cal_id;
    }
    s->r = r;
    s->ctl = -1;
    s->req = req;
    s->kind = kinds[req.kind]; /* the decoder admits only the kinds of the table */
    socklen_t ll = sizeof(s->local);
    if (getsockname(fd, (struct sockaddr *)&s->local, &ll) < 0) memset(&s->local, 0, sizeof(s->local));
    s->peer = pc->peer;
    if ((rc = nmp_net_random(&s->cookie, 8)) < 0 || (rc = nmp_net_random(&s->id, 4)) < 0)
        nmp_seterr(e, sizeof(e), "no random numbers: %s", strerror(-rc));
    else
        rc = s->kind->start(s, e, sizeof(e));
    if (rc < 0) {
        rlog(r, 0, "session for %s failed: %s", peer, e);
        send_err(r, fd, "internal", e);
        s->kind->stop(s);
        /* it never ran: its reservation is given back, or the client's retry would meet its own slot */
        nmp_cal_session_ended(&r->cal, s->cal_id, peer);
        goto end;
    }
    s->active = 1;
    s->ctl = fd;
    fd = -1;
    s->peer = pc->peer;
    s->opened = s->last_activity = s->pace_at = nmp_mono_now();
    s->hard_deadline = s->first_deadline = s->opened + session_lifetime_ns(s->kind, &req);
    s->kind->describe(&req, terms, sizeof(terms));
    rlog(r, 1, "session %08x opened: peer %s kind=%s %s port %d", s->id, peer, s->kind->name, terms, s->port);
    session_send(s, out,
                 nmp_ctl_format(out, sizeof(out), NMP_CTL_OK, "port=%d cookie=%016llx session=%08x", s->port,
                                (unsigned long long)s->cookie, s->id));
    /* What came in the same segment as SESSION (END, RESULTS) is the
     * session's: no readable event will announce those bytes again. */
    memcpy(s->lb.buf, pc->lb.buf, pc->lb.len);
    s->lb.len = pc->lb.len;
    pc->lb.len = 0;
    if (s->active && s->lb.len > 0) session_ctl_lines(s);
end:
    close_read_out(&fd);
}

/* Handles the complete lines in the session's buffer: RESULTS, END. While
 * an answer is being prepared (tcp draining) or after END, lines wait:
 * answers go out in the order they were asked for. */
static void session_ctl_lines(nmp_rsession *s) {
    nmp_responder *r = s->r;
    char line[NMP_CTL_MAXLINE + 1], out[NMP_CTL_MAXLINE + 1], e[NMP_ERRLEN];
    size_t len;
    while (s->active && !s->draining && !s->ending) {
        int t = nmp_linebuf_take(&s->lb, line, &len);
        if (t == 0) return;
        nmp_ctl_msg m;
        int rc = t < 0 ? t : nmp_ctl_parse(line, len, &m, e, sizeof(e));
        if (rc == 0 && m.nkv != 0) {
            nmp_seterr(e, sizeof(e), "%s takes no keys", nmp_ctl_verb_name(m.verb));
            rc = -EPROTO;
        }
        if (rc == 0 && m.verb == NMP_CTL_RESULTS && s->kind->results && s->results_sent) {
            /* one answer per session: repeated RESULTS would let a client keep
             * the responder writing past its session's deadline */
            nmp_seterr(e, sizeof(e), "RESULTS already answered in this session");
            rc = -EPROTO;
        } else if (rc == 0 && m.verb == NMP_CTL_RESULTS && s->kind->results) {
            s->results_sent = 1;
            s->kind->results(s);
            continue;
        }
        if (rc == 0 && m.verb != NMP_CTL_END) {
            nmp_seterr(e, sizeof(e), "unexpected %s in a %s session", nmp_ctl_verb_name(m.verb), s->kind->name);
            rc = -EPROTO;
        }
        if (rc < 0) {
            if (t < 0) nmp_seterr(e, sizeof(e), "control line longer than %d bytes", NMP_CTL_MAXLINE);
            send_err(r, s->ctl, "request", e);
            session_close(s, e);
            return;
        }
        /* BYE goes out behind any answer still queued; the session ends once it is written */
        s->ending = 1;
        session_send(s, out,
                     nmp_ctl_format(out, sizeof(out), NMP_CTL_BYE, "rx=%llu tx=%llu", (unsigned long long)s->rx,
                                    (unsigned long long)s->tx));
        return;
    }
}

/* Room left in the session's line buffer (0: lines wait to be handled). */
static size_t session_lb_room(const nmp_rsession *s) { return sizeof(s->lb.buf) - 1 - s->lb.len; }

/* Events on the active session's control connection: writes queued output,
 * reads control bytes and handles their lines, notices a close. */
static void session_ctl_event(nmp_rsession *s, short revents) {
    if (revents & (POLLOUT | POLLERR | POLLHUP)) session_flush(s);
    if (!s->active || !(revents & (POLLIN | POLLERR | POLLHUP))) return;
    if (session_lb_room(s) == 0) {
        /* not reading (lines wait); a hang-up must still end the session or poll reports it forever */
        if (revents & (POLLERR | POLLHUP)) session_close(s, "control connection lost");
        return;
    }
    ssize_t n = recv(s->ctl, s->lb.buf + s->lb.len, session_lb_room(s), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        session_close(s, n < 0 ? strerror(errno) : s->ending ? "END" : "client closed control connection");
        return;
    }
    s->lb.len += (size_t)n;
    s->last_activity = nmp_mono_now();
    session_ctl_lines(s);
}

/* Frees pending slot i for a newer connection, telling its peer why. */
static void evict_pending(nmp_responder *r, int i, const char *why) {
    char ps[64];
    nmp_addr_str((struct sockaddr *)&r->pend[i].peer, ps, sizeof(ps));
    rlog(r, 1, "drop pending control connection from %s: %s", ps, why);
    send_err(r, r->pend[i].fd, "overload", why);
    nmp_net_close(&r->pend[i].fd);
}

/* Accepts one control connection into a pending slot. A source address
 * holds at most MAX_PENDING_PER_IP slots: beyond that its own oldest
 * pending connection makes room; when the table is full the oldest of all
 * does. A new connection is never refused, so silent connections from one
 * host (or a few) cannot lock other clients out; a real client sends its request at once and is served before
 * it could be evicted. */
static void accept_conn(nmp_responder *r) {
    struct sockaddr_storage peer;
    socklen_t sl = sizeof(peer);
    char ps[64];
    int fd = accept4(r->lfd, (struct sockaddr *)&peer, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    nmp_addr_str((struct sockaddr *)&peer, ps, sizeof(ps));
    int slot = -1, oldest = -1, oldest_same = -1, same = 0;
    for (int i = 0; i < MAX_PENDING; i++) {
        const pending_conn *pc = &r->pend[i];
        if (pc->fd < 0) {
            if (slot < 0) slot = i;
            continue;
        }
        if (oldest < 0 || pc->opened < r->pend[oldest].opened) oldest = i;
        if (nmp_net_same_ip((const struct sockaddr *)&pc->peer, (const struct sockaddr *)&peer)) {
            same++;
            if (oldest_same < 0 || pc->opened < r->pend[oldest_same].opened) oldest_same = i;
        }
    }
    if (same >= MAX_PENDING_PER_IP) {
        evict_pending(r, oldest_same, "too many pending control connections from this address");
        slot = oldest_same;
    } else if (slot < 0) {
        evict_pending(r, oldest, "too many pending control connections");
        slot = oldest;
    }
    memset(&r->pend[slot], 0, sizeof(r->pend[slot]));
    r->pend[slot].fd = fd;
    r->pend[slot].peer = peer;
    r->pend[slot].opened = nmp_mono_now();
    sl = sizeof(r->pend[slot].local);
    if (getsockname(fd, (struct sockaddr *)&r->pend[slot].local, &sl) < 0)
        memset(&r->pend[slot].local, 0, sizeof(r->pend[slot].local)); /* no MAC can match an unknown address */
    rlog(r, 2, "control connection from %s:%d", ps, nmp_addr_port((struct sockaddr *)&peer));
}

/* Refuses a pending connection that did not authenticate. */
static void refuse_auth(nmp_responder *r, pending_conn *pc, const char *ps, const char *why) {
    rlog(r, 1, "reject %s: %s", ps, why);
    send_err(r, pc->fd, "auth", why);
    close_read_out(&pc->fd);
}

/* Keyed responder, first line: a SESSION (or RESERVE, RELEASE) request is answered with a fresh
 * challenge, naming the peer's address as seen here (the MAC binds it), and
 * kept until AUTH proves its sender holds the key; its limits are checked
 * only then (an unauthenticated peer learns nothing of them). Anything else
 * gets the usual ERR from handle_request. */
static void challenge(nmp_responder *r, pending_conn *pc, const char *ps, const char *line, size_t len) {
    char out[NMP_CTL_MAXLINE + 1], e[NMP_ERRLEN], hex[2 * NMP_AUTH_NONCE + 1], peer[NMP_AUTH_ADDRLEN];
    nmp_ctl_msg m;
    if (nmp_ctl_parse(line, len, &m, e, sizeof(e)) < 0 ||
        (m.verb != NMP_CTL_SESSION && m.verb != NMP_CTL_RESERVE && m.verb != NMP_CTL_RELEASE)) {
        handle_request(r, pc, line, len);
        return;
    }
    if (nmp_net_random(pc->nonce, sizeof(pc->nonce)) < 0) {
        send_err(r, pc->fd, "internal", "no random numbers for a challenge");
        close_read_out(&pc->fd);
        return;
    }
    memcpy(pc->req, line, len);
    pc->req_len = len;
    pc->challenged = 1;
    nmp_hex_encode(hex, pc->nonce, sizeof(pc->nonce));
    if (nmp_auth_addr((struct sockaddr *)&pc->peer, peer, sizeof(peer)) < 0) snprintf(peer, sizeof(peer), "0.0.0.0");
    rlog(r, 2, "challenge %s", ps);
    send_line(r, pc->fd, out,
              nmp_ctl_format(out, sizeof(out), NMP_CTL_CHALLENGE, "nonce=%s auth=%d peer=%s", hex, NMP_AUTH_VERSION,
                             peer));
}

/* Whether 'mac' is the v2 MAC of the pending request for one of the names
 * this responder is dialled at: the address and port the connection came
 * in on, or one of --auth-address (behind a port-forwarding NAT); the
 * client is the peer as seen here. Compares every candidate (constant time
 * each). */
static int mac_matches(const nmp_responder *r, const pending_conn *pc, const uint8_t mac[NMP_AUTH_MAC]) {
    nmp_auth_ends ends;
    uint8_t want[NMP_AUTH_MAC];
    int ok = 0;
    if (nmp_auth_addr((const struct sockaddr *)&pc->peer, ends.client, sizeof(ends.client)) < 0) return 0;
    if (nmp_auth_addr((const struct sockaddr *)&pc->local, ends.responder, sizeof(ends.responder)) == 0) {
        ends.responder_port = nmp_addr_port((const struct sockaddr *)&pc->local);
        nmp_auth_mac(&r->key, pc->nonce, &ends, pc->req, pc->req_len, want);
        ok |= nmp_auth_mac_equal(mac, want);
    }
    for (int i = 0; i < r->nnames; i++) {
        memcpy(ends.responder, r->names[i].responder, sizeof(ends.responder));
        ends.responder_port = r->names[i].responder_port;
        nmp_auth_mac(&r->key, pc->nonce, &ends, pc->req, pc->req_len, want);
        ok |= nmp_auth_mac_equal(mac, want);
    }
    return ok;
}

/* Keyed responder, the line after CHALLENGE: AUTH with the MAC of the
 * challenge, both ends and the SESSION line admits the request
 * (handle_request), all else is refused with ERR reason=auth. */
static void authenticate(nmp_responder *r, pending_conn *pc, const char *ps, const char *line, size_t len) {
    char e[NMP_ERRLEN];
    uint8_t mac[NMP_AUTH_MAC];
    nmp_ctl_msg m;
    if (nmp_ctl_parse(line, len, &m, e, sizeof(e)) < 0 || m.verb != NMP_CTL_AUTH || m.nkv != 1 ||
        nmp_ctl_get(&m, "mac") == NULL) {
        refuse_auth(r, pc, ps, "authentication required: this responder admits only sessions that answer its "
                               "CHALLENGE with AUTH mac=..");
        return;
    }
    if (nmp_hex_decode(mac, sizeof(mac), nmp_ctl_get(&m, "mac")) < 0) {
        refuse_auth(r, pc, ps, "authentication failed: mac must be 64 hex digits (HMAC-SHA256)");
        return;
    }
    if (!mac_matches(r, pc, mac)) {
        refuse_auth(r, pc, ps, "authentication failed: wrong MAC (another key, a changed SESSION line, or a relay: "
                               "it binds the addresses of both ends)");
        return;
    }
    rlog(r, 2, "authenticated %s", ps);
    handle_request(r, pc, pc->req, pc->req_len);
}

static void pending_readable(nmp_responder *r, pending_conn *pc) {
    char line[NMP_CTL_MAXLINE + 1], ps[64];
    size_t len;
    ssize_t n = recv(pc->fd, pc->lb.buf + pc->lb.len, sizeof(pc->lb.buf) - 1 - pc->lb.len, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    nmp_addr_str((struct sockaddr *)&pc->peer, ps, sizeof(ps));
    if (n <= 0) {
        rlog(r, 2, "control connection from %s closed before a request%s", ps,
             pc->challenged ? " (challenged, no AUTH)" : "");
        nmp_net_close(&pc->fd);
        return;
    }
    pc->lb.len += (size_t)n;
    while (pc->fd >= 0) {
        int t = nmp_linebuf_take(&pc->lb, line, &len);
        if (t == 0) return;
        if (t < 0) {
            rlog(r, 1, "reject %s: request line longer than %d bytes", ps, NMP_CTL_MAXLINE);
            send_err(r, pc->fd, "request", "request line too long");
            close_read_out(&pc->fd);
        } else if (!r->keyed) {
            handle_request(r, pc, line, len);
        } else if (!pc->challenged) {
            challenge(r, pc, ps, line, len); /* the loop goes on: AUTH may already be here */
        } else {
            authenticate(r, pc, ps, line, len);
        }
    }
}

/* Ends the session on a timer, telling the client why unless an answer is
 * half written (a line in the middle of it would corrupt it). */
static void session_expire(nmp_rsession *s, const char *why) {
    nmp_responder *r = s->r;
    char line[NMP_CTL_MAXLINE + 1], text[NMP_CTL_VALMAX + 1], msg[160];
    snprintf(msg, sizeof(msg), "session ended: %s", why);
    if (s->out_off == s->out_len) {
        nmp_ctl_text_encode(text, msg);
        send_line(r, s->ctl, line, nmp_ctl_format(line, sizeof(line), NMP_CTL_ERR, "reason=timeout text=%s", text));
    }
    session_close(s, why);
}

/* Ends sessions and pending connections whose time is up. */
static void check_timers(nmp_responder *r) {
    nmp_monotime_ns now = nmp_mono_now();
    for (int i = 0; i < MAX_PENDING; i++) {
        if (r->pend[i].fd >= 0 && now - r->pend[i].opened > PENDING_TIMEOUT_MS * 1000000ull) {
            rlog(r, 2, "pending control connection timed out");
            nmp_net_close(&r->pend[i].fd);
        }
    }
    for (int i = 0; i < r->max_sessions; i++) {
        nmp_rsession *s = &r->ss[i];
        if (!s->active) continue;
        session_follow(s, now);
        if (now > s->hard_deadline)
            session_expire(s, s->out_off < s->out_len ? "its answer was not read by the session's deadline"
                                                      : "it outlived what it asked for");
        else if (!s->draining && now > session_quiet_limit(r, s, now)) /* draining has its own end */
            session_expire(s, "idle: nothing from the client when it was due");
        else if (session_behind(s, now))
            session_expire(s, "its frames fell far behind the schedule it asked for");
    }
}

int nmp_responder_run(nmp_responder *r, char *err, size_t errlen) {
    enum { P_STOP, P_LISTEN, P_STAMP, P_PEND, P_SESSIONS = P_PEND + MAX_PENDING };
    /* then per active session: its control connection, and its kind's sockets */
    struct pollfd p[P_SESSIONS + NMP_RESPONDER_SESSIONS_MAX * (1 + NMP_RSESSION_MAX_FDS)];
    int at[NMP_RESPONDER_SESSIONS_MAX], nk[NMP_RESPONDER_SESSIONS_MAX];
    char bs[64];
    snprintf(bs, sizeof(bs), "%s", r->bind_addr);
    rlog(r, 1, "listening on %s port %d (max frames %u, max size %u, max rate %.0f Mbit/s%s, max duration %u ms, idle timeout %u ms%s)",
         bs, r->port, r->cfg.limits.max_frames, r->cfg.limits.max_size, r->cfg.limits.max_rate_mbps,
         r->cfg.limits.max_rate_mbps > 0 ? "" : " = unlimited", r->cfg.limits.max_duration_ms,
         r->cfg.idle_timeout_ms, r->keyed ? ", authenticated sessions only" : "");
    if (r->stamp)
        rlog(r, 1, "STAMP / TWAMP-Light reflector on UDP port %d (%s%s, at most %u reflections/s, %u to one source)",
             nmp_stamp_reflector_port(r->stamp), r->cfg.stamp_stateful ? "stateful" : "stateless",
             r->stamp_auth ? ", authenticated packets only" : "",
             r->cfg.stamp_max_pps, r->cfg.stamp_source_pps ? r->cfg.stamp_source_pps : r->cfg.stamp_max_pps / 4);
    for (;;) {
        p[P_STOP] = (struct pollfd){.fd = r->stop_pipe[0], .events = POLLIN};
        p[P_LISTEN] = (struct pollfd){.fd = r->lfd, .events = POLLIN};
        /* the reflector is stateless towards sessions: it answers alongside any test */
        p[P_STAMP] = (struct pollfd){.fd = r->stamp ? nmp_stamp_reflector_fd(r->stamp) : -1, .events = POLLIN};
        for (int i = 0; i < MAX_PENDING; i++) p[P_PEND + i] = (struct pollfd){.fd = r->pend[i].fd, .events = POLLIN};
        /* each session's control connection and own sockets, whatever its kind */
        int np = P_SESSIONS;
        for (int i = 0; i < r->max_sessions; i++) {
            nmp_rsession *s = &r->ss[i];
            at[i] = np;
            nk[i] = -1; /* not polled */
            if (!s->active) continue;
            p[np++] = (struct pollfd){.fd = s->ctl, .events = (short)((session_lb_room(s) > 0 ? POLLIN : 0) |
                                                                     (s->out_off < s->out_len ? POLLOUT : 0))};
            nk[i] = s->kind->pollfds(s, p + np, NMP_RSESSION_MAX_FDS);
            np += nk[i];
        }
        int n = poll(p, (nfds_t)np, 100);
        if (n < 0 && errno != EINTR) {
            int rc = -errno;
            nmp_seterr(err, errlen, "poll: %s", strerror(errno));
            return rc;
        }
        if (n > 0) {
            if (p[P_STOP].revents) break;
            for (int i = 0; i < r->max_sessions; i++) {
                nmp_rsession *s = &r->ss[i];
                /* a session admitted this round was not polled; nor was one ended and re-admitted */
                if (nk[i] < 0 || !s->active || p[at[i]].fd != s->ctl) continue;
                if (nk[i] > 0) s->kind->ready(s, p + at[i] + 1, nk[i]);
                if (p[at[i]].revents && s->active) session_ctl_event(s, p[at[i]].revents);
            }
            if (p[P_STAMP].revents) nmp_stamp_reflector_drain(r->stamp);
            for (int i = 0; i < MAX_PENDING; i++)
                if (p[P_PEND + i].revents && r->pend[i].fd >= 0) pending_readable(r, &r->pend[i]);
            if (p[P_LISTEN].revents) accept_conn(r);
        }
        for (int i = 0; i < r->max_sessions; i++)
            if (r->ss[i].active && r->ss[i].kind->tick) r->ss[i].kind->tick(&r->ss[i]);
        check_timers(r);
    }
    for (int i = 0; i < r->max_sessions; i++) session_close(&r->ss[i], "responder stopping");
    if (r->stamp) {
        nmp_stamp_reflector_counters c;
        nmp_stamp_reflector_counts(r->stamp, &c);
        rlog(r, 1, "STAMP reflector: %llu reflected; refused %llu from itself, %llu from reflector/echo ports, "
             "%llu reflections; %llu over their source's budget, %llu failed authentication, %llu dropped",
             (unsigned long long)c.reflected, (unsigned long long)c.refused_self, (unsigned long long)c.refused_port,
             (unsigned long long)c.refused_reflection, (unsigned long long)c.over_source,
             (unsigned long long)c.auth_failed, (unsigned long long)c.dropped);
    }
    rlog(r, 1, "stopped");
    return 0;
}

void nmp_responder_close(nmp_responder *r) {
    if (r == NULL) return;
    for (int i = 0; i < r->max_sessions; i++) session_close(&r->ss[i], "responder closing");
    for (int i = 0; i < MAX_PENDING; i++) nmp_net_close(&r->pend[i].fd);
    nmp_net_close(&r->lfd);
    nmp_stamp_reflector_close(r->stamp);
    nmp_auth_key_wipe(&r->key);
    nmp_net_close(&r->stop_pipe[0]);
    nmp_net_close(&r->stop_pipe[1]);
    free(r);
}
