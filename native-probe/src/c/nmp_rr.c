/* nmp_rr.c -- the request-response latency test (UDPmon's latency test):
 * paced UDP request frames, each reflected by the responder; per-frame RTT
 * from the monotonic clock, loss, duplicates, reordering, reply TTL.
 *
 * While waiting for the next send time the loop keeps reading replies, so
 * a reply is stamped when it arrives rather than after a sleep.
 *
 * Each answered frame also gets its host part: this sender's send call when
 * it was preempted (took NMP_RR_STALL_NS or more) plus the turnaround the reflector wrote into its reply (the
 * time from its kernel receive stamp to its send). On a busy host either
 * side can be preempted mid-round-trip; that time is then reported as a
 * host stall, not left in the path's delay (issue 25).
 *
 * Closed loop (ping-pong): a frame leaves only when the one before it was
 * answered (or waited for timeout_ns), as sockperf's ping-pong does, so no
 * two frames are ever in flight. The responder is told interval + timeout
 * per frame: the longest an honest closed loop can take, so its deadline
 * and the pace it checks hold for any answered or lost frame. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "nmprobe.h"
#include "nmp_rr.h"
#include "nmp_client.h"
#include "nmp_kind.h"
#include "nmp_be.h"

#define SPIN_NS 60000ull            /* busy-wait the last 60 us before a send */
#define PROGRESS_NS 100000000ull    /* progress callback period */

/* Per-run state of one rr test; lives on the stack of nmp_rr_run. */
typedef struct rr_run {
    const nmp_rr_spec *spec;        /* parameters */
    const nmp_control *ctl;         /* cancel flag and progress, may be NULL */
    nmp_rr_result *res;             /* result being filled */
    nmp_client cl;                  /* session sockets */
    nmp_monotime_ns *mono_send;     /* monotonic send time per seq, 0 = not sent */
    int64_t *send_call_ns;          /* how long each frame's send call took */
    uint32_t max_seq;               /* highest seq answered so far */
    int any_reply;                  /* nonzero after the first valid reply */
    nmp_monotime_ns next_progress;  /* when progress may be reported next */
    uint8_t buf[NMP_FRAME_MAX + 64];/* send and receive buffer */
} rr_run;

static void progress(rr_run *t, int force) {
    nmp_monotime_ns now = nmp_mono_now();
    if (!t->ctl || !t->ctl->progress || (!force && now < t->next_progress)) return;
    t->next_progress = now + PROGRESS_NS;
    t->ctl->progress(t->ctl->progress_ctx, t->res->sent, t->res->requested);
}

/* Reads every reply waiting on the socket (non-blocking). */
/* When the reply reached this host: the kernel's receive stamp (SO_TIMESTAMPNS),
 * moved onto the monotonic clock (nmp_mono_of_wall: bracketed, never early).
 * Reading the clock after recvmsg instead counts how late this thread woke, which
 * grows with how long it slept: a tail of milliseconds at short spacings, and a
 * steeper latency-vs-size line, as larger frames sleep longer. Without a stamp,
 * or across a clock step (a gap outside 0..1 s), the read time stands. */
static nmp_monotime_ns arrival_mono(struct msghdr *msg, nmp_monotime_ns read_mono) {
    nmp_walltime_ns kernel = nmp_net_cmsg_stamp(msg);
    if (kernel == 0) return read_mono;
    nmp_monotime_ns a = nmp_mono_of_wall(kernel, read_mono);
    return a < read_mono ? a : read_mono; /* it arrived before it was read */
}

