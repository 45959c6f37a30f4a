/* nmp_owampd.c -- the OWAMP / TWAMP server (see nmp_owampd.h).
 *
 * One thread, one poll loop, every socket non-blocking: a control
 * connection is a small state machine fed by whatever bytes arrive
 * (Set-Up-Response, then whole protected messages whose length the first
 * block tells), so a slow or silent client holds nothing but its own slot,
 * and is dropped after servwait. Test sessions are UDP sockets in the same
 * loop: OWAMP ones keep a receive record per packet for Fetch-Session or,
 * when the client asked this end to send (conf-sender), send on their
 * schedule from a per-session timer the loop wakes for; TWAMP ones stamp
 * and reflect. Every refusal carries the RFC's Accept value and leaves a
 * log line saying why. */
#define _GNU_SOURCE
#include "nmp_owampd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "nmp_net.h"
#include "nmp_owclient.h"
#include "nmp_owctl.h"
#include "nmprobe.h"

#define IN_CAP 65536                  /* largest client message accepted (bigger: refused, connection closed) */
#define OUT_MAX (64u << 20)           /* largest pending output (a Fetch of 1M records is 25 MB) */
#define START_AHEAD_MAX 5000000000ll  /* a Start Time this far ahead of Start-Sessions is counted, no further */

enum { ST_SETUP, ST_REQUEST, ST_CLOSING };

/* A test session, owned by one control connection. */
typedef struct owsess {
    struct owsess *next;             /* the connection's list */
    int fd;                          /* UDP socket, -1 once stopped */
    int twamp;
    uint16_t port;
    uint8_t sid[16];
    uint32_t test_mode;
    nmp_ow_test_keys tk;
    nmp_ow_request req;              /* as decoded */
    uint8_t *req_raw;                /* the request's 112 octets and its slots, for Fetch-Session */
    size_t req_raw_len;
    double interval_s;               /* mean gap of the schedule (OWAMP) */
    struct sockaddr_storage client;  /* control peer: test packets must come from its address */
    char keyid[NMP_OW_KEYID_LEN + 1];
    int started, finished;
    nmp_monotime_ns end_by;          /* max duration */
    uint16_t error;                  /* this end's error estimate, refreshed each second */
    nmp_monotime_ns error_at;
    double tokens;                   /* rate limit (packets) */
    nmp_monotime_ns refill_at;
    uint64_t invalid, over_rate;
    /* OWAMP receiver */
    nmp_ow_record *rec;
    uint32_t nrec, cap;
    uint8_t *seen;                   /* per sequence number */
    uint32_t next_seqno, nskips;
    uint32_t *skips;
    /* TWAMP reflector */
    uint32_t refl_seq;
    /* OWAMP sender (conf-sender): the client receives */
    int sender;                      /* this end sends the session's packets */
    struct sockaddr_storage dest;    /* the client's receiver address and port */
    socklen_t destlen;
    nmp_ow_sched sched;              /* gaps of the schedule (RFC 4656 4.1) */
    uint64_t offset;                 /* 32.32 seconds from Start Time to packet send_seq's slot */
    nmp_walltime_ns start_wall;      /* the request's Start Time */
    nmp_monotime_ns start_mono;      /* the same instant on the monotonic clock, fixed at Start-Sessions */
    nmp_monotime_ns due;             /* when packet send_seq is due */
    uint32_t send_seq;               /* next sequence number to send or skip: Next Seqno */
    uint32_t sent;                   /* packets sent */
    int send_done;                   /* no more packets: the schedule ended, or skip ranges ran out */
    int stopped_now;                 /* stopped by the Stop-Sessions being answered: described in the answer */
    uint64_t timeout_ns;             /* the request's loss timeout: later than this past its slot, a packet is skipped */
    uint8_t *pkt;                    /* the packet buffer (header and zero padding) */
    size_t pktlen;
} owsess;

typedef struct owconn {
    struct owconn *next;
    int fd;
    int twamp;
    int state;
    uint32_t mode;
    nmp_ow_greeting g;
    nmp_ow_cipher c;
    char keyid[NMP_OW_KEYID_LEN + 1];
    struct sockaddr_storage peer, local;
    char peer_str[64];
    uint8_t in[IN_CAP];
    size_t inlen, plain;             /* bytes held; of them decrypted */
    uint8_t *out;                    /* pending output */
    size_t outlen, outoff;
    nmp_monotime_ns idle_at;         /* closed when silent past this */
    int running;                     /* Start-Sessions accepted */
    owsess *sess;
    uint32_t nsess;
} owconn;

struct nmp_owampd {
    nmp_owampd_cfg cfg;
    int lfd[2];                      /* OWAMP, TWAMP listeners */
    int lport[2];
    owconn *conns;
    uint32_t nconns, nsess;
    uint64_t refused;
    uint64_t start_ntp;              /* Server-Start's Start-Time */
    volatile int stop;
    uint16_t next_port;              /* where the next port search starts */
};

