/* nmp_stamp.c -- STAMP / TWAMP-Light test packets and the session-sender
 * (kind "stamp"): paced test packets to a standard reflector, round trip
 * without the reflector's residence time, and both one-way delays between
 * the two wall clocks, each end's clock error stated in its packets.
 *
 * There is no control session to ask a reflector whether it agrees to a
 * test, so the first packet goes alone: nothing more is sent to a host that
 * does not reflect it. Reflections are stamped by the kernel on arrival
 * (SO_TIMESTAMPNS), so a reply read late still gets its arrival time. */
#define _GNU_SOURCE
#include "nmprobe.h"
#include "nmp_stamp.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "nmp_kind.h"
#include "nmp_net.h"
#include "nmp_pfs.h"

#define NTP_UNIX_OFFSET 2208988800ull /* seconds from 1900 to 1970 */
#define SPIN_NS 60000ull              /* busy-wait the last 60 us before a send */
#define PROGRESS_NS 100000000ull      /* progress callback period */
#define AGREE_TRIES 3                 /* first-packet tries before giving up on a host */

#include "nmp_be.h"

void nmp_stamp_sender_encode(uint8_t *buf, const nmp_stamp_sender_pkt *p) {
    memset(buf, 0, NMP_STAMP_LEN);
    put32(buf, p->seq);
    put64(buf + 4, p->ts);
    put16(buf + 12, p->error);
    put16(buf + 14, p->ssid);
}

int nmp_stamp_sender_decode(const uint8_t *buf, size_t len, nmp_stamp_sender_pkt *p) {
    if (len < NMP_STAMP_LEN) return -EINVAL;
    p->seq = get32(buf);
    p->ts = get64(buf + 4);
    p->error = get16(buf + 12);
    p->ssid = get16(buf + 14);
    return 0;
}

/* Reflector layout: seq 0, ts 4, error 12, ssid 14, rx ts 16, sender seq 24,
 * sender ts 28, sender error 36, MBZ 38, sender TTL 40, MBZ 41..43. */
void nmp_stamp_reflector_encode(uint8_t *buf, const nmp_stamp_reflector_pkt *p) {
    memset(buf, 0, NMP_STAMP_LEN);
    put32(buf, p->seq);
    put64(buf + 4, p->ts);
    put16(buf + 12, p->error);
    put16(buf + 14, p->ssid);
    put64(buf + 16, p->rx_ts);
    put32(buf + 24, p->sender_seq);
    put64(buf + 28, p->sender_ts);
    put16(buf + 36, p->sender_error);
    buf[40] = p->sender_ttl;
}

int nmp_stamp_reflector_decode(const uint8_t *buf, size_t len, nmp_stamp_reflector_pkt *p) {
    if (len < NMP_STAMP_LEN) return -EINVAL;
    p->seq = get32(buf);
    p->ts = get64(buf + 4);
    p->error = get16(buf + 12);
    p->ssid = get16(buf + 14);
    p->rx_ts = get64(buf + 16);
    p->sender_seq = get32(buf + 24);
    p->sender_ts = get64(buf + 28);
    p->sender_error = get16(buf + 36);
    p->sender_ttl = buf[40];
    return 0;
}

static int reflection_at(const uint8_t *buf, size_t tx_at, size_t rx_at);

int nmp_stamp_is_reflection(const uint8_t *buf, size_t len) {
    return len >= NMP_STAMP_LEN && reflection_at(buf, 4, 16);
}

/* Authenticated sender layout: seq 0, MBZ 4..15, timestamp 16, error 24,
 * SSID 26 (RFC 8972; MBZ in RFC 8762), MBZ 28..95, HMAC 96..111. */
void nmp_stamp_sender_encode_auth(uint8_t *buf, const nmp_stamp_sender_pkt *p) {
    memset(buf, 0, NMP_STAMP_AUTH_LEN);
    put32(buf, p->seq);
    put64(buf + 16, p->ts);
    put16(buf + 24, p->error);
    put16(buf + 26, p->ssid);
}

int nmp_stamp_sender_decode_auth(const uint8_t *buf, size_t len, nmp_stamp_sender_pkt *p) {
    if (len < NMP_STAMP_AUTH_LEN) return -EINVAL;
    p->seq = get32(buf);
    p->ts = get64(buf + 16);
    p->error = get16(buf + 24);
    p->ssid = get16(buf + 26);
    return 0;
}

/* Authenticated reflector layout: seq 0, MBZ 4..15, timestamp 16, error 24,
 * SSID 26, MBZ 28..31, receive timestamp 32, MBZ 40..47, sender seq 48,
 * MBZ 52..63, sender timestamp 64, sender error 72, MBZ 74..79, sender TTL
 * 80, MBZ 81..95, HMAC 96..111. */
void nmp_stamp_reflector_encode_auth(uint8_t *buf, const nmp_stamp_reflector_pkt *p) {
    memset(buf, 0, NMP_STAMP_AUTH_LEN);
    put32(buf, p->seq);
    put64(buf + 16, p->ts);
    put16(buf + 24, p->error);
    put16(buf + 26, p->ssid);
    put64(buf + 32, p->rx_ts);
    put32(buf + 48, p->sender_seq);
    put64(buf + 64, p->sender_ts);
    put16(buf + 72, p->sender_error);
    buf[80] = p->sender_ttl;
}

