/* nmp_stamp_reflector.c -- a STAMP (RFC 8762) / TWAMP-Light session-reflector,
 * unauthenticated or authenticated mode, stateless or stateful, for
 * nmprobe-responder.
 *
 * A reflector answers anyone who sends to it, so it is built not to be a
 * tool against third parties: a reflection is never larger than the packet
 * it answers (no amplification), the whole reflector answers at most
 * max_pps packets a second and one source address at most source_pps, and
 * packets too short to be test packets are dropped. It never answers a
 * packet from its own address and port, from a well-known reflector or echo
 * port (nmp_reflguard.h), or one that is itself a reflection: any of these
 * would loop (issue 21: one spoofed packet from its own address made 10,675
 * reflections a second, two reflectors pointed at each other 30,219).
 * Receive times are the kernel's stamps (SO_TIMESTAMPNS); the error
 * estimate comes from adjtimex and is refreshed every 10 s.
 *
 * Authenticated mode (a key file given) answers nothing else: a packet is
 * answered only when one of the file's keys verifies its HMAC, and the
 * answer is signed with that key. RFC 8762 leaves key distribution out, and
 * nothing in a test packet names its key, so the key of a session (sender
 * address, port and SSID) is found by trying each key on its first packet
 * (64 at most) and remembered; later packets cost one HMAC. The trying comes
 * after the per-source budget, so a source sending junk spends its own
 * budget's worth of HMACs and no more; a packet whose HMAC fails is counted
 * and never answered, and starts no session. */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nmprobe.h"
#include "nmp_net.h"
#include "nmp_pfs.h"
#include "nmp_reflguard.h"
#include "nmp_stamp.h"

#define BATCH 64                     /* datagrams handled per drain */
#define SESSIONS 1024                /* stateful sessions kept (oldest replaced) */
#define ERROR_REFRESH_NS 10000000000ull
#define SOURCE_BURST_S 0.25          /* a source's bucket holds this many seconds of its rate */
#define SOURCE_BURST_MIN 8           /* and at least this many answers */

/* A session: per sender and SSID, the next sequence number (stateful) and
 * the key that verified its packets (authenticated). */
typedef struct stamp_session {
    struct sockaddr_storage peer;    /* sender address and port */
    uint16_t ssid;                   /* the sender's SSID */
    uint32_t next_seq;               /* reflector sequence number to use next */
    int key;                         /* authenticated: index of its key in macs[] */
    nmp_monotime_ns last;            /* last packet, for replacement */
    int used;                        /* slot holds a session */
} stamp_session;

struct nmp_stamp_reflector {
    int fd;                          /* UDP socket */
    int port;                        /* bound port */
    int stateful;                    /* number reflections per session */
    uint32_t max_pps;                /* rate cap, 0 = none */
    double tokens;                   /* token bucket for max_pps */
    nmp_monotime_ns tokens_at;       /* when tokens were last refilled */
    uint16_t error_ntp, error_ptp;   /* this host's error estimate in each format */
    nmp_monotime_ns error_at;        /* when the estimate was read */
    nmp_reflguard_budget budget;     /* per source address (source_pps) */
    nmp_stamp_reflector_counters n;  /* what became of the packets read */
    stamp_session *sessions;         /* SESSIONS slots when stateful or authenticated, else NULL */
    nmp_stamp_mac *macs[NMP_PFS_MAX_KEYS]; /* authenticated: one per key of the file */
    int nmacs;                       /* keys held; 0 = unauthenticated mode */
    uint8_t buf[NMP_STAMP_MAX_LEN + 64]; /* one datagram */
};

