/* nmp_tcp.c -- the sending side of the TCP throughput test (TCPstream's
 * lineage): opens a tcp session, connects 'streams' data connections that
 * prove the session cookie, writes framed messages back to back, spaced or
 * on a constant-bit-rate schedule from one poll() loop, samples TCP_INFO of
 * every socket, waits until everything is acknowledged, and merges the
 * receiver's totals, time series and message arrivals into the result.
 *
 * Only <linux/tcp.h> is used for TCP (struct tcp_info with delivery and
 * pacing rates); glibc's <netinet/tcp.h> would clash with it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nmprobe.h"
#include "nmp_tcp.h"
#include "nmp_client.h"
#include "nmp_kind.h"

#define PROGRESS_NS 100000000ull       /* progress callbacks at most this often */
#define STAGE_BYTES (256 * 1024)       /* bulk mode: bytes staged per send() round */
#define MAX_SAMPLES 2000000u           /* TCP_INFO samples kept */
#define SPIN_NS 50000ull               /* busy-wait the last 50 us before a due message */
#define CBR_GRACE_NS 1000000000ull     /* CBR: the longest a late schedule may run past its end */

/* One data connection on the sending side. */
typedef struct tx_stream {
    int fd;                            /* data connection, -1 when closed */
    uint8_t *buf;                      /* staging buffer of whole messages */
    size_t cap;                        /* its size: k * msg_size */
    size_t len;                        /* staged bytes */
    size_t off;                        /* staged bytes already written */
    uint32_t seq;                      /* next message number */
    uint64_t bytes_sent;               /* bytes written */
    uint64_t msgs_sent;                /* whole messages written */
    nmp_monotime_ns next_due;          /* spaced / CBR: when the next message may go */
} tx_stream;

typedef struct tcp_run {
    const nmp_tcp_spec *spec;          /* parameters */
    const nmp_control *ctl;            /* cancel and progress, may be NULL */
    nmp_tcp_result *res;               /* result being filled */
    nmp_client cl;                     /* control connection */
    tx_stream tx[NMP_TCP_MAX_STREAMS]; /* data connections */
    uint32_t sample_cap;               /* samples allocated */
    nmp_monotime_ns t0;                /* start of sending, monotonic */
    nmp_walltime_ns wall0;             /* the same on the wall clock (CBR schedule base) */
    uint64_t staged_total;             /* bytes staged over all streams (byte limit) */
    nmp_monotime_ns next_progress;     /* next progress report */
} tcp_run;

static void progress(tcp_run *t, nmp_monotime_ns now, int force) {
    if (!t->ctl || !t->ctl->progress || (!force && now < t->next_progress)) return;
    t->next_progress = now + PROGRESS_NS;
    uint64_t total_ms = t->spec->duration_ns / 1000000;
    uint64_t done_ms = (now - t->t0) / 1000000;
    if (done_ms > total_ms || force) done_ms = total_ms;
    t->ctl->progress(t->ctl->progress_ctx, (uint32_t)done_ms, (uint32_t)total_ms);
}

void nmp_tcp_result_free(nmp_tcp_result *res) {
    free(res->series);
    free(res->samples);
    free(res->msg_stream);
    free(res->msg_seq);
    free(res->msg_sched_wall);
    free(res->msg_arrival_wall);
    free(res->msg_late_ns);
    res->series = NULL;
    res->samples = NULL;
    res->msg_stream = res->msg_seq = NULL;
    res->msg_sched_wall = res->msg_arrival_wall = NULL;
    res->msg_late_ns = NULL;
    res->nsamples = res->nmsgs = res->bins = 0;
}

static int check_spec(const nmp_tcp_spec *s, char *err, size_t errlen) {
    if (s->host == NULL || s->host[0] == '\0' || s->port < 1 || s->port > 65535 || s->streams < 1 ||
        s->streams > NMP_TCP_MAX_STREAMS || s->msg_size < NMP_TCP_MSG_HDR || s->msg_size > NMP_TCP_MSG_MAX ||
        s->interval_ns > 60000000000ull || (s->cbr && s->interval_ns == 0) ||
        (s->window != 0 && (s->window < 2048 || s->window > NMP_TCP_WINDOW_MAX)) || s->duration_ns < 1000000 ||
        s->duration_ns > 3600000000000ull || (s->sample_ns != 0 && s->sample_ns < 1000000) ||
        s->sample_ns > 60000000000ull || s->timeout_ns > 60000000000ull) {
        nmp_seterr(err, errlen,
                   "tcp: parameter out of range (host non-empty, port 1..65535, streams 1..%d, msg_size %d..%u, "
                   "interval <= 60 s and > 0 for cbr, window 0 or 2048..%u, duration 1 ms..3600 s, sample 0 or "
                   "1 ms..60 s, timeout <= 60 s)",
                   NMP_TCP_MAX_STREAMS, NMP_TCP_MSG_HDR, NMP_TCP_MSG_MAX, NMP_TCP_WINDOW_MAX);
        return -EINVAL;
    }
    if (s->congestion != NULL) {
        size_t n = strlen(s->congestion);
        int ok = n > 0 && n < NMP_TCP_CC_MAX;
        for (size_t i = 0; ok && i < n; i++) {
            char c = s->congestion[i];
            ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        }
        if (!ok) {
            nmp_seterr(err, errlen, "tcp: congestion control must be 1..%d of [a-z0-9_-]", NMP_TCP_CC_MAX - 1);
            return -EINVAL;
        }
        /* Asked of a socket of our own first, so a name this host cannot use fails
         * before the responder is contacted. */
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;
        if (fd >= 0 && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, s->congestion, (socklen_t)n) < 0) rc = -errno;
        if (fd >= 0) close(fd);
        if (rc < 0) {
            nmp_seterr(err, errlen,
                       "tcp: congestion control %s: %s (this host allows what "
                       "net.ipv4.tcp_allowed_congestion_control lists)",
                       s->congestion, strerror(-rc));
            return rc;
        }
    }
    return 0;
}

