/* nmp_stream.c -- the UDP stream test (UDPmon's throughput test): paced
 * frames one way, receiver records with kernel timestamps fetched over the
 * control connection, and the analysis of those records: rates, loss,
 * RFC 4737 reordering, one-way delay and RFC 3393 IPDV, inter-arrival
 * histogram, loss pattern and the bottleneck buffer seen at loss onset. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "nmprobe.h"
#include "nmp_stream.h"
#include "nmp_client.h"
#include "nmp_kind.h"

#define SPIN_NS 60000ull            /* busy-wait the last 60 us before a send */
#define PROGRESS_NS 100000000ull    /* progress callback period */
#define DEFAULT_BINS 50

void nmp_stream_result_free(nmp_stream_result *res) {
    free(res->seq);
    free(res->send_wall);
    free(res->arrival_wall);
    free(res->owd_ns);
    free(res->bytes);
    free(res->hist);
    res->seq = NULL;
    res->send_wall = res->arrival_wall = NULL;
    res->owd_ns = NULL;
    res->bytes = NULL;
    res->hist = NULL;
}

int nmp_stream_result_alloc(nmp_stream_result *res, uint32_t count, uint32_t bins) {
    res->requested = count;
    res->hist_bins = bins;
    res->seq = malloc((size_t)count * sizeof(*res->seq));
    res->send_wall = calloc(count, sizeof(*res->send_wall));
    res->arrival_wall = calloc(count, sizeof(*res->arrival_wall));
    res->owd_ns = malloc((size_t)count * sizeof(*res->owd_ns));
    res->bytes = calloc(count, sizeof(*res->bytes));
    res->hist = calloc(bins ? bins : 1, sizeof(*res->hist));
    if (!res->seq || !res->send_wall || !res->arrival_wall || !res->owd_ns || !res->bytes || !res->hist) {
        nmp_stream_result_free(res);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < count; i++) {
        res->seq[i] = (int32_t)i;
        res->owd_ns[i] = -1;
    }
    return 0;
}

/* Quantiles of an already sorted array (type 7). */
static double q7(const double *s, size_t n, double q) {
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n) return s[n - 1];
    return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* RFC 4737 reordering over the first-arrival sequence fs[0..n). */
static void reordering(nmp_stream_result *res, const uint32_t *fs, size_t n) {
    uint32_t *pmax = malloc((n ? n : 1) * sizeof(*pmax)); /* running maximum of seq */
    uint64_t nre[3] = {0, 0, 0};
    uint32_t next_exp = 0, reordered = 0, max_extent = 0;
    if (pmax == NULL) return;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = fs[i];
        pmax[i] = i == 0 || s > pmax[i - 1] ? s : pmax[i - 1];
        if (s >= next_exp) {
            next_exp = s + 1;
            continue;
        }
        reordered++;
        /* extent: i minus the earliest position whose seq exceeds s (pmax is monotone) */
        size_t lo = 0, hi = i;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (pmax[mid] > s)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (i - lo > max_extent) max_extent = (uint32_t)(i - lo);
        for (size_t k = 1; k <= 3; k++) {
            int all = i >= k;
            for (size_t j = 1; all && j <= k; j++) all = fs[i - j] > s;
            if (all) nre[k - 1]++;
        }
    }
    free(pmax);
    res->reordered = reordered;
    res->reorder_max_extent = max_extent;
    res->reorder_ratio = n ? (double)reordered / (double)n : 0;
    for (int k = 0; k < 3; k++) res->n_reorder_ratio[k] = n ? (double)nre[k] / (double)n : 0;
}

/* Payload rate in Mbit/s of frames [first..last] of the given count. */
static double rate_mbps(uint32_t frames, uint32_t size, double span_ns) {
    if (frames < 2 || !(span_ns > 0)) return NAN;
    return (double)(frames - 1) * size * 8.0 / span_ns * 1e3;
}