int nmp_stamp_reflector_decode_auth(const uint8_t *buf, size_t len, nmp_stamp_reflector_pkt *p) {
    if (len < NMP_STAMP_AUTH_LEN) return -EINVAL;
    p->seq = get32(buf);
    p->ts = get64(buf + 16);
    p->error = get16(buf + 24);
    p->ssid = get16(buf + 26);
    p->rx_ts = get64(buf + 32);
    p->sender_seq = get32(buf + 48);
    p->sender_ts = get64(buf + 64);
    p->sender_error = get16(buf + 72);
    p->sender_ttl = buf[80];
    return 0;
}

/* A reflector's receive timestamp at rx_at within a second of its transmit
 * timestamp at tx_at (seconds in the upper 32 bits in both formats). */
static int reflection_at(const uint8_t *buf, size_t tx_at, size_t rx_at) {
    uint64_t rx = get64(buf + rx_at);
    uint32_t tx_s = get32(buf + tx_at), rx_s = (uint32_t)(rx >> 32);
    uint32_t d = tx_s - rx_s; /* modulo 2^32: an NTP era change in between is one second */
    return rx != 0 && (d <= 1 || d == UINT32_MAX);
}

int nmp_stamp_is_reflection_auth(const uint8_t *buf, size_t len) {
    return len >= NMP_STAMP_AUTH_LEN && reflection_at(buf, 16, 32);
}

struct nmp_stamp_mac {
    EVP_MAC *mac;                    /* OpenSSL's HMAC */
    EVP_MAC_CTX *ctx;                /* keyed with SHA-256; re-initialised per packet with the same key */
};

