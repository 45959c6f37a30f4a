/* test_stream.c -- the stream analysis on synthetic receiver records with
 * hand-computed results (RFC 4737 reordering, one-way delay, RFC 3393
 * IPDV, rates, loss onset), the buffer estimate on a simulated bottleneck,
 * and real stream and latency-scan tests over 127.0.0.1. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_test.h"
#include "nmp_test_responder.h"
#include "nmp_wire.h"
#include "nmprobe.h"

#define T0 1000000000LL

/* Arrival order 0 1 2 4 5 6 3 7 9 (8 lost), then a duplicate of 5; sends
 * every 10 us, arrivals every 10 us from T0 + 50 us. */
TEST(analysis_of_a_reordered_stream_matches_hand_computed_figures) {
    nmp_stream_result r;
    memset(&r, 0, sizeof(r));
    CHECK_EQ_INT(nmp_stream_result_alloc(&r, 10, 50), 0);
    nmp_monotime_ns mono[10];
    for (int i = 0; i < 10; i++) {
        r.send_wall[i] = T0 + i * 10000LL;
        mono[i] = 5000000000ull + (uint64_t)i * 10000ull;
    }
    r.sent = 10;
    const uint32_t order[] = {0, 1, 2, 4, 5, 6, 3, 7, 9, 5};
    nmp_rec recs[10];
    for (int k = 0; k < 10; k++) {
        recs[k].seq = order[k];
        recs[k].bytes = 1000;
        recs[k].send_wall = r.send_wall[order[k]];
        recs[k].arrival_wall = T0 + 50000 + k * 10000LL;
    }
    CHECK_EQ_INT(nmp_stream_analyze(&r, mono, recs, 10, 1000, 0, 0), 0);
    CHECK_EQ_INT(r.received, 9);
    CHECK_EQ_INT(r.lost, 1);
    CHECK_EQ_INT(r.duplicates, 1);
    CHECK_NEAR(r.loss_percent, 10, 1e-12);
    CHECK_EQ_INT(r.reordered, 1);
    CHECK_NEAR(r.reorder_ratio, 1.0 / 9, 1e-12);
    CHECK_EQ_INT(r.reorder_max_extent, 3);
    for (int k = 0; k < 3; k++) CHECK_NEAR(r.n_reorder_ratio[k], 1.0 / 9, 1e-12);
    CHECK_NEAR(r.owd_min_ns, 40000, 0);
    CHECK_NEAR(r.owd_max_ns, 80000, 0);
    CHECK_NEAR(r.owd_median_ns, 50000, 0);
    CHECK_NEAR(r.owd_mean_ns, 440000.0 / 9, 1e-6);
    CHECK_EQ_INT(r.owd_ns[3], 80000);
    CHECK_EQ_INT(r.owd_ns[8], -1);
    CHECK_EQ_INT(r.ipdv_pairs, 7);
    CHECK_NEAR(r.ipdv_mean_abs_ns, 80000.0 / 7, 1e-6);
    CHECK_NEAR(r.iat_min_ns, 10000, 0);
    CHECK_NEAR(r.iat_max_ns, 10000, 0);
    CHECK_NEAR(r.hist_lo_ns, 10000, 0);
    CHECK_NEAR(r.hist_width_ns, 100, 0);
    CHECK_EQ_INT(r.hist[0], 8);
    CHECK_NEAR(r.recv_user_mbps, 800, 1e-9);
    CHECK_NEAR(r.send_spacing_ns, 10000, 0);
    CHECK_NEAR(r.send_user_mbps, 800, 1e-9);
    CHECK_EQ_INT(r.wire_overhead, 66);
    CHECK_NEAR(r.send_wire_mbps, 9 * 1066 * 8 / 90000.0 * 1e3, 1e-9);
    CHECK_EQ_INT(r.first_loss_seq, 8);
    CHECK_NEAR(r.rate_before_loss_mbps, 800, 1e-9);
    CHECK(isnan(r.rate_after_loss_mbps));
    CHECK_NEAR(r.buffer_est_frames, 0, 0);
    CHECK_NEAR(r.queue_delay_at_loss_ns, 10000, 0);
    CHECK_EQ_INT(r.arrival_wall[3], T0 + 50000 + 6 * 10000LL);
    nmp_stream_result_free(&r);
}

