/* nmp_scan.c -- latency as a function of frame size (UDPmon's latency
 * plot): one request-response test per size, per-size RTT statistics and
 * histogram, and a least-squares line through the per-size minimum RTT. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nmprobe.h"

#define DEFAULT_BINS 50

void nmp_scan_result_free(nmp_scan_result *res) {
    for (uint32_t i = 0; i < NMP_SCAN_MAX_SIZES; i++) {
        free(res->points[i].hist);
        res->points[i].hist = NULL;
    }
}

/* Progress of one size, rescaled to frames over the whole scan. */
typedef struct scan_progress {
    const nmp_control *outer;       /* the caller's control */
    uint32_t base;                  /* frames of the sizes already done */
    uint32_t total;                 /* frames of the whole scan */
} scan_progress;

static void on_progress(void *ctx, uint32_t done, uint32_t total) {
    scan_progress *p = ctx;
    (void)total;
    if (p->outer && p->outer->progress) p->outer->progress(p->outer->progress_ctx, p->base + done, p->total);
}

/* Fills the statistics of one point from an rr result. */
static int fill_point(nmp_scan_point *pt, const nmp_rr_result *r, uint32_t bins, uint64_t width_ns) {
    pt->sent = r->sent;
    pt->received = r->received;
    pt->min_ns = r->rtt_min_ns;
    pt->mean_ns = r->rtt_mean_ns;
    pt->median_ns = r->rtt_median_ns;
    pt->max_ns = r->rtt_max_ns;
    pt->hist_lo_ns = pt->hist_width_ns = NAN;
    pt->hist_under = pt->hist_over = 0;
    if (r->received == 0) return 0;
    double *x = malloc(r->received * sizeof(*x));
    if (x == NULL) return -ENOMEM;
    size_t n = 0;
    for (uint32_t i = 0; i < r->requested; i++)
        if (r->rtt_ns[i] >= 0) x[n++] = (double)r->rtt_ns[i];
    double p99;
    nmp_stats_quantile(x, n, 0.99, &p99);
    double lo = floor(pt->min_ns / 1000.0) * 1000.0, width = (double)width_ns;
    if (!(width > 0)) {
        width = ceil((p99 - lo) / bins / 100.0) * 100.0;
        if (width < 100) width = 100;
    }
    pt->hist_lo_ns = lo;
    pt->hist_width_ns = width;
    int rc = nmp_stats_histogram(x, n, lo, width, bins, pt->hist, &pt->hist_under, &pt->hist_over);
    free(x);
    return rc;
}

int nmp_scan_run(const nmp_scan_spec *spec, const nmp_control *ctl, nmp_scan_result *res, char *err,
                 size_t errlen) {
    int rc = 0;
    memset(res, 0, sizeof(*res));
    uint32_t bins = spec->hist_bins ? spec->hist_bins : DEFAULT_BINS;
    if (spec->nsizes < 2 || spec->nsizes > NMP_SCAN_MAX_SIZES || bins > NMP_HIST_MAX || spec->sizes == NULL) {
        nmp_seterr(err, errlen, "scan: need 2..%d sizes and at most %d histogram bins", NMP_SCAN_MAX_SIZES,
                   NMP_HIST_MAX);
        return -EINVAL;
    }
    for (uint32_t i = 0; i < spec->nsizes; i++) {
        if (spec->sizes[i] < NMP_FRAME_HDR || spec->sizes[i] > NMP_FRAME_MAX) {
            nmp_seterr(err, errlen, "scan: size %u out of range %d..%d", spec->sizes[i], NMP_FRAME_HDR, NMP_FRAME_MAX);
            return -EINVAL;
        }
    }
    res->hist_bins = bins;
    for (uint32_t i = 0; i < spec->nsizes; i++) {
        res->points[i].hist = calloc(bins, sizeof(uint64_t));
        if (res->points[i].hist == NULL) {
            rc = -ENOMEM;
            nmp_seterr(err, errlen, "scan: out of memory");
            goto error;
        }
    }
    scan_progress sp = {.outer = ctl, .base = 0, .total = spec->rr.count * spec->nsizes};
    nmp_control inner = {.cancel = ctl ? ctl->cancel : NULL, .progress = on_progress, .progress_ctx = &sp};
    double xs[NMP_SCAN_MAX_SIZES], ys[NMP_SCAN_MAX_SIZES];
    size_t nfit = 0;
    for (uint32_t i = 0; i < spec->nsizes; i++) {
        nmp_rr_spec rs = spec->rr;
        nmp_rr_result r;
        rs.size = spec->sizes[i];
        rc = nmp_rr_run(&rs, &inner, &r, err, errlen);
        if (rc < 0 && rc != -ECANCELED) goto error;
        if (rc == -ECANCELED && r.sent == 0) {
            /* cancelled before this size's session started: not a point */
            nmp_rr_result_free(&r);
            break;
        }
        nmp_scan_point *pt = &res->points[i];
        pt->size = rs.size;
        int frc = fill_point(pt, &r, bins, spec->hist_width_ns);
        memcpy(res->remote_addr, r.remote_addr, sizeof(res->remote_addr));
        nmp_rr_result_free(&r);
        res->npoints = i + 1;
        if (frc < 0) {
            rc = frc;
            goto error;
        }
        if (pt->received > 0) {
            xs[nfit] = pt->size;
            ys[nfit] = pt->min_ns / 1e3;
            nfit++;
        }
        sp.base += spec->rr.count;
        if (rc == -ECANCELED) break;
    }
    nmp_linfit fit;
    if (nfit >= 2 && nmp_stats_linfit(xs, ys, nfit, &fit) == 0) {
        res->slope_us_per_byte = fit.slope;
        res->intercept_us = fit.intercept;
        res->r2 = fit.r2;
        res->fit_ok = 1;
    } else {
        res->slope_us_per_byte = res->intercept_us = res->r2 = NAN;
    }
    return rc;
error:
    nmp_scan_result_free(res);
    return rc;
}
