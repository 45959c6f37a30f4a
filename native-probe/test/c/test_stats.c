/* test_stats.c -- exact expected values for the order statistics and
 * summaries in nmp_stats.c (type-7 quantiles, as numpy and R compute them). */
#include <errno.h>

#include "nmp_test.h"
#include "nmprobe.h"

TEST(median_of_odd_count_is_the_middle_value) {
    double x[] = {3, 1, 2}, m;
    CHECK_EQ_INT(nmp_stats_median(x, 3, &m), 0);
    CHECK_NEAR(m, 2.0, 0);
    CHECK_NEAR(x[0], 3.0, 0); /* input untouched */
}

TEST(median_of_even_count_is_the_mean_of_the_two_middle_values) {
    double x[] = {4, 1, 3, 2}, m;
    CHECK_EQ_INT(nmp_stats_median(x, 4, &m), 0);
    CHECK_NEAR(m, 2.5, 0);
}

TEST(quantiles_interpolate_linearly_between_order_statistics) {
    double x[] = {4, 1, 3, 2}, q;
    CHECK_EQ_INT(nmp_stats_quantile(x, 4, 0.25, &q), 0);
    CHECK_NEAR(q, 1.75, 1e-12);
    CHECK_EQ_INT(nmp_stats_quantile(x, 4, 0.75, &q), 0);
    CHECK_NEAR(q, 3.25, 1e-12);
    CHECK_EQ_INT(nmp_stats_quantile(x, 4, 0.0, &q), 0);
    CHECK_NEAR(q, 1, 0);
    CHECK_EQ_INT(nmp_stats_quantile(x, 4, 1.0, &q), 0);
    CHECK_NEAR(q, 4, 0);
    CHECK_EQ_INT(nmp_stats_quantile(x, 4, 1.5, &q), -EINVAL);
}

TEST(iqr_of_one_to_ten_is_four_and_a_half) {
    double x[] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, iqr;
    CHECK_EQ_INT(nmp_stats_iqr(x, 10, &iqr), 0);
    CHECK_NEAR(iqr, 4.5, 1e-12);
    double one = 7;
    CHECK_EQ_INT(nmp_stats_iqr(&one, 1, &iqr), 0);
    CHECK_NEAR(iqr, 0, 0);
}

TEST(empty_input_is_rejected) {
    double m;
    nmp_summary s;
    CHECK_EQ_INT(nmp_stats_median(NULL, 0, &m), -EINVAL);
    CHECK_EQ_INT(nmp_stats_iqr(NULL, 0, &m), -EINVAL);
    CHECK_EQ_INT(nmp_stats_summarize(NULL, 0, &s), -EINVAL);
}

TEST(summary_gives_min_max_mean_median_and_sample_stddev) {
    double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    nmp_summary s;
    CHECK_EQ_INT(nmp_stats_summarize(x, 8, &s), 0);
    CHECK_EQ_INT(s.n, 8);
    CHECK_NEAR(s.min, 2, 0);
    CHECK_NEAR(s.max, 9, 0);
    CHECK_NEAR(s.mean, 5, 1e-12);
    CHECK_NEAR(s.median, 4.5, 1e-12);
    CHECK_NEAR(s.stddev, sqrt(32.0 / 7.0), 1e-12);
}

TEST(ipd_uses_absolute_differences_and_iqr_of_signed_differences) {
    double x[] = {10, 12, 11, 15, 15}; /* d = 2, -1, 4, 0 */
    nmp_ipd d;
    CHECK_EQ_INT(nmp_stats_ipd(x, 5, &d), 0);
    CHECK_EQ_INT(d.n, 4);
    CHECK_NEAR(d.min_abs, 0, 0);
    CHECK_NEAR(d.mean_abs, 1.75, 1e-12);
    CHECK_NEAR(d.max_abs, 4, 0);
    CHECK_NEAR(d.iqr, 2.75, 1e-12); /* sorted -1 0 2 4: q1 -0.25, q3 2.5 */
    CHECK_EQ_INT(nmp_stats_ipd(x, 1, &d), -EINVAL);
}

int main(void) {
    RUN(median_of_odd_count_is_the_middle_value);
    RUN(median_of_even_count_is_the_mean_of_the_two_middle_values);
    RUN(quantiles_interpolate_linearly_between_order_statistics);
    RUN(iqr_of_one_to_ten_is_four_and_a_half);
    RUN(empty_input_is_rejected);
    RUN(summary_gives_min_max_mean_median_and_sample_stddev);
    RUN(ipd_uses_absolute_differences_and_iqr_of_signed_differences);
    return nmp_test_failures != 0;
}