/* Reads the key file into r->macs. Returns 0 or -errno with err set. */
static int load_keys(nmp_stamp_reflector *r, const char *path, char *err, size_t errlen) {
    nmp_pfs *keys = malloc(sizeof(*keys));
    int rc;
    if (keys == NULL) {
        nmp_seterr(err, errlen, "stamp reflector: out of memory");
        return -ENOMEM;
    }
    if ((rc = nmp_pfs_load(path, keys, err, errlen)) == 0) {
        for (size_t i = 0; i < keys->n && rc == 0; i++) {
            if ((rc = nmp_stamp_mac_new(keys->key[i].k, keys->key[i].len, &r->macs[i])) == 0) r->nmacs++;
            else nmp_seterr(err, errlen, "stamp reflector: HMAC-SHA-256 unavailable in OpenSSL");
        }
    }
    nmp_pfs_wipe(keys);
    free(keys);
    return rc;
}

int nmp_stamp_reflector_open(const nmp_stamp_reflector_cfg *cfg, nmp_stamp_reflector **out, char *err,
                             size_t errlen) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE | AI_NUMERICHOST};
    struct addrinfo *ai = NULL;
    char port[8];
    int one = 1, zero = 0, rc;
    nmp_stamp_reflector *r = calloc(1, sizeof(*r));
    *out = NULL;
    if (r == NULL) {
        nmp_seterr(err, errlen, "stamp reflector: out of memory");
        return -ENOMEM;
    }
    r->fd = -1;
    snprintf(port, sizeof(port), "%d", cfg->port);
    int g = getaddrinfo(cfg->bind_addr ? cfg->bind_addr : "::", port, &hints, &ai);
    if (g != 0) {
        nmp_seterr(err, errlen, "stamp reflector: bind address %s: %s", cfg->bind_addr ? cfg->bind_addr : "::",
                   gai_strerror(g));
        rc = -EINVAL;
        goto error;
    }
    if ((rc = nmp_net_udp_open(ai->ai_family, 255, &r->fd, err, errlen)) < 0) goto error;
    if (ai->ai_family == AF_INET6) {
        /* "::" answers IPv4 too, as v4-mapped addresses: their TTL in and out is IPv4's */
        int ttl = 255;
        setsockopt(r->fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
        setsockopt(r->fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one));
        setsockopt(r->fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
    }
    if (setsockopt(r->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0 ||
        nmp_reflguard_pktinfo_enable(r->fd, ai->ai_family) < 0 || bind(r->fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "stamp reflector: bind port %d: %s", cfg->port, strerror(errno));
        goto error;
    }
    struct sockaddr_storage local;
    socklen_t ll = sizeof(local);
    if (getsockname(r->fd, (struct sockaddr *)&local, &ll) == 0) r->port = nmp_addr_port((struct sockaddr *)&local);
    if (cfg->key_file != NULL && (rc = load_keys(r, cfg->key_file, err, errlen)) < 0) goto error;
    if ((cfg->stateful || r->nmacs > 0) && (r->sessions = calloc(SESSIONS, sizeof(*r->sessions))) == NULL) {
        nmp_seterr(err, errlen, "stamp reflector: out of memory");
        rc = -ENOMEM;
        goto error;
    }
    /* a quarter of the whole by default: a source spending all of its own leaves
     * three quarters to the others */
    double src_pps = cfg->source_pps ? cfg->source_pps : cfg->max_pps / 4.0;
    if (cfg->max_pps && src_pps > cfg->max_pps) src_pps = cfg->max_pps;
    double burst = src_pps * SOURCE_BURST_S;
    if (burst < SOURCE_BURST_MIN) burst = SOURCE_BURST_MIN;
    if ((rc = nmp_reflguard_budget_init(&r->budget, src_pps, burst)) < 0) {
        nmp_seterr(err, errlen, "stamp reflector: no random numbers: %s", strerror(-rc));
        goto error;
    }
    r->stateful = cfg->stateful;
    r->max_pps = cfg->max_pps;
    r->tokens = cfg->max_pps;
    r->tokens_at = nmp_mono_now();
    freeaddrinfo(ai);
    *out = r;
    return 0;
error:
    if (ai) freeaddrinfo(ai);
    nmp_stamp_reflector_close(r);
    return rc;
}

int nmp_stamp_reflector_fd(const nmp_stamp_reflector *r) { return r->fd; }
int nmp_stamp_reflector_port(const nmp_stamp_reflector *r) { return r->port; }

void nmp_stamp_reflector_counts(const nmp_stamp_reflector *r, nmp_stamp_reflector_counters *out) { *out = r->n; }

void nmp_stamp_reflector_close(nmp_stamp_reflector *r) {
    if (r == NULL) return;
    nmp_net_close(&r->fd);
    for (int i = 0; i < r->nmacs; i++) nmp_stamp_mac_free(r->macs[i]);
    free(r->sessions);
    free(r);
}

/* One token per reflection; refilled at max_pps, at most a second's worth held. */
static int take_token(nmp_stamp_reflector *r, nmp_monotime_ns now) {
    if (r->max_pps == 0) return 1;
    r->tokens += (double)(now - r->tokens_at) * r->max_pps / 1e9;
    if (r->tokens > r->max_pps) r->tokens = r->max_pps;
    r->tokens_at = now;
    if (r->tokens < 1) return 0;
    r->tokens -= 1;
    return 1;
}

/* The session of peer/ssid, or NULL; with 'create', a new one replacing the
 * least recently used slot (sequence numbers from 0). */
static stamp_session *session_of(nmp_stamp_reflector *r, const struct sockaddr_storage *peer, uint16_t ssid,
                                 nmp_monotime_ns now, int create) {
    stamp_session *oldest = &r->sessions[0];
    for (int i = 0; i < SESSIONS; i++) {
        stamp_session *s = &r->sessions[i];
        if (s->used && s->ssid == ssid && nmp_net_same_ip((const struct sockaddr *)&s->peer, (const struct sockaddr *)peer) &&
            nmp_addr_port((const struct sockaddr *)&s->peer) == nmp_addr_port((const struct sockaddr *)peer)) {
            s->last = now;
            return s;
        }
        if (!s->used || s->last < oldest->last) oldest = s;
        if (!s->used) break;
    }
    if (!create) return NULL;
    memset(oldest, 0, sizeof(*oldest));
    oldest->used = 1;
    oldest->peer = *peer;
    oldest->ssid = ssid;
    oldest->last = now;
    return oldest;
}

/* Authenticated mode: the index of the key that verifies the n-byte packet in
 * r->buf, the session's own key tried first; -1 when none does. */
static int verifying_key(nmp_stamp_reflector *r, const stamp_session *s, size_t n) {
    if (s != NULL && nmp_stamp_verify(r->macs[s->key], r->buf, n)) return s->key;
    for (int k = 0; k < r->nmacs; k++)
        if ((s == NULL || k != s->key) && nmp_stamp_verify(r->macs[k], r->buf, n)) return k;
    return -1;
}

static nmp_walltime_ns arrival(struct msghdr *msg) {
    nmp_walltime_ns k = nmp_net_cmsg_stamp(msg);
    return k != 0 ? k : nmp_wall_now();
}

int nmp_stamp_reflector_drain(nmp_stamp_reflector *r) {
    int answered = 0;
    nmp_monotime_ns now = nmp_mono_now();
    if (r->error_at == 0 || now - r->error_at > ERROR_REFRESH_NS) {
        r->error_ntp = nmp_stamp_local_error(NMP_STAMP_NTP);
        r->error_ptp = (uint16_t)(r->error_ntp | 0x4000); /* the same estimate, Z set */
        r->error_at = now;
    }
    for (int i = 0; i < BATCH; i++) {
        struct sockaddr_storage peer;
        char cbuf[256];
        struct iovec iov = {.iov_base = r->buf, .iov_len = sizeof(r->buf)};
        struct msghdr msg = {.msg_name = &peer, .msg_namelen = sizeof(peer), .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        ssize_t n = recvmsg(r->fd, &msg, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        nmp_walltime_ns t2 = arrival(&msg);
        nmp_stamp_sender_pkt in;
        struct sockaddr_storage dst;
        int from_port = nmp_addr_port((struct sockaddr *)&peer);
        int auth = r->nmacs > 0;
        if ((msg.msg_flags & MSG_TRUNC) || n < NMP_STAMP_LEN || from_port == 0) {
            r->n.dropped++;
            continue;
        }
        if (auth && n < NMP_STAMP_AUTH_LEN) { /* an unauthenticated packet: this reflector answers none */
            r->n.auth_failed++;
            continue;
        }
        if (nmp_reflguard_port_refused(from_port)) {
            r->n.refused_port++;
            continue;
        }
        if (nmp_reflguard_cmsg_dst(&msg, &dst) == 0 &&
            nmp_reflguard_from_self((struct sockaddr *)&peer, (struct sockaddr *)&dst, r->port)) {
            r->n.refused_self++;
            continue;
        }
        if (auth ? nmp_stamp_is_reflection_auth(r->buf, (size_t)n) : nmp_stamp_is_reflection(r->buf, (size_t)n)) {
            r->n.refused_reflection++;
            continue;
        }
        /* the source's budget first: a source over it takes nothing from the others' */
        nmp_monotime_ns t = nmp_mono_now();
        if (!nmp_reflguard_budget_take(&r->budget, (struct sockaddr *)&peer, t)) {
            r->n.over_source++;
            continue;
        }
        /* the HMAC before any field is used or any state changes (RFC 8762 4.4) */
        uint16_t ssid = auth ? (uint16_t)(r->buf[26] << 8 | r->buf[27]) : 0;
        stamp_session *s = auth ? session_of(r, &peer, ssid, now, 0) : NULL;
        int key = auth ? verifying_key(r, s, (size_t)n) : -1;
        if (auth && key < 0) {
            r->n.auth_failed++;
            continue;
        }
        if (!take_token(r, t)) {
            r->n.dropped++;
            continue;
        }
        if (auth) nmp_stamp_sender_decode_auth(r->buf, (size_t)n, &in);
        else nmp_stamp_sender_decode(r->buf, (size_t)n, &in);
        if (r->sessions != NULL && s == NULL) s = session_of(r, &peer, in.ssid, now, 1);
        if (s != NULL) s->key = key < 0 ? 0 : key; /* a session's packets then try its key first */
        /* timestamps in the format the sender used, so either kind of sender reads them */
        nmp_stamp_tsfmt fmt = (in.error & 0x4000) ? NMP_STAMP_PTP : NMP_STAMP_NTP;
        int ttl = nmp_net_cmsg_ttl(&msg);
        nmp_stamp_reflector_pkt out = {
            .seq = r->stateful ? s->next_seq++ : in.seq,
            .error = fmt == NMP_STAMP_PTP ? r->error_ptp : r->error_ntp,
            .ssid = in.ssid,
            .rx_ts = nmp_stamp_ts_from_wall(t2, fmt),
            .sender_seq = in.seq,
            .sender_ts = in.ts,
            .sender_error = in.error,
            .sender_ttl = (uint8_t)(ttl < 0 ? 0 : ttl > 255 ? 255 : ttl),
        };
        /* the reflection has the length of the test packet (RFC 8762 4.3): padding stays
         * zero, which also keeps whatever the sender put there from being echoed */
        size_t base = auth ? NMP_STAMP_AUTH_LEN : NMP_STAMP_LEN;
        memset(r->buf + base, 0, (size_t)n - base);
        out.ts = nmp_stamp_ts_from_wall(nmp_wall_now(), fmt);
        if (auth) {
            nmp_stamp_reflector_encode_auth(r->buf, &out);
            if (nmp_stamp_sign(r->macs[key], r->buf) < 0) {
                r->n.dropped++;
                continue;
            }
        } else {
            nmp_stamp_reflector_encode(r->buf, &out);
        }
        ssize_t w;
        do w = sendto(r->fd, r->buf, (size_t)n, 0, (struct sockaddr *)&peer, msg.msg_namelen);
        while (w < 0 && errno == EINTR);
        if (w == n) {
            r->n.reflected++;
            answered++;
        } else {
            r->n.dropped++;
        }
    }
    return answered;
}