int nmp_stamp_mac_new(const uint8_t *key, size_t len, nmp_stamp_mac **out) {
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
    nmp_stamp_mac *m = calloc(1, sizeof(*m));
    *out = NULL;
    if (m == NULL) return -ENOMEM;
    if ((m->mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL || (m->ctx = EVP_MAC_CTX_new(m->mac)) == NULL ||
        !EVP_MAC_init(m->ctx, key, len, params)) {
        nmp_stamp_mac_free(m);
        return -EINVAL;
    }
    *out = m;
    return 0;
}

void nmp_stamp_mac_free(nmp_stamp_mac *m) {
    if (m == NULL) return;
    EVP_MAC_CTX_free(m->ctx); /* OpenSSL cleanses the key it holds */
    EVP_MAC_free(m->mac);
    free(m);
}

/* The truncated HMAC of pkt's first 96 bytes into out. Returns 0 or -EIO. */
static int stamp_hmac(nmp_stamp_mac *m, const uint8_t *pkt, uint8_t out[NMP_STAMP_HMAC_LEN]) {
    uint8_t full[EVP_MAX_MD_SIZE];
    size_t n = 0;
    /* a NULL key re-initialises with the key already set (OpenSSL 3) */
    if (!EVP_MAC_init(m->ctx, NULL, 0, NULL) || !EVP_MAC_update(m->ctx, pkt, NMP_STAMP_HMAC_COVERS) ||
        !EVP_MAC_final(m->ctx, full, &n, sizeof(full)) || n < NMP_STAMP_HMAC_LEN) {
        memset(out, 0, NMP_STAMP_HMAC_LEN);
        return -EIO;
    }
    memcpy(out, full, NMP_STAMP_HMAC_LEN);
    OPENSSL_cleanse(full, sizeof(full));
    return 0;
}

int nmp_stamp_sign(nmp_stamp_mac *m, uint8_t *pkt) {
    return stamp_hmac(m, pkt, pkt + NMP_STAMP_HMAC_COVERS);
}

int nmp_stamp_verify(nmp_stamp_mac *m, const uint8_t *pkt, size_t len) {
    uint8_t want[NMP_STAMP_HMAC_LEN];
    if (len < NMP_STAMP_AUTH_LEN || stamp_hmac(m, pkt, want) < 0) return 0;
    return CRYPTO_memcmp(want, pkt + NMP_STAMP_HMAC_COVERS, NMP_STAMP_HMAC_LEN) == 0;
}

uint64_t nmp_stamp_ts_from_wall(nmp_walltime_ns t, nmp_stamp_tsfmt fmt) {
    int64_t sec = t >= 0 ? t / 1000000000 : -((-t + 999999999) / 1000000000);
    uint64_t ns = (uint64_t)(t - sec * 1000000000);
    if (fmt == NMP_STAMP_PTP) return (uint64_t)(uint32_t)sec << 32 | ns;
    /* the fraction rounds to nearest: 2^32 / 1e9 per ns */
    uint64_t frac = (ns * 4294967296ull + 500000000) / 1000000000;
    if (frac >= 4294967296ull) frac = 4294967295ull;
    return (uint64_t)(uint32_t)((uint64_t)sec + NTP_UNIX_OFFSET) << 32 | frac;
}

nmp_walltime_ns nmp_stamp_ts_to_wall(uint64_t ts, nmp_stamp_tsfmt fmt, nmp_walltime_ns near) {
    uint32_t sec32 = (uint32_t)(ts >> 32), lo = (uint32_t)ts;
    if (fmt == NMP_STAMP_PTP) {
        /* truncated to 32 bits of seconds: place it in the 2^32 s epoch nearest 'near' */
        int64_t base = near / 1000000000 - (int64_t)(uint32_t)(near / 1000000000);
        int64_t s = base + sec32;
        if (s - near / 1000000000 > 2147483648LL) s -= 4294967296LL;
        if (near / 1000000000 - s > 2147483648LL) s += 4294967296LL;
        return s * 1000000000 + (lo < 1000000000u ? lo : 999999999);
    }
    int64_t near_ntp = near / 1000000000 + (int64_t)NTP_UNIX_OFFSET;
    int64_t era = near_ntp >> 32;
    int64_t s = (era << 32) + sec32;
    if (s - near_ntp > 2147483648LL) s -= 4294967296LL;
    if (near_ntp - s > 2147483648LL) s += 4294967296LL;
    int64_t ns = (int64_t)(((uint64_t)lo * 1000000000ull + 2147483648ull) >> 32);
    return (s - (int64_t)NTP_UNIX_OFFSET) * 1000000000 + ns;
}

uint16_t nmp_stamp_error_encode(int synchronised, nmp_stamp_tsfmt fmt, double error_s) {
    uint16_t sz = (uint16_t)((synchronised ? 0x8000 : 0) | (fmt == NMP_STAMP_PTP ? 0x4000 : 0));
    if (!(error_s > 0)) error_s = 0;
    for (int scale = 0; scale < 64; scale++) {
        double m = ceil(ldexp(error_s, 32 - scale)); /* multiplier at this scale, rounded up */
        if (m <= 255) return (uint16_t)(sz | scale << 8 | (m < 1 ? 1 : (unsigned)m));
    }
    return (uint16_t)(sz | 63 << 8 | 255); /* ~2^31 s: "no idea" */
}

double nmp_stamp_error_decode(uint16_t e, int *synchronised, nmp_stamp_tsfmt *fmt) {
    if (synchronised) *synchronised = (e & 0x8000) != 0;
    if (fmt) *fmt = (e & 0x4000) ? NMP_STAMP_PTP : NMP_STAMP_NTP;
    return ldexp((double)(e & 0xff), ((e >> 8) & 0x3f) - 32);
}

uint16_t nmp_stamp_local_error(nmp_stamp_tsfmt fmt) {
    nmp_clock_state cs;
    if (nmp_clock_state_read(&cs, NULL, 0) < 0) return nmp_stamp_error_encode(0, fmt, 16.0);
    /* S (synchronised to an external source) holds for a PTP slave or grandmaster too */
    int sync = cs.synchronised || strncmp(cs.reference, "ptp:", 4) == 0;
    double e = (double)cs.error_ns / 1e9;
    return nmp_stamp_error_encode(sync, fmt, e > 0 ? e : 1e-9);
}

/* ---- session-sender ---- */

/* Per-run state of one stamp test; lives on the stack of nmp_stamp_run. */
typedef struct stamp_run {
    const nmp_stamp_spec *spec;      /* parameters */
    const nmp_control *ctl;          /* cancel flag and progress, may be NULL */
    nmp_stamp_result *res;           /* result being filled */
    int fd;                          /* UDP socket connected to the reflector */
    nmp_stamp_tsfmt fmt;             /* timestamp format sent */
    uint16_t error;                  /* this host's error estimate, sent in every packet */
    uint32_t size;                   /* bytes sent per packet (112 for an authenticated spec's 44) */
    nmp_stamp_mac *mac;              /* authenticated mode: the session's key, else NULL */
    int refused;                     /* an ICMP error said no one listens on the port */
    nmp_monotime_ns next_progress;   /* when progress may be reported next */
    uint8_t buf[NMP_STAMP_MAX_LEN + 64]; /* send and receive buffer */
} stamp_run;

static void progress(stamp_run *t, int force) {
    nmp_monotime_ns now = nmp_mono_now();
    if (!t->ctl || !t->ctl->progress || (!force && now < t->next_progress)) return;
    t->next_progress = now + PROGRESS_NS;
    t->ctl->progress(t->ctl->progress_ctx, t->res->sent, t->res->requested);
}

/* Resolves host:port and connects a UDP socket to it. */
static int open_socket(stamp_run *t, char *err, size_t errlen) {
    const nmp_stamp_spec *s = t->spec;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *ai = NULL;
    char port[8];
    snprintf(port, sizeof(port), "%d", s->port);
    int g = getaddrinfo(s->host, port, &hints, &ai);
    if (g != 0) {
        nmp_seterr(err, errlen, "stamp: cannot resolve %s: %s", s->host, gai_strerror(g));
        return -ENOENT;
    }
    int rc = nmp_net_udp_open(ai->ai_family, s->ttl, &t->fd, err, errlen);
    int one = 1;
    if (rc == 0 && setsockopt(t->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "stamp: setsockopt SO_TIMESTAMPNS: %s", strerror(errno));
    }
    if (rc == 0 && connect(t->fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "stamp: connect %s port %d: %s", s->host, s->port, strerror(errno));
    }
    if (rc == 0) {
        struct sockaddr_storage local;
        socklen_t ll = sizeof(local);
        nmp_addr_str(ai->ai_addr, t->res->remote_addr, sizeof(t->res->remote_addr));
        if (getsockname(t->fd, (struct sockaddr *)&local, &ll) == 0)
            nmp_addr_str((struct sockaddr *)&local, t->res->local_addr, sizeof(t->res->local_addr));
    }
    freeaddrinfo(ai);
    return rc;
}

static void send_one(stamp_run *t, uint32_t seq) {
    nmp_stamp_result *res = t->res;
    nmp_walltime_ns now = nmp_wall_now();
    nmp_stamp_sender_pkt p = {.seq = seq, .ts = nmp_stamp_ts_from_wall(now, t->fmt), .error = t->error,
                              .ssid = (uint16_t)t->spec->ssid};
    memset(t->buf, 0, t->size); /* padding is zero, as RFC 8762 asks */
    if (t->mac) {
        nmp_stamp_sender_encode_auth(t->buf, &p);
        if (nmp_stamp_sign(t->mac, t->buf) < 0) return; /* not sent: counted as never sent */
    } else {
        nmp_stamp_sender_encode(t->buf, &p);
    }
    ssize_t n;
    do n = send(t->fd, t->buf, t->size, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == ECONNREFUSED) t->refused = 1;
    if (n == (ssize_t)t->size) {
        /* T1 is what the packet says; the packet's own stamp is the one to use */
        res->send_wall[seq] = nmp_stamp_ts_to_wall(p.ts, t->fmt, now);
        res->sent++;
    }
}

/* The kernel's arrival stamp of a datagram, else now. */
static nmp_walltime_ns arrival(struct msghdr *msg) {
    nmp_walltime_ns k = nmp_net_cmsg_stamp(msg);
    return k != 0 ? k : nmp_wall_now();
}

/* 1 when an answer to an authenticated packet is an open reflector's: read
 * in the unauthenticated layout, it reflects a sequence number sent here
 * with the sender timestamp it found at bytes 4..11 of ours (MBZ, so 0), and
 * carries its own timestamp where the authenticated layout has MBZ. */
static int unauthenticated_answer(const stamp_run *t, size_t n) {
    nmp_stamp_reflector_pkt p;
    return nmp_stamp_reflector_decode(t->buf, n, &p) == 0 && p.sender_seq < t->res->requested &&
           t->res->send_wall[p.sender_seq] != 0 && p.sender_ts == 0 && p.ts != 0;
}

/* Reads every reflection waiting (non-blocking). */
static void drain(stamp_run *t) {
    nmp_stamp_result *res = t->res;
    for (;;) {
        char cbuf[256];
        struct iovec iov = {.iov_base = t->buf, .iov_len = sizeof(t->buf)};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        ssize_t n = recvmsg(t->fd, &msg, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == ECONNREFUSED) t->refused = 1; /* an ICMP port unreachable: no one listens */
        if (n < 0) return; /* EAGAIN, or another ICMP error queued on the socket */
        nmp_walltime_ns t4 = arrival(&msg);
        nmp_stamp_reflector_pkt p;
        if (t->mac && !nmp_stamp_verify(t->mac, t->buf, (size_t)n)) {
            /* verified before any field is used (RFC 8762 4.4) */
            if (unauthenticated_answer(t, (size_t)n)) res->unauth_answers++;
            else res->auth_failed++;
            continue;
        }
        if ((t->mac ? nmp_stamp_reflector_decode_auth(t->buf, (size_t)n, &p)
                    : nmp_stamp_reflector_decode(t->buf, (size_t)n, &p)) < 0 ||
            p.sender_seq >= res->requested ||
            res->send_wall[p.sender_seq] == 0 ||
            nmp_stamp_ts_to_wall(p.sender_ts, t->fmt, t4) != res->send_wall[p.sender_seq]) {
            res->invalid++; /* not a reflection of a packet of this run */
            continue;
        }
        uint32_t i = p.sender_seq;
        if (res->rtt_ns[i] >= 0) {
            res->duplicates++;
            continue;
        }
        nmp_stamp_tsfmt rfmt;
        int rsync;
        double rerr = nmp_stamp_error_decode(p.error, &rsync, &rfmt) * 1e9;
        nmp_walltime_ns t1 = res->send_wall[i];
        nmp_walltime_ns t2 = nmp_stamp_ts_to_wall(p.rx_ts, rfmt, t4);
        nmp_walltime_ns t3 = nmp_stamp_ts_to_wall(p.ts, rfmt, t4);
        int64_t residence = t3 - t2;
        int64_t rtt = (t4 - t1) - (residence > 0 ? residence : 0);
        res->rtt_ns[i] = rtt > 0 ? rtt : 0;
        res->fwd_ns[i] = t2 - t1;
        res->bwd_ns[i] = t4 - t3;
        res->sender_ttl[i] = p.sender_ttl;
        res->reply_ttl[i] = nmp_net_cmsg_ttl(&msg);
        if (rerr > res->reflector_error_ns || isnan(res->reflector_error_ns)) res->reflector_error_ns = rerr;
        res->reflector_synchronised = rsync;
        res->reflector_ptp = rfmt == NMP_STAMP_PTP;
        if (i >= res->max_sender_seq) res->max_sender_seq = i;
        if (p.seq >= res->max_reflector_seq) res->max_reflector_seq = p.seq;
        res->received++;
    }
}

/* Waits for reflections until 'until', or until every packet sent so far is answered when 'early'. */
static void wait_replies(stamp_run *t, nmp_monotime_ns until, int early) {
    for (;;) {
        drain(t);
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= until || nmp_control_cancelled(t->ctl) || (early && t->res->received >= t->res->sent)) return;
        uint64_t left = until - now;
        int ms = left > 20000000ull ? 20 : (int)(left / 1000000) + 1; /* wake often enough to see a cancel */
        struct pollfd p = {.fd = t->fd, .events = POLLIN};
        poll(&p, 1, ms);
    }
}