static void drain_replies(rr_run *t) {
    nmp_rr_result *res = t->res;
    for (;;) {
        char cbuf[256];
        struct iovec iov = {.iov_base = t->buf, .iov_len = sizeof(t->buf)};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        ssize_t n = recvmsg(t->cl.udp, &msg, MSG_DONTWAIT);
        nmp_monotime_ns now = nmp_mono_now();
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return; /* EAGAIN, or an ICMP error queued on the socket */
        now = arrival_mono(&msg, now);
        nmp_frame_hdr h;
        if (nmp_frame_decode(t->buf, (size_t)n, &h) < 0 || h.type != NMP_FRAME_RR_REPLY ||
            h.cookie != t->cl.cookie || h.seq >= res->requested || t->mono_send[h.seq] == 0) {
            res->invalid++;
            continue;
        }
        if (res->rtt_ns[h.seq] >= 0) {
            res->duplicates++;
            continue;
        }
        int64_t rtt = (int64_t)(now - t->mono_send[h.seq]);
        /* a send call this long was preempted; a shorter one is the kernel's own
         * transmit path, which belongs to the round trip as sockperf counts it */
        int64_t host = t->send_call_ns[h.seq] >= NMP_RR_STALL_NS ? t->send_call_ns[h.seq] : 0;
        if ((h.flags & NMP_FRAME_F_TURNAROUND) && n >= NMP_FRAME_TURNAROUND_OFF + 4) {
            host += (int64_t)get32(t->buf + NMP_FRAME_TURNAROUND_OFF);
            res->turnaround_known++;
        }
        res->rtt_ns[h.seq] = rtt;
        res->host_ns[h.seq] = host < rtt ? host : rtt; /* a reflector cannot have held it longer */
        res->bytes[h.seq] = (int32_t)n;
        res->ttl[h.seq] = nmp_net_cmsg_ttl(&msg);
        res->received++;
        if (t->any_reply && h.seq < t->max_seq) res->out_of_order++;
        if (!t->any_reply || h.seq > t->max_seq) t->max_seq = h.seq;
        t->any_reply = 1;
    }
}

/* Receives replies until 'deadline', or until every frame sent was
 * answered (stop_when_all), or frame answer_of was (>= 0). Sleeps in
 * ppoll while far from the deadline and spins the last SPIN_NS. Watches
 * the control connection meanwhile: returns -errno with err set when the
 * responder went away or ended the session, else 0. */
static int wait_for(rr_run *t, nmp_monotime_ns deadline, int stop_when_all, int64_t answer_of, char *err,
                    size_t errlen) {
    struct pollfd p = {.fd = t->cl.udp, .events = POLLIN};
    for (;;) {
        drain_replies(t);
        progress(t, 0);
        int rc = nmp_client_watch(&t->cl, 0, err, errlen);
        if (rc < 0) return rc;
        if (nmp_control_cancelled(t->ctl) || (stop_when_all && t->res->received >= t->res->sent) ||
            (answer_of >= 0 && t->res->rtt_ns[answer_of] >= 0))
            return 0;
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= deadline) return 0;
        uint64_t rem = deadline - now;
        if (rem > SPIN_NS) {
            uint64_t ns = rem - SPIN_NS / 2;
            if (ns > 50000000ull) ns = 50000000ull; /* re-check cancel every 50 ms */
            struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
            ppoll(&p, 1, &ts, NULL);
        }
    }
}

static int wait_receiving(rr_run *t, nmp_monotime_ns deadline, int stop_when_all, char *err, size_t errlen) {
    return wait_for(t, deadline, stop_when_all, -1, err, errlen);
}

/* Sends frame seq. Returns 0 or -errno for a fatal send error. */
static int send_frame(rr_run *t, uint32_t seq, char *err, size_t errlen) {
    nmp_walltime_ns wall;
    int rc = nmp_client_send_frame(&t->cl, NMP_FRAME_RR_REQ, seq, t->res->requested, t->buf, t->spec->size, &t->mono_send[seq],
                                   &wall, err, errlen);
    if (rc == 0) {
        t->send_call_ns[seq] = (int64_t)(nmp_mono_now() - t->mono_send[seq]);
        t->res->send_wall[seq] = wall;
        t->res->sent++;
    }
    return rc;
}