static void logf_(const nmp_owampd *d, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void logf_(const nmp_owampd *d, int level, const char *fmt, ...) {
    if ((d->cfg.quiet && level > 0) || level > d->cfg.verbose + 1) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nmprobe-owampd: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void nmp_owampd_cfg_default(nmp_owampd_cfg *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    cfg->owamp_port = NMP_OW_OWAMP_PORT;
    cfg->twamp_port = NMP_OW_TWAMP_PORT;
    cfg->modes = NMP_OW_MODE_OPEN;
    cfg->servwait_ms = 60000;
    cfg->max_conns = 64;
    cfg->max_sessions = 32;
    cfg->max_per_client = 8;
    cfg->max_per_key = 8;
    cfg->max_pps = 10000;
    cfg->max_mbps = 100;
    cfg->max_duration_ms = 300000;
    cfg->max_packets = 1000000;
}

/* ---- output ---- */

static int queue(owconn *c, const uint8_t *b, size_t n) {
    if (c->outlen + n > OUT_MAX) return -ENOBUFS;
    uint8_t *o = realloc(c->out, c->outlen + n);
    if (o == NULL) return -ENOMEM;
    memcpy(o + c->outlen, b, n);
    c->out = o, c->outlen += n;
    return 0;
}

/* Seals a whole message (HMAC blocks, encryption) and queues it. */
static int send_msg(owconn *c, uint8_t *m, size_t n, const size_t *hm, int nh) {
    int rc = nmp_ow_seal(&c->c, m, n, hm, nh);
    return rc < 0 ? rc : queue(c, m, n);
}

static void flush_out(nmp_owampd *d, owconn *c) {
    while (c->outoff < c->outlen) {
        ssize_t n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n < 0) {
            logf_(d, 1, "%s: send: %s", c->peer_str, strerror(errno));
            c->state = ST_CLOSING, c->outoff = c->outlen;
            return;
        }
        c->outoff += (size_t)n;
    }
    free(c->out);
    c->out = NULL, c->outlen = c->outoff = 0;
}

/* ---- sessions ---- */

static void sess_free(nmp_owampd *d, owsess *s) {
    nmp_net_close(&s->fd);
    if (s->sender) nmp_ow_sched_free(&s->sched);
    free(s->req_raw), free(s->rec), free(s->seen), free(s->skips), free(s->pkt);
    OPENSSL_cleanse(&s->tk, sizeof(s->tk));
    free(s);
    d->nsess--;
}

static void conn_close(nmp_owampd *d, owconn *c, const char *why) {
    logf_(d, 1, "%s: %s control connection closed%s%s (%u session%s freed)", c->peer_str, c->twamp ? "TWAMP" : "OWAMP",
          why ? ": " : "", why ? why : "", c->nsess, c->nsess == 1 ? "" : "s");
    while (c->sess) {
        owsess *s = c->sess;
        c->sess = s->next;
        /* a TWAMP session that no Stop-Sessions ended (the client closed, went silent, or sent
         * a broken one) still says what it reflected, as a stopped one does */
        if (s->twamp && s->started)
            logf_(d, 1, "%s: TWAMP session on port %u ended with its connection: reflected %u, invalid %llu, "
                  "over rate %llu", c->peer_str, s->port, s->refl_seq, (unsigned long long)s->invalid,
                  (unsigned long long)s->over_rate);
        sess_free(d, s);
    }
    nmp_net_close(&c->fd);
    free(c->out);
    OPENSSL_cleanse(&c->c, sizeof(c->c));
    for (owconn **p = &d->conns; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    free(c);
    d->nconns--;
    logf_(d, 2, "now %u connection%s, %u session%s", d->nconns, d->nconns == 1 ? "" : "s", d->nsess,
          d->nsess == 1 ? "" : "s");
}

static uint32_t sessions_of_client(const nmp_owampd *d, const struct sockaddr_storage *a) {
    uint32_t n = 0;
    for (owconn *c = d->conns; c; c = c->next)
        if (nmp_net_same_ip((const struct sockaddr *)&c->peer, (const struct sockaddr *)a)) n += c->nsess;
    return n;
}

static uint32_t sessions_of_key(const nmp_owampd *d, const char *keyid) {
    uint32_t n = 0;
    for (owconn *c = d->conns; c; c = c->next)
        if (c->mode != NMP_OW_MODE_OPEN && strcmp(c->keyid, keyid) == 0) n += c->nsess;
    return n;
}

/* Binds a UDP socket on the control connection's local address: the asked
 * port when it is in the range, else the first free one of the range
 * (ephemeral without a range). */
static int bind_test_port(nmp_owampd *d, owconn *c, uint16_t want, int *fd, uint16_t *port) {
    int fam = c->local.ss_family, rc;
    if ((rc = nmp_net_udp_open(fam, 0, fd, NULL, 0)) < 0) return rc;
    int one = 1;
    setsockopt(*fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    struct sockaddr_storage a = c->local;
    socklen_t al = fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    int lo = d->cfg.port_lo, hi = d->cfg.port_hi, range = lo ? hi - lo + 1 : 0;
    int first = want && (!range || (want >= lo && want <= hi)) ? want : 0;
    for (int i = -1; i < range; i++) {
        int p = i < 0 ? first : lo + (d->next_port + i) % range;
        if (i < 0 && p == 0 && range) continue; /* nothing asked: search the range */
        if (fam == AF_INET) ((struct sockaddr_in *)&a)->sin_port = htons((uint16_t)p);
        else ((struct sockaddr_in6 *)&a)->sin6_port = htons((uint16_t)p);
        if (bind(*fd, (struct sockaddr *)&a, al) == 0) {
            socklen_t sl = al;
            getsockname(*fd, (struct sockaddr *)&a, &sl);
            *port = fam == AF_INET ? ntohs(((struct sockaddr_in *)&a)->sin_port)
                                   : ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
            if (range) d->next_port = (uint16_t)((*port - lo + 1) % range);
            return 0;
        }
        if (errno != EADDRINUSE && errno != EACCES) break;
        if (!range) break;
    }
    rc = -errno;
    nmp_net_close(fd);
    return rc ? rc : -EADDRINUSE;
}

/* SID (RFC 4656 3.5): the receiver's address (4 octets), an NTP timestamp, 4 random octets. */
static void make_sid(const owconn *c, uint8_t sid[16]) {
    uint8_t a[16];
    int v = nmp_owc_addr(&c->local, a, NULL);
    memcpy(sid, v == 4 ? a : a + 12, 4);
    uint64_t ts = nmp_ow_ts_from_wall(nmp_wall_now());
    for (int i = 0; i < 8; i++) sid[4 + i] = (uint8_t)(ts >> (56 - 8 * i));
    nmp_net_random(sid + 12, 4);
}

static void accept_reply(nmp_owampd *d, owconn *c, uint8_t accept, uint16_t port, const uint8_t *sid) {
    uint8_t m[NMP_OW_ACCEPT_LEN];
    size_t hm = 32;
    nmp_ow_accept a = {.accept = accept, .port = port};
    if (sid) memcpy(a.sid, sid, 16);
    else memset(a.sid, 0, 16);
    nmp_ow_accept_encode(m, &a);
    if (send_msg(c, m, sizeof(m), &hm, 1) < 0) c->state = ST_CLOSING;
    if (accept != NMP_OW_ACCEPT_OK) d->refused++;
}

/* Refuses a session: the Accept value goes to the client, the reason to the log. */
static void refuse(nmp_owampd *d, owconn *c, uint8_t accept, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void refuse(nmp_owampd *d, owconn *c, uint8_t accept, const char *fmt, ...) {
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    logf_(d, 1, "%s: %s session refused, Accept %u (%s): %s", c->peer_str, c->twamp ? "TWAMP" : "OWAMP", accept,
          nmp_ow_accept_name(accept), why);
    accept_reply(d, c, accept, 0, NULL);
}

static void on_request(nmp_owampd *d, owconn *c, uint8_t *m, size_t n) {
    const nmp_owampd_cfg *cfg = &d->cfg;
    nmp_ow_request r;
    char sub[NMP_ERRLEN];
    int rc;
    if (c->running) {
        /* RFC 4656 3.4: no new sessions while a test runs */
        logf_(d, 1, "%s: Request-Session during a running test: closing", c->peer_str);
        c->state = ST_CLOSING;
        return;
    }
    if ((rc = nmp_ow_request_decode(m, n, &r, sub, sizeof(sub))) < 0) {
        refuse(d, c, rc == -EPROTONOSUPPORT ? NMP_OW_ACCEPT_UNSUPPORTED : NMP_OW_ACCEPT_FAILURE, "%s", sub);
        return;
    }
    size_t hdr = c->twamp ? nmp_ow_refl_hdr_len(nmp_ow_test_mode(c->mode)) : nmp_ow_test_hdr_len(c->mode);
    double interval = 0;
    if (!c->twamp) {
        double sum = 0;
        for (uint32_t i = 0; i < r.nslots; i++) {
            nmp_ow_slot sl;
            if (nmp_ow_slot_decode(m + NMP_OW_REQUEST_LEN + 16 * (size_t)i, 16, &sl, sub, sizeof(sub)) < 0) {
                refuse(d, c, NMP_OW_ACCEPT_UNSUPPORTED, "%s", sub);
                return;
            }
            sum += (double)nmp_ow_dur_to_ns(sl.param) / 1e9;
        }
        interval = sum / r.nslots;
        double pps = interval > 0 ? 1 / interval : INFINITY;
        double dur = r.npackets * interval + (double)nmp_ow_dur_to_ns(r.timeout) / 1e9;
        double mbps = pps * (double)(hdr + r.padding + (r.ipvn == 6 ? 48 : 28)) * 8 / 1e6;
        if (r.npackets > cfg->max_packets) {
            refuse(d, c, NMP_OW_ACCEPT_PERMANENT, "%u packets, limit %u", r.npackets, cfg->max_packets);
            return;
        }
        if (pps > cfg->max_pps) {
            refuse(d, c, NMP_OW_ACCEPT_PERMANENT, "%.0f packets/s, limit %.0f", pps, cfg->max_pps);
            return;
        }
        if (mbps > cfg->max_mbps) {
            refuse(d, c, NMP_OW_ACCEPT_PERMANENT, "%.2f Mbit/s, limit %.2f", mbps, cfg->max_mbps);
            return;
        }
        if (dur * 1000 > cfg->max_duration_ms) {
            refuse(d, c, NMP_OW_ACCEPT_PERMANENT, "%.1f s long, limit %.1f s", dur, cfg->max_duration_ms / 1000.0);
            return;
        }
    }
    if (hdr + r.padding > NMP_OW_TEST_MAX_LEN) {
        refuse(d, c, NMP_OW_ACCEPT_UNSUPPORTED, "padding %u makes test packets larger than %d octets", r.padding,
               NMP_OW_TEST_MAX_LEN);
        return;
    }
    if (r.type_p & ~0x3F000000u) {
        refuse(d, c, NMP_OW_ACCEPT_UNSUPPORTED, "Type-P 0x%08x is not a DSCP", r.type_p);
        return;
    }
    if ((r.ipvn == 6) != (c->peer.ss_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&c->peer)->sin6_addr))) {
        refuse(d, c, NMP_OW_ACCEPT_UNSUPPORTED, "test over IPv%u, control over the other version", r.ipvn);
        return;
    }
    if (r.conf_sender) {
        /* this end sends: only to the client's own address (never a third party), to a real port */
        uint8_t pa[16];
        int pv = nmp_owc_addr(&c->peer, pa, NULL);
        if (pv != r.ipvn || memcmp(pa, r.receiver_addr, pv == 4 ? 4 : 16) != 0 || r.receiver_port == 0) {
            char ra[64];
            inet_ntop(r.ipvn == 4 ? AF_INET : AF_INET6, r.receiver_addr, ra, sizeof(ra));
            refuse(d, c, NMP_OW_ACCEPT_FAILURE, "asks this server to send to %s port %u: only the client's own address "
                   "(%s) and a nonzero port are served", ra, r.receiver_port, c->peer_str);
            return;
        }
    }
    for (owsess *s = c->sess; s; s = s->next)
        if ((!r.conf_sender && !s->sender && s->req.sender_port == r.sender_port && r.sender_port != 0) ||
            (r.conf_sender && s->sender && (memcmp(s->sid, r.sid, 16) == 0 || s->req.receiver_port == r.receiver_port))) {
            refuse(d, c, NMP_OW_ACCEPT_FAILURE, "replays session %02x%02x..: same %s port %u", s->sid[0], s->sid[1],
                   r.conf_sender ? "receiver" : "sender", r.conf_sender ? r.receiver_port : r.sender_port);
            return;
        }
    if (d->nsess >= cfg->max_sessions) {
        refuse(d, c, NMP_OW_ACCEPT_TEMPORARY, "%u sessions held, limit %u", d->nsess, cfg->max_sessions);
        return;
    }
    if (sessions_of_client(d, &c->peer) >= cfg->max_per_client) {
        refuse(d, c, NMP_OW_ACCEPT_TEMPORARY, "client holds %u sessions, limit %u", sessions_of_client(d, &c->peer),
               cfg->max_per_client);
        return;
    }
    if (c->mode != NMP_OW_MODE_OPEN && sessions_of_key(d, c->keyid) >= cfg->max_per_key) {
        refuse(d, c, NMP_OW_ACCEPT_TEMPORARY, "key id \"%s\" holds %u sessions, limit %u", c->keyid,
               sessions_of_key(d, c->keyid), cfg->max_per_key);
        return;
    }
    owsess *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->req_raw = malloc(n)) == NULL) {
        free(s);
        refuse(d, c, NMP_OW_ACCEPT_INTERNAL, "out of memory");
        return;
    }
    s->fd = -1;
    if (!c->twamp && r.conf_sender) {
        nmp_ow_slot *sl = malloc(r.nslots * sizeof(*sl));
        s->pktlen = hdr + r.padding;
        s->pkt = calloc(1, s->pktlen); /* zero padding, as the client kind sends */
        for (uint32_t i = 0; sl && i < r.nslots; i++)
            nmp_ow_slot_decode(m + NMP_OW_REQUEST_LEN + 16 * (size_t)i, 16, &sl[i], sub, sizeof(sub)); /* checked above */
        rc = sl && s->pkt ? nmp_ow_sched_init(&s->sched, r.sid, sl, r.nslots) : -ENOMEM;
        free(sl);
        if (rc < 0) {
            free(s->pkt), free(s->req_raw), free(s);
            refuse(d, c, NMP_OW_ACCEPT_TEMPORARY, "cannot set the schedule up: %s", strerror(-rc));
            return;
        }
        s->sender = 1;
    } else if (!c->twamp) {
        size_t cap = r.npackets < 1024 ? r.npackets : 1024;
        s->rec = malloc(cap * sizeof(*s->rec)), s->cap = (uint32_t)cap;
        s->seen = calloc(r.npackets, 1);
        if (!s->rec || !s->seen) {
            free(s->rec), free(s->seen), free(s->req_raw), free(s);
            refuse(d, c, NMP_OW_ACCEPT_TEMPORARY, "no memory for %u packet records", r.npackets);
            return;
        }
    }
    d->nsess++; /* counted from here: sess_free uncounts */
    memcpy(s->req_raw, m, n);
    s->req_raw_len = n;
    s->req = r;
    s->twamp = c->twamp;
    s->interval_s = interval;
    s->client = c->peer;
    s->test_mode = nmp_ow_test_mode(c->mode);
    memcpy(s->keyid, c->keyid, sizeof(s->keyid));
    if ((rc = bind_test_port(d, c, c->twamp ? r.receiver_port : 0, &s->fd, &s->port)) < 0) {
        sess_free(d, s);
        refuse(d, c, NMP_OW_ACCEPT_TEMPORARY, "no free test port%s: %s", d->cfg.port_lo ? " in the range" : "",
               strerror(-rc));
        return;
    }
    s->start_wall = nmp_ow_ts_to_wall(r.start_time, nmp_wall_now());
    if (s->sender) {
        /* RFC 4656 3.5: the receiver (here the client) chose the SID */
        memcpy(s->sid, r.sid, 16);
        s->dest = c->peer;
        if (s->dest.ss_family == AF_INET) ((struct sockaddr_in *)&s->dest)->sin_port = htons(r.receiver_port);
        else ((struct sockaddr_in6 *)&s->dest)->sin6_port = htons(r.receiver_port);
        s->destlen = s->dest.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
        s->timeout_ns = nmp_ow_dur_to_ns(r.timeout);
        int ttl = 255; /* as owping and the client kind send */
        if (s->dest.ss_family == AF_INET) setsockopt(s->fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
        else setsockopt(s->fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl));
    } else {
        make_sid(c, s->sid);
    }
    if (s->test_mode != NMP_OW_MODE_OPEN && nmp_ow_test_keys_make(&c->c.keys, s->sid, &s->tk) < 0) {
        sess_free(d, s);
        refuse(d, c, NMP_OW_ACCEPT_INTERNAL, "cannot derive the test key");
        return;
    }
    s->next = c->sess, c->sess = s, c->nsess++;
    accept_reply(d, c, NMP_OW_ACCEPT_OK, s->port, s->sid);
    logf_(d, 1, "%s: %s session accepted on port %u (%s mode, %u packets, padding %u%s)", c->peer_str,
          c->twamp ? "TWAMP" : "OWAMP", s->port, nmp_ow_mode_name(c->mode), r.npackets, r.padding,
          s->sender ? ", this end sends" : "");
}

