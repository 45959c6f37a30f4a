/* nmp_tcpsink.c -- the receiving side of a tcp session: accepts the data
 * connections a client opens for its session (same IP as the control
 * peer, hello with the session cookie, one connection per stream index),
 * reads them as fast as they deliver, follows the message framing to
 * count messages and, in constant-bit-rate mode, to timestamp the arrival
 * of each message's last byte, and bins received bytes per stream in time.
 *
 * Non-blocking sockets serviced from the responder's poll loop; all state
 * lives in the nmp_tcpsink handle. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nmprobe.h"
#include "nmp_net.h"
#include "nmp_tcpsink.h"

#define HELLO_TIMEOUT_NS 5000000000ull /* a data connection must say hello within this */
#define READ_BUF (256 * 1024)          /* bytes per recv() */
#define READS_PER_WAKE 8               /* recv() calls per stream per poll wake-up */
#define BULK_RCVLOWAT (128 * 1024)     /* bulk mode: poll wakes once this much is queued (or at FIN) */

/* A data connection that has not yet sent its whole hello. */
typedef struct hello_conn {
    int fd;                            /* -1 when the slot is free */
    uint8_t buf[NMP_TCP_HELLO];        /* hello bytes so far */
    size_t len;                        /* bytes in buf */
    nmp_monotime_ns opened;            /* accept time */
} hello_conn;

/* One stream's receiving state. */
typedef struct sink_stream {
    int fd;                            /* data connection, -1 before hello or after EOF / error */
    int seen;                          /* nonzero once a valid hello arrived for this index */
    int lowat;                         /* nonzero once SO_RCVLOWAT is set (bulk, streaming) */
    uint64_t bytes;                    /* payload bytes received */
    uint64_t messages;                 /* complete messages */
    nmp_walltime_ns first_wall;        /* wall clock at the first byte, 0 if none */
    nmp_walltime_ns last_wall;         /* wall clock at the last byte */
    uint32_t off;                      /* offset within the current message */
    uint8_t hdr[NMP_TCP_MSG_HDR];      /* header of the current message, being assembled */
    nmp_tcp_msg_hdr cur;               /* decoded header of the current message */
} sink_stream;

struct nmp_tcpsink {
    nmp_session_req req;               /* admitted parameters */
    uint64_t cookie;                   /* session cookie the hello must carry */
    struct sockaddr_storage peer;      /* control peer: data must come from its IP */
    int lfd;                           /* listener */
    hello_conn hello[NMP_TCP_MAX_STREAMS]; /* connections before their hello */
    sink_stream st[NMP_TCP_MAX_STREAMS];   /* streams by index */
    uint64_t *bins;                    /* streams * bins byte counts */
    int started;                       /* nonzero after the first payload byte */
    nmp_monotime_ns t0_mono;           /* first payload byte, monotonic */
    nmp_walltime_ns t0_wall;           /* the same on the wall clock */
    nmp_tcp_rec *rec;                  /* CBR: message arrivals */
    uint32_t nrec, rec_cap;            /* used, allocated */
    uint64_t over;                     /* arrivals not recorded (capacity) */
    uint64_t refused;                  /* connections refused (IP, hello, duplicate, timeout) */
    uint64_t framing_errors;           /* streams closed for a bad message header */
    uint8_t *buf;                      /* READ_BUF bytes */
    int fdmap[NMP_TCPSINK_MAX_FDS];    /* what each pollfd of the last call is: -1 listener, 0..15 hello, 16.. stream */
};

void nmp_tcpsink_close(nmp_tcpsink *t) {
    if (t == NULL) return;
    nmp_net_close(&t->lfd);
    for (int i = 0; i < NMP_TCP_MAX_STREAMS; i++) {
        nmp_net_close(&t->hello[i].fd);
        nmp_net_close(&t->st[i].fd);
    }
    free(t->bins);
    free(t->rec);
    free(t->buf);
    free(t);
}

