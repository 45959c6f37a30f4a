/* nmp_hopcap.c -- per-hop capacity, Trace-Rate style: trains of large UDP
 * frames whose TTL expires at one hop, the dispersion of the ICMP answers
 * read from the error queue with their kernel receive timestamps. No
 * responder, no privileges. Definitions in nmp_hopcap.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nmprobe.h"
#include "nmp_hopcap.h"
#include "nmp_kind.h"
#include "nmp_net.h"

#define DEFAULT_TRAINS 30
#define DEFAULT_LEN 64
#define DEFAULT_SIZE 1472
#define DEFAULT_WAIT_MS 1000
#define DEFAULT_PORT 33434
#define PORT_SPAN 4096               /* destination ports cycled over */
#define SETTLE_NS 50000000ull        /* after the last answer, give up on the rest after this */
#define GAP_MIN_NS 1000000ull        /* automatic pause clamp */
#define GAP_MAX_NS 1000000000ull
#define PROBE_MAGIC 0x4E4D4843u      /* 'NMHC', first payload bytes of every frame */
#define STAMP_WARMUP_NS 20000000ull /* from enabling RX timestamps to the first train */
#define SEND_TRIES 16                /* sendto retries for reported earlier ICMP errors */
#define ENDS_GAP_MAX_NS 2500000000ull /* ends-only pause ceiling: 2 answers at Linux's 1/s refill, with margin */
#define PASS_TTL 255                 /* frames of an ends-only train that are not to expire */
#define SWITCH_TRAINS 3              /* full trains cut short like a rate limit before switching to ends only */
#define ENDS_FIRST_GAP_NS 1000000000ull /* pause after switching: the router's budget refills a little */
#define ENDS_HOP_NS 30000000000ull   /* ends-only probing of one hop stops after this */
#define ENDS_RUN_NS 120000000000ull  /* and of the whole run: later hops are then left unmeasured */

void nmp_hopcap_result_free(nmp_hopcap_result *res) {
    free(res->train_frame_mbps);
    free(res->train_status);
    res->train_frame_mbps = NULL;
    res->train_status = NULL;
    res->rows = 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- analysis ---- */

/* Rate (frame level) of frames [from, to] when all answered, in order and
 * with a positive span: 1 and *mbps set; 0 when a frame is missing; -1 when
 * out of order or the span is not positive. */
static int span_rate(const int64_t *reply_ns, const uint32_t *rank, uint32_t from, uint32_t to, uint32_t bytes,
                     double *mbps) {
    for (uint32_t i = from; i <= to; i++)
        if (reply_ns[i] == 0 || rank[i] == 0) return 0;
    for (uint32_t i = from + 1; i <= to; i++)
        if (rank[i] <= rank[i - 1] || reply_ns[i] < reply_ns[i - 1]) return -1;
    int64_t span = reply_ns[to] - reply_ns[from];
    if (span <= 0) return -1;
    *mbps = (double)(to - from) * bytes * 8.0 / (double)span * 1e3;
    return 1;
}

/* USED or SENDER for a measured span [skip, len-1]: sender-limited when
 * sending it took nearly as long as the answers' span. */
static int sender_check(const int64_t *send_ns, const int64_t *reply_ns, uint32_t len, uint32_t skip) {
    double send_span = (double)(send_ns[len - 1] - send_ns[skip]);
    double reply_span = (double)(reply_ns[len - 1] - reply_ns[skip]);
    return send_span >= NMP_HOPCAP_SENDER_LIMIT * reply_span ? NMP_HC_SENDER : NMP_HC_USED;
}

int nmp_hopcap_train(const int64_t *send_ns, const int64_t *reply_ns, const uint32_t *rank, uint32_t len,
                     uint32_t skip, uint32_t size, uint32_t frame_overhead, double *frame_mbps,
                     double *head_frame_mbps) {
    *frame_mbps = *head_frame_mbps = NAN;
    if (len < 2 || len > NMP_HOPCAP_MAX_LEN || skip + 2 > len || size == 0 || !send_ns || !reply_ns || !rank)
        return -EINVAL;
    uint32_t bytes = size + frame_overhead;
    if (skip > 0) span_rate(reply_ns, rank, 0, skip, bytes, head_frame_mbps);
    double r = NAN;
    int s = span_rate(reply_ns, rank, skip, len - 1, bytes, &r);
    if (s == 0) return NMP_HC_MISSING;
    if (s < 0) return NMP_HC_REORDERED;
    *frame_mbps = r;
    return sender_check(send_ns, reply_ns, len, skip);
}

int nmp_hopcap_train_ends(const int64_t *send_ns, const int64_t *reply_ns, const uint32_t *rank, uint32_t len,
                          uint32_t skip, uint32_t size, uint32_t frame_overhead, double *frame_mbps) {
    *frame_mbps = NAN;
    if (len < 2 || len > NMP_HOPCAP_MAX_LEN || skip + 2 > len || size == 0 || !send_ns || !reply_ns || !rank)
        return -EINVAL;
    uint32_t last = len - 1;
    if (reply_ns[skip] == 0 || rank[skip] == 0 || reply_ns[last] == 0 || rank[last] == 0) return NMP_HC_MISSING;
    int64_t span = reply_ns[last] - reply_ns[skip];
    if (rank[last] <= rank[skip] || span <= 0) return NMP_HC_REORDERED;
    *frame_mbps = (double)(last - skip) * (size + frame_overhead) * 8.0 / (double)span * 1e3;
    return sender_check(send_ns, reply_ns, len, skip);
}

/* The mode of sorted x[0..n): the x_i whose +-w window holds most values
 * (the lowest such x_i on ties); returns the median of that window. */
static double window_mode(const double *x, size_t n, double w) {
    size_t best_lo = 0, best_hi = 0, best = 0, lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        while (x[lo] < x[i] - w * x[i]) lo++;
        if (hi < i) hi = i;
        while (hi + 1 < n && x[hi + 1] <= x[i] + w * x[i]) hi++;
        if (hi - lo + 1 > best) {
            best = hi - lo + 1;
            best_lo = lo;
            best_hi = hi;
        }
    }
    double m = NAN;
    nmp_stats_median(x + best_lo, best_hi - best_lo + 1, &m);
    return m;
}

