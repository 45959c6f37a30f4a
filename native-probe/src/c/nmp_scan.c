/* nmp_scan.c -- latency as a function of frame size (UDPmon's latency
 * plot): one request-response test per size, per-size RTT statistics and
 * histogram, and a least-squares line through the per-size minimum RTT. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_scan.h"
#include "nmp_kind.h"
#include "nmprobe.h"

#define DEFAULT_BINS 50
#define DEFAULT_ROUNDS 4              /* rounds over the sizes (see nmp_scan_run) */

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

/* Fills the statistics of one point from the RTTs its rounds received. */
static int fill_point(nmp_scan_point *pt, const double *x, size_t n, uint32_t bins, uint64_t width_ns) {
    pt->received = (uint32_t)n;
    pt->min_ns = pt->mean_ns = pt->median_ns = pt->max_ns = NAN;
    pt->hist_lo_ns = pt->hist_width_ns = NAN;
    pt->hist_under = pt->hist_over = 0;
    if (n == 0) return 0;
    nmp_summary sum;
    double p99;
    int rc;
    if ((rc = nmp_stats_summarize(x, n, &sum)) < 0 || (rc = nmp_stats_quantile(x, n, 0.99, &p99)) < 0) return rc;
    pt->min_ns = sum.min;
    pt->mean_ns = sum.mean;
    pt->median_ns = sum.median;
    pt->max_ns = sum.max;
    double lo = floor(pt->min_ns / 1000.0) * 1000.0, width = (double)width_ns;
    if (!(width > 0)) {
        width = ceil((p99 - lo) / bins / 100.0) * 100.0;
        if (width < 100) width = 100;
    }
    pt->hist_lo_ns = lo;
    pt->hist_width_ns = width;
    return nmp_stats_histogram(x, n, lo, width, bins, pt->hist, &pt->hist_under, &pt->hist_over);
}

/* The sizes are measured in rounds, each size a share of its frames a round,
 * ascending then descending: a transient on either host (a busy vCPU, a
 * process starting) then touches every size a little rather than one size
 * whole, which would bend the line fitted through the per-size minima. */
int nmp_scan_run(const nmp_scan_spec *spec, const nmp_control *ctl, nmp_scan_result *res, char *err,
                 size_t errlen) {
    int rc = 0;
    memset(res, 0, sizeof(*res));
    uint32_t bins = spec->hist_bins ? spec->hist_bins : DEFAULT_BINS;
    uint32_t count = spec->rr.count;
    uint32_t rounds = spec->rounds ? spec->rounds : DEFAULT_ROUNDS;
    if (spec->nsizes < 2 || spec->nsizes > NMP_SCAN_MAX_SIZES || bins > NMP_HIST_MAX || spec->sizes == NULL ||
        count < 1 || count > NMP_SCAN_MAX_COUNT || (uint64_t)count * spec->nsizes > NMP_SCAN_MAX_FRAMES ||
        rounds > NMP_SCAN_MAX_ROUNDS) {
        nmp_seterr(err, errlen,
                   "scan: need 2..%d sizes, 1..%d frames a size and %d in all, at most %d rounds and %d histogram bins",
                   NMP_SCAN_MAX_SIZES, NMP_SCAN_MAX_COUNT, NMP_SCAN_MAX_FRAMES, NMP_SCAN_MAX_ROUNDS, NMP_HIST_MAX);
        return -EINVAL;
    }
    for (uint32_t i = 0; i < spec->nsizes; i++) {
        if (spec->sizes[i] < NMP_FRAME_HDR || spec->sizes[i] > NMP_FRAME_MAX) {
            nmp_seterr(err, errlen, "scan: size %u out of range %d..%d", spec->sizes[i], NMP_FRAME_HDR, NMP_FRAME_MAX);
            return -EINVAL;
        }
    }
    if (rounds > count) rounds = count;
    res->hist_bins = bins;
    double *rtts[NMP_SCAN_MAX_SIZES] = {0}; /* received RTTs per size, over the rounds */
    size_t nrtt[NMP_SCAN_MAX_SIZES] = {0};
    for (uint32_t i = 0; i < spec->nsizes; i++) {
        res->points[i].hist = calloc(bins, sizeof(uint64_t));
        rtts[i] = malloc((size_t)count * sizeof(double));
        if (res->points[i].hist == NULL || rtts[i] == NULL) {
            rc = -ENOMEM;
            nmp_seterr(err, errlen, "scan: out of memory");
            goto error;
        }
        res->points[i].size = spec->sizes[i];
    }
    scan_progress sp = {.outer = ctl, .base = 0, .total = count * spec->nsizes};
    nmp_control inner = {.cancel = ctl ? ctl->cancel : NULL, .progress = on_progress, .progress_ctx = &sp};
    int stop = 0;
    for (uint32_t k = 0; k < rounds && !stop; k++) {
        uint32_t share = count / rounds + (k < count % rounds ? 1 : 0);
        for (uint32_t j = 0; j < spec->nsizes && !stop; j++) {
            uint32_t i = k % 2 == 0 ? j : spec->nsizes - 1 - j;
            nmp_rr_spec rs = spec->rr;
            nmp_rr_result r;
            rs.size = spec->sizes[i];
            rs.count = share;
            rc = nmp_rr_run(&rs, &inner, &r, err, errlen);
            if (rc < 0 && rc != -ECANCELED) goto error;
            if (rc == -ECANCELED) stop = 1;
            res->points[i].sent += r.sent;
            for (uint32_t f = 0; r.rtt_ns != NULL && f < r.requested && nrtt[i] < count; f++)
                if (r.rtt_ns[f] >= 0) rtts[i][nrtt[i]++] = (double)r.rtt_ns[f];
            if (r.sent > 0) memcpy(res->remote_addr, r.remote_addr, sizeof(res->remote_addr));
            nmp_rr_result_free(&r);
            sp.base += share;
        }
    }
    /* the points: the sizes that sent frames (all of them unless cancelled in the first round) */
    double xs[NMP_SCAN_MAX_SIZES], ys[NMP_SCAN_MAX_SIZES];
    size_t nfit = 0;
    uint32_t np = 0;
    for (uint32_t i = 0; i < spec->nsizes; i++) {
        if (res->points[i].sent == 0) continue;
        nmp_scan_point pt = res->points[i];
        int frc = fill_point(&pt, rtts[i], nrtt[i], bins, spec->hist_width_ns);
        if (frc < 0) {
            rc = frc;
            nmp_seterr(err, errlen, "scan: out of memory");
            goto error;
        }
        uint64_t *h = res->points[np].hist; /* moved down to slot np; the buffers swap, each owned once */
        res->points[np] = pt;
        res->points[i].hist = h;
        if (pt.received > 0) {
            xs[nfit] = pt.size;
            ys[nfit] = pt.min_ns / 1e3;
            nfit++;
        }
        np++;
    }
    res->npoints = np;
    for (uint32_t i = 0; i < spec->nsizes; i++) free(rtts[i]);
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
    for (uint32_t i = 0; i < spec->nsizes && i < NMP_SCAN_MAX_SIZES; i++) free(rtts[i]);
    nmp_scan_result_free(res);
    return rc;
}