/* Fills the summary fields of res from the per-frame arrays. */
static int summarize(nmp_rr_result *res) {
    double *r = malloc((res->received ? res->received : 1) * sizeof(double));
    double *path = malloc((res->received ? res->received : 1) * sizeof(double));
    size_t n = 0;
    if (r == NULL || path == NULL) {
        free(r);
        free(path);
        return -ENOMEM;
    }
    res->stalls = 0;
    res->host_max_ns = res->path_p99_ns = NAN;
    for (uint32_t i = 0; i < res->requested; i++)
        if (res->rtt_ns[i] >= 0) {
            int64_t host = res->host_ns[i];
            if (host >= NMP_RR_STALL_NS) res->stalls++;
            if (n == 0 || host > res->host_max_ns) res->host_max_ns = (double)host;
            path[n] = (double)(res->rtt_ns[i] - host);
            r[n++] = (double)res->rtt_ns[i];
        }
    res->lost = res->sent - res->received;
    res->loss_percent = res->sent ? 100.0 * res->lost / res->sent : 0;
    nmp_summary s;
    nmp_ipd ipd;
    res->rtt_min_ns = res->rtt_mean_ns = res->rtt_median_ns = res->rtt_max_ns = res->rtt_p99_ns = NAN;
    res->ipd_min_ns = res->ipd_mean_ns = res->ipd_max_ns = res->ipd_iqr_ns = NAN;
    int rc = 0;
    if (n > 0 && (rc = nmp_stats_summarize(r, n, &s)) == 0) {
        res->rtt_min_ns = s.min;
        res->rtt_mean_ns = s.mean;
        res->rtt_median_ns = s.median;
        res->rtt_max_ns = s.max;
        rc = nmp_stats_quantile(r, n, 0.99, &res->rtt_p99_ns);
        if (rc == 0) rc = nmp_stats_quantile(path, n, 0.99, &res->path_p99_ns);
    }
    if (rc == 0 && n > 1 && (rc = nmp_stats_ipd(r, n, &ipd)) == 0) {
        res->ipd_min_ns = ipd.min_abs;
        res->ipd_mean_ns = ipd.mean_abs;
        res->ipd_max_ns = ipd.max_abs;
        res->ipd_iqr_ns = ipd.iqr;
    }
    free(r);
    free(path);
    return rc;
}

static int check_spec(const nmp_rr_spec *s, char *err, size_t errlen) {
    if (s->host == NULL || s->host[0] == '\0') {
        nmp_seterr(err, errlen, "rr: host is empty");
        return -EINVAL;
    }
    if (s->port < 1 || s->port > 65535 || s->count < 1 || s->count > 10000000 || s->size < NMP_FRAME_HDR ||
        s->size > NMP_FRAME_MAX || s->ttl < 0 || s->ttl > 255 || s->interval_ns > 60000000000ull ||
        s->timeout_ns > 60000000000ull) {
        nmp_seterr(err, errlen,
                   "rr: parameter out of range (port 1..65535, count 1..10000000, size %d..%d, ttl 0..255, "
                   "interval and timeout <= 60 s)",
                   NMP_FRAME_HDR, NMP_FRAME_MAX);
        return -EINVAL;
    }
    return 0;
}

void nmp_rr_result_free(nmp_rr_result *res) {
    free(res->seq);
    free(res->send_wall);
    free(res->rtt_ns);
    free(res->bytes);
    free(res->ttl);
    free(res->host_ns);
    res->host_ns = NULL;
    res->seq = NULL;
    res->send_wall = NULL;
    res->rtt_ns = NULL;
    res->bytes = NULL;
    res->ttl = NULL;
}