int nmp_hopcap_summarize(nmp_hopcap_hop *h, const double *frame_mbps, const int32_t *status, const double *head,
                         uint32_t n, uint32_t size, uint32_t frame_overhead, uint32_t wire_overhead) {
    double *sample = malloc((n ? n : 1) * sizeof(*sample));
    double *heads = malloc((n ? n : 1) * sizeof(*heads));
    if (sample == NULL || heads == NULL) {
        free(sample);
        free(heads);
        return -ENOMEM;
    }
    h->trains_sent = h->trains_used = h->missing = h->reordered = h->sender_limited = 0;
    uint32_t nh = 0;
    for (uint32_t i = 0; i < n; i++) {
        switch (status[i]) {
        case NMP_HC_USED: h->trains_used++; break;
        case NMP_HC_SENDER: h->sender_limited++; break;
        case NMP_HC_MISSING: h->missing++; break;
        case NMP_HC_REORDERED: h->reordered++; break;
        default: continue;
        }
        h->trains_sent++;
        if (head && !isnan(head[i])) heads[nh++] = head[i];
    }
    h->lower_bound = h->sender_limited > h->trains_used;
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (status[i] == NMP_HC_USED || (h->lower_bound && status[i] == NMP_HC_SENDER)) sample[m++] = frame_mbps[i];
    if (h->lower_bound) h->trains_used += h->sender_limited;
    h->user_mbps = h->frame_mbps = h->wire_mbps = h->mode_frame_mbps = NAN;
    h->p10_mbps = h->p25_mbps = h->p75_mbps = h->p90_mbps = h->iqr_mbps = h->head_frame_mbps = NAN;
    if (m > 0) {
        qsort(sample, m, sizeof(*sample), cmp_double);
        nmp_stats_median(sample, m, &h->frame_mbps);
        h->user_mbps = h->frame_mbps * size / (size + frame_overhead);
        h->wire_mbps = h->frame_mbps * (size + wire_overhead) / (size + frame_overhead);
        nmp_stats_quantile(sample, m, 0.10, &h->p10_mbps);
        nmp_stats_quantile(sample, m, 0.25, &h->p25_mbps);
        nmp_stats_quantile(sample, m, 0.75, &h->p75_mbps);
        nmp_stats_quantile(sample, m, 0.90, &h->p90_mbps);
        h->iqr_mbps = h->p75_mbps - h->p25_mbps;
        h->mode_frame_mbps = window_mode(sample, m, NMP_HOPCAP_MODE_WINDOW);
    }
    if (nh > 0) nmp_stats_median(heads, nh, &h->head_frame_mbps);
    free(sample);
    free(heads);
    return 0;
}

/* ---- probing ---- */

/* One train's frames and answers. */
typedef struct train_buf {
    uint32_t len;                    /* frames */
    uint32_t first_serial;           /* serial of frame 0 */
    int64_t *send_ns;                /* monotonic send time per frame */
    int64_t *kern_ns;                /* kernel stamp (realtime) of the answer, 0 = none */
    int64_t *user_ns;                /* monotonic time at recvmsg of the answer, 0 = none */
    uint32_t *rank;                  /* arrival order from 1, 0 = no answer */
    uint32_t answers;                /* answers matched */
    int64_t last_answer_ns;          /* monotonic time of the latest answer */
    int ends;                        /* nonzero: ends-only train, only frames skip and len-1 expire */
    uint32_t skip;                   /* the first of the two (ends-only) */
} train_buf;

/* Whether frame i of the train is to expire at the hop (and be answered). */
static int expires(const train_buf *tb, uint32_t i) {
    return !tb->ends || i == tb->skip || i == tb->len - 1;
}

/* Answers a train waits for: every frame, or the two ends. */
static uint32_t expected(const train_buf *tb) { return tb->ends ? 2 : tb->len; }

/* The probing state of one run. */
typedef struct hc_run {
    int fd;                          /* UDP socket with RECVERR and RX timestamps */
    uint64_t ends_ns;                /* time spent on ends-only trains so far, all hops */
    int family;                      /* AF_INET or AF_INET6 */
    struct sockaddr_storage dst;     /* destination (port set per frame) */
    socklen_t dstlen;                /* its length */
    int base_port;                   /* first destination port */
    int span;                        /* ports cycled over */
    uint32_t serial;                 /* frames sent so far (all hops) */
    uint32_t size;                   /* payload bytes */
    uint8_t *payload;                /* frame buffer */
} hc_run;

static int ttl_set(hc_run *r, int ttl) {
    int rc = r->family == AF_INET ? setsockopt(r->fd, SOL_IP, IP_TTL, &ttl, sizeof(ttl))
                                  : setsockopt(r->fd, SOL_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl));
    return rc < 0 ? -errno : 0;
}

static void port_set(hc_run *r, uint32_t serial) {
    uint16_t p = htons((uint16_t)(r->base_port + (int)(serial % (uint32_t)r->span)));
    if (r->family == AF_INET) ((struct sockaddr_in *)&r->dst)->sin_port = p;
    else ((struct sockaddr_in6 *)&r->dst)->sin6_port = p;
}