int nmp_tcpsink_open(const nmp_session_req *req, uint64_t cookie, const struct sockaddr_storage *local,
                     const struct sockaddr_storage *peer, nmp_tcpsink **out, int *port, char *err, size_t errlen) {
    int rc, one = 1;
    *out = NULL;
    if (req->kind != NMP_KIND_TCP || req->streams < 1 || req->streams > NMP_TCP_MAX_STREAMS || req->bins < 1 ||
        (uint64_t)req->streams * req->bins > NMP_TCP_MAX_CELLS || req->size < NMP_TCP_MSG_HDR ||
        req->size > NMP_TCP_MSG_MAX) {
        nmp_seterr(err, errlen, "tcp sink: request out of range");
        return -EINVAL;
    }
    nmp_tcpsink *t = calloc(1, sizeof(*t));
    if (t == NULL) goto nomem;
    t->lfd = -1;
    for (int i = 0; i < NMP_TCP_MAX_STREAMS; i++) t->hello[i].fd = t->st[i].fd = -1;
    t->req = *req;
    t->cookie = cookie;
    t->peer = *peer;
    t->bins = calloc((size_t)req->streams * req->bins, sizeof(*t->bins));
    t->buf = malloc(READ_BUF);
    if (req->cbr) {
        t->rec_cap = req->frames ? req->frames : 1;
        t->rec = malloc((size_t)t->rec_cap * sizeof(*t->rec));
    }
    if (t->bins == NULL || t->buf == NULL || (req->cbr && t->rec == NULL)) goto nomem;
    struct sockaddr_storage a = *local;
    socklen_t al = a.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    if (a.ss_family == AF_INET)
        ((struct sockaddr_in *)&a)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)&a)->sin6_port = 0;
    t->lfd = socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (t->lfd < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "tcp socket: %s", strerror(errno));
        goto error;
    }
    setsockopt(t->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (req->window > 0) {
        int w = (int)req->window; /* set before listen: accepted sockets inherit it and the window scale */
        if (setsockopt(t->lfd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w)) < 0) {
            rc = -errno;
            nmp_seterr(err, errlen, "setsockopt SO_RCVBUF %d: %s", w, strerror(errno));
            goto error;
        }
    }
    if (bind(t->lfd, (struct sockaddr *)&a, al) < 0 || listen(t->lfd, NMP_TCP_MAX_STREAMS) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "tcp data port: %s", strerror(errno));
        goto error;
    }
    al = sizeof(a);
    getsockname(t->lfd, (struct sockaddr *)&a, &al);
    *port = nmp_addr_port((struct sockaddr *)&a);
    *out = t;
    return 0;
nomem:
    rc = -ENOMEM;
    nmp_seterr(err, errlen, "tcp sink: out of memory");
error:
    nmp_tcpsink_close(t);
    return rc;
}

int nmp_tcpsink_pollfds(nmp_tcpsink *t, struct pollfd *p, int max) {
    int n = 0;
    if (n < max && t->lfd >= 0) {
        t->fdmap[n] = -1;
        p[n++] = (struct pollfd){.fd = t->lfd, .events = POLLIN};
    }
    for (int i = 0; i < NMP_TCP_MAX_STREAMS && n < max; i++) {
        if (t->hello[i].fd >= 0) {
            t->fdmap[n] = i;
            p[n++] = (struct pollfd){.fd = t->hello[i].fd, .events = POLLIN};
        }
    }
    for (int i = 0; i < (int)t->req.streams && n < max; i++) {
        if (t->st[i].fd >= 0) {
            t->fdmap[n] = NMP_TCP_MAX_STREAMS + i;
            p[n++] = (struct pollfd){.fd = t->st[i].fd, .events = POLLIN};
        }
    }
    /* connections whose hello is late are dropped here, at each poll round */
    nmp_monotime_ns now = nmp_mono_now();
    for (int i = 0; i < NMP_TCP_MAX_STREAMS; i++) {
        if (t->hello[i].fd >= 0 && now - t->hello[i].opened > HELLO_TIMEOUT_NS) {
            nmp_net_close(&t->hello[i].fd);
            t->refused++;
        }
    }
    return n;
}