int nmp_rr_run(const nmp_rr_spec *spec, const nmp_control *ctl, nmp_rr_result *res, char *err, size_t errlen) {
    char req[NMP_CTL_MAXLINE + 1];
    int rc, slack = -1;
    memset(res, 0, sizeof(*res));
    if ((rc = check_spec(spec, err, errlen)) < 0) return rc;
    rr_run *t = calloc(1, sizeof(*t));
    if (t == NULL) return -ENOMEM;
    t->cl.ctl = t->cl.udp = -1;
    t->spec = spec;
    t->ctl = ctl;
    t->res = res;
    uint32_t n = spec->count;
    res->requested = n;
    res->remote_port = spec->port;
    t->mono_send = calloc(n, sizeof(*t->mono_send));
    t->send_call_ns = calloc(n, sizeof(*t->send_call_ns));
    res->host_ns = malloc(n * sizeof(*res->host_ns));
    res->seq = malloc(n * sizeof(*res->seq));
    res->send_wall = calloc(n, sizeof(*res->send_wall));
    res->rtt_ns = malloc(n * sizeof(*res->rtt_ns));
    res->bytes = calloc(n, sizeof(*res->bytes));
    res->ttl = malloc(n * sizeof(*res->ttl));
    if (!t->mono_send || !t->send_call_ns || !res->seq || !res->send_wall || !res->rtt_ns || !res->bytes || !res->ttl ||
        !res->host_ns) {
        nmp_seterr(err, errlen, "rr: out of memory for %u frames", n);
        rc = -ENOMEM;
        goto error;
    }
    for (uint32_t i = 0; i < n; i++) {
        res->seq[i] = (int32_t)i;
        res->rtt_ns[i] = -1;
        res->host_ns[i] = -1;
        res->ttl[i] = -1;
    }
    uint64_t timeout_ms = (spec->timeout_ns + 999999) / 1000000;
    uint64_t announced = spec->interval_ns + (spec->closed_loop ? spec->timeout_ns : 0);
    if (announced > 60000000000ull) announced = 60000000000ull; /* the most a SESSION may announce */
    if (nmp_ctl_format(req, sizeof(req), NMP_CTL_SESSION,
                       "kind=rr frames=%u size=%u interval_ns=%llu timeout_ms=%llu%s", n, spec->size,
                       (unsigned long long)announced, (unsigned long long)timeout_ms,
                       spec->shared ? " class=normal" : "") < 0) {
        rc = -EMSGSIZE;
        goto error;
    }
    rc = nmp_client_open(&t->cl, spec->host, spec->port, spec->connect_timeout_ms,
                         ctl ? ctl->cancel : NULL, req, spec->ttl, spec->key_file, err, errlen);
    if (rc == -ECANCELED) {
        /* cancelled before the responder answered SESSION: nothing was sent,
         * but the result stays well formed (every per-frame array allocated) --
         * the arrays keep their "not sent" values and the summary is NaN */
        res->start_wall = res->end_wall = nmp_wall_now();
        int rc3 = summarize(res);
        if (rc3 < 0) {
            rc = rc3;
            nmp_seterr(err, errlen, "rr: out of memory for the summary");
            goto error;
        }
        nmp_seterr(err, errlen, "rr %s:%d: cancelled before the session started", spec->host, spec->port);
        goto end;
    }
    if (rc < 0) goto error;
    int on = 1; /* replies are timed by the kernel's receive stamp (arrival_mono) */
    if (setsockopt(t->cl.udp, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "rr: setsockopt SO_TIMESTAMPNS: %s", strerror(errno));
        goto error;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    getsockname(t->cl.udp, (struct sockaddr *)&ss, &sl);
    nmp_addr_str((struct sockaddr *)&ss, res->local_addr, sizeof(res->local_addr));
    nmp_addr_str((struct sockaddr *)&t->cl.peer, res->remote_addr, sizeof(res->remote_addr));

    slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0); /* precise ppoll wake-ups; restored below */
    memset(t->buf, 0, sizeof(t->buf));
    res->start_wall = nmp_wall_now();
    nmp_monotime_ns t0 = nmp_mono_now() + SPIN_NS; /* so that frame 0 is paced like the rest */
    uint32_t k0 = 0;
    for (uint32_t i = 0; i < n && !nmp_control_cancelled(t->ctl); i++) {
        nmp_monotime_ns due = t0 + (nmp_monotime_ns)(i - k0) * spec->interval_ns;
        if (spec->closed_loop && i > 0) {
            /* the one before first: answered, or waited for as long as the last one is */
            if ((rc = wait_for(t, t->mono_send[i - 1] + spec->timeout_ns, 0, i - 1, err, errlen)) < 0) goto error;
            due = t->mono_send[i - 1] + spec->interval_ns;
        }
        if ((rc = wait_receiving(t, due, 0, err, errlen)) < 0) goto error;
        if (nmp_control_cancelled(t->ctl)) break;
        if ((rc = send_frame(t, i, err, errlen)) < 0) {
            nmp_client_watch(&t->cl, 1, err, errlen); /* a send refused because the responder is gone says so */
            goto error;
        }
        /* As the stream sender does: a frame that left late moves the schedule, so a stall
         * becomes one longer gap rather than a burst of catch-up frames whose RTTs would
         * measure the sender's own queue. */
        if (!spec->closed_loop && spec->interval_ns > 0 && t->mono_send[i] > due + nmp_pace_rebase_ns(spec->interval_ns)) {
            t0 = t->mono_send[i];
            k0 = i;
        }
    }
    if (!nmp_control_cancelled(t->ctl)) {
        nmp_monotime_ns last = res->sent ? t->mono_send[res->sent - 1] : nmp_mono_now();
        if ((rc = wait_receiving(t, last + spec->timeout_ns, 1, err, errlen)) < 0) goto error;
    }
    res->end_wall = nmp_wall_now();
    progress(t, 1);
    rc = nmp_control_cancelled(t->ctl) ? -ECANCELED : 0;
    if (rc == -ECANCELED) nmp_seterr(err, errlen, "rr %s:%d: cancelled after %u of %u frames", spec->host,
                                     spec->port, res->sent, n);
    char e2[NMP_ERRLEN];
    int rc2 = nmp_client_end(&t->cl, NULL, NULL, e2, sizeof(e2));
    if (rc == 0 && rc2 < 0) {
        rc = rc2;
        nmp_seterr(err, errlen, "%s", e2);
        goto error;
    }
    int rc3 = summarize(res);
    if (rc == 0) rc = rc3;
    goto end;
error:
    nmp_rr_result_free(res);
end:
    if (slack >= 0) prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
    nmp_client_close(&t->cl);
    free(t->mono_send);
    free(t->send_call_ns);
    free(t);
    return rc;
}