/* Fills the summary figures from the per-packet arrays. */
static void summarize(nmp_stamp_result *res) {
    size_t n = res->requested;
    double *rtt = malloc((n ? n : 1) * sizeof(double)), *fwd = malloc((n ? n : 1) * sizeof(double));
    double *bwd = malloc((n ? n : 1) * sizeof(double));
    size_t k = 0;
    res->lost = res->sent > res->received ? res->sent - res->received : 0;
    res->forward_lost = res->received && res->max_reflector_seq < res->max_sender_seq
                            ? res->max_sender_seq - res->max_reflector_seq : 0;
    if (res->forward_lost > res->lost) res->forward_lost = res->lost; /* a reflector that numbers oddly */
    res->loss_percent = res->sent ? 100.0 * res->lost / res->sent : NAN;
    res->rtt_min_ns = res->rtt_median_ns = res->rtt_mean_ns = res->rtt_p99_ns = res->rtt_max_ns = NAN;
    res->fwd_min_ns = res->fwd_median_ns = res->fwd_max_ns = NAN;
    res->bwd_min_ns = res->bwd_median_ns = res->bwd_max_ns = NAN;
    if (rtt && fwd && bwd) {
        for (size_t i = 0; i < n; i++)
            if (res->rtt_ns[i] >= 0) {
                rtt[k] = (double)res->rtt_ns[i];
                fwd[k] = (double)res->fwd_ns[i];
                bwd[k] = (double)res->bwd_ns[i];
                k++;
            }
        nmp_summary s;
        if (k > 0 && nmp_stats_summarize(rtt, k, &s) == 0) {
            res->rtt_min_ns = s.min, res->rtt_median_ns = s.median, res->rtt_mean_ns = s.mean, res->rtt_max_ns = s.max;
            nmp_stats_quantile(rtt, k, 0.99, &res->rtt_p99_ns);
        }
        if (k > 0 && nmp_stats_summarize(fwd, k, &s) == 0)
            res->fwd_min_ns = s.min, res->fwd_median_ns = s.median, res->fwd_max_ns = s.max;
        if (k > 0 && nmp_stats_summarize(bwd, k, &s) == 0)
            res->bwd_min_ns = s.min, res->bwd_median_ns = s.median, res->bwd_max_ns = s.max;
    }
    free(rtt), free(fwd), free(bwd);
}

