/* nmp_stats.c -- order statistics and summaries over sample arrays.
 *
 * Pure functions with exact, documented definitions (type-7 quantiles) so
 * that unit tests can pin their values and results match numpy/R. Inputs
 * are never modified; sorting works on a heap copy. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_stats.h"
#include "nmprobe.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Returns a sorted heap copy of x (caller frees) or NULL on ENOMEM. */
static double *sorted_copy(const double *x, size_t n) {
    double *s = malloc(n * sizeof(*s));
    if (s == NULL) return NULL;
    memcpy(s, x, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    return s;
}

/* q in [0,1] over already sorted data s[0..n-1], n >= 1. */
static double quantile_sorted(const double *s, size_t n, double q) {
    if (q <= 0) return s[0];
    if (q >= 1) return s[n - 1];
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n) return s[n - 1];
    return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

int nmp_stats_quantile(const double *x, size_t n, double q, double *out) {
    if (n == 0 || !(q >= 0 && q <= 1)) return -EINVAL;
    double *s = sorted_copy(x, n);
    if (s == NULL) return -ENOMEM;
    *out = quantile_sorted(s, n, q);
    free(s);
    return 0;
}

int nmp_stats_median(const double *x, size_t n, double *out) {
    return nmp_stats_quantile(x, n, 0.5, out);
}

int nmp_stats_iqr(const double *x, size_t n, double *out) {
    if (n == 0) return -EINVAL;
    double *s = sorted_copy(x, n);
    if (s == NULL) return -ENOMEM;
    *out = quantile_sorted(s, n, 0.75) - quantile_sorted(s, n, 0.25);
    free(s);
    return 0;
}

int nmp_stats_summarize(const double *x, size_t n, nmp_summary *out) {
    if (n == 0) return -EINVAL;
    double sum = 0, min = x[0], max = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
    }
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    int rc = nmp_stats_median(x, n, &out->median);
    if (rc < 0) return rc;
    out->n = n;
    out->min = min;
    out->max = max;
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    return 0;
}

int nmp_stats_ipd(const double *x, size_t n, nmp_ipd *out) {
    if (n < 2) return -EINVAL;
    size_t m = n - 1;
    double *d = malloc(m * sizeof(*d));
    if (d == NULL) return -ENOMEM;
    double sum = 0, mn = INFINITY, mx = 0;
    for (size_t i = 0; i < m; i++) {
        d[i] = x[i + 1] - x[i];
        double a = fabs(d[i]);
        sum += a;
        if (a < mn) mn = a;
        if (a > mx) mx = a;
    }
    int rc = nmp_stats_iqr(d, m, &out->iqr);
    free(d);
    if (rc < 0) return rc;
    out->n = m;
    out->min_abs = mn;
    out->mean_abs = sum / (double)m;
    out->max_abs = mx;
    return 0;
}

int nmp_stats_linfit(const double *x, const double *y, size_t n, nmp_linfit *out) {
    if (n < 2) return -EINVAL;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx == 0) return -EINVAL;
    out->slope = sxy / sxx;
    out->intercept = my - out->slope * mx;
    double ssres = 0;
    for (size_t i = 0; i < n; i++) {
        double e = y[i] - (out->slope * x[i] + out->intercept);
        ssres += e * e;
    }
    out->r2 = syy > 0 ? 1.0 - ssres / syy : 1.0;
    return 0;
}

int nmp_stats_histogram(const double *x, size_t n, double lo, double width, uint32_t nbins, uint64_t *counts,
                        uint64_t *under, uint64_t *over) {
    if (!(width > 0) || nbins == 0) return -EINVAL;
    memset(counts, 0, nbins * sizeof(*counts));
    if (under) *under = 0;
    if (over) *over = 0;
    for (size_t i = 0; i < n; i++) {
        double b = floor((x[i] - lo) / width);
        if (!(b >= 0)) { /* below, or NaN: never an index */
            if (under) (*under)++;
        } else if (b >= (double)nbins) {
            if (over) (*over)++;
        } else {
            counts[(size_t)b]++;
        }
    }
    return 0;
}

int nmp_stats_expfit(const double *x, size_t n, nmp_expfit *out) {
    if (n == 0) return -EINVAL;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += x[i];
    double mean = sum / (double)n;
    if (!(mean > 0)) return -EINVAL;
    double *s = sorted_copy(x, n);
    if (s == NULL) return -ENOMEM;
    double rate = 1.0 / mean, d = 0;
    for (size_t i = 0; i < n; i++) {
        double f = 1.0 - exp(-rate * s[i]);
        double lo = (double)i / (double)n, hi = (double)(i + 1) / (double)n;
        if (fabs(f - lo) > d) d = fabs(f - lo);
        if (fabs(hi - f) > d) d = fabs(hi - f);
    }
    free(s);
    out->n = n;
    out->mean = mean;
    out->rate = rate;
    out->ks_d = d;
    return 0;
}