/* ---- the "rr" kind: spec table and packed result (nmp_kind.h) ---- */

static const nmp_spec_field rr_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_rr_spec, host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "responder name or address (IPv4 or IPv6)"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_rr_spec, port), .lo = 1, .hi = 65535,
     .def = NMP_DEFAULT_PORT, .cli = "port", .cli_short = 'p', .help = "responder control port"},
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(nmp_rr_spec, key_file), .hi = 4095, .cli = "key-file",
     .help = "file with the responder's shared key (mode 600), for a responder started with --key-file"},
    /* the engine has no default count; 10 is the CLI's */
    {.name = "count", .type = NMP_S_U32, .offset = offsetof(nmp_rr_spec, count), .lo = 1, .hi = 10000000, .def = 10,
     .cli = "count", .cli_short = 'c', .help = "frames to send"},
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(nmp_rr_spec, size), .lo = NMP_FRAME_HDR,
     .hi = NMP_FRAME_MAX, .def = 64, .cli = "size", .cli_short = 's', .help = "UDP payload bytes per frame"},
    {.name = "intervalNs", .type = NMP_S_U64, .offset = offsetof(nmp_rr_spec, interval_ns), .hi = 60e9, .def = 1e6,
     .cli = "interval-us", .cli_short = 'i', .cli_scale = 1000,
     .help = "spacing between frames in microseconds (0 = back to back)"},
    {.name = "timeoutNs", .type = NMP_S_U64, .offset = offsetof(nmp_rr_spec, timeout_ns), .hi = 60e9, .def = 1e9,
     .cli = "timeout-ms", .cli_short = 't', .cli_scale = 1e6, .help = "wait for replies after the last frame"},
    {.name = "ttl", .type = NMP_S_INT, .offset = offsetof(nmp_rr_spec, ttl), .hi = 255, .cli = "ttl",
     .help = "outgoing TTL / hop limit (0 = system default)"},
    {.name = "closedLoop", .type = NMP_S_INT, .offset = offsetof(nmp_rr_spec, closed_loop), .hi = 1,
     .cli = "closed-loop", .help = "1 = ping-pong: send each frame once the one before was answered (or timed out)"},
    {.name = "shared", .type = NMP_S_INT, .offset = offsetof(nmp_rr_spec, shared), .hi = 1, .cli = "shared",
     .help = "1 = a light test that may run beside other shared ones (responder --sessions)"},
};

/* Packs the per-frame columns; when the engine kept no arrays (a cancel it
 * did not foresee) they are packed with their "not sent" values. */