TEST(loss_gaps_are_fitted_with_an_exponential) {
    nmp_stream_result r;
    memset(&r, 0, sizeof(r));
    CHECK_EQ_INT(nmp_stream_result_alloc(&r, 100, 10), 0);
    nmp_rec recs[100];
    size_t n = 0;
    for (uint32_t i = 0; i < 100; i++) {
        r.send_wall[i] = T0 + i * 1000LL;
        if (i == 10 || i == 20 || i == 30 || i == 50) continue;
        recs[n++] = (nmp_rec){.seq = i, .bytes = 100, .send_wall = r.send_wall[i], .arrival_wall = r.send_wall[i] + 5000};
    }
    r.sent = 100;
    CHECK_EQ_INT(nmp_stream_analyze(&r, NULL, recs, n, 100, 1, 0), 0);
    CHECK_EQ_INT(r.lost, 4);
    CHECK_EQ_INT(r.loss_intervals, 3);
    CHECK_NEAR(r.loss_interval_mean, 40.0 / 3, 1e-12);
    CHECK_NEAR(r.loss_exp_rate, 0.075, 1e-12);
    CHECK_NEAR(r.loss_exp_ks_d, 1 - exp(-0.75), 1e-12);
    CHECK_EQ_INT(r.wire_overhead, 86);
    CHECK_EQ_INT(r.reordered, 0);
    CHECK_NEAR(r.jitter_ns, 0, 0);
    nmp_stream_result_free(&r);
}

/* A sender at twice the bottleneck rate into a 20-frame drop-tail queue:
 * frames arrive every 5 us, the link serves one per 10 us. */
TEST(loss_onset_estimates_the_bottleneck_queue) {
    enum { N = 200, QCAP = 20 };
    nmp_stream_result r;
    memset(&r, 0, sizeof(r));
    CHECK_EQ_INT(nmp_stream_result_alloc(&r, N, 50), 0);
    nmp_rec recs[N];
    size_t n = 0;
    long long link_free = 0;                 /* when the link finishes its current frame */
    long long depart[N];                     /* departure times of queued frames */
    int qn = 0, qh = 0;
    for (int i = 0; i < N; i++) {
        long long t = i * 5000LL;
        r.send_wall[i] = T0 + t;
        while (qn > 0 && depart[qh] <= t) { qh++; qn--; }
        if (qn >= QCAP) continue;            /* drop */
        long long start = link_free > t ? link_free : t;
        link_free = start + 10000;
        depart[qh + qn++] = link_free;
        recs[n++] = (nmp_rec){.seq = (uint32_t)i, .bytes = 1000, .send_wall = T0 + t, .arrival_wall = T0 + link_free};
    }
    r.sent = N;
    CHECK_EQ_INT(nmp_stream_analyze(&r, NULL, recs, n, 1000, 0, 0), 0);
    CHECK(r.first_loss_seq > 20 && r.first_loss_seq < 60);
    CHECK_NEAR(r.rate_before_loss_mbps, 800, 1);   /* 1000 B per 10 us */
    CHECK_NEAR(r.rate_after_loss_mbps, 800, 1);
    CHECK_NEAR(r.send_user_mbps, 1600, 1e-6);
    CHECK_NEAR(r.buffer_est_frames, QCAP, 1.5);
    CHECK_NEAR(r.buffer_est_bytes, QCAP * 1042.0, 1.5 * 1042);
    CHECK_NEAR(r.buffer_est_delay_bytes, QCAP * 1042.0, 1.5 * 1042);
    fprintf(stderr, "  first loss %lld, buffer %.1f frames / %.0f B, by delay %.0f B\n", (long long)r.first_loss_seq,
            r.buffer_est_frames, r.buffer_est_bytes, r.buffer_est_delay_bytes);
    nmp_stream_result_free(&r);
}


static int port;                    /* responder port */

TEST(a_stream_over_loopback_is_received_completely_with_host_counters) {
    nmp_stream_spec s = {.host = "127.0.0.1", .port = port, .count = 5000, .size = 1000, .interval_ns = 20000,
                         .timeout_ns = 200000000};
    nmp_stream_result r;
    char err[NMP_ERRLEN];
    int rc = nmp_stream_run(&s, NULL, &r, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc < 0) return;
    CHECK_EQ_INT(r.sent, 5000);
    CHECK_EQ_INT(r.network_lost, 0); /* loopback loses only in socket buffers */
    CHECK(r.received >= 4950);
    CHECK(r.receiver_udp_in >= r.received);
    CHECK(r.owd_min_ns > 0 && r.owd_min_ns < 10e6 && r.owd_min_ns <= r.owd_median_ns && r.owd_p99_ns <= r.owd_max_ns);
    CHECK(r.send_spacing_ns >= 19900); /* the pacer never sends early; how late depends on the host */
    CHECK(r.recv_user_mbps > 0);
    CHECK(r.last_arrival_wall > r.first_arrival_wall);
    CHECK(r.receiver_cpu_percent > 0 && r.receiver_cpu_percent <= 100);
    CHECK(r.sender_interrupts > 0 || r.receiver_interrupts > 0);
    uint64_t hsum = r.hist_under + r.hist_over;
    for (uint32_t i = 0; i < r.hist_bins; i++) hsum += r.hist[i];
    CHECK_EQ_INT(hsum, r.received - 1);
    fprintf(stderr,
            "  sent %u recv %u lost %u (rcvbuf %llu) spacing %.0f ns send %.1f recv %.1f Mbit/s owd us min %.1f med %.1f "
            "p99 %.1f cpu snd %.0f%% rcv %.0f%% intr %llu/%llu\n",
            r.sent, r.received, r.lost, (unsigned long long)r.receiver_rcvbuf_drops, r.send_spacing_ns,
            r.send_user_mbps, r.recv_user_mbps, r.owd_min_ns / 1e3, r.owd_median_ns / 1e3, r.owd_p99_ns / 1e3,
            r.sender_cpu_percent, r.receiver_cpu_percent, (unsigned long long)r.sender_interrupts,
            (unsigned long long)r.receiver_interrupts);
    nmp_stream_result_free(&r);
}