void nmp_stamp_result_free(nmp_stamp_result *res) {
    free(res->send_wall), free(res->rtt_ns), free(res->fwd_ns), free(res->bwd_ns);
    free(res->sender_ttl), free(res->reply_ttl);
    res->send_wall = res->rtt_ns = res->fwd_ns = res->bwd_ns = NULL;
    res->sender_ttl = res->reply_ttl = NULL;
}

/* Why the first packet got no usable answer, as the error of the run. */
static int no_agreement(const stamp_run *t, char *err, size_t errlen) {
    const nmp_stamp_spec *s = t->spec;
    const nmp_stamp_result *res = t->res;
    unsigned long long ms = (unsigned long long)(s->agree_ns / 1000000);
    if (res->unauth_answers > 0) {
        nmp_seterr(err, errlen,
                   "stamp %s port %d: the reflector answered in unauthenticated mode: it does not run authenticated "
                   "STAMP (or holds no key for it); nothing more was sent", s->host, s->port);
        return -EPROTO;
    }
    if (res->auth_failed > 0) {
        nmp_seterr(err, errlen,
                   "stamp %s port %d: the reflector's answers failed HMAC verification with key %s: it signs with "
                   "another key, or they were changed on the way; nothing more was sent", s->host, s->port, s->key_id);
        return -EPERM;
    }
    if (t->refused) {
        nmp_seterr(err, errlen, "stamp %s port %d: no reflector listens there (ICMP port unreachable); nothing more "
                   "was sent", s->host, s->port);
        return -ECONNREFUSED;
    }
    if (s->auth)
        nmp_seterr(err, errlen,
                   "stamp %s port %d: no answer to authenticated test packets in %d tries of %llu ms: the reflector "
                   "does not hold key %s as this host has it (it drops packets whose HMAC fails), or no STAMP "
                   "reflector is there; nothing more was sent", s->host, s->port, AGREE_TRIES, ms, s->key_id);
    else
        nmp_seterr(err, errlen,
                   "stamp %s port %d: no answer to the first test packet in %d tries of %llu ms: the reflector "
                   "requires authentication (authenticated mode with its key id), or no STAMP or TWAMP reflector "
                   "is there; nothing more was sent", s->host, s->port, AGREE_TRIES, ms);
    return -ETIMEDOUT;
}