int nmp_stream_analyze(nmp_stream_result *res, const nmp_monotime_ns *send_mono, const nmp_rec *recs, size_t nrec,
                       uint32_t size, int ipv6, uint64_t hist_width_ns) {
    uint32_t n = res->requested;
    uint32_t ip = ipv6 ? 40 : 20;
    uint32_t queued_per_frame = size + 8 + ip + 14;
    int rc = -ENOMEM;
    uint32_t *fs = malloc((nrec ? nrec : 1) * sizeof(*fs));
    double *owd = malloc((nrec ? nrec : 1) * sizeof(*owd));
    double *iat = malloc((nrec ? nrec : 1) * sizeof(*iat));
    double *gaps = malloc((n ? n : 1) * sizeof(*gaps));
    nmp_walltime_ns *farr = malloc((nrec ? nrec : 1) * sizeof(*farr));
    if (!fs || !owd || !iat || !gaps || !farr) goto end;

    res->wire_overhead = 8 + ip + 14 + 4 + 20;
    res->received = res->duplicates = 0;
    /* first arrivals, in arrival order */
    size_t nf = 0;
    for (size_t i = 0; i < nrec; i++) {
        const nmp_rec *r = &recs[i];
        if (r->seq >= n) continue; /* the receiver checked this; be safe */
        if (res->arrival_wall[r->seq] != 0) {
            res->duplicates++;
            continue;
        }
        res->arrival_wall[r->seq] = r->arrival_wall;
        res->owd_ns[r->seq] = r->arrival_wall - r->send_wall;
        res->bytes[r->seq] = (int32_t)r->bytes;
        fs[nf] = r->seq;
        farr[nf] = r->arrival_wall;
        owd[nf] = (double)(r->arrival_wall - r->send_wall);
        nf++;
    }
    res->received = (uint32_t)nf;
    res->lost = res->sent > res->received ? res->sent - res->received : 0;
    res->loss_percent = res->sent ? 100.0 * res->lost / res->sent : 0;
    reordering(res, fs, nf);

    /* sender */
    res->send_spacing_ns = res->send_user_mbps = res->send_wire_mbps = NAN;
    res->first_send_wall = res->last_send_wall = 0;
    if (res->sent > 0) {
        res->first_send_wall = res->send_wall[0];
        res->last_send_wall = res->send_wall[res->sent - 1];
    }
    if (res->sent > 1) {
        double span = send_mono ? (double)(send_mono[res->sent - 1] - send_mono[0])
                                : (double)(res->last_send_wall - res->first_send_wall);
        res->send_spacing_ns = span / (double)(res->sent - 1);
        res->send_user_mbps = rate_mbps(res->sent, size, span);
        res->send_wire_mbps = rate_mbps(res->sent, size + res->wire_overhead, span);
    }

    /* receiver rates and inter-arrival times */
    res->recv_user_mbps = res->recv_wire_mbps = NAN;
    res->iat_min_ns = res->iat_mean_ns = res->iat_max_ns = NAN;
    res->hist_lo_ns = res->hist_width_ns = NAN;
    res->hist_under = res->hist_over = 0;
    memset(res->hist, 0, res->hist_bins * sizeof(*res->hist));
    res->first_arrival_wall = res->last_arrival_wall = 0;
    if (nf > 0) {
        nmp_walltime_ns lo = farr[0], hi = farr[0];
        for (size_t i = 1; i < nf; i++) {
            if (farr[i] < lo) lo = farr[i];
            if (farr[i] > hi) hi = farr[i];
        }
        res->first_arrival_wall = lo;
        res->last_arrival_wall = hi;
        res->recv_user_mbps = rate_mbps((uint32_t)nf, size, (double)(hi - lo));
        res->recv_wire_mbps = rate_mbps((uint32_t)nf, size + res->wire_overhead, (double)(hi - lo));
    }
    if (nf > 1) {
        size_t m = nf - 1;
        double sum = 0;
        for (size_t i = 0; i < m; i++) {
            iat[i] = (double)(farr[i + 1] - farr[i]);
            sum += iat[i];
        }
        qsort(iat, m, sizeof(*iat), cmp_double);
        res->iat_min_ns = iat[0];
        res->iat_max_ns = iat[m - 1];
        res->iat_mean_ns = sum / (double)m;
        double width = (double)hist_width_ns, lo = floor(iat[0] / 1000.0) * 1000.0;
        if (!(width > 0)) {
            width = ceil((q7(iat, m, 0.99) - lo) / res->hist_bins / 100.0) * 100.0;
            if (width < 100) width = 100;
        }
        res->hist_lo_ns = lo;
        res->hist_width_ns = width;
        nmp_stats_histogram(iat, m, lo, width, res->hist_bins, res->hist, &res->hist_under, &res->hist_over);
    }

    /* one-way delay and IPDV */
    res->owd_min_ns = res->owd_median_ns = res->owd_mean_ns = res->owd_p95_ns = res->owd_p99_ns = NAN;
    res->owd_max_ns = res->jitter_ns = res->ipdv_mean_abs_ns = NAN;
    res->ipdv_pairs = 0;
    if (nf > 0) {
        double sum = 0;
        for (size_t i = 0; i < nf; i++) sum += owd[i];
        qsort(owd, nf, sizeof(*owd), cmp_double);
        res->owd_min_ns = owd[0];
        res->owd_max_ns = owd[nf - 1];
        res->owd_mean_ns = sum / (double)nf;
        res->owd_median_ns = q7(owd, nf, 0.5);
        res->owd_p95_ns = q7(owd, nf, 0.95);
        res->owd_p99_ns = q7(owd, nf, 0.99);
        res->jitter_ns = res->owd_p95_ns - res->owd_median_ns;
        double s = 0;
        for (uint32_t i = 0; i + 1 < n; i++) {
            /* Both arrived (a one-way delay may be negative between unsynchronised clocks; IPDV is
             * free of the offset, so those frames count too). */
            if (res->arrival_wall[i] != 0 && res->arrival_wall[i + 1] != 0) {
                s += fabs((double)(res->owd_ns[i + 1] - res->owd_ns[i]));
                res->ipdv_pairs++;
            }
        }
        if (res->ipdv_pairs) res->ipdv_mean_abs_ns = s / res->ipdv_pairs;
    }

    /* loss pattern */
    res->loss_intervals = 0;
    res->loss_interval_mean = res->loss_exp_rate = res->loss_exp_ks_d = NAN;
    res->first_loss_seq = -1;
    int64_t prev = -1;
    for (uint32_t i = 0; i < res->sent; i++) {
        if (res->arrival_wall[i] != 0) continue;
        if (res->first_loss_seq < 0) res->first_loss_seq = i;
        if (prev >= 0) gaps[res->loss_intervals++] = (double)((int64_t)i - prev);
        prev = i;
    }
    nmp_expfit fit;
    if (res->loss_intervals >= 2 && nmp_stats_expfit(gaps, res->loss_intervals, &fit) == 0) {
        res->loss_interval_mean = fit.mean;
        res->loss_exp_rate = fit.rate;
        res->loss_exp_ks_d = fit.ks_d;
    } else if (res->loss_intervals == 1) {
        res->loss_interval_mean = gaps[0];
        res->loss_exp_rate = 1.0 / gaps[0];
    }

    /* loss onset: rates before / after, backlog when the first frame was dropped */
    res->rate_before_loss_mbps = res->rate_after_loss_mbps = NAN;
    res->buffer_est_frames = res->buffer_est_bytes = NAN;
    res->queue_delay_at_loss_ns = res->buffer_est_delay_bytes = NAN;
    int64_t L = res->first_loss_seq;
    if (L > 1 && nf > 0) {
        nmp_walltime_ns b_lo = INT64_MAX, b_hi = INT64_MIN, a_lo = INT64_MAX, a_hi = INT64_MIN;
        uint32_t nb = 0, na = 0;
        for (uint32_t i = 0; i < n; i++) {
            nmp_walltime_ns t = res->arrival_wall[i];
            if (t == 0) continue;
            if ((int64_t)i < L) {
                nb++;
                if (t < b_lo) b_lo = t;
                if (t > b_hi) b_hi = t;
            } else {
                na++;
                if (t < a_lo) a_lo = t;
                if (t > a_hi) a_hi = t;
            }
        }
        res->rate_before_loss_mbps = rate_mbps(nb, size, (double)(b_hi - b_lo));
        res->rate_after_loss_mbps = rate_mbps(na, size, (double)(a_hi - a_lo));
        /* frames 0..L-1 were sent by the time frame L was; how many had arrived by then */
        double t_send = send_mono ? (double)(send_mono[L] - send_mono[0])
                                  : (double)(res->send_wall[L] - res->send_wall[0]);
        uint32_t drained = 0;
        for (size_t i = 0; i < nf; i++)
            if ((double)(farr[i] - res->first_arrival_wall) <= t_send) drained++;
        double backlog = (double)L - (double)drained;
        if (backlog < 0) backlog = 0;
        res->buffer_est_frames = backlog;
        res->buffer_est_bytes = backlog * queued_per_frame;
        res->queue_delay_at_loss_ns = (double)res->owd_ns[L - 1] - res->owd_min_ns;
        if (res->arrival_wall[L - 1] != 0 && !isnan(res->rate_after_loss_mbps))
            res->buffer_est_delay_bytes = res->queue_delay_at_loss_ns * res->rate_after_loss_mbps / 8e3 *
                                          ((double)queued_per_frame / size);
    }
    rc = 0;
end:
    free(fs);
    free(owd);
    free(iat);
    free(gaps);
    free(farr);
    return rc;
}