static void accept_data(nmp_tcpsink *t) {
    for (int k = 0; k < NMP_TCP_MAX_STREAMS; k++) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof(from);
        int fd = accept4(t->lfd, (struct sockaddr *)&from, &fl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        int slot = -1;
        for (int i = 0; i < NMP_TCP_MAX_STREAMS && slot < 0; i++)
            if (t->hello[i].fd < 0) slot = i;
        if (!nmp_net_same_ip((struct sockaddr *)&from, (struct sockaddr *)&t->peer) || slot < 0) {
            close(fd);
            t->refused++;
            continue;
        }
        t->hello[slot] = (hello_conn){.fd = fd, .len = 0, .opened = nmp_mono_now()};
    }
}

/* Reads hello bytes; a complete, valid hello turns the connection into its stream. */
static void hello_readable(nmp_tcpsink *t, hello_conn *h) {
    ssize_t n = recv(h->fd, h->buf + h->len, NMP_TCP_HELLO - h->len, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        nmp_net_close(&h->fd);
        t->refused++;
        return;
    }
    h->len += (size_t)n;
    if (h->len < NMP_TCP_HELLO) return;
    uint32_t idx;
    uint64_t cookie;
    if (nmp_tcp_hello_decode(h->buf, &idx, &cookie) < 0 || cookie != t->cookie || idx >= t->req.streams ||
        t->st[idx].seen) {
        nmp_net_close(&h->fd);
        t->refused++;
        return;
    }
    t->st[idx].fd = h->fd;
    t->st[idx].seen = 1;
    h->fd = -1;
}

/* Follows the message framing over n new bytes of stream idx. Returns 0,
 * or -EPROTO when a message header is wrong. */
static int frame_bytes(nmp_tcpsink *t, uint32_t idx, const uint8_t *b, size_t n, nmp_walltime_ns now) {
    sink_stream *s = &t->st[idx];
    size_t p = 0;
    while (p < n) {
        size_t take;
        if (s->off < NMP_TCP_MSG_HDR) {
            take = NMP_TCP_MSG_HDR - s->off;
            if (take > n - p) take = n - p;
            memcpy(s->hdr + s->off, b + p, take);
            s->off += (uint32_t)take;
            if (s->off == NMP_TCP_MSG_HDR &&
                (nmp_tcp_msg_decode(s->hdr, &s->cur) < 0 || s->cur.stream != idx || s->cur.seq != (uint32_t)s->messages))
                return -EPROTO;
        } else {
            take = t->req.size - s->off;
            if (take > n - p) take = n - p;
            s->off += (uint32_t)take;
        }
        p += take;
        if (s->off == t->req.size) {
            s->messages++;
            s->off = 0;
            if (t->req.cbr) {
                if (t->nrec < t->rec_cap)
                    t->rec[t->nrec++] = (nmp_tcp_rec){.stream = idx, .seq = s->cur.seq,
                                                      .sched_wall = s->cur.sched_wall, .arrival_wall = now};
                else
                    t->over++;
            }
        }
    }
    return 0;
}

/* Reads what stream idx has (at most READS_PER_WAKE buffers). Returns bytes read. */
static uint64_t stream_readable(nmp_tcpsink *t, uint32_t idx) {
    sink_stream *s = &t->st[idx];
    uint64_t total = 0;
    for (int k = 0; k < READS_PER_WAKE && s->fd >= 0; k++) {
        ssize_t n = recv(s->fd, t->buf, READ_BUF, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n <= 0) { /* end of stream or error */
            nmp_net_close(&s->fd);
            break;
        }
        nmp_monotime_ns mono = nmp_mono_now();
        nmp_walltime_ns wall = nmp_wall_now();
        if (!t->started) {
            t->started = 1;
            t->t0_mono = mono;
            t->t0_wall = wall;
        }
        if (s->first_wall == 0) s->first_wall = wall;
        s->last_wall = wall;
        s->bytes += (uint64_t)n;
        total += (uint64_t)n;
        uint64_t bin = t->req.bin_ns ? (mono - t->t0_mono) / t->req.bin_ns : 0;
        if (bin >= t->req.bins) bin = t->req.bins - 1; /* the tail lands in the last bin */
        t->bins[(size_t)idx * t->req.bins + bin] += (uint64_t)n;
        if (frame_bytes(t, idx, t->buf, (size_t)n, wall) < 0) {
            t->framing_errors++;
            nmp_net_close(&s->fd);
        } else if (!s->lowat && !t->req.cbr && t->req.interval_ns == 0 && s->messages > 0 && s->bytes >= 4 * BULK_RCVLOWAT) {
            /* Bulk and streaming with valid framing: without a low-water
             * mark the loop drains every stream to EAGAIN and sleeps in
             * poll(), and the sender's softirq must wake it for nearly every
             * segment batch (~110k wake-ups/s at 4 streams on a veth pair vs
             * ~50k for iperf3), taking CPU from the sender, the bottleneck.
             * The kernel caps it at half the receive buffer and still wakes
             * at FIN or when the window runs out, so the tail cannot stall. */
            int lw = BULK_RCVLOWAT;
            setsockopt(s->fd, SOL_SOCKET, SO_RCVLOWAT, &lw, sizeof(lw));
            s->lowat = 1;
        }
    }
    return total;
}