/* Reads every queued answer into tb (answers of other trains are dropped);
 * updates the hop's address bookkeeping. */
static void read_answers(hc_run *r, train_buf *tb, nmp_hopcap_hop *h) {
    for (;;) {
        uint8_t data[64], cbuf[512];
        struct sockaddr_storage orig;
        struct iovec iov = {.iov_base = data, .iov_len = sizeof(data)};
        struct msghdr msg = {.msg_name = &orig, .msg_namelen = sizeof(orig), .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        ssize_t n = recvmsg(r->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        int64_t now = (int64_t)nmp_mono_now();
        struct sock_extended_err *ee = NULL;
        int64_t kern = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR))
                ee = (struct sock_extended_err *)CMSG_DATA(c);
            else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
                struct timespec ts[3];
                memcpy(ts, CMSG_DATA(c), sizeof(ts));
                kern = (int64_t)ts[0].tv_sec * 1000000000ll + ts[0].tv_nsec;
            }
        }
        if (ee == NULL || (ee->ee_origin != SO_EE_ORIGIN_ICMP && ee->ee_origin != SO_EE_ORIGIN_ICMP6)) continue;
        /* frame index by the destination port quoted back, checked against
         * the serial in the quoted payload when the router quoted it */
        int port = nmp_addr_port((struct sockaddr *)&orig);
        uint32_t off = (uint32_t)((port - r->base_port + r->span) % r->span);
        uint32_t idx = (off + (uint32_t)r->span - tb->first_serial % (uint32_t)r->span) % (uint32_t)r->span;
        if (port < r->base_port || port >= r->base_port + r->span || idx >= tb->len || tb->rank[idx] != 0) continue;
        if (!expires(tb, idx)) continue; /* a passing frame the destination answered: not this hop's */
        if (n >= 8) {
            uint32_t magic, serial;
            memcpy(&magic, data, 4);
            memcpy(&serial, data + 4, 4);
            if (ntohl(magic) != PROBE_MAGIC || ntohl(serial) != tb->first_serial + idx) continue;
        }
        tb->rank[idx] = ++tb->answers;
        tb->kern_ns[idx] = kern;
        tb->user_ns[idx] = now;
        tb->last_answer_ns = now;
        h->replies++;
        if (kern) h->kernel_stamped++;
        char addr[64];
        nmp_addr_str(SO_EE_OFFENDER(ee), addr, sizeof(addr));
        if (h->addr[0] == '\0') snprintf(h->addr, sizeof(h->addr), "%s", addr);
        else if (strcmp(addr, h->addr) != 0) h->other_addrs++;
        int reach = r->family == AF_INET ? (ee->ee_type == 3 && ee->ee_code == 3) : (ee->ee_type == 1 && ee->ee_code == 4);
        if (reach) h->destination = 1;
    }
    uint8_t junk[64]; /* ordinary datagrams (something answered with UDP): drop them */
    while (recv(r->fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0) {
    }
}

/* Sends the frames of one train back to back, with TTL ttl (ends only: just
 * the two ends; the others PASS_TTL). Returns 0 or -errno. */
static int send_train(hc_run *r, train_buf *tb, int ttl, char *err, size_t errlen) {
    tb->first_serial = r->serial;
    int cur = -1;
    for (uint32_t i = 0; i < tb->len; i++) {
        int want = expires(tb, i) ? ttl : PASS_TTL;
        if (want != cur) { /* at most 4 changes a train, between frames */
            int rc = ttl_set(r, want);
            if (rc < 0) {
                nmp_seterr(err, errlen, "hopcap: set ttl %d: %s", want, strerror(-rc));
                return rc;
            }
            cur = want;
        }
        uint32_t serial = r->serial++;
        uint32_t be = htonl(PROBE_MAGIC), bs = htonl(serial);
        memcpy(r->payload, &be, 4);
        memcpy(r->payload + 4, &bs, 4);
        port_set(r, serial);
        for (int tries = 0;; tries++) {
            nmp_monotime_ns t = nmp_mono_now();
            ssize_t w = sendto(r->fd, r->payload, r->size, 0, (struct sockaddr *)&r->dst, r->dstlen);
            if (w >= 0) {
                tb->send_ns[i] = (int64_t)t;
                break;
            }
            int e = errno;
            /* earlier answers are reported once by a later send: send again */
            if ((e == EINTR || e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH || e == EPROTO) &&
                tries < SEND_TRIES)
                continue;
            if ((e == EAGAIN || e == ENOBUFS) && tries < SEND_TRIES) {
                struct pollfd p = {.fd = r->fd, .events = POLLOUT};
                poll(&p, 1, 10);
                continue;
            }
            nmp_seterr(err, errlen, "hopcap: send of %u bytes: %s%s", r->size, strerror(e),
                       e == EMSGSIZE ? " (larger than the path MTU)" : "");
            return -e;
        }
    }
    return 0;
}

/* Waits for the answers of the train just sent: until all arrived, or
 * SETTLE_NS after the latest (once any arrived), or wait_ns after the last
 * frame. Returns 0, -ECANCELED or -errno. */
