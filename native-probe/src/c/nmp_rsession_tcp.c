/* nmp_rsession_tcp.c -- the responder's side of a tcp session: the sink of
 * its data connections (nmp_tcpsink.c) behind the session table, and the
 * answer to RESULTS once the streams were read to their end. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_rsession.h"
#include "nmp_tcpsink.h"

static int tcp_start(nmp_rsession *s, char *err, size_t errlen) {
    nmp_tcpsink *t = NULL;
    int rc = nmp_tcpsink_open(&s->req, s->cookie, &s->local, &s->peer, &t, &s->port, err, errlen);
    s->kstate = t;
    return rc;
}

static void tcp_stop(nmp_rsession *s) {
    nmp_tcpsink_close(s->kstate);
    s->kstate = NULL;
}

static int tcp_pollfds(nmp_rsession *s, struct pollfd *p, int max) {
    return s->kstate ? nmp_tcpsink_pollfds(s->kstate, p, max) : 0;
}

static void tcp_ready(nmp_rsession *s, const struct pollfd *p, int n) {
    nmp_tcpsink_ready(s->kstate, p, n);
    s->rx = nmp_tcpsink_bytes(s->kstate);
    s->last_activity = nmp_mono_now(); /* connections and data alike keep the session alive */
}

/* RESULTS: the client shut its streams down before asking; the loop reads
 * them to their end (tcp_tick), for at most the client's timeout, serving
 * everyone else meanwhile. A stream left open only delays the answer. */
static void tcp_results(nmp_rsession *s) {
    uint64_t wait_ns = (uint64_t)(s->req.timeout_ms ? s->req.timeout_ms : 1000) * 1000000ull;
    nmp_monotime_ns until = nmp_mono_now() + wait_ns;
    s->draining = 1;
    s->drain_until = until < s->hard_deadline ? until : s->hard_deadline;
}

/* While draining: once every stream ended (or time is up) queues DATA and
 * the totals, bins and records, then handles lines that waited for it. */
static void tcp_tick(nmp_rsession *s) {
    char out[NMP_CTL_MAXLINE + 1];
    uint8_t *blob = NULL;
    size_t bytes = 0;
    if (!s->draining || (nmp_tcpsink_open_streams(s->kstate) > 0 && nmp_mono_now() < s->drain_until)) return;
    s->draining = 0;
    s->rx = nmp_tcpsink_bytes(s->kstate);
    int len = nmp_tcpsink_results(s->kstate, out, &blob, &bytes);
    if (len < 0 || nmp_rsession_out_reserve(s, (size_t)len + bytes) < 0) {
        free(blob);
        nmp_rsession_err(s, "internal", "cannot format results");
        nmp_rsession_close(s, "results failed");
        return;
    }
    memcpy(s->out + s->out_len, out, (size_t)len);
    memcpy(s->out + s->out_len + len, blob, bytes);
    s->out_len += (size_t)len + bytes;
    free(blob);
    nmp_rsession_flush(s);
    if (s->active) nmp_rsession_ctl_lines(s);
}

static uint64_t tcp_send_ns(const nmp_session_req *q) { return q->duration_ms * 1000000ull; }

/* Per-stream totals and bins, and a record for every message it may keep. */
static double tcp_answer_bytes(const nmp_session_req *q) {
    return (double)q->streams * NMP_TCP_STREAM_REC + (double)q->streams * q->bins * 8 +
           (double)q->frames * NMP_REC_SIZE;
}

static int tcp_describe(const nmp_session_req *q, char *buf, size_t len) {
    return snprintf(buf, len, "streams=%u size=%u interval_ns=%llu duration_ms=%u window=%u cbr=%d bins=%u tcp",
                    q->streams, q->size, (unsigned long long)q->interval_ns, q->duration_ms, q->window, q->cbr,
                    q->bins);
}

/* not paced: rx counts bytes, and the sink's streams keep the session alive */
const nmp_rkind nmp_rkind_tcp = {.name = "tcp", .start = tcp_start, .pollfds = tcp_pollfds, .ready = tcp_ready,
                                 .results = tcp_results, .tick = tcp_tick, .stop = tcp_stop, .send_ns = tcp_send_ns,
                                 .answer_bytes = tcp_answer_bytes, .describe = tcp_describe};
