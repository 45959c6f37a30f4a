/* nmp_rsession_stream.c -- the responder's side of a stream (one-way)
 * session: each valid frame's arrival is recorded with its kernel receive
 * timestamp, and RESULTS is answered with the records and this host's CPU,
 * interrupt and UDP-drop counters before and after, and its clock's state. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nmp_rsession.h"

#define MMSG_BATCH 64                /* recvmmsg batch */
#define MMSG_HDR 64                  /* bytes kept of each datagram (header only) */
#define RESULTS_DRAIN_NS 100000000ull /* most time spent reading datagrams still queued at RESULTS */

/* A stream session's state. */
typedef struct stream_state {
    nmp_rsession_udp udp;            /* its socket and pinned client */
    nmp_rec *rec;                    /* arrival records (heap) */
    uint32_t nrec;                   /* records used */
    uint32_t rec_cap;                /* records allocated */
    uint64_t over;                   /* arrivals not recorded (capacity) */
    nmp_host_counters host_before;   /* counters at admission */
    char clock[NMP_CTL_VALMAX + 1];  /* this clock's reference,error_ns,utc_error_ns at admission */
    uint8_t mbuf[MMSG_BATCH][MMSG_HDR]; /* datagram headers of one batch */
    char mcbuf[MMSG_BATCH][128];     /* their control messages */
} stream_state;