/* --------------------------------------------------------------- sender */

typedef struct stream_run {
    const nmp_stream_spec *spec;    /* parameters */
    const nmp_control *ctl;         /* cancel and progress, may be NULL */
    nmp_stream_result *res;         /* result being filled */
    nmp_client cl;                  /* session sockets */
    nmp_monotime_ns *send_mono;     /* monotonic send time per seq */
    nmp_monotime_ns next_progress;  /* next progress report */
    uint8_t buf[NMP_FRAME_MAX];     /* frame buffer */
} stream_run;

static void progress(stream_run *t, int force) {
    nmp_monotime_ns now = nmp_mono_now();
    if (!t->ctl || !t->ctl->progress || (!force && now < t->next_progress)) return;
    t->next_progress = now + PROGRESS_NS;
    t->ctl->progress(t->ctl->progress_ctx, t->res->sent, t->res->requested);
}

/* Sends frame seq, waiting for socket space when the kernel pushes back.
 * Returns 0 or -errno. */
static int send_frame(stream_run *t, uint32_t seq, char *err, size_t errlen) {
    nmp_walltime_ns wall;
    int rc = nmp_client_send_frame(&t->cl, NMP_FRAME_STREAM, seq, t->res->requested, t->buf, t->spec->size, &t->send_mono[seq],
                                   &wall, err, errlen);
    if (rc == 0) {
        t->res->send_wall[seq] = wall;
        t->res->sent++;
    }
    return rc;
}

/* Sleeps until 'due' as nmp_sleep_until does, waking every
 * NMP_CLIENT_WATCH_NS on a long wait to look at the control connection
 * and the cancel flag. Returns 0, or -errno with err set when the
 * responder went away or ended the session. */