/* ---- the "scan" kind: spec table and packed result (nmp_kind.h) ---- */

/* Defaults are the CLI's: 100 frames per size 100 us apart, 1 s timeout. */
static const nmp_spec_field scan_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_scan_spec, rr.host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "responder name or address (IPv4 or IPv6)"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_scan_spec, rr.port), .lo = 1, .hi = 65535,
     .def = NMP_DEFAULT_PORT, .cli = "port", .cli_short = 'p', .help = "responder control port"},
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(nmp_scan_spec, rr.key_file), .hi = 4095, .cli = "key-file",
     .help = "file with the responder's shared key (mode 600), for a responder started with --key-file"},
    {.name = "count", .type = NMP_S_U32, .offset = offsetof(nmp_scan_spec, rr.count), .lo = 1, .hi = 10000000,
     .def = 100, .cli = "count", .cli_short = 'c', .help = "frames per size"},
    {.name = "intervalNs", .type = NMP_S_U64, .offset = offsetof(nmp_scan_spec, rr.interval_ns), .hi = 60e9,
     .def = 100000, .cli = "interval-us", .cli_short = 'i', .cli_scale = 1000,
     .help = "spacing between frames in microseconds (0 = back to back)"},
    {.name = "timeoutNs", .type = NMP_S_U64, .offset = offsetof(nmp_scan_spec, rr.timeout_ns), .hi = 60e9,
     .def = 1e9, .cli = "timeout-ms", .cli_short = 't', .cli_scale = 1e6,
     .help = "wait for replies after the last frame of each size"},
    {.name = "ttl", .type = NMP_S_INT, .offset = offsetof(nmp_scan_spec, rr.ttl), .hi = 255, .cli = "ttl",
     .help = "outgoing TTL / hop limit (0 = system default)"},
    /* absent: 64,128,256,512,1024,1472 (set by scan_check) */
    {.name = "sizes", .type = NMP_S_U32_LIST, .offset = offsetof(nmp_scan_spec, sizes), .lo = NMP_FRAME_HDR,
     .hi = NMP_FRAME_MAX, .count_offset = offsetof(nmp_scan_spec, nsizes), .lo_count = 2,
     .hi_count = NMP_SCAN_MAX_SIZES, .cli = "sizes", .help = "comma-separated frame sizes (default 64,128,256,512,1024,1472)"},
    {.name = "rounds", .type = NMP_S_U32, .offset = offsetof(nmp_scan_spec, rounds), .lo = 1,
     .hi = NMP_SCAN_MAX_ROUNDS, .def = DEFAULT_ROUNDS, .cli = "rounds",
     .help = "rounds over the sizes, each a share of every size's frames (ascending, then descending)"},
    {.name = "bins", .type = NMP_S_U32, .offset = offsetof(nmp_scan_spec, hist_bins), .lo = 1, .hi = NMP_HIST_MAX,
     .def = 50, .cli = "bins", .help = "RTT histogram bins per size"},
    {.name = "binWidthNs", .type = NMP_S_U64, .offset = offsetof(nmp_scan_spec, hist_width_ns), .hi = 60e9,
     .cli = "bin-width-us", .cli_scale = 1000, .help = "histogram bin width (0 = automatic per size)"},
};