TEST(a_latency_scan_over_loopback_fits_a_line_through_the_minima) {
    const uint32_t sizes[] = {64, 1024, 4096, 8972};
    nmp_scan_spec s = {.rr = {.host = "127.0.0.1", .port = port, .count = 100, .interval_ns = 50000,
                              .timeout_ns = 500000000},
                       .sizes = sizes, .nsizes = 4};
    nmp_scan_result r;
    char err[NMP_ERRLEN];
    int rc = nmp_scan_run(&s, NULL, &r, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc < 0) return;
    CHECK_EQ_INT(r.npoints, 4);
    CHECK(r.fit_ok);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(r.points[i].size, sizes[i]);
        CHECK_EQ_INT(r.points[i].received, 100);
        CHECK(r.points[i].min_ns > 0 && r.points[i].min_ns <= r.points[i].median_ns);
        uint64_t sum = r.points[i].hist_under + r.points[i].hist_over;
        for (uint32_t b = 0; b < r.hist_bins; b++) sum += r.points[i].hist[b];
        CHECK_EQ_INT(sum, 100);
    }
    CHECK(r.r2 >= 0 && r.r2 <= 1);
    CHECK(r.intercept_us > -100 && r.intercept_us < 1000);
    fprintf(stderr, "  slope %.6f us/byte intercept %.2f us r2 %.3f\n", r.slope_us_per_byte, r.intercept_us, r.r2);
    nmp_scan_result_free(&r);
}

/* Rounds share each size's frames (10 in 3 rounds: 4, 3, 3) and the points add them up;
 * more rounds than frames is one frame a round. */
TEST(a_latency_scan_in_rounds_keeps_every_frame_of_every_size) {
    const uint32_t sizes[] = {64, 512, 1472};
    for (uint32_t rounds = 3; rounds <= 20; rounds += 17) {
        nmp_scan_spec s = {.rr = {.host = "127.0.0.1", .port = port, .count = 10, .interval_ns = 100000,
                                  .timeout_ns = 500000000},
                           .sizes = sizes, .nsizes = 3, .rounds = rounds};
        nmp_scan_result r;
        char err[NMP_ERRLEN];
        int rc = nmp_scan_run(&s, NULL, &r, err, sizeof(err));
        if (rc < 0) fprintf(stderr, "  %s\n", err);
        CHECK_EQ_INT(rc, 0);
        if (rc < 0) return;
        CHECK_EQ_INT(r.npoints, 3);
        for (int i = 0; i < 3; i++) {
            CHECK_EQ_INT(r.points[i].size, sizes[i]);
            CHECK_EQ_INT(r.points[i].sent, 10);
            CHECK_EQ_INT(r.points[i].received, 10);
            CHECK(r.points[i].min_ns <= r.points[i].median_ns && r.points[i].median_ns <= r.points[i].max_ns);
        }
        nmp_scan_result_free(&r);
    }
    nmp_scan_spec bad = {.rr = {.host = "127.0.0.1", .port = port, .count = 10}, .sizes = sizes, .nsizes = 3,
                         .rounds = NMP_SCAN_MAX_ROUNDS + 1};
    nmp_scan_result r;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_scan_run(&bad, NULL, &r, err, sizeof(err)), -EINVAL);
    bad.rounds = 0;
    bad.rr.count = NMP_SCAN_MAX_FRAMES / 2; /* 3 sizes: over the frames kept */
    CHECK_EQ_INT(nmp_scan_run(&bad, NULL, &r, err, sizeof(err)), -EINVAL);
}

int main(void) {
    RUN(analysis_of_a_reordered_stream_matches_hand_computed_figures);
    RUN(loss_gaps_are_fitted_with_an_exponential);
    RUN(loss_onset_estimates_the_bottleneck_queue);
    nmp_test_responder b;
    nmp_responder_cfg cfg = nmp_test_responder_cfg("127.0.0.1");
    if ((port = nmp_test_responder_start(&b, &cfg)) < 0) return 1;
    RUN(a_stream_over_loopback_is_received_completely_with_host_counters);
    RUN(a_latency_scan_over_loopback_fits_a_line_through_the_minima);
    RUN(a_latency_scan_in_rounds_keeps_every_frame_of_every_size);
    nmp_test_responder_stop(&b);
    return nmp_test_failures != 0;
}