static int pace(stream_run *t, nmp_monotime_ns due, char *err, size_t errlen) {
    for (;;) {
        int rc = nmp_client_watch(&t->cl, 0, err, errlen);
        if (rc < 0) return rc;
        nmp_monotime_ns now = nmp_mono_now();
        if (due <= now + NMP_CLIENT_WATCH_NS || nmp_control_cancelled(t->ctl)) break;
        nmp_sleep_until(now + NMP_CLIENT_WATCH_NS, 0);
    }
    nmp_sleep_until(due, SPIN_NS);
    return 0;
}

static uint64_t get_or0(const nmp_ctl_msg *m, const char *key) {
    uint64_t v = 0;
    if (nmp_ctl_get_u64(m, key, 0, UINT64_MAX, &v, NULL, 0) < 0) v = 0;
    return v;
}

/* Fills the receiver host figures from the DATA line. */
static void receiver_counters(nmp_stream_result *res, const nmp_ctl_msg *m) {
    nmp_host_counters b = {.valid = 1}, a = {.valid = 1};
    b.cpu_total = get_or0(m, "cpu_total_b");
    b.cpu_idle = get_or0(m, "cpu_idle_b");
    a.cpu_total = get_or0(m, "cpu_total_a");
    a.cpu_idle = get_or0(m, "cpu_idle_a");
    res->receiver_cpu_percent = nmp_host_cpu_busy_percent(&b, &a);
    uint64_t x = get_or0(m, "intr_b"), y = get_or0(m, "intr_a");
    res->receiver_interrupts = y > x ? y - x : 0;
    x = get_or0(m, "udp_in_b");
    y = get_or0(m, "udp_in_a");
    res->receiver_udp_in = y > x ? y - x : 0;
    x = get_or0(m, "rcvbuf_b");
    y = get_or0(m, "rcvbuf_a");
    res->receiver_rcvbuf_drops = y > x ? y - x : 0;
    res->records_over = get_or0(m, "over");
    res->invalid = get_or0(m, "invalid");
}

/* "reference,error_ns,utc_error_ns" from the responder's DATA line; 0 or -EPROTO. */
int nmp_stream_clock_decode(const char *v, char *ref, size_t reflen, int64_t *error_ns, int64_t *utc_error_ns) {
    const char *c1 = v == NULL ? NULL : strchr(v, ',');
    const char *c2 = c1 == NULL ? NULL : strchr(c1 + 1, ',');
    if (c2 == NULL || c1 == v || (size_t)(c1 - v) >= reflen) return -EPROTO;
    char *end;
    errno = 0;
    long long e = strtoll(c1 + 1, &end, 10);
    /* at most ~11 days: errors the peer states are added, and must not overflow */
    if (errno || end != c2 || e < 0 || e > NMP_CLOCK_ERROR_MAX_NS || !isdigit((unsigned char)c1[1])) return -EPROTO;
    long long u = strtoll(c2 + 1, &end, 10);
    if (errno || *end != '\0' || u < 0 || u > NMP_CLOCK_ERROR_MAX_NS || !isdigit((unsigned char)c2[1])) return -EPROTO;
    memcpy(ref, v, (size_t)(c1 - v));
    ref[c1 - v] = '\0';
    *error_ns = e;
    *utc_error_ns = u;
    return 0;
}

/* Both ends' clocks and the one-way delays' uncertainty that follows. */
static void clocks(nmp_stream_result *res, const nmp_clock_state *local, int local_ok, const nmp_ctl_msg *m) {
    char ref[32];
    int64_t err = 0, utc = 0;
    res->sender_clock_error_ns = res->receiver_clock_error_ns = res->owd_uncertainty_ns = NAN;
    if (local_ok) {
        snprintf(res->sender_clock_ref, sizeof(res->sender_clock_ref), "%s", local->reference);
        res->sender_clock_error_ns = (double)local->error_ns;
    }
    if (nmp_stream_clock_decode(nmp_ctl_get(m, "clock"), ref, sizeof(ref), &err, &utc) < 0) return;
    snprintf(res->receiver_clock_ref, sizeof(res->receiver_clock_ref), "%s", ref);
    res->receiver_clock_error_ns = (double)err;
    if (local_ok)
        res->owd_uncertainty_ns =
            (double)nmp_clock_uncertainty_ns(local->reference, local->error_ns, local->utc_error_ns, ref, err, utc);
}

static int check_spec(const nmp_stream_spec *s, char *err, size_t errlen) {
    if (s->host == NULL || s->host[0] == '\0' || s->port < 1 || s->port > 65535 || s->count < 1 ||
        s->count > 10000000 || s->size < NMP_FRAME_HDR || s->size > NMP_FRAME_MAX || s->ttl < 0 || s->ttl > 255 ||
        s->interval_ns > 60000000000ull || s->timeout_ns > 60000000000ull || s->hist_bins > NMP_HIST_MAX ||
        s->train_len > NMP_TRAIN_MAX) {
        nmp_seterr(err, errlen,
                   "stream: parameter out of range (host non-empty, port 1..65535, count 1..10000000, size %d..%d, "
                   "ttl 0..255, interval and timeout <= 60 s, hist_bins <= %d, train_len <= %d)",
                   NMP_FRAME_HDR, NMP_FRAME_MAX, NMP_HIST_MAX, NMP_TRAIN_MAX);
        return -EINVAL;
    }
    return 0;
}