/* Connects one data connection to the session's TCP port with SO_SNDBUF
 * set first (so that the window scale fits it) and sends the hello. */
static int connect_stream(tcp_run *t, uint32_t idx, char *err, size_t errlen) {
    struct sockaddr_storage dst = t->cl.peer;
    socklen_t dl = dst.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    if (dst.ss_family == AF_INET)
        ((struct sockaddr_in *)&dst)->sin_port = htons((uint16_t)t->cl.udp_port);
    else
        ((struct sockaddr_in6 *)&dst)->sin6_port = htons((uint16_t)t->cl.udp_port);
    int fd = socket(dst.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), rc;
    if (fd < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "tcp socket: %s", strerror(errno));
        return rc;
    }
    t->tx[idx].fd = fd;
    if (t->spec->window) {
        int w = (int)t->spec->window;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w));
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)); /* messages leave when written */
    if (t->spec->congestion != NULL &&
        setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, t->spec->congestion, (socklen_t)strlen(t->spec->congestion)) < 0) {
        rc = -errno;
        goto fail;
    }
    nmp_monotime_ns deadline = nmp_mono_now() + (uint64_t)t->cl.timeout_ms * 1000000ull;
    if (connect(fd, (struct sockaddr *)&dst, dl) < 0 && errno != EINPROGRESS) {
        rc = -errno;
        goto fail;
    }
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= deadline) {
            rc = -ETIMEDOUT;
            goto fail;
        }
        int n = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            rc = -errno;
            goto fail;
        }
        if (n > 0) break;
    }
    int soerr = 0;
    socklen_t sl = sizeof(soerr);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
        rc = soerr ? -soerr : -errno;
        goto fail;
    }
    uint8_t hello[NMP_TCP_HELLO];
    nmp_tcp_hello_encode(hello, idx, t->cl.cookie);
    char e[NMP_ERRLEN];
    if ((rc = nmp_net_write_all(fd, hello, sizeof(hello), deadline, e, sizeof(e))) < 0) goto fail;
    return 0;
fail:
    nmp_seterr(err, errlen, "tcp data connection %u to %s:%d: %s", idx, t->spec->host, t->cl.udp_port,
               strerror(-rc));
    return rc;
}

/* Appends one TCP_INFO sample per open stream. Never fails (samples beyond
 * MAX_SAMPLES or without memory are skipped). */
static void sample_info(tcp_run *t, nmp_monotime_ns now) {
    nmp_tcp_result *res = t->res;
    for (uint32_t i = 0; i < t->spec->streams; i++) {
        if (t->tx[i].fd < 0) continue;
        struct tcp_info ti;
        socklen_t tl = sizeof(ti);
        memset(&ti, 0, sizeof(ti));
        if (getsockopt(t->tx[i].fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) < 0) continue;
        if (res->nsamples == t->sample_cap) {
            uint32_t cap = t->sample_cap ? t->sample_cap * 2 : 256;
            if (cap > MAX_SAMPLES) cap = MAX_SAMPLES;
            if (cap == t->sample_cap) return;
            void *p = realloc(res->samples, (size_t)cap * sizeof(*res->samples));
            if (p == NULL) return;
            res->samples = p;
            t->sample_cap = cap;
        }
        nmp_tcp_info_sample *s = &res->samples[res->nsamples++];
        s->t_ns = now - t->t0;
        s->stream = i;
        s->cwnd = ti.tcpi_snd_cwnd;
        s->mss = ti.tcpi_snd_mss;
        s->srtt_us = ti.tcpi_rtt;
        s->rttvar_us = ti.tcpi_rttvar;
        s->retransmits = ti.tcpi_retransmits;
        s->total_retrans = ti.tcpi_total_retrans;
        s->pacing_rate = ti.tcpi_pacing_rate;
        s->delivery_rate = ti.tcpi_delivery_rate;
        s->bytes_acked = ti.tcpi_bytes_acked;
        res->per[i].total_retrans = ti.tcpi_total_retrans;
        res->per[i].final_srtt_us = ti.tcpi_rtt;
        if (tl >= offsetof(struct tcp_info, tcpi_sndbuf_limited) + sizeof(ti.tcpi_sndbuf_limited)) {
            res->per[i].busy_us = ti.tcpi_busy_time;
            res->per[i].rwnd_limited_us = ti.tcpi_rwnd_limited;
            res->per[i].sndbuf_limited_us = ti.tcpi_sndbuf_limited;
        }
    }
}

/* Stages the next message(s) of stream i: k back-to-back messages in bulk
 * mode, one otherwise. Returns the number staged (0 = byte limit reached). */
static uint32_t stage(tcp_run *t, uint32_t i, nmp_monotime_ns now) {
    tx_stream *x = &t->tx[i];
    const nmp_tcp_spec *sp = t->spec;
    uint32_t k = (uint32_t)(x->cap / sp->msg_size), n = 0;
    nmp_walltime_ns wall = nmp_wall_now();
    for (; n < k; n++) {
        if (sp->bytes && t->staged_total >= sp->bytes) break;
        if (sp->cbr && (uint64_t)x->seq * sp->interval_ns >= sp->duration_ns) break; /* the schedule is done */
        nmp_tcp_msg_hdr h = {.stream = i, .seq = x->seq, .send_wall = wall,
                             .sched_wall = sp->cbr ? t->wall0 + (nmp_walltime_ns)((uint64_t)x->seq * sp->interval_ns)
                                                   : wall};
        nmp_tcp_msg_encode(x->buf + (size_t)n * sp->msg_size, &h);
        x->seq++;
        t->staged_total += sp->msg_size;
    }
    x->len = (size_t)n * sp->msg_size;
    x->off = 0;
    if (sp->cbr)
        x->next_due = t->t0 + (uint64_t)x->seq * sp->interval_ns;
    (void)now;
    return n;
}