/* A sender session's clock: Start Time on the monotonic clock, and packet 0's slot. */
static void sender_arm(owsess *s, nmp_monotime_ns now) {
    int64_t ahead = s->start_wall - nmp_wall_now(); /* negative: Start Time already past */
    s->start_mono = ahead >= 0 ? now + (uint64_t)ahead : ((uint64_t)-ahead < now ? now - (uint64_t)-ahead : 0);
    s->offset = nmp_ow_sched_next(&s->sched);
    s->due = s->start_mono + nmp_ow_dur_to_ns(s->offset);
    s->send_done = s->req.npackets == 0;
}

static void on_start(nmp_owampd *d, owconn *c) {
    uint8_t m[NMP_OW_START_LEN];
    size_t hm = 16;
    nmp_monotime_ns now = nmp_mono_now();
    for (owsess *s = c->sess; s; s = s->next)
        if (!s->started) {
            /* the longest test runs from its Start Time, which a client sets a little ahead (up to
             * START_AHEAD_MAX counted, so a far Start Time cannot hold a session longer) */
            int64_t ahead = s->start_wall - nmp_wall_now();
            ahead = ahead < 0 ? 0 : ahead > START_AHEAD_MAX ? START_AHEAD_MAX : ahead;
            s->started = 1, s->end_by = now + (uint64_t)ahead + (uint64_t)d->cfg.max_duration_ms * 1000000ull;
            if (s->sender) sender_arm(s, now);
        }
    c->running = c->sess != NULL;
    nmp_ow_start_ack_encode(m, NMP_OW_ACCEPT_OK);
    if (send_msg(c, m, sizeof(m), &hm, 1) < 0) c->state = ST_CLOSING;
    logf_(d, 2, "%s: Start-Sessions: %u session%s", c->peer_str, c->nsess, c->nsess == 1 ? "" : "s");
}