int nmp_stream_run(const nmp_stream_spec *spec, const nmp_control *ctl, nmp_stream_result *res, char *err,
                   size_t errlen) {
    char req[NMP_CTL_MAXLINE + 1], e2[NMP_ERRLEN];
    nmp_host_counters hb, ha;
    uint8_t *blob = NULL;
    size_t bloblen = 0;
    nmp_rec *recs = NULL;
    int rc, slack = -1;
    memset(res, 0, sizeof(*res));
    res->sender_clock_error_ns = res->receiver_clock_error_ns = res->owd_uncertainty_ns = NAN;
    if ((rc = check_spec(spec, err, errlen)) < 0) return rc;
    stream_run *t = calloc(1, sizeof(*t));
    if (t == NULL) return -ENOMEM;
    t->cl.ctl = t->cl.udp = -1;
    t->spec = spec;
    t->ctl = ctl;
    t->res = res;
    uint32_t n = spec->count;
    t->send_mono = calloc(n, sizeof(*t->send_mono));
    if (t->send_mono == NULL || nmp_stream_result_alloc(res, n, spec->hist_bins ? spec->hist_bins : DEFAULT_BINS) < 0) {
        nmp_seterr(err, errlen, "stream: out of memory for %u frames", n);
        rc = -ENOMEM;
        goto error;
    }
    res->remote_port = spec->port;
    uint64_t timeout_ms = (spec->timeout_ns + 999999) / 1000000;
    /* trains: frames go back to back within a train; the responder is told the mean spacing */
    uint32_t train = spec->train_len > 1 ? spec->train_len : 1;
    uint64_t declared = spec->interval_ns / train;
    if (declared == 0 && spec->interval_ns > 0) declared = 1;
    nmp_ctl_format(req, sizeof(req), NMP_CTL_SESSION,
                   "kind=stream frames=%u size=%u interval_ns=%llu timeout_ms=%llu%s", n, spec->size,
                   (unsigned long long)declared, (unsigned long long)timeout_ms, spec->shared ? " class=normal" : "");
    rc = nmp_client_open(&t->cl, spec->host, spec->port, spec->connect_timeout_ms, ctl ? ctl->cancel : NULL, req,
                         spec->ttl, spec->key_file, err, errlen);
    if (rc == -ECANCELED) {
        /* cancelled before the responder answered SESSION: nothing was sent;
         * the result stays well formed: keep the allocated arrays in their
         * "not sent" state and analyse zero records so every figure is set */
        res->start_wall = res->end_wall = nmp_wall_now();
        rc = nmp_stream_analyze(res, t->send_mono, NULL, 0, spec->size, strchr(spec->host, ':') != NULL,
                                spec->hist_width_ns);
        if (rc < 0) {
            nmp_seterr(err, errlen, "stream: analysis: %s", strerror(-rc));
            goto error;
        }
        res->sender_cpu_percent = res->receiver_cpu_percent = NAN;
        rc = -ECANCELED;
        nmp_seterr(err, errlen, "stream %s:%d: cancelled before the session started", spec->host, spec->port);
        goto end;
    }
    if (rc < 0) goto error;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    getsockname(t->cl.udp, (struct sockaddr *)&ss, &sl);
    nmp_addr_str((struct sockaddr *)&ss, res->local_addr, sizeof(res->local_addr));
    nmp_addr_str((struct sockaddr *)&t->cl.peer, res->remote_addr, sizeof(res->remote_addr));
    int ipv6 = t->cl.peer.ss_family == AF_INET6;

    if (nmp_host_sample(&hb, e2, sizeof(e2)) < 0) hb.valid = 0;
    nmp_clock_state local_clock;
    int local_clock_ok = nmp_clock_state_read(&local_clock, e2, sizeof(e2)) == 0;
    slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
    memset(t->buf, 0, sizeof(t->buf));
    res->start_wall = nmp_wall_now();
    /* Train k is due at t0 + (k - k0) * interval. A train that left more
     * than nmp_pace_rebase_ns late (the thread was preempted, a timer tick, a
     * slow wake-up) moves the schedule: the next one is due one interval
     * after it actually left, so lost time becomes one longer gap instead
     * of a back-to-back burst of catch-up frames at the sender's full rate
     * (after a 0.4 ms stall at 10 us spacing, ~50 frames 2 us apart; see
     * bench/probe/RESULTS.md). The achieved rate is reported from the send
     * times either way. */
    nmp_monotime_ns t0 = nmp_mono_now() + SPIN_NS;
    uint32_t k0 = 0;
    for (uint32_t i = 0; i < n && !nmp_control_cancelled(t->ctl); i++) {
        int paced = i % train == 0 && (spec->interval_ns > 0 || i == 0);
        nmp_monotime_ns due = t0 + (nmp_monotime_ns)(i / train - k0) * spec->interval_ns;
        /* the control connection is looked at between trains, never inside one */
        if ((paced || train == 1) && (rc = paced ? pace(t, due, err, errlen) : nmp_client_watch(&t->cl, 0, err, errlen)) < 0)
            goto error;
        if (paced && nmp_control_cancelled(t->ctl)) break;
        if ((rc = send_frame(t, i, err, errlen)) < 0) {
            nmp_client_watch(&t->cl, 1, err, errlen); /* a send refused because the responder is gone says so */
            goto error;
        }
        if (paced && spec->interval_ns > 0 && t->send_mono[i] > due + nmp_pace_rebase_ns(spec->interval_ns)) {
            t0 = t->send_mono[i];
            k0 = i / train;
        }
        if (train > 1 ? i % train == train - 1 : (i & 255) == 0) progress(t, 0); /* never inside a train */
    }
    if (nmp_host_sample(&ha, e2, sizeof(e2)) < 0) ha.valid = 0;
    /* let frames in flight arrive, checking for cancel */
    nmp_monotime_ns until = nmp_mono_now() + spec->timeout_ns;
    while (!nmp_control_cancelled(t->ctl) && nmp_mono_now() < until) {
        nmp_monotime_ns now = nmp_mono_now(), step = now + 20000000ull;
        nmp_sleep_until(step < until ? step : until, 0);
        if ((rc = nmp_client_watch(&t->cl, 0, err, errlen)) < 0) goto error;
    }
    progress(t, 1);
    int was_cancelled = nmp_control_cancelled(t->ctl);
    nmp_ctl_msg data;
    uint32_t max_records = n + n / 8 + 16;
    if ((rc = nmp_client_results(&t->cl, max_records, &data, &blob, &bloblen, err, errlen)) < 0) goto error;
    if ((rc = nmp_client_end(&t->cl, NULL, NULL, err, errlen)) < 0) goto error;
    res->end_wall = nmp_wall_now();
    size_t nrec = bloblen / NMP_REC_SIZE;
    recs = malloc((nrec ? nrec : 1) * sizeof(*recs));
    if (recs == NULL) {
        rc = -ENOMEM;
        goto error;
    }
    for (size_t i = 0; i < nrec; i++) nmp_rec_decode(blob + i * NMP_REC_SIZE, &recs[i]);
    rc = nmp_stream_analyze(res, t->send_mono, recs, nrec, spec->size, ipv6, spec->hist_width_ns);
    if (rc < 0) {
        nmp_seterr(err, errlen, "stream: analysis: %s", strerror(-rc));
        goto error;
    }
    res->sender_cpu_percent = nmp_host_cpu_busy_percent(&hb, &ha);
    res->sender_interrupts = hb.valid && ha.valid && ha.interrupts > hb.interrupts ? ha.interrupts - hb.interrupts : 0;
    receiver_counters(res, &data);
    clocks(res, &local_clock, local_clock_ok, &data);
    res->network_lost = res->lost > res->receiver_rcvbuf_drops ? res->lost - (uint32_t)res->receiver_rcvbuf_drops : 0;
    if (was_cancelled) {
        rc = -ECANCELED;
        nmp_seterr(err, errlen, "stream %s:%d: cancelled after %u of %u frames", spec->host, spec->port, res->sent, n);
    }
    goto end;
error:
    nmp_stream_result_free(res);
end:
    if (slack >= 0) prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
    nmp_client_close(&t->cl);
    free(blob);
    free(recs);
    free(t->send_mono);
    free(t);
    return rc;
}

