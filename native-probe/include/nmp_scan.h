/* nmp_scan.h -- latency versus frame size (kind "scan"). */
#ifndef NMP_SCAN_H
#define NMP_SCAN_H

#include "nmp_rr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------- latency vs frame size
 *
 * Runs one rr test per size (each its own session) and fits a line through
 * the per-size minimum RTT: slope (us per byte) reflects the sum of the
 * transfer rates on the path, intercept (us) the fixed per-packet costs. */

#define NMP_SCAN_MAX_SIZES 64
#define NMP_SCAN_MAX_ROUNDS 100
#define NMP_SCAN_MAX_COUNT 10000000   /* frames a size */
#define NMP_SCAN_MAX_FRAMES 10000000  /* frames over all sizes: their RTTs are kept to the end */

typedef struct nmp_scan_point {
    uint32_t size;                   /* UDP payload bytes */
    uint32_t sent, received;         /* frames */
    double min_ns, mean_ns, median_ns, max_ns; /* RTT over received frames (NaN if none) */
    double hist_lo_ns, hist_width_ns; /* RTT histogram geometry */
    uint64_t *hist;                  /* hist_bins counts (owned by the scan result) */
    uint64_t hist_under, hist_over;  /* RTTs outside the bins */
} nmp_scan_point;

typedef struct nmp_scan_spec {
    nmp_rr_spec rr;                  /* host, port, count, interval, timeout, ttl (size ignored) */
    const uint32_t *sizes;           /* sizes to test, in order */
    uint32_t nsizes;                 /* 2..NMP_SCAN_MAX_SIZES */
    uint32_t hist_bins;              /* RTT histogram bins per size, 0 = 50 */
    uint64_t hist_width_ns;          /* bin width, 0 = automatic per size */
    uint32_t rounds;                 /* rounds over the sizes, each a share of rr.count a size
                                        (ascending, then descending), 0 = 4; at most rr.count */
} nmp_scan_spec;

typedef struct nmp_scan_result {
    uint32_t npoints;                /* points measured */
    nmp_scan_point points[NMP_SCAN_MAX_SIZES]; /* one per size */
    uint32_t hist_bins;              /* bins per point */
    double slope_us_per_byte;        /* least-squares fit of min RTT vs size */
    double intercept_us;
    double r2;
    int fit_ok;                      /* nonzero when the fit exists (>= 2 sizes answered) */
    char remote_addr[64];            /* responder address */
} nmp_scan_result;

/* Progress counts frames over all sizes. Result ownership as nmp_rr_run;
 * on -ECANCELED the points are the sizes measured so far (a size cancelled
 * before its session started is left out). */
int nmp_scan_run(const nmp_scan_spec *spec, const nmp_control *ctl, nmp_scan_result *res, char *err,
                 size_t errlen);
void nmp_scan_result_free(nmp_scan_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NMP_SCAN_H */