/* Adds the records of packets neither received nor skipped below next_seqno
 * as lost (receive timestamp zero), as owampd's Fetch gives them. */
static void add_lost(owsess *s) {
    uint64_t start = s->req.start_time;
    uint32_t until = s->next_seqno < s->req.npackets ? s->next_seqno : s->req.npackets;
    for (uint32_t q = 0; q < until; q++) {
        int skipped = 0;
        for (uint32_t k = 0; k < s->nskips && !skipped; k++) skipped = q >= s->skips[2 * k] && q <= s->skips[2 * k + 1];
        if (s->seen[q] || skipped) continue;
        if (s->nrec == s->cap) {
            uint32_t nc = s->cap ? s->cap * 2 : 64;
            nmp_ow_record *r = realloc(s->rec, nc * sizeof(*r));
            if (r == NULL) return;
            s->rec = r, s->cap = nc;
        }
        uint64_t off = nmp_ow_dur_from_ns((uint64_t)(q * s->interval_s * 1e9));
        s->rec[s->nrec++] = (nmp_ow_record){.seq = q, .send_ts = start + off, .recv_ts = 0, .ttl = 255,
                                            .send_error = 0, .recv_error = s->error};
    }
}

static void on_stop(nmp_owampd *d, owconn *c, uint8_t *m, size_t n) {
    uint8_t accept;
    uint32_t ns;
    char sub[NMP_ERRLEN];
    if (nmp_ow_stop_header_decode(m, n, &accept, &ns, sub, sizeof(sub)) < 0) {
        logf_(d, 1, "%s: bad Stop-Sessions: %s", c->peer_str, sub);
        c->state = ST_CLOSING;
        return;
    }
    if (c->twamp) {
        /* TWAMP: the reflector stops; nothing is answered */
        uint32_t had = c->nsess;
        while (c->sess) {
            owsess *s = c->sess;
            c->sess = s->next;
            logf_(d, 1, "%s: TWAMP session on port %u stopped: reflected %u, invalid %llu, over rate %llu",
                  c->peer_str, s->port, s->refl_seq, (unsigned long long)s->invalid, (unsigned long long)s->over_rate);
            sess_free(d, s);
        }
        c->nsess = 0, c->running = 0;
        (void)had;
        return;
    }
    for (uint32_t i = 0; i < ns; i++) {
        nmp_ow_stop_session st;
        if (nmp_ow_stop_session_at(m, n, i, &st, sub, sizeof(sub)) < 0) {
            logf_(d, 1, "%s: bad Stop-Sessions: %s", c->peer_str, sub);
            c->state = ST_CLOSING;
            return;
        }
        owsess *s = c->sess;
        while (s && memcmp(s->sid, st.sid, 16) != 0) s = s->next;
        /* the client describes only what it sent, and each session once: a second description of
         * one SID in the same message is ignored (its skips are held already) */
        if (s == NULL || s->finished || s->sender || s->skips) continue;
        s->next_seqno = st.next_seqno;
        if ((s->skips = malloc((st.nskips ? st.nskips : 1) * 2 * sizeof(uint32_t))) == NULL) continue;
        for (uint32_t k = 0; k < st.nskips; k++) {
            const uint8_t *p = st.skips + 8 * k;
            s->skips[2 * k] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
            s->skips[2 * k + 1] = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
        }
        s->nskips = st.nskips;
    }
    uint32_t nsent = 0;
    size_t cap = NMP_OW_BLOCK + NMP_OW_HMAC_LEN;
    for (owsess *s = c->sess; s; s = s->next) {
        if (s->finished) continue;
        if (s->sender) {
            /* RFC 4656 3.8: this end describes the sessions it sent: Next Seqno and the skipped ranges */
            s->finished = 1, s->send_done = 1, s->stopped_now = 1;
            s->next_seqno = s->send_seq;
            nmp_net_close(&s->fd);
            nsent++, cap += 32 + 8 * (size_t)s->nskips + 16;
            logf_(d, 1, "%s: OWAMP session to port %u stopped: sent %u, next seqno %u, %u skip ranges, %llu invalid",
                  c->peer_str, s->req.receiver_port, s->sent, s->next_seqno, s->nskips, (unsigned long long)s->invalid);
            continue;
        }
        if (!s->skips) s->next_seqno = s->req.npackets; /* no description: all were sent */
        add_lost(s);
        s->finished = 1;
        nmp_net_close(&s->fd); /* the records stay for Fetch-Session */
        logf_(d, 1, "%s: OWAMP session on port %u stopped: %u records, next seqno %u, %u skip ranges, %llu invalid",
              c->peer_str, s->port, s->nrec, s->next_seqno, s->nskips, (unsigned long long)s->invalid);
    }
    c->running = 0;
    uint8_t *r = calloc(1, cap);
    size_t off = NMP_OW_BLOCK;
    if (r == NULL) {
        c->state = ST_CLOSING;
        return;
    }
    nmp_ow_stop_header_encode(r, NMP_OW_ACCEPT_OK, nsent);
    for (owsess *s = c->sess; s; s = s->next) {
        if (!s->stopped_now) continue;
        s->stopped_now = 0;
        long dl = nmp_ow_stop_session_encode(r + off, cap - off - NMP_OW_HMAC_LEN, s->sid, s->next_seqno, s->skips,
                                             s->nskips);
        if (dl > 0) off += (size_t)dl;
    }
    size_t hm = off;
    if (send_msg(c, r, off + NMP_OW_HMAC_LEN, &hm, 1) < 0) c->state = ST_CLOSING;
    free(r);
}