static int rr_pack_frames(nmp_pack *out, const nmp_rr_result *r, int rc, char *err, size_t errlen) {
    size_t n = r->requested;
    if (r->seq && r->send_wall && r->rtt_ns && r->bytes && r->ttl && r->host_ns) {
        nmp_pack_i32s(out, "frames.seq", r->seq, n);
        nmp_pack_i64s(out, "frames.sendEpochNanos", r->send_wall, n);
        nmp_pack_i64s(out, "frames.rttNanos", r->rtt_ns, n);
        nmp_pack_i32s(out, "frames.bytes", r->bytes, n);
        nmp_pack_i32s(out, "frames.ttl", r->ttl, n);
        nmp_pack_i64s(out, "frames.hostNanos", r->host_ns, n);
        return 0;
    }
    if (rc != -ECANCELED) {
        nmp_seterr(err, errlen, "rr: the engine returned no per-frame results");
        return -EFAULT;
    }
    int32_t *i32 = malloc((n ? n : 1) * sizeof(*i32));
    int64_t *i64 = malloc((n ? n : 1) * sizeof(*i64));
    if (i32 == NULL || i64 == NULL) {
        free(i32);
        free(i64);
        nmp_seterr(err, errlen, "rr: out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) i32[i] = (int32_t)i, i64[i] = 0;
    nmp_pack_i32s(out, "frames.seq", i32, n);
    nmp_pack_i64s(out, "frames.sendEpochNanos", i64, n);
    for (size_t i = 0; i < n; i++) i32[i] = -1, i64[i] = -1;
    nmp_pack_i64s(out, "frames.rttNanos", i64, n);
    nmp_pack_i64s(out, "frames.hostNanos", i64, n);
    for (size_t i = 0; i < n; i++) i32[i] = 0;
    nmp_pack_i32s(out, "frames.bytes", i32, n);
    for (size_t i = 0; i < n; i++) i32[i] = -1;
    nmp_pack_i32s(out, "frames.ttl", i32, n);
    free(i32);
    free(i64);
    return 0;
}

static int rr_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    nmp_rr_result r;
    memset(&r, 0, sizeof(r));
    int rc = nmp_rr_run(sp, ctl, &r, err, errlen);
    if (rc < 0 && rc != -ECANCELED) goto end;
    nmp_pack_bool(out, "cancelled", rc == -ECANCELED);
    nmp_pack_str(out, "localAddress", r.local_addr);
    nmp_pack_str(out, "remoteAddress", r.remote_addr);
    nmp_pack_i64(out, "remotePort", r.remote_port);
    nmp_pack_i64(out, "requested", r.requested);
    nmp_pack_i64(out, "sent", r.sent);
    nmp_pack_i64(out, "received", r.received);
    nmp_pack_i64(out, "lost", r.lost);
    nmp_pack_i64(out, "duplicates", r.duplicates);
    nmp_pack_i64(out, "outOfOrder", r.out_of_order);
    nmp_pack_i64(out, "invalid", r.invalid);
    nmp_pack_f64(out, "lossPercent", r.loss_percent);
    nmp_pack_f64(out, "minRttMs", r.rtt_min_ns / 1e6);
    nmp_pack_f64(out, "meanRttMs", r.rtt_mean_ns / 1e6);
    nmp_pack_f64(out, "medianRttMs", r.rtt_median_ns / 1e6);
    nmp_pack_f64(out, "maxRttMs", r.rtt_max_ns / 1e6);
    nmp_pack_f64(out, "p99RttMs", r.rtt_p99_ns / 1e6);
    nmp_pack_f64(out, "minIpdMs", r.ipd_min_ns / 1e6);
    nmp_pack_f64(out, "meanIpdMs", r.ipd_mean_ns / 1e6);
    nmp_pack_f64(out, "maxIpdMs", r.ipd_max_ns / 1e6);
    nmp_pack_f64(out, "iqrIpdMs", r.ipd_iqr_ns / 1e6);
    nmp_pack_i64(out, "stalls", r.stalls);
    nmp_pack_i64(out, "turnaroundKnown", r.turnaround_known);
    nmp_pack_f64(out, "maxHostMs", r.host_max_ns / 1e6);
    nmp_pack_f64(out, "p99PathRttMs", r.path_p99_ns / 1e6);
    nmp_pack_i64(out, "startEpochNanos", r.start_wall);
    nmp_pack_i64(out, "endEpochNanos", r.end_wall);
    int prc = rr_pack_frames(out, &r, rc, err, errlen);
    if (prc < 0) rc = prc;
end:
    nmp_rr_result_free(&r);
    return rc;
}

const nmp_kind nmp_kind_rr = {
    .name = "rr",
    .summary = "request-response latency test against an nmprobe-responder",
    .fields = rr_fields,
    .nfields = sizeof(rr_fields) / sizeof(rr_fields[0]),
    .spec_size = sizeof(nmp_rr_spec),
    .run = rr_kind_run,
};