/* ---- the "stream" kind: spec table and packed result (nmp_kind.h) ---- */

/* Defaults are the CLI's (the engine has none for count, size, interval, timeout). */
static const nmp_spec_field stream_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_stream_spec, host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "responder name or address (IPv4 or IPv6)"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_stream_spec, port), .lo = 1, .hi = 65535,
     .def = NMP_DEFAULT_PORT, .cli = "port", .cli_short = 'p', .help = "responder control port"},
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(nmp_stream_spec, key_file), .hi = 4095, .cli = "key-file",
     .help = "file with the responder's shared key (mode 600), for a responder started with --key-file"},
    {.name = "count", .type = NMP_S_U32, .offset = offsetof(nmp_stream_spec, count), .lo = 1, .hi = 10000000,
     .def = 1000, .cli = "count", .cli_short = 'c', .help = "frames to send"},
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(nmp_stream_spec, size), .lo = NMP_FRAME_HDR,
     .hi = NMP_FRAME_MAX, .def = 1472, .cli = "size", .cli_short = 's', .help = "UDP payload bytes per frame"},
    {.name = "intervalNs", .type = NMP_S_U64, .offset = offsetof(nmp_stream_spec, interval_ns), .hi = 60e9,
     .def = 100000, .cli = "interval-us", .cli_short = 'i', .cli_scale = 1000,
     .help = "spacing between frames in microseconds (0 = back to back)"},
    {.name = "timeoutNs", .type = NMP_S_U64, .offset = offsetof(nmp_stream_spec, timeout_ns), .hi = 60e9,
     .def = 500e6, .cli = "timeout-ms", .cli_short = 't', .cli_scale = 1e6,
     .help = "wait after the last frame before fetching the receiver's records"},
    {.name = "ttl", .type = NMP_S_INT, .offset = offsetof(nmp_stream_spec, ttl), .hi = 255, .cli = "ttl",
     .help = "outgoing TTL / hop limit (0 = system default)"},
    {.name = "shared", .type = NMP_S_INT, .offset = offsetof(nmp_stream_spec, shared), .hi = 1, .cli = "shared",
     .help = "1 = a light test that may run beside other shared ones (responder --sessions)"},
    {.name = "bins", .type = NMP_S_U32, .offset = offsetof(nmp_stream_spec, hist_bins), .lo = 1, .hi = NMP_HIST_MAX,
     .def = 50, .cli = "bins", .help = "inter-arrival histogram bins"},
    {.name = "binWidthNs", .type = NMP_S_U64, .offset = offsetof(nmp_stream_spec, hist_width_ns), .hi = 60e9,
     .cli = "bin-width-us", .cli_scale = 1000, .help = "histogram bin width (0 = automatic)"},
    /* not on the CLI: trains of back-to-back frames, interval apart (the capacity test's pattern) */
    {.name = "trainLen", .type = NMP_S_U32, .offset = offsetof(nmp_stream_spec, train_len), .hi = NMP_TRAIN_MAX,
     .help = "frames per back-to-back train (0 or 1 = evenly spaced)"},
};