static void on_fetch(nmp_owampd *d, owconn *c, uint8_t *m, size_t n) {
    nmp_ow_fetch f;
    char sub[NMP_ERRLEN];
    uint8_t ab[NMP_OW_FETCH_ACK_LEN];
    size_t hm = 16;
    nmp_ow_fetch_ack ack = {.accept = NMP_OW_ACCEPT_FAILURE};
    owsess *s = NULL;
    if (nmp_ow_fetch_decode(m, n, &f, sub, sizeof(sub)) == 0)
        for (s = c->sess; s && memcmp(s->sid, f.sid, 16) != 0; s = s->next) {}
    if (s == NULL || !s->finished || s->sender) {
        logf_(d, 1, "%s: Fetch-Session refused, Accept 1: %s", c->peer_str,
              s == NULL ? "no such session on this connection"
              : s->sender ? "this end sent that session; its receiver (the client) holds the records"
                          : "the session is still running");
        nmp_ow_fetch_ack_encode(ab, &ack);
        if (send_msg(c, ab, sizeof(ab), &hm, 1) < 0) c->state = ST_CLOSING;
        return;
    }
    uint32_t nr = 0;
    for (uint32_t i = 0; i < s->nrec; i++) nr += s->rec[i].seq >= f.begin && s->rec[i].seq <= f.end;
    size_t slots = s->req_raw_len - NMP_OW_REQUEST_LEN; /* slot blocks and their HMAC */
    size_t skl = s->nskips ? ((size_t)s->nskips * 8 + 15) / 16 * 16 : 0;
    size_t rl = nr ? ((size_t)nr * NMP_OW_RECORD_LEN + 15) / 16 * 16 : 0;
    size_t total = NMP_OW_FETCH_ACK_LEN + NMP_OW_REQUEST_LEN + slots + skl + 16 + rl + 16;
    uint8_t *b = calloc(1, total);
    if (b == NULL) {
        ack.accept = NMP_OW_ACCEPT_TEMPORARY;
        nmp_ow_fetch_ack_encode(ab, &ack);
        if (send_msg(c, ab, sizeof(ab), &hm, 1) < 0) c->state = ST_CLOSING;
        return;
    }
    ack = (nmp_ow_fetch_ack){.accept = 0, .finished = 1, .next_seqno = s->next_seqno, .nskips = s->nskips, .nrecords = nr};
    nmp_ow_fetch_ack_encode(b, &ack);
    size_t off = NMP_OW_FETCH_ACK_LEN, h[5];
    h[0] = 16;
    memcpy(b + off, s->req_raw, s->req_raw_len);
    h[1] = off + 96;
    off += s->req_raw_len;
    h[2] = off - 16;
    for (uint32_t k = 0; k < s->nskips; k++) {
        uint8_t *p = b + off + 8 * k;
        for (int j = 0; j < 4; j++) p[j] = (uint8_t)(s->skips[2 * k] >> (24 - 8 * j));
        for (int j = 0; j < 4; j++) p[4 + j] = (uint8_t)(s->skips[2 * k + 1] >> (24 - 8 * j));
    }
    off += skl;
    h[3] = off, off += 16;
    size_t ri = 0;
    for (uint32_t i = 0; i < s->nrec; i++)
        if (s->rec[i].seq >= f.begin && s->rec[i].seq <= f.end)
            nmp_ow_record_encode(b + off + NMP_OW_RECORD_LEN * ri++, &s->rec[i]);
    off += rl;
    h[4] = off;
    /* the Request-Session's own HMAC blocks were covered by the client's key stream: zero them before resealing */
    memset(b + h[1], 0, 16), memset(b + h[2], 0, 16);
    if (send_msg(c, b, total, h, 5) < 0) c->state = ST_CLOSING;
    logf_(d, 1, "%s: Fetch-Session: %u records, %u skip ranges", c->peer_str, nr, s->nskips);
    free(b);
}

/* Handles one whole, decrypted client message. */
static void on_message(nmp_owampd *d, owconn *c, uint8_t *m, size_t n) {
    size_t hm[2];
    int nh = 1;
    switch (m[0]) {
    case NMP_OW_CMD_REQUEST_SESSION: hm[0] = 96, hm[1] = n - 16, nh = 2; break;
    case NMP_OW_CMD_REQUEST_TW_SESSION: hm[0] = 96; break;
    case NMP_OW_CMD_FETCH_SESSION: hm[0] = 32; break;
    default: hm[0] = n - 16; break;
    }
    if (nmp_ow_verify(&c->c, m, n, hm, nh) < 0) {
        /* RFC 4656 3.2: a bad HMAC ends the connection */
        logf_(d, 1, "%s: command %u with a wrong HMAC: closing", c->peer_str, m[0]);
        c->state = ST_CLOSING;
        d->refused++;
        return;
    }
    logf_(d, 2, "%s: command %u, %zu octets", c->peer_str, m[0], n);
    switch (m[0]) {
    case NMP_OW_CMD_REQUEST_SESSION:
    case NMP_OW_CMD_REQUEST_TW_SESSION: on_request(d, c, m, n); break;
    case NMP_OW_CMD_START_SESSIONS: on_start(d, c); break;
    case NMP_OW_CMD_STOP_SESSIONS: on_stop(d, c, m, n); break;
    case NMP_OW_CMD_FETCH_SESSION: on_fetch(d, c, m, n); break;
    default: c->state = ST_CLOSING; break;
    }
}