/* Writes what stream i has staged until the kernel pushes back. Returns 0 or -errno. */
static int pump(tcp_run *t, uint32_t i, char *err, size_t errlen) {
    tx_stream *x = &t->tx[i];
    while (x->off < x->len) {
        ssize_t n = send(x->fd, x->buf + x->off, x->len - x->off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == ENOBUFS)) return 0;
        if (n < 0) {
            int rc = -errno;
            nmp_seterr(err, errlen, "tcp stream %u to %s:%d: send: %s", i, t->spec->host, t->cl.udp_port,
                       strerror(errno));
            int wrc = nmp_client_watch(&t->cl, 1, err, errlen); /* the responder is gone: say so */
            return wrc < 0 ? wrc : rc;
        }
        x->off += (size_t)n;
        x->bytes_sent += (uint64_t)n;
    }
    return 0;
}

/* The sending loop; ends at the duration, the byte limit or a cancel,
 * always at a message boundary. Returns 0 or -errno. */
static int send_loop(tcp_run *t, char *err, size_t errlen) {
    const nmp_tcp_spec *sp = t->spec;
    uint32_t ns = sp->streams;
    nmp_monotime_ns end = t->t0 + sp->duration_ns, next_sample = t->t0 + sp->sample_ns;
    /* CBR sends every message its schedule holds, late ones too: the
     * lateness of a message held back by a retransmission at the end is
     * what the test measures, and the count stays the schedule's. A path
     * that blocks for good still ends the test a bounded time after its end:
     * the lesser of 1 s and half the wait the responder grants after it. */
    uint64_t grace = sp->timeout_ns / 2 < CBR_GRACE_NS ? sp->timeout_ns / 2 : CBR_GRACE_NS;
    nmp_monotime_ns stop_at = sp->cbr ? end + grace : end;
    int stopping = 0, rc;
    for (;;) {
        nmp_monotime_ns now = nmp_mono_now();
        if (!stopping && (now >= stop_at || nmp_control_cancelled(t->ctl))) {
            stopping = 1;
            for (uint32_t i = 0; i < ns; i++) { /* finish the message being written, drop the rest */
                tx_stream *x = &t->tx[i];
                size_t keep = (x->off + sp->msg_size - 1) / sp->msg_size * sp->msg_size;
                if (keep < x->len) x->len = keep;
            }
        }
        if (now >= next_sample) {
            sample_info(t, now);
            next_sample += sp->sample_ns;
            if (next_sample <= now) next_sample = now + sp->sample_ns;
        }
        progress(t, now, 0);
        if ((rc = nmp_client_watch(&t->cl, 0, err, errlen)) < 0) return rc;
        struct pollfd p[NMP_TCP_MAX_STREAMS];
        uint32_t map[NMP_TCP_MAX_STREAMS], np = 0;
        nmp_monotime_ns wake = stopping ? now + 100000000ull : (stop_at < next_sample ? stop_at : next_sample);
        int more = 0;
        for (uint32_t i = 0; i < ns; i++) {
            tx_stream *x = &t->tx[i];
            if (x->off == x->len && x->len > 0) { /* staged messages written */
                x->msgs_sent += x->len / sp->msg_size;
                x->len = x->off = 0;
                if (sp->interval_ns && !sp->cbr) x->next_due = now + sp->interval_ns;
            }
            if (x->len == 0 && !stopping) {
                if (now >= x->next_due) {
                    if (stage(t, i, now) == 0) continue; /* byte limit: this stream is done */
                } else {
                    more = 1;
                    if (x->next_due < wake) wake = x->next_due;
                    continue;
                }
            }
            if (x->off < x->len) {
                if ((rc = pump(t, i, err, errlen)) < 0) return rc;
                if (x->off < x->len) {
                    map[np] = i;
                    p[np++] = (struct pollfd){.fd = x->fd, .events = POLLOUT};
                } else {
                    more = 1;
                    wake = now; /* written at once: come back for the next message */
                }
            }
        }
        if (np == 0 && !more && (stopping || sp->bytes || sp->cbr)) {
            /* nothing staged and nothing due: the byte limit, the CBR schedule or the stop ends the test */
            int pending = 0;
            for (uint32_t i = 0; i < ns; i++) pending |= t->tx[i].len > 0;
            if (!pending) return 0;
        }
        now = nmp_mono_now();
        if (np == 0) {
            /* a long gap (spaced or CBR) is slept in slices: the control connection is watched */
            if (wake > now + NMP_CLIENT_WATCH_NS) wake = now + NMP_CLIENT_WATCH_NS;
            if (wake > now) nmp_sleep_until(wake, SPIN_NS);
            continue;
        }
        int ms = wake > now ? (int)((wake - now) / 1000000) : 0;
        if (ms > 100) ms = 100;
        int r = poll(p, np, ms);
        if (r < 0 && errno != EINTR) {
            rc = -errno;
            nmp_seterr(err, errlen, "tcp: poll: %s", strerror(errno));
            return rc;
        }
        for (uint32_t j = 0; r > 0 && j < np; j++) {
            if (p[j].revents & (POLLERR | POLLHUP)) {
                if ((rc = nmp_client_watch(&t->cl, 1, err, errlen)) < 0) return rc; /* the responder is gone: say so */
                int soerr = 0;
                socklen_t sl = sizeof(soerr);
                getsockopt(p[j].fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
                nmp_seterr(err, errlen, "tcp stream %u to %s:%d: %s", map[j], sp->host, t->cl.udp_port,
                           strerror(soerr ? soerr : ECONNRESET));
                return soerr ? -soerr : -ECONNRESET;
            }
        }
    }
}

/* Shuts each stream down for writing and waits until every byte is
 * acknowledged (SIOCOUTQ == 0) or the deadline; keeps sampling, and
 * watching the control connection (*rc < 0 with err set: the responder
 * went away). Returns the monotonic time when the last byte was acknowledged. */
static nmp_monotime_ns wait_acked(tcp_run *t, nmp_monotime_ns deadline, int *rc, char *err, size_t errlen) {
    const nmp_tcp_spec *sp = t->spec;
    nmp_monotime_ns next_sample = nmp_mono_now() + sp->sample_ns;
    for (uint32_t i = 0; i < sp->streams; i++) shutdown(t->tx[i].fd, SHUT_WR);
    for (;;) {
        nmp_monotime_ns now = nmp_mono_now();
        int left = 0;
        for (uint32_t i = 0; i < sp->streams; i++) {
            int q = 0;
            if (ioctl(t->tx[i].fd, SIOCOUTQ, &q) == 0 && q > 0) left = 1;
        }
        if (!left || now >= deadline) return now;
        if ((*rc = nmp_client_watch(&t->cl, 0, err, errlen)) < 0) return now;
        if (now >= next_sample) {
            sample_info(t, now);
            next_sample = now + sp->sample_ns;
        }
        nmp_sleep_until(now + 200000, 0);
    }
}

static uint64_t get64be(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

static uint64_t get_or0(const nmp_ctl_msg *m, const char *key) {
    uint64_t v = 0;
    if (nmp_ctl_get_u64(m, key, 0, UINT64_MAX, &v, NULL, 0) < 0) v = 0;
    return v;
}

static double mbps(uint64_t bytes, double ns) { return ns > 0 ? (double)bytes * 8e3 / ns : NAN; }

/* Checks and merges the receiver's DATA payload into res. */
static int merge_receiver(tcp_run *t, const nmp_ctl_msg *m, const uint8_t *b, size_t len, uint32_t bins,
                          uint32_t max_records, char *err, size_t errlen) {
    nmp_tcp_result *res = t->res;
    uint32_t ns = t->spec->streams;
    uint64_t streams = 0, nb = 0, records = 0;
    if (nmp_ctl_get_u64(m, "streams", ns, ns, &streams, NULL, 0) < 0 ||
        nmp_ctl_get_u64(m, "bins", bins, bins, &nb, NULL, 0) < 0 ||
        nmp_ctl_get_u64(m, "records", 0, max_records, &records, NULL, 0) < 0 ||
        len != (size_t)ns * NMP_TCP_STREAM_REC + (size_t)ns * bins * 8 + (size_t)records * NMP_REC_SIZE) {
        nmp_seterr(err, errlen, "responder %s:%d: tcp results do not match the session (streams %u, bins %u)",
                   t->spec->host, t->spec->port, ns, bins);
        return -EPROTO;
    }
    res->series_start_wall = (nmp_walltime_ns)get_or0(m, "start_wall");
    res->records_over = get_or0(m, "over");
    res->refused = (uint32_t)get_or0(m, "refused");
    const uint8_t *q = b;
    nmp_walltime_ns first = 0, last = 0;
    for (uint32_t i = 0; i < ns; i++, q += NMP_TCP_STREAM_REC) {
        nmp_tcp_stream_result *s = &res->per[i];
        s->bytes_received = get64be(q);
        s->messages_received = get64be(q + 8);
        s->first_arrival_wall = (nmp_walltime_ns)get64be(q + 16);
        s->last_arrival_wall = (nmp_walltime_ns)get64be(q + 24);
        s->recv_mbps = mbps(s->bytes_received, (double)(s->last_arrival_wall - s->first_arrival_wall));
        res->bytes_received += s->bytes_received;
        if (s->first_arrival_wall && (first == 0 || s->first_arrival_wall < first)) first = s->first_arrival_wall;
        if (s->last_arrival_wall > last) last = s->last_arrival_wall;
    }
    res->receiver_seconds = first ? (double)(last - first) / 1e9 : 0;
    res->recv_mbps = mbps(res->bytes_received, (double)(last - first));
    for (size_t i = 0; i < (size_t)ns * bins; i++, q += 8) res->series[i] = get64be(q);
    res->nmsgs = (uint32_t)records;
    res->late_min_ns = res->late_median_ns = res->late_p99_ns = res->late_max_ns = NAN;
    if (records == 0) return 0;
    res->msg_stream = malloc(records * sizeof(uint32_t));
    res->msg_seq = malloc(records * sizeof(uint32_t));
    res->msg_sched_wall = malloc(records * sizeof(nmp_walltime_ns));
    res->msg_arrival_wall = malloc(records * sizeof(nmp_walltime_ns));
    res->msg_late_ns = malloc(records * sizeof(int64_t));
    double *late = malloc(records * sizeof(double));
    if (!res->msg_stream || !res->msg_seq || !res->msg_sched_wall || !res->msg_arrival_wall || !res->msg_late_ns ||
        !late) {
        free(late);
        nmp_seterr(err, errlen, "tcp: out of memory for %llu message records", (unsigned long long)records);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < records; i++, q += NMP_REC_SIZE) {
        nmp_tcp_rec r;
        nmp_tcp_rec_decode(q, &r);
        res->msg_stream[i] = r.stream;
        res->msg_seq[i] = r.seq;
        res->msg_sched_wall[i] = r.sched_wall;
        res->msg_arrival_wall[i] = r.arrival_wall;
        res->msg_late_ns[i] = r.arrival_wall - r.sched_wall;
        late[i] = (double)res->msg_late_ns[i];
    }
    nmp_summary sum;
    if (nmp_stats_summarize(late, records, &sum) == 0) {
        res->late_min_ns = sum.min;
        res->late_max_ns = sum.max;
        res->late_median_ns = sum.median;
        nmp_stats_quantile(late, records, 0.99, &res->late_p99_ns);
    }
    free(late);
    return 0;
}

int nmp_tcp_run(const nmp_tcp_spec *spec_in, const nmp_control *ctl, nmp_tcp_result *res, char *err,
                size_t errlen) {
    char req[NMP_CTL_MAXLINE + 1];
    uint8_t *blob = NULL;
    size_t bloblen = 0;
    int rc;
    memset(res, 0, sizeof(*res));
    res->late_min_ns = res->late_median_ns = res->late_p99_ns = res->late_max_ns = NAN;
    if ((rc = check_spec(spec_in, err, errlen)) < 0) return rc;
    nmp_tcp_spec spec = *spec_in;
    if (spec.sample_ns == 0) spec.sample_ns = 100000000ull;
    if (spec.sample_ns > spec.duration_ns) spec.sample_ns = spec.duration_ns;
    if (spec.timeout_ns == 0) spec.timeout_ns = 5000000000ull;
    tcp_run *t = calloc(1, sizeof(*t));
    if (t == NULL) return -ENOMEM;
    t->cl.ctl = t->cl.udp = -1;
    for (int i = 0; i < NMP_TCP_MAX_STREAMS; i++) t->tx[i].fd = -1;
    t->spec = &spec;
    t->ctl = ctl;
    t->res = res;
    res->streams = spec.streams;
    res->msg_size = spec.msg_size;
    res->remote_port = spec.port;
    /* bins cover the duration plus the acknowledgement wait, within the protocol's limits */
    uint64_t want = (spec.duration_ns + spec.timeout_ns) / spec.sample_ns + 2;
    uint64_t maxb = NMP_TCP_MAX_CELLS / spec.streams;
    if (maxb > NMP_TCP_MAX_BINS) maxb = NMP_TCP_MAX_BINS;
    uint32_t bins = (uint32_t)(want < maxb ? want : maxb);
    res->bins = bins;
    res->bin_ns = spec.sample_ns;
    res->series = calloc((size_t)spec.streams * bins, sizeof(*res->series));
    if (res->series == NULL) {
        rc = -ENOMEM;
        goto error;
    }
    uint64_t timeout_ms = (spec.timeout_ns + 999999) / 1000000;
    rc = nmp_ctl_format(req, sizeof(req), NMP_CTL_SESSION,
                        "kind=tcp streams=%u size=%u interval_ns=%llu duration_ms=%llu window=%u bins=%u bin_ns=%llu "
                        "cbr=%d timeout_ms=%llu",
                        spec.streams, spec.msg_size, (unsigned long long)spec.interval_ns,
                        (unsigned long long)((spec.duration_ns + 999999) / 1000000), spec.window, bins,
                        (unsigned long long)spec.sample_ns, spec.cbr ? 1 : 0, (unsigned long long)timeout_ms);
    if (rc < 0) {
        nmp_seterr(err, errlen, "tcp: session request too long");
        goto error;
    }
    rc = nmp_client_open_ctl(&t->cl, spec.host, spec.port, spec.connect_timeout_ms, ctl ? ctl->cancel : NULL, req,
                             spec.key_file, err, errlen);
    if (rc == -ECANCELED) {
        /* cancelled before the responder answered SESSION: nothing was sent;
         * the result keeps its empty series (readers never see a dangling array) */
        res->start_wall = res->end_wall = nmp_wall_now();
        res->send_mbps = res->recv_mbps = NAN;
        for (uint32_t i = 0; i < spec.streams; i++) res->per[i].send_mbps = res->per[i].recv_mbps = NAN;
        nmp_seterr(err, errlen, "tcp %s:%d: cancelled before the session started", spec.host, spec.port);
        goto end;
    }
    if (rc < 0) goto error;
    nmp_addr_str((struct sockaddr *)&t->cl.peer, res->remote_addr, sizeof(res->remote_addr));
    uint32_t k = spec.cbr || spec.interval_ns ? 1 : (uint32_t)(STAGE_BYTES / spec.msg_size);
    if (k < 1) k = 1;
    for (uint32_t i = 0; i < spec.streams; i++) {
        t->tx[i].cap = (size_t)k * spec.msg_size;
        t->tx[i].buf = calloc(1, t->tx[i].cap);
        if (t->tx[i].buf == NULL) {
            rc = -ENOMEM;
            nmp_seterr(err, errlen, "tcp: out of memory for stream buffers");
            goto error;
        }
        if ((rc = connect_stream(t, i, err, errlen)) < 0) goto error;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    getsockname(t->tx[0].fd, (struct sockaddr *)&ss, &sl);
    nmp_addr_str((struct sockaddr *)&ss, res->local_addr, sizeof(res->local_addr));
    socklen_t ccl = sizeof(res->congestion) - 1;
    if (getsockopt(t->tx[0].fd, IPPROTO_TCP, TCP_CONGESTION, res->congestion, &ccl) < 0) res->congestion[0] = '\0';

    res->start_wall = t->wall0 = nmp_wall_now();
    t->t0 = nmp_mono_now();
    for (uint32_t i = 0; i < spec.streams; i++) t->tx[i].next_due = t->t0;
    sample_info(t, t->t0);
    if ((rc = send_loop(t, err, errlen)) < 0) goto error;
    int was_cancelled = nmp_control_cancelled(t->ctl);
    /* a CBR schedule that ran late still waits from its end: the responder's own
     * wait runs from there too */
    nmp_monotime_ns stopped = nmp_mono_now(), sched_end = t->t0 + spec.duration_ns;
    nmp_monotime_ns acked =
        wait_acked(t, (spec.cbr && stopped > sched_end ? sched_end : stopped) + spec.timeout_ns, &rc, err, errlen);
    if (rc < 0) goto error;
    sample_info(t, nmp_mono_now());
    progress(t, nmp_mono_now(), 1);
    res->sender_seconds = (double)(acked - t->t0) / 1e9;
    for (uint32_t i = 0; i < spec.streams; i++) {
        nmp_tcp_stream_result *s = &res->per[i];
        s->bytes_sent = t->tx[i].bytes_sent;
        s->messages_sent = t->tx[i].msgs_sent;
        s->send_mbps = mbps(s->bytes_sent, (double)(acked - t->t0));
        res->bytes_sent += s->bytes_sent;
        res->total_retrans += s->total_retrans;
    }
    res->send_mbps = mbps(res->bytes_sent, (double)(acked - t->t0));

    nmp_ctl_msg data;
    uint32_t max_records = spec.cbr ? (uint32_t)((uint64_t)spec.streams *
                                                 (spec.duration_ns / spec.interval_ns + 2) > 100000000u
                                                     ? 100000000u
                                                     : (uint64_t)spec.streams * (spec.duration_ns / spec.interval_ns + 2))
                                    : 0;
    uint64_t max_bytes = (uint64_t)spec.streams * NMP_TCP_STREAM_REC + (uint64_t)spec.streams * bins * 8 +
                         (uint64_t)max_records * NMP_REC_SIZE;
    if ((rc = nmp_client_results_raw(&t->cl, max_bytes, &data, &blob, &bloblen, err, errlen)) < 0) goto error;
    if ((rc = merge_receiver(t, &data, blob, bloblen, bins, max_records, err, errlen)) < 0) goto error;
    if ((rc = nmp_client_end(&t->cl, NULL, NULL, err, errlen)) < 0) goto error;
    res->end_wall = nmp_wall_now();
    if (was_cancelled) {
        rc = -ECANCELED;
        nmp_seterr(err, errlen, "tcp %s:%d: cancelled after %.3f s", spec.host, spec.port,
                   (double)(nmp_wall_now() - res->start_wall) / 1e9);
    }
    goto end;
error:
    nmp_tcp_result_free(res);
end:
    for (uint32_t i = 0; i < NMP_TCP_MAX_STREAMS; i++) {
        nmp_net_close(&t->tx[i].fd);
        free(t->tx[i].buf);
    }
    nmp_client_close(&t->cl);
    free(blob);
    free(t);
    return rc;
}

/* ---- the "tcp" kind: spec table and packed result (nmp_kind.h) ---- */

/* The kind's spec: the engine's plus the CLI's --cbr-us, which sets both the
 * period and the constant-bit-rate mode (tcp_check folds it in). */
typedef struct tcp_kind_spec {
    nmp_tcp_spec t;                  /* what nmp_tcp_run gets */
    uint64_t cbr_ns;                 /* nonzero: constant bit rate with this period (overrides intervalNs) */
} tcp_kind_spec;

/* Defaults are the CLI's: one stream of 128 KiB messages for 10 s, 100 ms samples. */
static const nmp_spec_field tcp_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(tcp_kind_spec, t.host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "responder name or address (IPv4 or IPv6)"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(tcp_kind_spec, t.port), .lo = 1, .hi = 65535,
     .def = NMP_DEFAULT_PORT, .cli = "port", .cli_short = 'p', .help = "responder control port"},
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(tcp_kind_spec, t.key_file), .hi = 4095, .cli = "key-file",
     .help = "file with the responder's shared key (mode 600), for a responder started with --key-file"},
    {.name = "streams", .type = NMP_S_U32, .offset = offsetof(tcp_kind_spec, t.streams), .lo = 1,
     .hi = NMP_TCP_MAX_STREAMS, .def = 1, .cli = "streams", .cli_short = 'P', .help = "parallel TCP connections"},
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(tcp_kind_spec, t.msg_size), .lo = NMP_TCP_MSG_HDR,
     .hi = NMP_TCP_MSG_MAX, .def = 131072, .cli = "size", .cli_short = 's', .help = "message size, bytes"},
    {.name = "intervalNs", .type = NMP_S_U64, .offset = offsetof(tcp_kind_spec, t.interval_ns), .hi = 60e9,
     .cli = "interval-us", .cli_short = 'i', .cli_scale = 1000,
     .help = "spacing between a stream's messages in microseconds (0 = back to back)"},
    {.name = "cbr", .type = NMP_S_BOOL, .offset = offsetof(tcp_kind_spec, t.cbr), .hi = 1,
     .help = "constant bit rate: intervalNs is the period (needs intervalNs > 0)"},
    {.name = "cbrNs", .type = NMP_S_U64, .offset = offsetof(tcp_kind_spec, cbr_ns), .hi = 60e9, .cli = "cbr-us",
     .cli_scale = 1000, .help = "constant bit rate period in microseconds (sets intervalNs and cbr)"},
    {.name = "window", .type = NMP_S_U32, .offset = offsetof(tcp_kind_spec, t.window), .hi = NMP_TCP_WINDOW_MAX,
     .cli = "window", .cli_short = 'w', .help = "socket buffers, bytes (0 = autotuning, else >= 2048)"},
    {.name = "durationNs", .type = NMP_S_U64, .offset = offsetof(tcp_kind_spec, t.duration_ns), .lo = 1e6,
     .hi = 3600e9, .def = 10e9, .cli = "duration-s", .cli_short = 'd', .cli_scale = 1e9, .help = "sending time"},
    {.name = "congestion", .type = NMP_S_STR, .offset = offsetof(tcp_kind_spec, t.congestion),
     .hi = NMP_TCP_CC_MAX - 1, .cli = "congestion", .cli_short = 'C',
     .help = "congestion control of every stream (cubic, bbr, reno, ...; default: the system's)"},
    {.name = "bytes", .type = NMP_S_U64, .offset = offsetof(tcp_kind_spec, t.bytes), .hi = 1e18, .cli = "bytes",
     .help = "stop after this many bytes over all streams (0 = no limit)"},
    {.name = "sampleNs", .type = NMP_S_U64, .offset = offsetof(tcp_kind_spec, t.sample_ns), .lo = 1e6, .hi = 60e9,
     .def = 100e6, .cli = "sample-ms", .cli_scale = 1e6, .help = "time-series bin and TCP_INFO interval"},
    /* 0 is the engine's 5 s */
    {.name = "timeoutNs", .type = NMP_S_U64, .offset = offsetof(tcp_kind_spec, t.timeout_ns), .hi = 60e9,
     .def = 5e9, .cli = "timeout-ms", .cli_short = 't', .cli_scale = 1e6,
     .help = "wait for acknowledgement and the receiver's results"},
};