/* Packs the per-frame columns and the histogram; when the engine kept no
 * arrays (a cancel it did not foresee) they get their "not sent" values. */
static int stream_pack_arrays(nmp_pack *out, const nmp_stream_result *r, uint32_t bins, int rc, char *err,
                              size_t errlen) {
    size_t n = r->requested;
    if (r->seq && r->send_wall && r->arrival_wall && r->owd_ns && r->bytes && r->hist) {
        nmp_pack_i64s(out, "histogram", (const int64_t *)r->hist, r->hist_bins);
        nmp_pack_i32s(out, "frames.seq", r->seq, n);
        nmp_pack_i64s(out, "frames.sendEpochNanos", r->send_wall, n);
        nmp_pack_i64s(out, "frames.arrivalEpochNanos", r->arrival_wall, n);
        nmp_pack_i64s(out, "frames.owdNanos", r->owd_ns, n);
        nmp_pack_i32s(out, "frames.bytes", r->bytes, n);
        return 0;
    }
    if (rc != -ECANCELED) {
        nmp_seterr(err, errlen, "stream: the engine returned no per-frame results");
        return -EFAULT;
    }
    size_t m = n > bins ? n : bins;
    int32_t *i32 = malloc((m ? m : 1) * sizeof(*i32));
    int64_t *i64 = calloc(m ? m : 1, sizeof(*i64));
    if (i32 == NULL || i64 == NULL) {
        free(i32);
        free(i64);
        nmp_seterr(err, errlen, "stream: out of memory");
        return -ENOMEM;
    }
    nmp_pack_i64s(out, "histogram", i64, bins);
    for (size_t i = 0; i < n; i++) i32[i] = (int32_t)i;
    nmp_pack_i32s(out, "frames.seq", i32, n);
    nmp_pack_i64s(out, "frames.sendEpochNanos", i64, n);
    nmp_pack_i64s(out, "frames.arrivalEpochNanos", i64, n);
    for (size_t i = 0; i < n; i++) i32[i] = 0, i64[i] = -1;
    nmp_pack_i64s(out, "frames.owdNanos", i64, n);
    nmp_pack_i32s(out, "frames.bytes", i32, n);
    free(i32);
    free(i64);
    return 0;
}