static int check_spec(const nmp_stamp_spec *s, char *err, size_t errlen) {
    if (s->host == NULL || s->host[0] == '\0' || s->port < 1 || s->port > 65535 || s->count < 1 ||
        s->count > 10000000 || s->size < NMP_STAMP_LEN || s->size > NMP_STAMP_MAX_LEN || s->interval_ns > 60000000000ull ||
        s->timeout_ns > 60000000000ull || s->ssid > 65535 || s->ttl < 0 || s->ttl > 255 ||
        s->agree_ns < 1000000ull || s->agree_ns > 10000000000ull) {
        nmp_seterr(err, errlen,
                   "stamp: parameter out of range (host non-empty, port 1..65535, count 1..10000000, size %d..%d, "
                   "interval and timeout <= 60 s, ssid 0..65535, ttl 0..255, agree 1 ms..10 s)",
                   NMP_STAMP_LEN, NMP_STAMP_MAX_LEN);
        return -EINVAL;
    }
    if (s->auth && s->size != NMP_STAMP_LEN && s->size < NMP_STAMP_AUTH_LEN) {
        nmp_seterr(err, errlen, "stamp: authenticated test packets are %d..%d bytes (44 means no padding: %d), not %u",
                   NMP_STAMP_AUTH_LEN, NMP_STAMP_MAX_LEN, NMP_STAMP_AUTH_LEN, s->size);
        return -EINVAL;
    }
    if (s->auth && (s->key_file == NULL || s->key_file[0] == '\0')) {
        nmp_seterr(err, errlen, "stamp: authenticated mode needs a key file (keyFile, --key-file: \"KEYID HEXKEY\" lines)");
        return -EINVAL;
    }
    if (s->auth && !nmp_pfs_id_valid(s->key_id)) {
        nmp_seterr(err, errlen, "stamp: authenticated mode needs a key id of 1..%d printable bytes without spaces "
                   "(keyId, --key-id)", NMP_PFS_ID_MAX);
        return -EINVAL;
    }
    if (!s->auth && s->key_id != NULL) {
        nmp_seterr(err, errlen, "stamp: a key id is given without authenticated mode (auth, --auth)");
        return -EINVAL;
    }
    return 0;
}

/* Loads the spec's key into t->mac. Returns 0 or -errno with err set. */
static int load_key(stamp_run *t, char *err, size_t errlen) {
    nmp_pfs *keys = malloc(sizeof(*keys));
    int rc;
    if (keys == NULL) {
        nmp_seterr(err, errlen, "stamp: out of memory");
        return -ENOMEM;
    }
    if ((rc = nmp_pfs_load(t->spec->key_file, keys, err, errlen)) == 0) {
        const nmp_pfs_key *k = nmp_pfs_find(keys, t->spec->key_id);
        if (k == NULL) {
            nmp_seterr(err, errlen, "stamp: key file %s has no key %s", t->spec->key_file, t->spec->key_id);
            rc = -ENOENT;
        } else if ((rc = nmp_stamp_mac_new(k->k, k->len, &t->mac)) < 0) {
            nmp_seterr(err, errlen, "stamp: HMAC-SHA-256 unavailable in OpenSSL");
        }
    }
    nmp_pfs_wipe(keys);
    free(keys);
    return rc;
}

