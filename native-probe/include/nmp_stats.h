/* nmp_stats.h -- statistics over measured samples: quantiles, summaries, IPDV,
 * line and exponential fits, histograms. */
#ifndef NMP_STATS_H
#define NMP_STATS_H

#include "nmp_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- statistics */

/* All functions below take a sample array that they never modify and a
 * count n. Functions that need sorted data copy the input (heap); they
 * return 0, -EINVAL when n == 0, or -ENOMEM. */

/* Linear-interpolation quantile (type 7, as R's default and numpy's):
 * h = (n-1)*q, result = x[floor h] + (h - floor h)*(x[floor h + 1] - x[floor h]). */
int nmp_stats_quantile(const double *x, size_t n, double q, double *out);
/* Median: the middle value, or the mean of the two middle values. */
int nmp_stats_median(const double *x, size_t n, double *out);
/* Interquartile range: quantile(0.75) - quantile(0.25), type 7. */
int nmp_stats_iqr(const double *x, size_t n, double *out);

typedef struct nmp_summary {
    size_t n;          /* number of samples */
    double min;        /* smallest sample */
    double max;        /* largest sample */
    double mean;       /* arithmetic mean */
    double median;     /* see nmp_stats_median */
    double stddev;     /* sample standard deviation (n-1); 0 when n < 2 */
} nmp_summary;

/* Fills *out for n >= 1 samples; returns -EINVAL when n == 0. */
int nmp_stats_summarize(const double *x, size_t n, nmp_summary *out);

/* Inter-packet delay as PingER reports it, from consecutive values of a
 * delay series (e.g. RTTs of consecutively received frames):
 * d_i = x_i - x_(i-1), i = 1..n-1. min/mean/max are taken over |d_i|, iqr is
 * the IQR (type 7) of the signed d_i. Needs n >= 2 (else -EINVAL). */
typedef struct nmp_ipd {
    size_t n;          /* number of differences (n samples - 1) */
    double min_abs;    /* smallest |d_i| */
    double mean_abs;   /* mean of |d_i| */
    double max_abs;    /* largest |d_i| */
    double iqr;        /* IQR of the signed d_i */
} nmp_ipd;

int nmp_stats_ipd(const double *x, size_t n, nmp_ipd *out);

/* Least-squares line y = slope*x + intercept with r^2 = 1 - SSres/SStot
 * (r^2 = 1 when all y are equal and fit exactly). Needs n >= 2 and x not
 * all equal (else -EINVAL). */
typedef struct nmp_linfit {
    double slope;      /* dy/dx */
    double intercept;  /* y at x = 0 */
    double r2;         /* coefficient of determination */
} nmp_linfit;

int nmp_stats_linfit(const double *x, const double *y, size_t n, nmp_linfit *out);

/* Counts x into nbins bins [lo + i*width, lo + (i+1)*width); values below lo
 * go to *under, values at or above the last edge to *over (either pointer
 * may be NULL). counts[] is zeroed first. Returns 0 or -EINVAL (width <= 0
 * or nbins == 0). */
int nmp_stats_histogram(const double *x, size_t n, double lo, double width, uint32_t nbins, uint64_t *counts,
                        uint64_t *under, uint64_t *over);

/* Fits an exponential distribution to positive samples by maximum likelihood
 * (rate = 1 / mean) and measures the fit with the Kolmogorov-Smirnov
 * statistic D = max |F_empirical - (1 - exp(-rate x))|. Needs n >= 1 and a
 * positive mean (else -EINVAL). */
typedef struct nmp_expfit {
    size_t n;          /* samples */
    double mean;       /* sample mean */
    double rate;       /* 1 / mean */
    double ks_d;       /* Kolmogorov-Smirnov distance, 0..1 (smaller = better fit) */
} nmp_expfit;

int nmp_stats_expfit(const double *x, size_t n, nmp_expfit *out);

#ifdef __cplusplus
}
#endif

#endif /* NMP_STATS_H */