uint64_t nmp_tcpsink_ready(nmp_tcpsink *t, const struct pollfd *p, int n) {
    uint64_t bytes = 0;
    for (int i = 0; i < n; i++) {
        if (!p[i].revents) continue;
        int m = t->fdmap[i];
        if (m == -1)
            accept_data(t);
        else if (m < NMP_TCP_MAX_STREAMS) {
            if (t->hello[m].fd == p[i].fd) hello_readable(t, &t->hello[m]);
        } else if (t->st[m - NMP_TCP_MAX_STREAMS].fd == p[i].fd) {
            bytes += stream_readable(t, (uint32_t)(m - NMP_TCP_MAX_STREAMS));
        }
    }
    return bytes;
}

int nmp_tcpsink_open_streams(const nmp_tcpsink *t) {
    int open = 0;
    for (uint32_t i = 0; i < t->req.streams; i++) open += t->st[i].fd >= 0;
    return open;
}

uint64_t nmp_tcpsink_bytes(const nmp_tcpsink *t) {
    uint64_t b = 0;
    for (uint32_t i = 0; i < t->req.streams; i++) b += t->st[i].bytes;
    return b;
}

static void put64be(uint8_t *p, uint64_t v) {
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

int nmp_tcpsink_results(nmp_tcpsink *t, char *line, uint8_t **blob, size_t *bloblen) {
    uint32_t ns = t->req.streams, nb = t->req.bins;
    size_t bytes = (size_t)ns * NMP_TCP_STREAM_REC + (size_t)ns * nb * 8 + (size_t)t->nrec * NMP_REC_SIZE;
    uint64_t connected = 0;
    for (uint32_t i = 0; i < ns; i++) connected += t->st[i].seen != 0;
    int len = nmp_ctl_format(line, NMP_CTL_MAXLINE + 1, NMP_CTL_DATA,
                             "records=%u bytes=%zu streams=%u bins=%u bin_ns=%llu start_wall=%lld rx=%llu over=%llu "
                             "connected=%llu refused=%llu framing=%llu",
                             t->nrec, bytes, ns, nb, (unsigned long long)t->req.bin_ns, (long long)t->t0_wall,
                             (unsigned long long)nmp_tcpsink_bytes(t), (unsigned long long)t->over,
                             (unsigned long long)connected, (unsigned long long)t->refused,
                             (unsigned long long)t->framing_errors);
    if (len < 0) return len;
    uint8_t *b = malloc(bytes ? bytes : 1);
    if (b == NULL) return -ENOMEM;
    uint8_t *q = b;
    for (uint32_t i = 0; i < ns; i++, q += NMP_TCP_STREAM_REC) {
        put64be(q, t->st[i].bytes);
        put64be(q + 8, t->st[i].messages);
        put64be(q + 16, (uint64_t)t->st[i].first_wall);
        put64be(q + 24, (uint64_t)t->st[i].last_wall);
    }
    for (size_t i = 0; i < (size_t)ns * nb; i++, q += 8) put64be(q, t->bins[i]);
    for (uint32_t i = 0; i < t->nrec; i++, q += NMP_REC_SIZE) nmp_tcp_rec_encode(q, &t->rec[i]);
    *blob = b;
    *bloblen = bytes;
    return len;
}