int nmp_stamp_run(const nmp_stamp_spec *spec, const nmp_control *ctl, nmp_stamp_result *res, char *err,
                  size_t errlen) {
    stamp_run *t = NULL;
    int rc;
    memset(res, 0, sizeof(*res));
    res->reflector_error_ns = NAN;
    if ((rc = check_spec(spec, err, errlen)) < 0) return rc;
    size_t n = spec->count;
    res->requested = spec->count;
    res->send_wall = calloc(n, sizeof(int64_t));
    res->rtt_ns = malloc(n * sizeof(int64_t));
    res->fwd_ns = calloc(n, sizeof(int64_t));
    res->bwd_ns = calloc(n, sizeof(int64_t));
    res->sender_ttl = malloc(n * sizeof(int32_t));
    res->reply_ttl = malloc(n * sizeof(int32_t));
    t = calloc(1, sizeof(*t));
    if (!res->send_wall || !res->rtt_ns || !res->fwd_ns || !res->bwd_ns || !res->sender_ttl || !res->reply_ttl || !t) {
        nmp_seterr(err, errlen, "stamp: out of memory for %u packets", spec->count);
        rc = -ENOMEM;
        goto end;
    }
    for (size_t i = 0; i < n; i++) res->rtt_ns[i] = -1, res->sender_ttl[i] = res->reply_ttl[i] = -1;
    t->spec = spec;
    t->ctl = ctl;
    t->res = res;
    t->fd = -1;
    t->fmt = spec->ptp ? NMP_STAMP_PTP : NMP_STAMP_NTP;
    t->error = nmp_stamp_local_error(t->fmt);
    t->size = spec->auth && spec->size == NMP_STAMP_LEN ? NMP_STAMP_AUTH_LEN : spec->size;
    res->authenticated = spec->auth != 0;
    res->sender_error_ns = nmp_stamp_error_decode(t->error, NULL, NULL) * 1e9;
    if (spec->auth && (rc = load_key(t, err, errlen)) < 0) goto end;
    if ((rc = open_socket(t, err, errlen)) < 0) goto end;
    res->start_wall = nmp_wall_now();

    /* Agreement: the first packet alone, until it is reflected. */
    for (int try = 0; try < AGREE_TRIES && res->received == 0 && res->unauth_answers == 0 && !t->refused &&
                      !nmp_control_cancelled(t->ctl);
         try++) {
        send_one(t, 0); /* a retry replaces T1: a late reflection of an earlier try is not counted */
        res->sent = res->send_wall[0] != 0;
        wait_replies(t, nmp_mono_now() + spec->agree_ns, 1);
    }
    if (res->received == 0 && !nmp_control_cancelled(t->ctl)) {
        rc = no_agreement(t, err, errlen);
        goto end;
    }
    nmp_monotime_ns next = nmp_mono_now() + spec->interval_ns;
    for (uint32_t seq = 1; seq < spec->count && !nmp_control_cancelled(t->ctl); seq++) {
        /* read reflections while waiting, so their arrival is stamped when it happens */
        if (spec->interval_ns > SPIN_NS) wait_replies(t, next - SPIN_NS, 0);
        nmp_sleep_until(next, SPIN_NS);
        send_one(t, seq);
        drain(t);
        progress(t, 0);
        next += spec->interval_ns;
        nmp_monotime_ns now = nmp_mono_now();
        if (now > next + spec->interval_ns) next = now; /* fell behind: do not burst to catch up */
    }
    if (!nmp_control_cancelled(t->ctl)) wait_replies(t, nmp_mono_now() + spec->timeout_ns, 1);
    progress(t, 1);
    rc = nmp_control_cancelled(t->ctl) ? -ECANCELED : 0;
    if (rc == -ECANCELED) nmp_seterr(err, errlen, "stamp %s port %d: cancelled", spec->host, spec->port);
end:
    if (t) nmp_net_close(&t->fd);
    if (t) nmp_stamp_mac_free(t->mac);
    free(t);
    res->end_wall = nmp_wall_now();
    if (res->rtt_ns) summarize(res);
    return rc;
}

/* ---- the "stamp" kind: spec table and packed result (nmp_kind.h) ---- */

static const nmp_spec_field stamp_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_stamp_spec, host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "reflector name or address (IPv4 or IPv6)"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_stamp_spec, port), .lo = 1, .hi = 65535,
     .def = NMP_STAMP_PORT, .cli = "port", .cli_short = 'p', .help = "reflector UDP port"},
    {.name = "count", .type = NMP_S_U32, .offset = offsetof(nmp_stamp_spec, count), .lo = 1, .hi = 10000000,
     .def = 10, .cli = "count", .cli_short = 'c', .help = "test packets to send"},
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(nmp_stamp_spec, size), .lo = NMP_STAMP_LEN,
     .hi = NMP_STAMP_MAX_LEN, .def = NMP_STAMP_LEN, .cli = "size", .cli_short = 's',
     .help = "UDP payload bytes per packet (44 = no padding)"},
    {.name = "intervalNs", .type = NMP_S_U64, .offset = offsetof(nmp_stamp_spec, interval_ns), .hi = 60e9,
     .def = 1e6, .cli = "interval-us", .cli_short = 'i', .cli_scale = 1000,
     .help = "spacing between packets in microseconds"},
    {.name = "timeoutNs", .type = NMP_S_U64, .offset = offsetof(nmp_stamp_spec, timeout_ns), .hi = 60e9,
     .def = 1e9, .cli = "timeout-ms", .cli_short = 't', .cli_scale = 1e6,
     .help = "wait for reflections after the last packet"},
    {.name = "ssid", .type = NMP_S_U32, .offset = offsetof(nmp_stamp_spec, ssid), .hi = 65535, .def = 1,
     .cli = "ssid", .help = "session id (RFC 8972); 0 as TWAMP-Light senders send"},
    {.name = "ptp", .type = NMP_S_BOOL, .offset = offsetof(nmp_stamp_spec, ptp), .hi = 1, .cli = "ptp",
     .help = "PTPv2 timestamps instead of NTP"},
    {.name = "ttl", .type = NMP_S_INT, .offset = offsetof(nmp_stamp_spec, ttl), .hi = 255, .cli = "ttl",
     .help = "outgoing TTL / hop limit (0 = system default)"},
    {.name = "agreeNs", .type = NMP_S_U64, .offset = offsetof(nmp_stamp_spec, agree_ns), .lo = 1e6, .hi = 10e9,
     .def = 1e9, .cli = "agree-ms", .cli_scale = 1e6,
     .help = "how long the first packet waits for its reflection before the host is given up"},
    {.name = "auth", .type = NMP_S_BOOL, .offset = offsetof(nmp_stamp_spec, auth), .hi = 1, .cli = "auth",
     .help = "authenticated mode (RFC 8762 4.2.2: HMAC-SHA-256; 112-byte packets)"},
    {.name = "keyId", .type = NMP_S_STR, .offset = offsetof(nmp_stamp_spec, key_id), .hi = NMP_PFS_ID_MAX,
     .cli = "key-id", .help = "authenticated: the key's id in the key file"},
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(nmp_stamp_spec, key_file), .hi = 4095,
     .cli = "key-file", .help = "authenticated: key file, one \"KEYID HEXKEY\" a line (owampd's pfs format), mode 600"},
};