/* The Set-Up-Response: mode, key id, Token. Answers Server-Start. */
static void on_setup(nmp_owampd *d, owconn *c) {
    nmp_ow_setup s;
    char sub[NMP_ERRLEN];
    uint8_t accept = NMP_OW_ACCEPT_OK, out[NMP_OW_SERVER_START_LEN];
    int rc = nmp_ow_setup_decode(c->in, NMP_OW_SETUP_LEN, &s, sub, sizeof(sub));
    if (rc < 0 || !(s.mode & d->cfg.modes) || (!c->twamp && s.mode == NMP_OW_MODE_MIXED)) {
        accept = NMP_OW_ACCEPT_UNSUPPORTED;
        logf_(d, 1, "%s: Set-Up-Response refused, Accept 3: %s", c->peer_str,
              rc < 0 ? sub : "mode not offered");
    } else if (s.mode != NMP_OW_MODE_OPEN) {
        uint8_t secret[1024];
        memcpy(c->keyid, s.keyid, NMP_OW_KEYID_LEN);
        c->keyid[NMP_OW_KEYID_LEN] = '\0';
        long sl = nmp_ow_pfs_load(d->cfg.key_file, c->keyid, secret, sizeof(secret), sub, sizeof(sub));
        if (sl < 0 || (rc = nmp_ow_token_open(secret, (size_t)sl, &c->g, s.token, &c->c.keys)) < 0) {
            accept = NMP_OW_ACCEPT_FAILURE;
            logf_(d, 1, "%s: Set-Up-Response refused, Accept 1: %s", c->peer_str,
                  sl < 0 ? sub : rc == -EACCES ? "Token does not open to this greeting's challenge (wrong key, or a "
                                                 "replayed Set-Up-Response)" : "Token unreadable");
        }
        OPENSSL_cleanse(secret, sizeof(secret));
    }
    nmp_ow_server_start ss = {.accept = accept, .start_time = d->start_ntp};
    if (accept == NMP_OW_ACCEPT_OK && s.mode != NMP_OW_MODE_OPEN) {
        c->c.on = 1;
        memcpy(c->c.recv_iv, s.client_iv, 16);
        nmp_net_random(ss.server_iv, 16);
        memcpy(c->c.send_iv, ss.server_iv, 16);
    }
    nmp_ow_server_start_encode(out, &ss);
    if (c->c.on) {
        memcpy(c->c.send_carry, out + 32, 16), c->c.send_carry_len = 16; /* covered by the next HMAC */
        nmp_ow_encrypt(&c->c, out + 32, 16);
    }
    queue(c, out, sizeof(out));
    memmove(c->in, c->in + NMP_OW_SETUP_LEN, c->inlen - NMP_OW_SETUP_LEN);
    c->inlen -= NMP_OW_SETUP_LEN;
    c->plain = 0;
    if (accept != NMP_OW_ACCEPT_OK) {
        d->refused++;
        c->state = ST_CLOSING;
        return;
    }
    c->mode = s.mode;
    c->state = ST_REQUEST;
    logf_(d, 1, "%s: %s control connection in %s mode%s%s", c->peer_str, c->twamp ? "TWAMP" : "OWAMP",
          nmp_ow_mode_name(s.mode), s.mode != NMP_OW_MODE_OPEN ? ", key id " : "", s.mode != NMP_OW_MODE_OPEN ? c->keyid : "");
}

static void on_readable(nmp_owampd *d, owconn *c) {
    int eof = 0;
    for (;;) {
        if (c->inlen == sizeof(c->in)) break; /* full: what it holds is looked at first */
        ssize_t n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
            eof = 1; /* what arrived before the end is still answered (a Stop-Sessions, then close) */
            break;
        }
        c->inlen += (size_t)n;
    }
    c->idle_at = nmp_mono_now() + (uint64_t)d->cfg.servwait_ms * 1000000ull;
    if (c->state == ST_SETUP && c->inlen >= NMP_OW_SETUP_LEN) on_setup(d, c);
    while (c->state == ST_REQUEST) {
        size_t whole = (c->inlen - c->plain) / 16 * 16;
        if (whole && nmp_ow_decrypt(&c->c, c->in + c->plain, whole) < 0) {
            c->state = ST_CLOSING;
            return;
        }
        c->plain += whole;
        long L = nmp_ow_client_msg_len(c->twamp, c->in, c->plain);
        if (L < 0 || (size_t)L > sizeof(c->in)) {
            logf_(d, 1, "%s: %s (first octet %u): closing", c->peer_str,
                  L == -EINVAL ? "not a command of this protocol" : "message beyond the limits", c->plain ? c->in[0] : 0);
            d->refused++;
            c->state = ST_CLOSING;
            return;
        }
        if (L == 0 || (size_t)L > c->plain) break;
        on_message(d, c, c->in, (size_t)L);
        memmove(c->in, c->in + L, c->inlen - (size_t)L);
        c->inlen -= (size_t)L, c->plain -= (size_t)L;
    }
    if (eof) {
        if (c->inlen && c->state != ST_CLOSING)
            logf_(d, 1, "%s: connection ended inside a message (%zu octets held)", c->peer_str, c->inlen);
        c->state = ST_CLOSING;
        c->outoff = c->outlen; /* nobody reads the rest */
    }
}