static int collect(hc_run *r, train_buf *tb, nmp_hopcap_hop *h, uint64_t wait_ns, const nmp_control *ctl,
                   char *err, size_t errlen) {
    nmp_monotime_ns deadline = (nmp_monotime_ns)tb->send_ns[tb->len - 1] + wait_ns;
    for (;;) {
        read_answers(r, tb, h);
        if (tb->answers == expected(tb)) return 0;
        nmp_monotime_ns now = nmp_mono_now(), dl = deadline;
        /* Ends only: the second answer trails the first by the whole tail's dispersion, which
         * on a slow link is far longer than the settle time, so it is waited for in full. */
        if (!tb->ends && tb->answers > 0 && (nmp_monotime_ns)tb->last_answer_ns + SETTLE_NS < dl)
            dl = (nmp_monotime_ns)tb->last_answer_ns + SETTLE_NS;
        if (now >= dl) return 0;
        if (nmp_control_cancelled(ctl)) return -ECANCELED;
        uint64_t left_ms = (dl - now) / 1000000ull + 1;
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        if (poll(&p, 1, (int)(left_ms < 10 ? left_ms : 10)) < 0 && errno != EINTR) {
            int e = errno;
            nmp_seterr(err, errlen, "hopcap: poll: %s", strerror(e));
            return -e;
        }
    }
}

/* Pauses gap_ns while draining stale answers; -ECANCELED when cancelled. */
static int pause_between(hc_run *r, uint64_t gap_ns, const nmp_control *ctl) {
    nmp_monotime_ns end = nmp_mono_now() + gap_ns;
    for (;;) {
        if (nmp_control_cancelled(ctl)) return -ECANCELED;
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= end) return 0;
        uint64_t left = end - now;
        if (left > 10000000ull) left = 10000000ull;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)left};
        nanosleep(&ts, NULL);
        char junk[64];
        struct iovec iov = {.iov_base = junk, .iov_len = sizeof(junk)};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
        while (recvmsg(r->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0) {
        }
    }
}

static int check_spec(const nmp_hopcap_spec *s, char *err, size_t errlen) {
    uint32_t len = s->train_len ? s->train_len : DEFAULT_LEN;
    uint32_t trains = s->trains ? s->trains : DEFAULT_TRAINS;
    int hops = s->hops ? s->hops : (s->max_ttl ? s->max_ttl : 30);
    if (s->host == NULL || s->host[0] == '\0' || s->hops < 0 || s->hops > NMP_HOPS_MAX_TTL || s->max_ttl < 0 ||
        s->max_ttl > NMP_HOPS_MAX_TTL || trains > NMP_HOPCAP_MAX_TRAINS || len < 2 || len > NMP_HOPCAP_MAX_LEN ||
        s->skip < -1 || (s->skip >= 0 && (uint32_t)s->skip + 2 > len) ||
        (s->size != 0 && (s->size < NMP_FRAME_HDR || s->size > NMP_FRAME_MAX)) || s->gap_ns > 10000000000ull ||
        s->wait_ms > 60000 || s->port < 0 || s->port > 65535 ||
        (uint64_t)hops * trains * len > NMP_HOPCAP_MAX_FRAMES) {
        nmp_seterr(err, errlen,
                   "hopcap: parameter out of range (host non-empty, hops 0..%d, max_ttl 0..%d, trains 0..%d, "
                   "train_len 2..%d, skip -1..train_len-2, size %d..%d, gap <= 10 s, wait_ms <= 60000, port 0..65535, "
                   "hops * trains * train_len <= %u)",
                   NMP_HOPS_MAX_TTL, NMP_HOPS_MAX_TTL, NMP_HOPCAP_MAX_TRAINS, NMP_HOPCAP_MAX_LEN, NMP_FRAME_HDR,
                   NMP_FRAME_MAX, NMP_HOPCAP_MAX_FRAMES);
        return -EINVAL;
    }
    return 0;
}

/* Opens the probe socket: RECVERR, kernel RX timestamps, DF, 4 MB buffers. */
static int open_socket(hc_run *r, char *err, size_t errlen) {
    int one = 1, buf = NMP_SOCKBUF;
    int ts = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    int pmtu = r->family == AF_INET ? IP_PMTUDISC_DO : IPV6_PMTUDISC_DO;
    r->fd = socket(r->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (r->fd < 0 ||
        (r->family == AF_INET ? setsockopt(r->fd, SOL_IP, IP_RECVERR, &one, sizeof(one))
                              : setsockopt(r->fd, SOL_IPV6, IPV6_RECVERR, &one, sizeof(one))) < 0 ||
        (r->family == AF_INET ? setsockopt(r->fd, SOL_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu))
                              : setsockopt(r->fd, SOL_IPV6, IPV6_MTU_DISCOVER, &pmtu, sizeof(pmtu))) < 0 ||
        setsockopt(r->fd, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts)) < 0) {
        int e = errno;
        nmp_seterr(err, errlen, "hopcap: udp socket with RECVERR and RX timestamps: %s", strerror(e));
        return -e;
    }
    setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf)); /* best effort: rmem_max caps it */
    setsockopt(r->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
    return 0;
}

/* The automatic pause after a train: 3x the longer of its send and answer
 * spans, so queues drain and token buckets refill, within 1 ms..1 s. */
static uint64_t auto_gap(const train_buf *tb) {
    int64_t lo = 0, hi = 0;
    for (uint32_t i = 0; i < tb->len; i++) {
        if (!tb->rank[i]) continue;
        if (lo == 0 || tb->user_ns[i] < lo) lo = tb->user_ns[i];
        if (tb->user_ns[i] > hi) hi = tb->user_ns[i];
    }
    int64_t sp = hi - lo, ssp = tb->send_ns[tb->len - 1] - tb->send_ns[0];
    uint64_t gap = 3 * (uint64_t)(sp > ssp ? sp : ssp);
    return gap < GAP_MIN_NS ? GAP_MIN_NS : gap > GAP_MAX_NS ? GAP_MAX_NS : gap;
}

/* Whether a full train came back the way a rate limiter answers: fewer than
 * half its frames, and those the first ones (a burst, then nothing), not
 * answers scattered by loss. */