static int tcp_check(void *sp, char *err, size_t errlen) {
    tcp_kind_spec *s = sp;
    if (s->cbr_ns > 0) {
        s->t.interval_ns = s->cbr_ns;
        s->t.cbr = 1;
    }
    if (s->t.cbr && s->t.interval_ns == 0) {
        nmp_seterr(err, errlen, "tcp: constant bit rate needs a period (intervalNs > 0)");
        return -EINVAL;
    }
    if (s->t.window != 0 && s->t.window < 2048) {
        nmp_seterr(err, errlen, "tcp: window %u is outside 0 or 2048..%u", s->t.window, NMP_TCP_WINDOW_MAX);
        return -EINVAL;
    }
    return 0;
}

/* Packs the TCP_INFO samples as columns "tcpInfo.<key>". */
static void tcp_pack_samples(nmp_pack *out, const nmp_tcp_result *r, uint32_t n) {
    const nmp_tcp_info_sample *s = r->samples;
    const size_t st = sizeof(*s);
    nmp_pack_col_i64(out, "tcpInfo.tNs", s, n, st, offsetof(nmp_tcp_info_sample, t_ns), NMP_C_U64);
    nmp_pack_col_i64(out, "tcpInfo.stream", s, n, st, offsetof(nmp_tcp_info_sample, stream), NMP_C_U32);
    nmp_pack_col_i64(out, "tcpInfo.cwnd", s, n, st, offsetof(nmp_tcp_info_sample, cwnd), NMP_C_U32);
    nmp_pack_col_i64(out, "tcpInfo.mss", s, n, st, offsetof(nmp_tcp_info_sample, mss), NMP_C_U32);
    nmp_pack_col_i64(out, "tcpInfo.srttUs", s, n, st, offsetof(nmp_tcp_info_sample, srtt_us), NMP_C_U32);
    nmp_pack_col_i64(out, "tcpInfo.rttvarUs", s, n, st, offsetof(nmp_tcp_info_sample, rttvar_us), NMP_C_U32);
    nmp_pack_col_i64(out, "tcpInfo.retransmits", s, n, st, offsetof(nmp_tcp_info_sample, retransmits), NMP_C_U32);
    nmp_pack_col_i64(out, "tcpInfo.totalRetrans", s, n, st, offsetof(nmp_tcp_info_sample, total_retrans), NMP_C_U32);
    nmp_pack_col_i64(out, "tcpInfo.pacingRateBytesPerSecond", s, n, st, offsetof(nmp_tcp_info_sample, pacing_rate),
                     NMP_C_U64);
    nmp_pack_col_i64(out, "tcpInfo.deliveryRateBytesPerSecond", s, n, st,
                     offsetof(nmp_tcp_info_sample, delivery_rate), NMP_C_U64);
    nmp_pack_col_i64(out, "tcpInfo.bytesAcked", s, n, st, offsetof(nmp_tcp_info_sample, bytes_acked), NMP_C_U64);
    /* the CLI's bit rates: bytes/s * 8 as unsigned arithmetic, as it always printed them */
    int64_t *bps = malloc((n ? n : 1) * 2 * sizeof(*bps));
    if (bps == NULL) {
        if (out->failed == 0) out->failed = -ENOMEM;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        bps[i] = (int64_t)(s[i].pacing_rate * 8);
        bps[n + i] = (int64_t)(s[i].delivery_rate * 8);
    }
    nmp_pack_i64s(out, "tcpInfo.pacingRateBps", bps, n);
    nmp_pack_i64s(out, "tcpInfo.deliveryRateBps", bps + n, n);
    free(bps);
}