static int stream_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    const nmp_stream_spec *spec = sp;
    nmp_stream_result r;
    memset(&r, 0, sizeof(r));
    int rc = nmp_stream_run(spec, ctl, &r, err, errlen);
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
    nmp_pack_i64(out, "reordered", r.reordered);
    nmp_pack_i64(out, "maxReorderExtent", r.reorder_max_extent);
    nmp_pack_i64(out, "wireOverheadBytes", r.wire_overhead);
    nmp_pack_i64(out, "firstLossSeq", r.first_loss_seq);
    nmp_pack_i64(out, "lossIntervals", r.loss_intervals);
    nmp_pack_i64(out, "ipdvPairs", r.ipdv_pairs);
    nmp_pack_i64(out, "senderInterrupts", (int64_t)r.sender_interrupts);
    nmp_pack_i64(out, "receiverInterrupts", (int64_t)r.receiver_interrupts);
    nmp_pack_i64(out, "receiverUdpIn", (int64_t)r.receiver_udp_in);
    nmp_pack_i64(out, "receiverSocketDrops", (int64_t)r.receiver_rcvbuf_drops);
    nmp_pack_i64(out, "networkLost", r.network_lost);
    nmp_pack_i64(out, "invalid", (int64_t)r.invalid);
    nmp_pack_i64(out, "recordsOver", (int64_t)r.records_over);
    nmp_pack_i64(out, "firstSendEpochNanos", r.first_send_wall);
    nmp_pack_i64(out, "lastSendEpochNanos", r.last_send_wall);
    nmp_pack_i64(out, "firstArrivalEpochNanos", r.first_arrival_wall);
    nmp_pack_i64(out, "lastArrivalEpochNanos", r.last_arrival_wall);
    nmp_pack_f64(out, "lossPercent", r.loss_percent);
    nmp_pack_f64(out, "sendSpacingNs", r.send_spacing_ns);
    nmp_pack_f64(out, "sendUserMbps", r.send_user_mbps);
    nmp_pack_f64(out, "sendWireMbps", r.send_wire_mbps);
    nmp_pack_f64(out, "recvUserMbps", r.recv_user_mbps);
    nmp_pack_f64(out, "recvWireMbps", r.recv_wire_mbps);
    nmp_pack_f64(out, "reorderRatio", r.reorder_ratio);
    nmp_pack_f64(out, "n1ReorderRatio", r.n_reorder_ratio[0]);
    nmp_pack_f64(out, "n2ReorderRatio", r.n_reorder_ratio[1]);
    nmp_pack_f64(out, "n3ReorderRatio", r.n_reorder_ratio[2]);
    nmp_pack_f64(out, "minOwdMs", r.owd_min_ns / 1e6);
    nmp_pack_f64(out, "medianOwdMs", r.owd_median_ns / 1e6);
    nmp_pack_f64(out, "meanOwdMs", r.owd_mean_ns / 1e6);
    nmp_pack_f64(out, "p95OwdMs", r.owd_p95_ns / 1e6);
    nmp_pack_f64(out, "p99OwdMs", r.owd_p99_ns / 1e6);
    nmp_pack_f64(out, "maxOwdMs", r.owd_max_ns / 1e6);
    nmp_pack_f64(out, "jitterMs", r.jitter_ns / 1e6);
    nmp_pack_f64(out, "meanAbsIpdvMs", r.ipdv_mean_abs_ns / 1e6);
    nmp_pack_f64(out, "minInterArrivalNs", r.iat_min_ns);
    nmp_pack_f64(out, "meanInterArrivalNs", r.iat_mean_ns);
    nmp_pack_f64(out, "maxInterArrivalNs", r.iat_max_ns);
    nmp_pack_f64(out, "lossIntervalMean", r.loss_interval_mean);
    nmp_pack_f64(out, "lossExpRate", r.loss_exp_rate);
    nmp_pack_f64(out, "lossExpKsDistance", r.loss_exp_ks_d);
    nmp_pack_f64(out, "rateBeforeLossMbps", r.rate_before_loss_mbps);
    nmp_pack_f64(out, "rateAfterLossMbps", r.rate_after_loss_mbps);
    nmp_pack_f64(out, "bufferEstimateFrames", r.buffer_est_frames);
    nmp_pack_f64(out, "bufferEstimateBytes", r.buffer_est_bytes);
    nmp_pack_f64(out, "queueDelayAtLossMs", r.queue_delay_at_loss_ns / 1e6);
    nmp_pack_f64(out, "bufferEstimateByDelayBytes", r.buffer_est_delay_bytes);
    nmp_pack_f64(out, "senderCpuPercent", r.sender_cpu_percent);
    nmp_pack_str(out, "senderClockReference", r.sender_clock_ref);
    nmp_pack_str(out, "receiverClockReference", r.receiver_clock_ref);
    nmp_pack_f64(out, "senderClockErrorMs", r.sender_clock_error_ns / 1e6);
    nmp_pack_f64(out, "receiverClockErrorMs", r.receiver_clock_error_ns / 1e6);
    nmp_pack_f64(out, "oneWayUncertaintyMs", r.owd_uncertainty_ns / 1e6);
    nmp_pack_f64(out, "receiverCpuPercent", r.receiver_cpu_percent);
    nmp_pack_f64(out, "histogramStartNs", r.hist_lo_ns);
    nmp_pack_f64(out, "histogramBinWidthNs", r.hist_width_ns);
    nmp_pack_i64(out, "histogramUnder", (int64_t)r.hist_under);
    nmp_pack_i64(out, "histogramOver", (int64_t)r.hist_over);
    nmp_pack_i64(out, "startEpochNanos", r.start_wall);
    nmp_pack_i64(out, "endEpochNanos", r.end_wall);
    int prc = stream_pack_arrays(out, &r, spec->hist_bins ? spec->hist_bins : 50, rc, err, errlen);
    if (prc < 0) rc = prc;
end:
    nmp_stream_result_free(&r);
    return rc;
}

const nmp_kind nmp_kind_stream = {
    .name = "stream",
    .summary = "one-way UDP stream: rates, loss, reordering, one-way delay, host load",
    .fields = stream_fields,
    .nfields = sizeof(stream_fields) / sizeof(stream_fields[0]),
    .spec_size = sizeof(nmp_stream_spec),
    .run = stream_kind_run,
};