static int cut_short(const train_buf *tb) {
    if (tb->answers * 2 >= tb->len) return 0;
    for (uint32_t i = 0; i < tb->len; i++)
        if ((tb->rank[i] != 0) != (i < tb->answers)) return 0;
    return 1;
}

/* Runs the trains of one hop into row (train_frame_mbps, train_status) and
 * the hop summary, switching to ends-only trains when the router turns out
 * to rate-limit its answers (see nmp_hopcap.h). *total (progress) loses the
 * trains this hop does not send. Returns 0, -ECANCELED or -errno. */
static int run_hop(hc_run *r, nmp_hopcap_result *res, nmp_hopcap_hop *h, train_buf *tb, double *heads,
                   const nmp_hopcap_spec *spec, const nmp_control *ctl, uint32_t *done, uint32_t *total, char *err,
                   size_t errlen) {
    uint32_t row = (uint32_t)(h->ttl - 1) * res->trains;
    double *mbps = res->train_frame_mbps + row;
    int32_t *st = res->train_status + row;
    uint64_t wait_ns = (uint64_t)(spec->wait_ms ? spec->wait_ms : DEFAULT_WAIT_MS) * 1000000ull;
    uint32_t trains = res->trains;   /* slots this hop fills */
    uint64_t backoff = 0;            /* ends only: the pause the router's budget needs, found by doubling */
    uint32_t misses = 0;             /* ends only: MISSING trains in a row for this slot */
    uint32_t tries = 0;              /* trains sent in the current mode */
    uint32_t replies0 = h->replies;  /* answers before the current mode */
    uint32_t cut = 0;                /* full trains cut short like a rate limit */
    nmp_monotime_ns ends_start = 0;
    uint32_t t = 0;
    int rc = 0;
    tb->skip = res->skip;
    while (t < trains && rc == 0) {
        if (nmp_control_cancelled(ctl)) {
            rc = -ECANCELED;
            break;
        }
        if (h->ends_only) {
            nmp_monotime_ns now = nmp_mono_now();
            if (now - ends_start > ENDS_HOP_NS || r->ends_ns + (now - ends_start) > ENDS_RUN_NS) break;
        }
        memset(tb->rank, 0, tb->len * sizeof(*tb->rank));
        memset(tb->kern_ns, 0, tb->len * sizeof(*tb->kern_ns));
        memset(tb->user_ns, 0, tb->len * sizeof(*tb->user_ns));
        tb->answers = 0;
        tb->last_answer_ns = 0;
        tb->ends = h->ends_only;
        rc = send_train(r, tb, h->ttl, err, errlen);
        h->probes_sent += r->serial - tb->first_serial;
        if (rc < 0) break;
        if ((rc = collect(r, tb, h, wait_ns, ctl, err, errlen)) < 0) break; /* a cancelled train stays NOT_SENT */
        tries++;
        int kernel_all = 1;
        for (uint32_t i = 0; i < tb->len; i++)
            if (tb->rank[i] && tb->kern_ns[i] == 0) kernel_all = 0;
        const int64_t *stamps = kernel_all ? tb->kern_ns : tb->user_ns;
        double m = NAN, head = NAN;
        int32_t s = tb->ends ? nmp_hopcap_train_ends(tb->send_ns, stamps, tb->rank, tb->len, res->skip, res->size,
                                                     res->frame_overhead, &m)
                             : nmp_hopcap_train(tb->send_ns, stamps, tb->rank, tb->len, res->skip, res->size,
                                                res->frame_overhead, &m, &head);
        uint64_t gap = spec->gap_ns ? spec->gap_ns : auto_gap(tb);
        int answered = h->replies > replies0; /* in the current mode */
        if (tb->ends) {
            /* Paced to the router's ICMP budget: a MISSING train doubles the pause and is sent
             * up to 4 times; the pause that worked is kept for the trains after it. */
            if (s == NMP_HC_MISSING) backoff = 2 * backoff > ENDS_GAP_MAX_NS ? ENDS_GAP_MAX_NS : 2 * backoff;
            if (backoff > gap) gap = backoff;
            if (tries >= 3 && !answered) break; /* nothing answers ends-only trains here (a rate-limiting destination) */
            if (s == NMP_HC_MISSING && ++misses < 4) {
                if ((rc = pause_between(r, gap, ctl)) < 0) break;
                continue;
            }
            misses = 0;
        } else if (s == NMP_HC_MISSING && cut_short(tb)) {
            cut++;
        }
        if (!kernel_all) h->trains_user_stamped++;
        st[t] = s;
        mbps[t] = m;
        heads[t] = head;
        t++;
        ++*done;
        if (ctl && ctl->progress) ctl->progress(ctl->progress_ctx, *done, *total);
        if (t >= 3 && !answered) break; /* a silent hop: three trains without any answer */
        uint32_t ends_trains = t + NMP_HOPCAP_ENDS_TRAINS < res->trains ? t + NMP_HOPCAP_ENDS_TRAINS : res->trains;
        /* Not at the destination (ends-only trains cannot work there, see nmp_hopcap.h), nor
         * with no slot left or the run's ends-only time spent. */
        if (!h->ends_only && t == SWITCH_TRAINS && cut == SWITCH_TRAINS && answered && !h->destination &&
            ends_trains > t && r->ends_ns < ENDS_RUN_NS) {
            /* The router answers at most the head of each train: it rate-limits ICMP. The
             * full trains stay on record (MISSING); up to NMP_HOPCAP_ENDS_TRAINS follow. */
            *total -= trains - ends_trains;
            trains = ends_trains;
            h->ends_only = 1;
            tries = 0;
            replies0 = h->replies;
            backoff = ENDS_FIRST_GAP_NS;
            gap = backoff;
            ends_start = nmp_mono_now();
        }
        if (t < trains) rc = pause_between(r, gap, ctl);
    }
    if (h->ends_only) r->ends_ns += nmp_mono_now() - ends_start;
    *total -= trains - t; /* slots left empty: a silent hop, a budget spent, a cancel */
    int src = nmp_hopcap_summarize(h, mbps, st, heads, res->trains, res->size, res->frame_overhead,
                                   res->wire_overhead);
    if (src < 0 && rc == 0) {
        nmp_seterr(err, errlen, "hopcap: out of memory");
        rc = src;
    }
    return rc;
}