static void on_accept(nmp_owampd *d, int twamp) {
    for (;;) {
        struct sockaddr_storage peer;
        socklen_t pl = sizeof(peer);
        int fd = accept4(d->lfd[twamp], (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        char ps[64];
        nmp_addr_str((struct sockaddr *)&peer, ps, sizeof(ps));
        if (d->nconns >= d->cfg.max_conns) {
            /* Modes 0 in the greeting: RFC 4656 3.1's way to turn a client away */
            uint8_t g[NMP_OW_GREETING_LEN];
            nmp_ow_greeting gr = {.modes = 0, .count = NMP_OW_COUNT_MIN};
            nmp_ow_greeting_encode(g, &gr);
            ssize_t w = send(fd, g, sizeof(g), MSG_NOSIGNAL | MSG_DONTWAIT);
            (void)w;
            close(fd);
            d->refused++;
            logf_(d, 1, "%s: connection refused with Modes 0: %u connections, limit %u", ps, d->nconns, d->cfg.max_conns);
            continue;
        }
        owconn *c = calloc(1, sizeof(*c));
        if (c == NULL) {
            close(fd);
            continue;
        }
        c->fd = fd, c->twamp = twamp, c->state = ST_SETUP, c->peer = peer;
        memcpy(c->peer_str, ps, sizeof(ps));
        socklen_t ll = sizeof(c->local);
        getsockname(fd, (struct sockaddr *)&c->local, &ll);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c->idle_at = nmp_mono_now() + (uint64_t)d->cfg.servwait_ms * 1000000ull;
        c->g.modes = d->cfg.modes & (twamp ? 0xF : 0x7);
        c->g.count = NMP_OW_COUNT_MIN;
        nmp_net_random(c->g.challenge, 16);
        nmp_net_random(c->g.salt, 16);
        uint8_t g[NMP_OW_GREETING_LEN];
        nmp_ow_greeting_encode(g, &c->g);
        queue(c, g, sizeof(g));
        c->next = d->conns, d->conns = c, d->nconns++;
        logf_(d, 2, "%s: %s control connection opened", ps, twamp ? "TWAMP" : "OWAMP");
    }
}

/* ---- test packets ---- */

static uint16_t sess_error(owsess *s, nmp_monotime_ns now) {
    if (now >= s->error_at) s->error = nmp_ow_local_error(), s->error_at = now + 1000000000ull;
    return s->error;
}

static int rate_ok(nmp_owampd *d, owsess *s, nmp_monotime_ns now) {
    double cap = d->cfg.max_pps > 10 ? d->cfg.max_pps / 10 : 1; /* a burst of 100 ms */
    s->tokens += (double)(now - s->refill_at) / 1e9 * d->cfg.max_pps;
    if (s->tokens > cap) s->tokens = cap;
    s->refill_at = now;
    if (s->tokens < 1) return 0;
    s->tokens -= 1;
    return 1;
}

static void on_test_packet(nmp_owampd *d, owconn *c, owsess *s) {
    uint8_t buf[NMP_OW_TEST_MAX_LEN + 64], out[NMP_OW_TEST_MAX_LEN];
    for (int batch = 0; batch < 64; batch++) {
        char cbuf[256];
        struct sockaddr_storage from;
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
        struct msghdr msg = {.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        ssize_t n = recvmsg(s->fd, &msg, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return;
        nmp_walltime_ns rx = nmp_net_cmsg_stamp(&msg);
        if (rx == 0) rx = nmp_wall_now();
        nmp_monotime_ns now = nmp_mono_now();
        nmp_ow_test_pkt p;
        /* only the client's address may use the session, only once started, and not one this end sends */
        if (!s->started || s->sender || !nmp_net_same_ip((struct sockaddr *)&from, (struct sockaddr *)&s->client) ||
            nmp_ow_test_decode(buf, (size_t)n, &p, s->test_mode, &s->tk) < 0) {
            s->invalid++;
            continue;
        }
        int ttl = nmp_net_cmsg_ttl(&msg);
        if (!s->twamp) {
            if (p.seq >= s->req.npackets || s->finished) {
                s->invalid++;
                continue;
            }
            if (s->nrec == s->cap) {
                uint32_t nc = s->cap * 2 > 2 * s->req.npackets + 16 ? 2 * s->req.npackets + 16 : s->cap * 2;
                nmp_ow_record *r = nc > s->cap ? realloc(s->rec, nc * sizeof(*r)) : NULL;
                if (r == NULL) {
                    s->invalid++;
                    continue;
                }
                s->rec = r, s->cap = nc;
            }
            s->seen[p.seq] = 1;
            s->rec[s->nrec++] = (nmp_ow_record){.seq = p.seq, .send_error = p.error, .recv_error = sess_error(s, now),
                                                .send_ts = p.ts, .recv_ts = nmp_ow_ts_from_wall(rx),
                                                .ttl = (uint8_t)(ttl < 0 ? 255 : ttl)};
            continue;
        }
        if (!rate_ok(d, s, now)) {
            s->over_rate++;
            continue;
        }
        size_t len = nmp_ow_refl_hdr_len(s->test_mode) + s->req.padding;
        if (len > sizeof(out)) len = sizeof(out);
        memset(out, 0, len);
        nmp_ow_refl_pkt r = {.seq = s->refl_seq, .error = sess_error(s, now), .rx_ts = nmp_ow_ts_from_wall(rx),
                             .sender_seq = p.seq, .sender_ts = p.ts, .sender_error = p.error,
                             .sender_ttl = (uint8_t)(ttl < 0 ? 255 : ttl)};
        r.ts = nmp_ow_ts_from_wall(nmp_wall_now());
        if (nmp_ow_refl_encode(out, len, &r, s->test_mode, &s->tk) < 0) continue;
        ssize_t w;
        do w = sendto(s->fd, out, len, 0, (struct sockaddr *)&from, msg.msg_namelen);
        while (w < 0 && errno == EINTR);
        if (w == (ssize_t)len) s->refl_seq++;
    }
    (void)c;
}

/* A skipped packet joins the last range or opens one; 0 when the ranges
 * ran out (Stop-Sessions carries at most NMP_OW_MAX_SKIPS). */
static int sender_skip(owsess *s, uint32_t seq) {
    if (s->nskips > 0 && s->skips[2 * s->nskips - 1] + 1 == seq) {
        s->skips[2 * s->nskips - 1] = seq;
        return 1;
    }
    if (s->nskips == NMP_OW_MAX_SKIPS) return 0;
    if (s->skips == NULL && (s->skips = malloc(2 * NMP_OW_MAX_SKIPS * sizeof(uint32_t))) == NULL) return 0;
    s->skips[2 * s->nskips] = s->skips[2 * s->nskips + 1] = seq;
    s->nskips++;
    return 1;
}

/* Sends every packet of a sender session whose slot has come (RFC 4656
 * 4.1): send timestamp taken just before the send, the error estimate of
 * this clock. A packet this end could not send within the loss timeout of
 * its slot (a stalled loop, a send error) is skipped and reported at
 * Stop-Sessions. At most 64 at a time, so one session cannot starve the
 * loop; a full socket buffer leaves the packet due for the next turn. */
static void sender_send_due(nmp_owampd *d, owconn *c, owsess *s) {
    for (int batch = 0; batch < 64 && s->fd >= 0 && !s->send_done; batch++) {
        nmp_monotime_ns now = nmp_mono_now();
        if (now < s->due) return;
        if (now > s->due + s->timeout_ns) {
            if (!sender_skip(s, s->send_seq)) {
                logf_(d, 1, "%s: session to port %u: more than %d skip ranges: sending stopped at %u", c->peer_str,
                      s->req.receiver_port, NMP_OW_MAX_SKIPS, s->send_seq);
                s->send_done = 1;
                return;
            }
        } else {
            nmp_walltime_ns w = nmp_wall_now();
            nmp_ow_test_pkt p = {.seq = s->send_seq, .ts = nmp_ow_ts_from_wall(w), .error = sess_error(s, now)};
            if (nmp_ow_test_encode(s->pkt, s->pktlen, &p, s->test_mode, &s->tk) < 0) return;
            ssize_t n;
            do n = sendto(s->fd, s->pkt, s->pktlen, 0, (struct sockaddr *)&s->dest, s->destlen);
            while (n < 0 && errno == EINTR);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) return;
            if (n == (ssize_t)s->pktlen) s->sent++;
            else if (!sender_skip(s, s->send_seq)) s->send_done = 1; /* not sent: reported as skipped */
            if (s->send_done) return;
        }
        if (++s->send_seq >= s->req.npackets) {
            s->send_done = 1;
            logf_(d, 2, "%s: session to port %u: schedule done, %u sent, %u skip ranges", c->peer_str,
                  s->req.receiver_port, s->sent, s->nskips);
            return;
        }
        s->offset += nmp_ow_sched_next(&s->sched);
        s->due = s->start_mono + nmp_ow_dur_to_ns(s->offset);
    }
}

/* ---- the loop ---- */

static int listen_on(nmp_owampd *d, int twamp, int port, char *err, size_t errlen) {
    const char *addr = d->cfg.bind_addr ? d->cfg.bind_addr : "0.0.0.0";
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    socklen_t sl;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET, s4->sin_port = htons((uint16_t)port), sl = sizeof(*s4);
    } else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6, s6->sin6_port = htons((uint16_t)port), sl = sizeof(*s6);
    } else {
        nmp_seterr(err, errlen, "bind address %s is not a numeric IPv4 or IPv6 address", addr);
        return -EINVAL;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1, zero = 0;
    if (fd < 0) goto fail;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ss.ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 64) < 0) goto fail;
    sl = sizeof(ss);
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    d->lfd[twamp] = fd;
    d->lport[twamp] = ntohs(ss.ss_family == AF_INET ? s4->sin_port : s6->sin6_port);
    logf_(d, 0, "%s listening on %s port %d (modes:%s%s%s%s)", twamp ? "twamp" : "owamp", addr, d->lport[twamp],
          d->cfg.modes & 1 ? " open" : "", d->cfg.modes & 2 ? " authenticated" : "",
          d->cfg.modes & 4 ? " encrypted" : "", twamp && (d->cfg.modes & 8) ? " mixed" : "");
    return 0;
fail:;
    int e = errno;
    nmp_seterr(err, errlen, "%s control port %s:%d: %s", twamp ? "TWAMP" : "OWAMP", addr, port, strerror(e));
    if (fd >= 0) close(fd);
    return -e;
}