static int stream_start(nmp_rsession *s, char *err, size_t errlen) {
    int one = 1, rc;
    stream_state *st = calloc(1, sizeof(*st));
    if (st == NULL) {
        nmp_seterr(err, errlen, "stream: out of memory");
        return -ENOMEM;
    }
    st->udp.fd = -1;
    s->kstate = st;
    if ((rc = nmp_rsession_udp_open(s, &st->udp, err, errlen)) < 0) return rc;
    /* room for every frame plus some duplicates; more arrivals are counted only */
    st->rec_cap = s->req.frames + s->req.frames / 8 + 16;
    st->rec = malloc((size_t)st->rec_cap * sizeof(*st->rec));
    if (st->rec == NULL) {
        nmp_seterr(err, errlen, "stream: out of memory for %u records", st->rec_cap);
        return -ENOMEM;
    }
    if (setsockopt(st->udp.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) {
        nmp_seterr(err, errlen, "setsockopt SO_TIMESTAMPNS: %s", strerror(errno));
        return -errno;
    }
    char e[NMP_ERRLEN];
    if (nmp_host_sample(&st->host_before, e, sizeof(e)) < 0) nmp_rsession_log(s, 1, "host counters: %s", e);
    /* read here, not at RESULTS: the session's frames are not arriving yet */
    const nmp_clock_state *cs = nmp_rsession_clock(s);
    if (cs)
        snprintf(st->clock, sizeof(st->clock), "%s,%lld,%lld", cs->reference, (long long)cs->error_ns,
                 (long long)cs->utc_error_ns);
    else
        st->clock[0] = '\0';
    return 0;
}

static void stream_stop(nmp_rsession *s) {
    stream_state *st = s->kstate;
    if (st == NULL) return;
    nmp_rsession_udp_close(&st->udp);
    free(st->rec);
    free(st);
    s->kstate = NULL;
}

static int stream_pollfds(nmp_rsession *s, struct pollfd *p, int max) {
    stream_state *st = s->kstate;
    if (max < 1) return 0;
    p[0] = (struct pollfd){.fd = st->udp.fd, .events = POLLIN};
    return 1;
}

static nmp_walltime_ns cmsg_timestamp(struct msghdr *msg) {
    nmp_walltime_ns k = nmp_net_cmsg_stamp(msg);
    return k != 0 ? k : nmp_wall_now();
}

/* Records what is waiting on the socket, at most a batch. */
static void stream_drain(nmp_rsession *s) {
    stream_state *st = s->kstate;
    struct mmsghdr mm[MMSG_BATCH];
    struct iovec iov[MMSG_BATCH];
    struct sockaddr_storage from[MMSG_BATCH];
    for (int round = 0; round < NMP_RSESSION_DRAIN_BATCH / MMSG_BATCH && s->active; round++) {
        for (int i = 0; i < MMSG_BATCH; i++) {
            iov[i] = (struct iovec){.iov_base = st->mbuf[i], .iov_len = MMSG_HDR};
            mm[i].msg_hdr = (struct msghdr){.msg_name = &from[i], .msg_namelen = sizeof(from[i]), .msg_iov = &iov[i],
                                            .msg_iovlen = 1, .msg_control = st->mcbuf[i],
                                            .msg_controllen = sizeof(st->mcbuf[i])};
            mm[i].msg_len = 0;
        }
        int n = recvmmsg(st->udp.fd, mm, MMSG_BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        for (int i = 0; i < n; i++) {
            nmp_frame_hdr h;
            size_t len = mm[i].msg_len; /* full datagram length thanks to MSG_TRUNC */
            size_t have = len < MMSG_HDR ? len : MMSG_HDR;
            /* the size is checked against len; only the header is decoded */
            if (have < NMP_FRAME_HDR || !nmp_rsession_udp_valid(s, &st->udp, st->mbuf[i], len, NMP_FRAME_STREAM,
                                                                &from[i], mm[i].msg_hdr.msg_namelen, &h)) {
                s->invalid++;
                continue;
            }
            s->rx++;
            if (st->nrec < st->rec_cap) {
                nmp_rec *rec = &st->rec[st->nrec++];
                rec->seq = h.seq;
                rec->bytes = (uint32_t)len;
                rec->send_wall = h.send_wall;
                rec->arrival_wall = cmsg_timestamp(&mm[i].msg_hdr);
            } else {
                st->over++;
            }
        }
        s->last_activity = nmp_mono_now();
        if (n < MMSG_BATCH) return;
    }
}

static void stream_ready(nmp_rsession *s, const struct pollfd *p, int n) {
    if (n >= 1 && p[0].revents) stream_drain(s);
}

/* Queues DATA with the counters, then the records; the loop writes them
 * as the client reads, by the session's hard deadline. */
static void stream_results(nmp_rsession *s) {
    stream_state *st = s->kstate;
    char out[NMP_CTL_MAXLINE + 1], e[NMP_ERRLEN];
    nmp_host_counters after;
    /* take what is still queued on the socket first, for a bounded time: a
     * client flooding the port would otherwise keep the loop here */
    nmp_monotime_ns drain_end = nmp_mono_now() + RESULTS_DRAIN_NS;
    uint64_t before_rx;
    do {
        before_rx = s->rx + s->invalid;
        stream_drain(s);
    } while (s->rx + s->invalid != before_rx && nmp_mono_now() < drain_end);
    if (nmp_host_sample(&after, e, sizeof(e)) < 0) nmp_rsession_log(s, 1, "host counters: %s", e);
    const nmp_host_counters *b = &st->host_before;
    size_t bytes = (size_t)st->nrec * NMP_REC_SIZE;
    int len = nmp_ctl_format(out, sizeof(out), NMP_CTL_DATA,
                             "records=%u bytes=%zu rx=%llu over=%llu invalid=%llu cpu_total_b=%llu cpu_idle_b=%llu "
                             "intr_b=%llu udp_in_b=%llu rcvbuf_b=%llu cpu_total_a=%llu cpu_idle_a=%llu intr_a=%llu "
                             "udp_in_a=%llu rcvbuf_a=%llu%s%s",
                             st->nrec, bytes, (unsigned long long)s->rx, (unsigned long long)st->over,
                             (unsigned long long)s->invalid, (unsigned long long)b->cpu_total,
                             (unsigned long long)b->cpu_idle, (unsigned long long)b->interrupts,
                             (unsigned long long)b->udp_in, (unsigned long long)b->udp_rcvbuf_errors,
                             (unsigned long long)after.cpu_total, (unsigned long long)after.cpu_idle,
                             (unsigned long long)after.interrupts, (unsigned long long)after.udp_in,
                             (unsigned long long)after.udp_rcvbuf_errors, st->clock[0] ? " clock=" : "", st->clock);
    if (len < 0 || nmp_rsession_out_reserve(s, (size_t)len + bytes) < 0) {
        nmp_rsession_err(s, "internal", "cannot format results");
        nmp_rsession_close(s, "results failed");
        return;
    }
    /* the records are encoded straight into the output: no second copy of a large answer */
    memcpy(s->out + s->out_len, out, (size_t)len);
    s->out_len += (size_t)len;
    for (uint32_t i = 0; i < st->nrec; i++, s->out_len += NMP_REC_SIZE) nmp_rec_encode(s->out + s->out_len, &st->rec[i]);
    nmp_rsession_log(s, 2, "session %08x: %u records queued", s->id, st->nrec);
    nmp_rsession_flush(s);
}

/* The records of every frame and the duplicates room was kept for (rec_cap). */
static double stream_answer_bytes(const nmp_session_req *q) {
    return ((double)q->frames * 9 / 8 + 16) * NMP_REC_SIZE;
}

const nmp_rkind nmp_rkind_stream = {.name = "stream", .start = stream_start, .pollfds = stream_pollfds,
                                    .ready = stream_ready, .results = stream_results, .stop = stream_stop,
                                    .send_ns = nmp_rsession_udp_send_ns, .answer_bytes = stream_answer_bytes,
                                    .describe = nmp_rsession_udp_describe, .paced = 1};