int nmp_hopcap_run(const nmp_hopcap_spec *spec, const nmp_control *ctl, nmp_hopcap_result *res, char *err,
                   size_t errlen) {
    hc_run r = {.fd = -1};
    train_buf tb = {0};
    double *heads = NULL;
    nmp_hops_result *hl = NULL;
    int rc;
    memset(res, 0, sizeof(*res));
    if ((rc = check_spec(spec, err, errlen)) < 0) return rc;
    res->start_wall = nmp_wall_now();
    res->trains = spec->trains ? spec->trains : DEFAULT_TRAINS;
    res->train_len = spec->train_len ? spec->train_len : DEFAULT_LEN;
    res->skip = spec->skip >= 0 ? (uint32_t)spec->skip : res->train_len >= 4 ? res->train_len / 2 : 0;
    res->size = spec->size ? spec->size : DEFAULT_SIZE;
    uint32_t rows = (uint32_t)(spec->hops ? spec->hops : (spec->max_ttl ? spec->max_ttl : 30));
    /* per-train arrays first: a cancel at any later point leaves them present */
    res->train_frame_mbps = malloc((size_t)rows * res->trains * sizeof(*res->train_frame_mbps));
    res->train_status = malloc((size_t)rows * res->trains * sizeof(*res->train_status));
    heads = malloc(res->trains * sizeof(*heads));
    tb.len = res->train_len;
    tb.send_ns = calloc(tb.len, sizeof(*tb.send_ns));
    tb.kern_ns = calloc(tb.len, sizeof(*tb.kern_ns));
    tb.user_ns = calloc(tb.len, sizeof(*tb.user_ns));
    tb.rank = calloc(tb.len, sizeof(*tb.rank));
    r.payload = calloc(1, res->size);
    if (!res->train_frame_mbps || !res->train_status || !heads || !tb.send_ns || !tb.kern_ns || !tb.user_ns ||
        !tb.rank || !r.payload) {
        nmp_seterr(err, errlen, "hopcap: out of memory");
        rc = -ENOMEM;
        goto fail;
    }
    res->rows = rows;
    for (size_t i = 0; i < (size_t)rows * res->trains; i++) {
        res->train_frame_mbps[i] = NAN;
        res->train_status[i] = NMP_HC_NOT_SENT;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *ai = NULL;
    int g = getaddrinfo(spec->host, NULL, &hints, &ai);
    if (g != 0) {
        nmp_seterr(err, errlen, "resolve %s: %s", spec->host, g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
        rc = -ENOENT;
        goto fail;
    }
    memcpy(&r.dst, ai->ai_addr, ai->ai_addrlen);
    r.dstlen = ai->ai_addrlen;
    freeaddrinfo(ai);
    r.family = r.dst.ss_family;
    r.size = res->size;
    r.base_port = spec->port ? spec->port : DEFAULT_PORT;
    r.span = PORT_SPAN;
    /* Answers are matched to frames by port, over the whole span (more than any train): a
     * high first port moves down rather than shrinking the span below a train. */
    if (r.base_port + r.span - 1 > 65535) r.base_port = 65535 - r.span + 1;
    nmp_addr_str((struct sockaddr *)&r.dst, res->dest_addr, sizeof(res->dest_addr));
    res->frame_overhead = 8 + (r.family == AF_INET6 ? 40 : 20) + 14;
    res->wire_overhead = res->frame_overhead + 4 + 8 + 12;
    for (uint32_t t = 0; t < rows; t++) {
        res->hops[t].ttl = (int)t + 1;
        nmp_hopcap_summarize(&res->hops[t], res->train_frame_mbps, res->train_status, NULL, 0, res->size,
                             res->frame_overhead, res->wire_overhead);
    }
    /* the socket first: enabling kernel RX timestamps takes effect a little
     * later (a deferred static key), so the hop list or a short pause covers it */
    if ((rc = open_socket(&r, err, errlen)) < 0) goto fail;
    int nhops = spec->hops;
    nmp_monotime_ns t_open = nmp_mono_now();
    if (nhops == 0) {
        /* the hop count from the hop list: 2 small probes per TTL */
        res->discovered = 1;
        hl = malloc(sizeof(*hl));
        if (hl == NULL) {
            nmp_seterr(err, errlen, "hopcap: out of memory");
            rc = -ENOMEM;
            goto fail;
        }
        nmp_hops_spec hs = {.host = spec->host, .max_ttl = (int)rows, .probes = 2, .wait_ms = 1000,
                            .port = r.base_port, .size = 32};
        rc = nmp_hops_run(&hs, ctl, hl, err, errlen);
        if (rc == -ECANCELED) goto end;
        if (rc < 0) goto fail;
        res->reached = hl->reached;
        res->hop_count = hl->hop_count;
        nhops = hl->reached ? hl->hop_count : hl->nhops;
        while (nhops > 0 && hl->hops[nhops - 1].answered == 0) nhops--; /* silent tail of an unreached path */
        if (nhops == 0) {
            nmp_seterr(err, errlen, "hopcap %s: no hop answered the hop list", spec->host);
            rc = -EHOSTUNREACH;
            goto fail;
        }
    }
    nmp_sleep_until(t_open + STAMP_WARMUP_NS, 0);
    uint32_t done = 0, total = (uint32_t)nhops * res->trains;
    for (int t = 0; t < nhops; t++) {
        res->nhops = t + 1;
        rc = run_hop(&r, res, &res->hops[t], &tb, heads, spec, ctl, &done, &total, err, errlen);
        if (rc < 0 && rc != -ECANCELED) goto fail;
        if (res->hops[t].destination) { /* TTLs beyond would reach it too */
            res->reached = 1;
            res->hop_count = t + 1;
        }
        if (rc == -ECANCELED || res->hops[t].destination) break;
    }
    if (ctl && ctl->progress && rc == 0) ctl->progress(ctl->progress_ctx, done, done); /* all that will be sent was */
    /* A hop whose trains went unanswered (a rate-limiting destination) keeps what the hop list saw of it. */
    for (int t = 0; hl && t < res->nhops && t < hl->nhops; t++) {
        nmp_hopcap_hop *h = &res->hops[t];
        if (h->addr[0] == '\0' && hl->hops[t].answered) snprintf(h->addr, sizeof(h->addr), "%s", hl->hops[t].addr);
        if (hl->hops[t].destination) h->destination = 1;
    }
end:
    res->end_wall = nmp_wall_now();
    if (rc == -ECANCELED) nmp_seterr(err, errlen, "hopcap %s: cancelled after %d hops", spec->host, res->nhops);
    nmp_net_close(&r.fd);
    free(hl);
    free(heads);
    free(tb.send_ns);
    free(tb.kern_ns);
    free(tb.user_ns);
    free(tb.rank);
    free(r.payload);
    return rc;
fail:
    nmp_hopcap_result_free(res);
    res->nhops = 0;
    goto end;
}

/* ---- the "hopcap" kind: spec table and packed result (nmp_kind.h) ---- */

/* Defaults are the engine's (its 0 = default values, spelled out). */
static const nmp_spec_field hopcap_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_hopcap_spec, host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "destination name or address (IPv4 or IPv6)"},
    {.name = "hops", .type = NMP_S_INT, .offset = offsetof(nmp_hopcap_spec, hops), .hi = NMP_HOPS_MAX_TTL,
     .cli = "hops", .cli_short = 'n', .help = "measure TTL 1..N (0 = find the hop count with the hop list)"},
    {.name = "maxTtl", .type = NMP_S_INT, .offset = offsetof(nmp_hopcap_spec, max_ttl), .lo = 1,
     .hi = NMP_HOPS_MAX_TTL, .def = 30, .cli = "max-ttl", .cli_short = 'm', .help = "hop-list limit when hops is 0"},
    {.name = "trains", .type = NMP_S_U32, .offset = offsetof(nmp_hopcap_spec, trains), .lo = 1,
     .hi = NMP_HOPCAP_MAX_TRAINS, .def = 30, .cli = "trains", .cli_short = 't', .help = "trains per hop"},
    {.name = "trainLen", .type = NMP_S_U32, .offset = offsetof(nmp_hopcap_spec, train_len), .lo = 2,
     .hi = NMP_HOPCAP_MAX_LEN, .def = 64, .cli = "train-len", .cli_short = 'l',
     .help = "frames per train, 2 = pairs"},
    /* -1 = train-len / 2 (0 for pairs); else 0..train-len - 2 (hopcap_check) */
    {.name = "skip", .type = NMP_S_INT, .offset = offsetof(nmp_hopcap_spec, skip), .lo = -1,
     .hi = NMP_HOPCAP_MAX_LEN - 2, .def = -1, .cli = "skip", .cli_short = 'k',
     .help = "head frames left out of each train (-1 = train-len / 2; 0 for pairs)"},
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(nmp_hopcap_spec, size), .lo = NMP_FRAME_HDR,
     .hi = NMP_FRAME_MAX, .def = 1472, .cli = "size", .cli_short = 's', .help = "UDP payload bytes, sent with DF"},
    {.name = "gapNs", .type = NMP_S_U64, .offset = offsetof(nmp_hopcap_spec, gap_ns), .hi = 10e9, .cli = "gap-us",
     .cli_short = 'g', .cli_scale = 1000, .help = "pause after each train (0 = 3x its answer span)"},
    {.name = "waitMs", .type = NMP_S_U32, .offset = offsetof(nmp_hopcap_spec, wait_ms), .lo = 1, .hi = 60000,
     .def = 1000, .cli = "wait-ms", .cli_short = 'w', .help = "wait for a train's answers"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_hopcap_spec, port), .lo = 1, .hi = 65535,
     .def = 33434, .cli = "dport", .cli_short = 'p', .help = "first destination port"},
};