int nmp_owampd_open(const nmp_owampd_cfg *cfg, nmp_owampd **out, char *err, size_t errlen) {
    *out = NULL;
    if ((cfg->modes & ~0xFu) || !(cfg->modes & 0xF)) {
        nmp_seterr(err, errlen, "modes 0x%x: offer some of open, authenticated, encrypted, mixed", cfg->modes);
        return -EINVAL;
    }
    if ((cfg->modes & ~NMP_OW_MODE_OPEN) && cfg->key_file == NULL) {
        nmp_seterr(err, errlen, "the authenticated, encrypted and mixed modes need a key file (--key-file)");
        return -EINVAL;
    }
    if (cfg->port_lo < 0 || cfg->port_hi > 65535 || cfg->port_lo > cfg->port_hi || (cfg->port_lo == 0) != (cfg->port_hi == 0)) {
        nmp_seterr(err, errlen, "test port range %d-%d is not a range of ports", cfg->port_lo, cfg->port_hi);
        return -EINVAL;
    }
    nmp_owampd *d = calloc(1, sizeof(*d));
    if (d == NULL) return -ENOMEM;
    d->cfg = *cfg;
    d->lfd[0] = d->lfd[1] = -1;
    d->start_ntp = nmp_ow_ts_from_wall(nmp_wall_now());
    int rc = 0;
    if (cfg->owamp_port >= 0) rc = listen_on(d, 0, cfg->owamp_port, err, errlen);
    if (rc == 0 && cfg->twamp_port >= 0) rc = listen_on(d, 1, cfg->twamp_port, err, errlen);
    if (rc == 0 && d->lfd[0] < 0 && d->lfd[1] < 0) {
        nmp_seterr(err, errlen, "both control ports are off");
        rc = -EINVAL;
    }
    if (rc < 0) {
        nmp_owampd_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

int nmp_owampd_port(const nmp_owampd *d, int twamp) { return d->lport[twamp ? 1 : 0]; }
void nmp_owampd_stop(nmp_owampd *d) { d->stop = 1; }

void nmp_owampd_counts_get(const nmp_owampd *d, nmp_owampd_counts *c) {
    c->conns = d->nconns, c->sessions = d->nsess, c->refused = d->refused;
}

int nmp_owampd_run(nmp_owampd *d, char *err, size_t errlen) {
    struct pollfd *pf = NULL;
    void **who = NULL;
    size_t cap = 0;
    while (!d->stop) {
        size_t need = 2 + d->nconns + d->nsess, n = 0;
        if (need > cap) {
            cap = need * 2;
            struct pollfd *np = realloc(pf, cap * sizeof(*pf));
            void **nw = np ? realloc(who, cap * sizeof(*who)) : NULL;
            if (np) pf = np;
            if (!np || !nw) {
                free(pf), free(who);
                nmp_seterr(err, errlen, "out of memory");
                return -ENOMEM;
            }
            who = nw;
        }
        nmp_monotime_ns now = nmp_mono_now(), wake = now + 200000000ull;
        for (int t = 0; t < 2; t++)
            if (d->lfd[t] >= 0) pf[n] = (struct pollfd){.fd = d->lfd[t], .events = POLLIN}, who[n++] = NULL;
        for (owconn *c = d->conns; c; c = c->next) {
            pf[n] = (struct pollfd){.fd = c->fd, .events = (short)(POLLIN | (c->outlen ? POLLOUT : 0))};
            who[n++] = c;
            nmp_monotime_ns idle = c->idle_at;
            for (owsess *s = c->sess; s; s = s->next) {
                if (s->started && s->end_by + (uint64_t)d->cfg.servwait_ms * 1000000ull > idle)
                    idle = s->end_by + (uint64_t)d->cfg.servwait_ms * 1000000ull; /* a test in progress is not idle */
                if (s->fd >= 0) pf[n] = (struct pollfd){.fd = s->fd, .events = POLLIN}, who[n++] = s;
                if (s->sender && s->started && !s->send_done && s->fd >= 0 && s->due < wake) wake = s->due;
            }
            c->idle_at = idle;
            if (idle < wake) wake = idle;
        }
        /* ppoll: a sender's next slot is a nanosecond deadline, poll's milliseconds would add up to 1 ms of lateness */
        uint64_t left = wake > now ? wake - now : 0;
        struct timespec tmo = {.tv_sec = (time_t)(left / 1000000000ull), .tv_nsec = (long)(left % 1000000000ull)};
        int r = ppoll(pf, n, &tmo, NULL);
        if (r < 0 && errno != EINTR) {
            int e = errno;
            free(pf), free(who);
            nmp_seterr(err, errlen, "poll: %s", strerror(e));
            return -e;
        }
        size_t i = 0;
        for (int t = 0; t < 2; t++) {
            if (d->lfd[t] < 0) continue;
            if (r > 0 && (pf[i].revents & POLLIN)) on_accept(d, t);
            i++;
        }
        /* connections: walk the same order as built; new ones (accepted above) are at the head and skipped */
        for (; i < n && r > 0; i++) {
            if (who[i] == NULL) continue;
            short ev = pf[i].revents;
            if (!ev) continue;
            owconn *c = NULL;
            for (owconn *x = d->conns; x && !c; x = x->next) {
                if (x == who[i]) c = x;
                for (owsess *s = x->sess; s && !c; s = s->next)
                    if ((void *)s == who[i]) {
                        if (s->fd == pf[i].fd) on_test_packet(d, x, s);
                        c = (owconn *)-1;
                    }
            }
            if (c == NULL || c == (owconn *)-1) continue;
            if (ev & (POLLIN | POLLHUP | POLLERR)) on_readable(d, c);
            if (c->outlen) flush_out(d, c);
        }
        now = nmp_mono_now();
        for (owconn *c = d->conns, *nx; c; c = nx) {
            nx = c->next;
            for (owsess *s = c->sess; s; s = s->next)
                if (s->sender && s->started && !s->send_done && s->fd >= 0) sender_send_due(d, c, s);
            now = nmp_mono_now();
            for (owsess *s = c->sess; s; s = s->next)
                if (s->started && s->fd >= 0 && now > s->end_by) {
                    logf_(d, 1, "%s: session on port %u ran past the %u s limit: stopped", c->peer_str, s->port,
                          d->cfg.max_duration_ms / 1000);
                    if (s->sender) s->send_done = 1; /* Stop-Sessions still reports what was sent */
                    else if (!s->twamp) s->next_seqno = s->req.npackets, add_lost(s), s->finished = 1;
                    nmp_net_close(&s->fd);
                }
            if (c->outlen) flush_out(d, c);
            if (c->state == ST_CLOSING && c->outlen == 0) conn_close(d, c, NULL);
            else if (now > c->idle_at) conn_close(d, c, "silent past servwait");
        }
    }
    free(pf), free(who);
    return 0;
}

void nmp_owampd_close(nmp_owampd *d) {
    if (d == NULL) return;
    while (d->conns) conn_close(d, d->conns, "server stopping");
    nmp_net_close(&d->lfd[0]);
    nmp_net_close(&d->lfd[1]);
    free(d);
}