static int tcp_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    const tcp_kind_spec *spec = sp;
    nmp_tcp_result r;
    memset(&r, 0, sizeof(r));
    int rc = nmp_tcp_run(&spec->t, ctl, &r, err, errlen);
    if (rc < 0 && rc != -ECANCELED) goto end;
    /* only what the engine holds: a series when allocated, samples and messages when their arrays exist */
    uint32_t ns = r.streams < NMP_TCP_MAX_STREAMS ? r.streams : NMP_TCP_MAX_STREAMS;
    uint32_t nbins = r.series != NULL ? r.bins : 0;
    uint32_t nsamples = r.samples != NULL ? r.nsamples : 0;
    uint32_t nmsgs =
        r.msg_stream && r.msg_seq && r.msg_sched_wall && r.msg_arrival_wall && r.msg_late_ns ? r.nmsgs : 0;
    nmp_pack_bool(out, "cancelled", rc == -ECANCELED);
    nmp_pack_str(out, "localAddress", r.local_addr);
    nmp_pack_str(out, "remoteAddress", r.remote_addr);
    nmp_pack_i64(out, "remotePort", r.remote_port);
    nmp_pack_str(out, "congestionControl", r.congestion);
    nmp_pack_i64(out, "streams", ns);
    nmp_pack_i64(out, "messageSize", r.msg_size);
    nmp_pack_i64(out, "bytesSent", (int64_t)r.bytes_sent);
    nmp_pack_i64(out, "bytesReceived", (int64_t)r.bytes_received);
    nmp_pack_i64(out, "totalRetransmits", r.total_retrans);
    nmp_pack_i64(out, "refusedConnections", r.refused);
    nmp_pack_f64(out, "senderSeconds", r.sender_seconds);
    nmp_pack_f64(out, "receiverSeconds", r.receiver_seconds);
    nmp_pack_f64(out, "sendMbps", r.send_mbps);
    nmp_pack_f64(out, "throughputMbps", r.recv_mbps);
    nmp_pack_f64(out, "latenessMinMs", r.late_min_ns / 1e6);
    nmp_pack_f64(out, "latenessMedianMs", r.late_median_ns / 1e6);
    nmp_pack_f64(out, "latenessP99Ms", r.late_p99_ns / 1e6);
    nmp_pack_f64(out, "latenessMaxMs", r.late_max_ns / 1e6);
    nmp_pack_i64(out, "cbrMessages", nmsgs);
    nmp_pack_i64(out, "recordsOver", (int64_t)r.records_over);
    nmp_pack_i64(out, "startEpochNanos", r.start_wall);
    nmp_pack_i64(out, "endEpochNanos", r.end_wall);
    const size_t st = sizeof(nmp_tcp_stream_result);
    nmp_pack_col_i64(out, "perStream.bytesSent", r.per, ns, st, offsetof(nmp_tcp_stream_result, bytes_sent), NMP_C_U64);
    nmp_pack_col_i64(out, "perStream.bytesReceived", r.per, ns, st, offsetof(nmp_tcp_stream_result, bytes_received),
                     NMP_C_U64);
    nmp_pack_col_i64(out, "perStream.messagesSent", r.per, ns, st, offsetof(nmp_tcp_stream_result, messages_sent),
                     NMP_C_U64);
    nmp_pack_col_i64(out, "perStream.messagesReceived", r.per, ns, st,
                     offsetof(nmp_tcp_stream_result, messages_received), NMP_C_U64);
    nmp_pack_col_f64(out, "perStream.sendMbps", r.per, ns, st, offsetof(nmp_tcp_stream_result, send_mbps), 1);
    nmp_pack_col_f64(out, "perStream.throughputMbps", r.per, ns, st, offsetof(nmp_tcp_stream_result, recv_mbps), 1);
    nmp_pack_col_i64(out, "perStream.retransmits", r.per, ns, st, offsetof(nmp_tcp_stream_result, total_retrans),
                     NMP_C_U32);
    nmp_pack_col_i64(out, "perStream.busyUs", r.per, ns, st, offsetof(nmp_tcp_stream_result, busy_us), NMP_C_U64);
    nmp_pack_col_i64(out, "perStream.rwndLimitedUs", r.per, ns, st, offsetof(nmp_tcp_stream_result, rwnd_limited_us),
                     NMP_C_U64);
    nmp_pack_col_i64(out, "perStream.sndbufLimitedUs", r.per, ns, st,
                     offsetof(nmp_tcp_stream_result, sndbuf_limited_us), NMP_C_U64);
    nmp_pack_col_i64(out, "perStream.srttUs", r.per, ns, st, offsetof(nmp_tcp_stream_result, final_srtt_us),
                     NMP_C_U32);
    nmp_pack_col_i64(out, "perStream.firstArrivalEpochNanos", r.per, ns, st,
                     offsetof(nmp_tcp_stream_result, first_arrival_wall), NMP_C_I64);
    nmp_pack_col_i64(out, "perStream.lastArrivalEpochNanos", r.per, ns, st,
                     offsetof(nmp_tcp_stream_result, last_arrival_wall), NMP_C_I64);
    /* receiver series: stream s, bin b at s * bins + b */
    nmp_pack_i64(out, "bins", nbins);
    nmp_pack_i64(out, "binNanos", (int64_t)r.bin_ns);
    nmp_pack_i64(out, "seriesStartEpochNanos", r.series_start_wall);
    nmp_pack_i64s(out, "seriesBytes", (const int64_t *)r.series, (size_t)ns * nbins);
    tcp_pack_samples(out, &r, nsamples);
    nmp_pack_col_i64(out, "messages.stream", r.msg_stream, nmsgs, sizeof(uint32_t), 0, NMP_C_U32);
    nmp_pack_col_i64(out, "messages.seq", r.msg_seq, nmsgs, sizeof(uint32_t), 0, NMP_C_U32);
    nmp_pack_i64s(out, "messages.scheduledEpochNanos", r.msg_sched_wall, nmsgs);
    nmp_pack_i64s(out, "messages.arrivalEpochNanos", r.msg_arrival_wall, nmsgs);
    nmp_pack_i64s(out, "messages.latenessNs", r.msg_late_ns, nmsgs);
end:
    nmp_tcp_result_free(&r);
    return rc;
}

const nmp_kind nmp_kind_tcp = {
    .name = "tcp",
    .summary = "TCP throughput (memory to memory) to an nmprobe-responder",
    .fields = tcp_fields,
    .nfields = sizeof(tcp_fields) / sizeof(tcp_fields[0]),
    .spec_size = sizeof(tcp_kind_spec),
    .check = tcp_check,
    .run = tcp_kind_run,
};
