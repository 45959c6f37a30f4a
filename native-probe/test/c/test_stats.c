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

TEST(linear_fit_recovers_an_exact_line_and_scores_noise) {
    double x[] = {64, 512, 1024, 1472}, y[] = {2 * 64 + 1, 2 * 512 + 1, 2 * 1024 + 1, 2 * 1472 + 1};
    nmp_linfit f;
    CHECK_EQ_INT(nmp_stats_linfit(x, y, 4, &f), 0);
    CHECK_NEAR(f.slope, 2, 1e-12);
    CHECK_NEAR(f.intercept, 1, 1e-9);
    CHECK_NEAR(f.r2, 1, 1e-12);
    double x2[] = {1, 2, 3}, y2[] = {1, 3, 2}; /* slope 0.5, intercept 1, r2 0.25 */
    CHECK_EQ_INT(nmp_stats_linfit(x2, y2, 3, &f), 0);
    CHECK_NEAR(f.slope, 0.5, 1e-12);
    CHECK_NEAR(f.intercept, 1, 1e-12);
    CHECK_NEAR(f.r2, 0.25, 1e-12);
    double same[] = {5, 5};
    CHECK_EQ_INT(nmp_stats_linfit(same, y2, 2, &f), -EINVAL);
}

TEST(histogram_counts_bins_and_values_outside_them) {
    double x[] = {-1, 0, 0.5, 1, 2.999, 3, 10};
    uint64_t c[3], under, over;
    CHECK_EQ_INT(nmp_stats_histogram(x, 7, 0, 1, 3, c, &under, &over), 0);
    CHECK_EQ_INT(c[0], 2);
    CHECK_EQ_INT(c[1], 1);
    CHECK_EQ_INT(c[2], 1);
    CHECK_EQ_INT(under, 1);
    CHECK_EQ_INT(over, 2);
    CHECK_EQ_INT(nmp_stats_histogram(x, 7, 0, 0, 3, c, NULL, NULL), -EINVAL);
}

TEST(exponential_fit_uses_the_mean_and_reports_the_ks_distance) {
    double gaps[] = {10, 20, 10}; /* mean 40/3, rate 0.075 */
    nmp_expfit f;
    CHECK_EQ_INT(nmp_stats_expfit(gaps, 3, &f), 0);
    CHECK_NEAR(f.mean, 40.0 / 3.0, 1e-12);
    CHECK_NEAR(f.rate, 0.075, 1e-12);
    CHECK_NEAR(f.ks_d, 1 - exp(-0.75), 1e-12); /* largest gap: F(10) vs the empirical 0 below 10 */
    double zero[] = {0, 0};
    CHECK_EQ_INT(nmp_stats_expfit(zero, 2, &f), -EINVAL);
}

TEST(host_counter_parsers_read_proc_stat_and_snmp_text) {
    const char *stat = "cpu  100 5 50 800 20 1 2 3 0 0\ncpu0 50 2 25 400 10 0 1 1 0 0\n"
                       "intr 123456 7 8 9\nctxt 99\n";
    const char *snmp = "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
                       "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
                       "Udp: 1000 3 7 900 5 0\nUdpLite: InDatagrams\nUdpLite: 0\n";
    const char *snmp6 = "Udp6InDatagrams                 \t300\nUdp6InErrors 2\nUdp6RcvbufErrors                \t4\n";
    nmp_host_counters c = {0};
    CHECK_EQ_INT(nmp_host_parse_stat(stat, &c), 0);
    CHECK_EQ_INT(c.cpu_total, 100 + 5 + 50 + 800 + 20 + 1 + 2 + 3);
    CHECK_EQ_INT(c.cpu_idle, 820);
    CHECK_EQ_INT(c.interrupts, 123456);
    CHECK_EQ_INT(nmp_host_parse_snmp(snmp, snmp6, &c), 0);
    CHECK_EQ_INT(c.udp_in, 1300);
    CHECK_EQ_INT(c.udp_rcvbuf_errors, 9);
    CHECK_EQ_INT(c.udp_in_errors, 9);
    CHECK_EQ_INT(nmp_host_parse_stat("nothing here", &c), -EPROTO);
    CHECK_EQ_INT(nmp_host_parse_snmp("Udp: InDatagrams\n", NULL, &c), -EPROTO);
    nmp_host_counters a = c, b = c;
    a.valid = b.valid = 1;
    b.cpu_total = a.cpu_total + 200;
    b.cpu_idle = a.cpu_idle + 150;
    CHECK_NEAR(nmp_host_cpu_busy_percent(&a, &b), 25.0, 1e-12);
    nmp_host_counters live;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_host_sample(&live, err, sizeof(err)), 0);
    CHECK(live.valid && live.cpu_total > 0 && live.interrupts > 0);
}

int main(void) {
    RUN(median_of_odd_count_is_the_middle_value);
    RUN(median_of_even_count_is_the_mean_of_the_two_middle_values);
    RUN(quantiles_interpolate_linearly_between_order_statistics);
    RUN(iqr_of_one_to_ten_is_four_and_a_half);
    RUN(empty_input_is_rejected);
    RUN(summary_gives_min_max_mean_median_and_sample_stddev);
    RUN(ipd_uses_absolute_differences_and_iqr_of_signed_differences);
    RUN(linear_fit_recovers_an_exact_line_and_scores_noise);
    RUN(histogram_counts_bins_and_values_outside_them);
    RUN(exponential_fit_uses_the_mean_and_reports_the_ks_distance);
    RUN(host_counter_parsers_read_proc_stat_and_snmp_text);
    return nmp_test_failures != 0;
}