static int hopcap_check(void *sp, char *err, size_t errlen) {
    const nmp_hopcap_spec *s = sp;
    if (s->skip >= 0 && (uint32_t)s->skip + 2 > s->train_len) {
        nmp_seterr(err, errlen, "hopcap: skip %d is outside -1..%u (train length - 2)", s->skip, s->train_len - 2);
        return -EINVAL;
    }
    uint64_t rows = (uint64_t)(s->hops > 0 ? s->hops : s->max_ttl);
    if (rows * s->trains * s->train_len > NMP_HOPCAP_MAX_FRAMES) {
        nmp_seterr(err, errlen, "hopcap: (hops or maxTtl) * trains * trainLen %llu is above %u",
                   (unsigned long long)(rows * s->trains * s->train_len), NMP_HOPCAP_MAX_FRAMES);
        return -EINVAL;
    }
    return 0;
}

static const char *hopcap_status_name(int st) {
    switch (st) {
    case NMP_HC_USED: return "used";
    case NMP_HC_SENDER: return "sender-limited";
    case NMP_HC_MISSING: return "missing";
    case NMP_HC_REORDERED: return "reordered";
    default: return "not-sent";
    }
}

static int hopcap_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    const nmp_hopcap_spec *spec = sp;
    const char **status = NULL;
    nmp_hopcap_result *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        nmp_seterr(err, errlen, "hopcap: out of memory");
        return -ENOMEM;
    }
    nmp_monotime_ns t0 = nmp_mono_now();
    int rc = nmp_hopcap_run(spec, ctl, r, err, errlen);
    double elapsed_ms = (double)(nmp_mono_now() - t0) / 1e6;
    if (rc < 0 && rc != -ECANCELED) goto end;
    /* hops are listed only with their per-train rows present */
    int nh = r->nhops < 0 ? 0 : r->nhops > NMP_HOPS_MAX_TTL ? NMP_HOPS_MAX_TTL : r->nhops;
    if (r->rows < (uint32_t)nh || r->train_frame_mbps == NULL || r->train_status == NULL) {
        if (nh > 0 && rc != -ECANCELED) {
            nmp_seterr(err, errlen, "hopcap: the engine returned no per-train results");
            rc = -EFAULT;
            goto end;
        }
        nh = 0;
    }
    size_t ntr = (size_t)nh * r->trains;
    status = malloc((ntr ? ntr : 1) * sizeof(*status));
    if (status == NULL) {
        nmp_seterr(err, errlen, "hopcap: out of memory");
        rc = -ENOMEM;
        goto end;
    }
    for (size_t i = 0; i < ntr; i++) status[i] = hopcap_status_name(r->train_status[i]);
    nmp_pack_bool(out, "cancelled", rc == -ECANCELED);
    nmp_pack_str(out, "destination", r->dest_addr);
    nmp_pack_bool(out, "discovered", r->discovered);
    nmp_pack_bool(out, "reached", r->reached);
    nmp_pack_i64(out, "hopCount", r->hop_count);
    nmp_pack_i64(out, "trains", r->trains);
    nmp_pack_i64(out, "trainLength", r->train_len);
    nmp_pack_i64(out, "skip", r->skip);
    nmp_pack_i64(out, "packetSize", r->size);
    nmp_pack_i64(out, "frameOverheadBytes", r->frame_overhead);
    nmp_pack_i64(out, "wireOverheadBytes", r->wire_overhead);
    nmp_pack_str(out, "level", "frame");
    nmp_pack_f64(out, "elapsedMs", elapsed_ms);
    nmp_pack_i64(out, "startEpochNanos", r->start_wall);
    nmp_pack_i64(out, "endEpochNanos", r->end_wall);
    const nmp_hopcap_hop *h = r->hops;
    const size_t st = sizeof(*h);