/* Fills the default sizes when none were given (the list is owned by the spec). */
static int scan_check(void *sp, char *err, size_t errlen) {
    static const uint32_t def[] = {64, 128, 256, 512, 1024, 1472};
    nmp_scan_spec *spec = sp;
    if (spec->sizes != NULL) return 0;
    uint32_t *v = malloc(sizeof(def));
    if (v == NULL) {
        nmp_seterr(err, errlen, "scan: out of memory");
        return -ENOMEM;
    }
    memcpy(v, def, sizeof(def));
    spec->sizes = v;
    spec->nsizes = sizeof(def) / sizeof(def[0]);
    return 0;
}

static int scan_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    nmp_scan_result *r = calloc(1, sizeof(*r));
    uint64_t *hist = NULL;
    if (r == NULL) {
        nmp_seterr(err, errlen, "scan: out of memory");
        return -ENOMEM;
    }
    int rc = nmp_scan_run(sp, ctl, r, err, errlen);
    if (rc < 0 && rc != -ECANCELED) goto end;
    uint32_t n = r->npoints < NMP_SCAN_MAX_SIZES ? r->npoints : NMP_SCAN_MAX_SIZES;
    nmp_pack_bool(out, "cancelled", rc == -ECANCELED);
    nmp_pack_str(out, "remoteAddress", r->remote_addr);
    nmp_pack_f64(out, "slopeUsPerByte", r->slope_us_per_byte);
    nmp_pack_f64(out, "interceptUs", r->intercept_us);
    nmp_pack_f64(out, "r2", r->r2);
    nmp_pack_bool(out, "fitOk", r->fit_ok);
    nmp_pack_i64(out, "histogramBins", r->hist_bins);
    const size_t st = sizeof(nmp_scan_point);
    nmp_pack_col_i64(out, "points.size", r->points, n, st, offsetof(nmp_scan_point, size), NMP_C_U32);
    nmp_pack_col_i64(out, "points.sent", r->points, n, st, offsetof(nmp_scan_point, sent), NMP_C_U32);
    nmp_pack_col_i64(out, "points.received", r->points, n, st, offsetof(nmp_scan_point, received), NMP_C_U32);
    nmp_pack_col_f64(out, "points.minRttMs", r->points, n, st, offsetof(nmp_scan_point, min_ns), 1e6);
    nmp_pack_col_f64(out, "points.meanRttMs", r->points, n, st, offsetof(nmp_scan_point, mean_ns), 1e6);
    nmp_pack_col_f64(out, "points.medianRttMs", r->points, n, st, offsetof(nmp_scan_point, median_ns), 1e6);
    nmp_pack_col_f64(out, "points.maxRttMs", r->points, n, st, offsetof(nmp_scan_point, max_ns), 1e6);
    nmp_pack_col_f64(out, "points.histogramStartNs", r->points, n, st, offsetof(nmp_scan_point, hist_lo_ns), 1);
    nmp_pack_col_f64(out, "points.histogramBinWidthNs", r->points, n, st, offsetof(nmp_scan_point, hist_width_ns), 1);
    nmp_pack_col_i64(out, "points.histogramUnder", r->points, n, st, offsetof(nmp_scan_point, hist_under), NMP_C_U64);
    nmp_pack_col_i64(out, "points.histogramOver", r->points, n, st, offsetof(nmp_scan_point, hist_over), NMP_C_U64);
    /* point i's bins at i * histogramBins (zeros for a point without a histogram) */
    size_t nb = (size_t)n * r->hist_bins;
    hist = calloc(nb ? nb : 1, sizeof(*hist));
    if (hist == NULL) {
        nmp_seterr(err, errlen, "scan: out of memory");
        rc = -ENOMEM;
        goto end;
    }
    for (uint32_t i = 0; i < n; i++)
        if (r->points[i].hist) memcpy(hist + (size_t)i * r->hist_bins, r->points[i].hist, r->hist_bins * sizeof(*hist));
    nmp_pack_i64s(out, "points.histogram", (const int64_t *)hist, nb);
end:
    free(hist);
    nmp_scan_result_free(r);
    free(r);
    return rc;
}

const nmp_kind nmp_kind_scan = {
    .name = "scan",
    .summary = "latency versus frame size (--sizes 64,512,1472), with a line fit",
    .fields = scan_fields,
    .nfields = sizeof(scan_fields) / sizeof(scan_fields[0]),
    .spec_size = sizeof(nmp_scan_spec),
    .check = scan_check,
    .run = scan_kind_run,
};