static int stamp_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    nmp_stamp_result r;
    int rc = nmp_stamp_run(sp, ctl, &r, err, errlen);
    if (rc < 0 && rc != -ECANCELED) goto end;
    nmp_pack_i64(out, "cancelled", rc == -ECANCELED);
    nmp_pack_str(out, "localAddress", r.local_addr);
    nmp_pack_str(out, "remoteAddress", r.remote_addr);
    nmp_pack_i64(out, "requested", r.requested);
    nmp_pack_i64(out, "sent", r.sent);
    nmp_pack_i64(out, "received", r.received);
    nmp_pack_i64(out, "lost", r.lost);
    nmp_pack_i64(out, "duplicates", r.duplicates);
    nmp_pack_i64(out, "invalid", r.invalid);
    nmp_pack_f64(out, "lossPercent", r.loss_percent);
    nmp_pack_f64(out, "minRttMs", r.rtt_min_ns / 1e6);
    nmp_pack_f64(out, "medianRttMs", r.rtt_median_ns / 1e6);
    nmp_pack_f64(out, "meanRttMs", r.rtt_mean_ns / 1e6);
    nmp_pack_f64(out, "p99RttMs", r.rtt_p99_ns / 1e6);
    nmp_pack_f64(out, "maxRttMs", r.rtt_max_ns / 1e6);
    nmp_pack_f64(out, "minForwardMs", r.fwd_min_ns / 1e6);
    nmp_pack_f64(out, "medianForwardMs", r.fwd_median_ns / 1e6);
    nmp_pack_f64(out, "maxForwardMs", r.fwd_max_ns / 1e6);
    nmp_pack_f64(out, "minBackwardMs", r.bwd_min_ns / 1e6);
    nmp_pack_f64(out, "medianBackwardMs", r.bwd_median_ns / 1e6);
    nmp_pack_f64(out, "maxBackwardMs", r.bwd_max_ns / 1e6);
    nmp_pack_f64(out, "senderErrorMs", r.sender_error_ns / 1e6);
    nmp_pack_f64(out, "reflectorErrorMs", r.reflector_error_ns / 1e6);
    /* a one-way delay is a difference of the two clocks: both errors add */
    nmp_pack_f64(out, "oneWayUncertaintyMs", (r.sender_error_ns + r.reflector_error_ns) / 1e6);
    nmp_pack_i64(out, "reflectorSynchronised", r.reflector_synchronised);
    nmp_pack_i64(out, "reflectorPtp", r.reflector_ptp);
    nmp_pack_i64(out, "forwardLost", r.forward_lost);
    nmp_pack_i64(out, "authenticated", r.authenticated);
    nmp_pack_i64(out, "authFailed", r.auth_failed);
    nmp_pack_i64(out, "startEpochNanos", r.start_wall);
    nmp_pack_i64(out, "endEpochNanos", r.end_wall);
    size_t n = r.requested;
    nmp_pack_i64s(out, "frames.sendEpochNanos", r.send_wall, n);
    nmp_pack_i64s(out, "frames.rttNanos", r.rtt_ns, n);
    nmp_pack_i64s(out, "frames.forwardNanos", r.fwd_ns, n);
    nmp_pack_i64s(out, "frames.backwardNanos", r.bwd_ns, n);
    nmp_pack_i32s(out, "frames.senderTtl", r.sender_ttl, n);
    nmp_pack_i32s(out, "frames.replyTtl", r.reply_ttl, n);
end:
    nmp_stamp_result_free(&r);
    return rc;
}

const nmp_kind nmp_kind_stamp = {
    .name = "stamp",
    .summary = "round trip and both one-way delays to a STAMP (RFC 8762) or TWAMP-Light reflector",
    .fields = stamp_fields,
    .nfields = sizeof(stamp_fields) / sizeof(stamp_fields[0]),
    .spec_size = sizeof(nmp_stamp_spec),
    .run = stamp_kind_run,
};