#define HC_I(key, member, t) nmp_pack_col_i64(out, "hops." key, h, nh, st, offsetof(nmp_hopcap_hop, member), t)
#define HC_D(key, member) nmp_pack_col_f64(out, "hops." key, h, nh, st, offsetof(nmp_hopcap_hop, member), 1)
    HC_I("ttl", ttl, NMP_C_INT);
    nmp_pack_strs_fixed(out, "hops.address", h[0].addr, st, nh);
    HC_I("destination", destination, NMP_C_INT);
    HC_I("otherAddresses", other_addrs, NMP_C_INT);
    HC_D("frameMbps", frame_mbps);
    HC_D("userMbps", user_mbps);
    HC_D("wireMbps", wire_mbps);
    HC_D("modeFrameMbps", mode_frame_mbps);
    HC_D("p10Mbps", p10_mbps);
    HC_D("p25Mbps", p25_mbps);
    HC_D("p75Mbps", p75_mbps);
    HC_D("p90Mbps", p90_mbps);
    HC_D("iqrMbps", iqr_mbps);
    HC_D("headFrameMbps", head_frame_mbps);
    HC_I("lowerBound", lower_bound, NMP_C_INT);
    HC_I("endsOnly", ends_only, NMP_C_INT);
    HC_I("trainsSent", trains_sent, NMP_C_U32);
    HC_I("trainsUsed", trains_used, NMP_C_U32);
    HC_I("missing", missing, NMP_C_U32);
    HC_I("reordered", reordered, NMP_C_U32);
    HC_I("senderLimited", sender_limited, NMP_C_U32);
    HC_I("probesSent", probes_sent, NMP_C_U32);
    HC_I("replies", replies, NMP_C_U32);
    HC_I("kernelStamped", kernel_stamped, NMP_C_U32);
    HC_I("trainsUserStamped", trains_user_stamped, NMP_C_U32);
#undef HC_I
#undef HC_D
    /* train i of hop t at t * trains + i */
    nmp_pack_f64s(out, "hops.perTrain.frameMbps", r->train_frame_mbps, ntr);
    nmp_pack_strs(out, "hops.perTrain.status", status, ntr);
end:
    free(status);
    nmp_hopcap_result_free(r);
    free(r);
    return rc;
}

const nmp_kind nmp_kind_hopcap = {
    .name = "hopcap",
    .summary = "per-hop capacity from the dispersion of ICMP answers to TTL-limited trains",
    .fields = hopcap_fields,
    .nfields = sizeof(hopcap_fields) / sizeof(hopcap_fields[0]),
    .spec_size = sizeof(nmp_hopcap_spec),
    .check = hopcap_check,
    .run = hopcap_kind_run,
};
