/* test_bandwidth.c -- capacity (packet-train dispersion) and available
 * bandwidth (rate scan): the analyses against synthetic arrivals with known
 * answers, and both tests end to end against a loopback responder. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_test.h"
#include "nmp_test_responder.h"
#include "nmprobe.h"

#define TRAINS 10
#define LEN 100
#define SIZE 1000
#define BURST 20 /* frames a token bucket lets through at line rate */

/* Arrivals of train t through a token bucket of 'mbps' (payload level) with
 * a burst of BURST frames: the head at the sender's 1 us spacing, then one
 * frame per service time. */
static void token_bucket_train(nmp_walltime_ns *send, nmp_walltime_ns *arr, uint32_t t, double mbps,
                               uint64_t send_gap_ns) {
    nmp_walltime_ns t0 = 1000000000ll + (nmp_walltime_ns)t * 50000000ll;
    double service = SIZE * 8e3 / mbps;
    for (uint32_t i = 0; i < LEN; i++) {
        uint32_t s = t * LEN + i;
        send[s] = t0 + (nmp_walltime_ns)(i * send_gap_ns);
        arr[s] = i < BURST ? send[s] + 10000 : send[BURST - 1 + t * LEN] + 10000 + (nmp_walltime_ns)((i - BURST + 1) * service);
    }
}

TEST(a_token_bucket_train_reads_the_bucket_rate_from_its_tail) {
    nmp_walltime_ns send[TRAINS * LEN], arr[TRAINS * LEN];
    for (uint32_t t = 0; t < TRAINS; t++) token_bucket_train(send, arr, t, 100.0, 1000);
    /* train 3: 60 of its 50 tail frames... most of the tail lost */
    for (uint32_t i = 55; i < LEN; i++) arr[3 * LEN + i] = 0;
    /* train 5: two tail frames swapped */
    nmp_walltime_ns x = arr[5 * LEN + 70];
    arr[5 * LEN + 70] = arr[5 * LEN + 71];
    arr[5 * LEN + 71] = x;
    /* train 7: the sender itself spaced frames 90 us apart */
    token_bucket_train(send, arr, 7, 100.0, 90000);
    for (uint32_t i = 0; i < LEN; i++) arr[7 * LEN + i] = send[7 * LEN + i] + 10000;
    nmp_capacity_result r;
    memset(&r, 0, sizeof(r));
    CHECK_EQ_INT(nmp_capacity_analyze(&r, send, arr, TRAINS, TRAINS, LEN, LEN / 2, SIZE, 0), 0);
    CHECK_EQ_INT(r.trains_used, 7);
    CHECK_EQ_INT(r.discarded_loss, 1);
    CHECK_EQ_INT(r.discarded_reorder, 1);
    CHECK_EQ_INT(r.discarded_sender, 1);
    CHECK_EQ_INT(r.train_status[3], NMP_TRAIN_LOSS);
    CHECK_EQ_INT(r.train_status[5], NMP_TRAIN_REORDER);
    CHECK_EQ_INT(r.train_status[7], NMP_TRAIN_SENDER);
    CHECK_EQ_INT(r.train_status[0], NMP_TRAIN_USED);
    CHECK_EQ_INT(r.train_received[3], 55);
    CHECK_EQ_INT(r.frames_received, TRAINS * LEN - 45);
    CHECK_NEAR(r.user_mbps, 100.0, 1e-6);
    CHECK_NEAR(r.frame_mbps, 104.2, 1e-6);  /* (1000 + 42) / 1000 */
    CHECK_NEAR(r.wire_mbps, 106.6, 1e-6);   /* (1000 + 66) / 1000 */
    CHECK_NEAR(r.iqr_mbps, 0, 1e-6);
    CHECK_NEAR(r.p10_mbps, 100.0, 1e-6);
    CHECK(r.head_user_mbps > 150);          /* the burst went through faster than the bucket rate */
    CHECK_NEAR(r.train_user_mbps[0], 100.0, 1e-6);
    /* the whole train (skip 1) would have mixed the burst in */
    CHECK_EQ_INT(nmp_capacity_analyze(&r, send, arr, TRAINS, TRAINS, LEN, 1, SIZE, 0), 0);
    CHECK(r.user_mbps > 110);
    nmp_capacity_result_free(&r);
}

TEST(the_estimate_is_the_median_of_the_trains_with_type7_quantiles_as_spread) {
    nmp_walltime_ns send[TRAINS * LEN], arr[TRAINS * LEN];
    for (uint32_t t = 0; t < TRAINS; t++) token_bucket_train(send, arr, t, 90.0 + 2.0 * t, 1000); /* 90..108 */
    nmp_capacity_result r;
    memset(&r, 0, sizeof(r));
    CHECK_EQ_INT(nmp_capacity_analyze(&r, send, arr, TRAINS, 8, LEN, LEN / 2, SIZE, 1), 0);
    CHECK_EQ_INT(r.trains_sent, 8);
    CHECK_EQ_INT(r.trains_used, 8);                 /* 90..104 */
    CHECK_EQ_INT(r.train_status[9], NMP_TRAIN_NOT_SENT);
    CHECK(isnan(r.train_user_mbps[9]));
    CHECK_NEAR(r.user_mbps, 97.0, 1e-3);
    CHECK_NEAR(r.p25_mbps, 93.5, 1e-3);
    CHECK_NEAR(r.p75_mbps, 100.5, 1e-3);
    CHECK_NEAR(r.iqr_mbps, 7.0, 1e-3);
    CHECK_NEAR(r.p10_mbps, 91.4, 1e-3);
    CHECK_NEAR(r.p90_mbps, 102.6, 1e-3);
    CHECK_EQ_INT(r.frame_overhead, 62);             /* IPv6 */
    CHECK_EQ_INT(r.wire_overhead, 86);
    /* geometry out of range */
    CHECK_EQ_INT(nmp_capacity_analyze(&r, send, arr, TRAINS, TRAINS, LEN, LEN - 2, SIZE, 0), -EINVAL);
    CHECK_EQ_INT(nmp_capacity_analyze(&r, send, arr, TRAINS, TRAINS + 1, LEN, 10, SIZE, 0), -EINVAL);
    CHECK_EQ_INT(nmp_capacity_analyze(&r, send, arr, TRAINS, TRAINS, 3, 1, SIZE, 0), -EINVAL);
    CHECK_EQ_INT(nmp_capacity_analyze(&r, send, arr, TRAINS, TRAINS, LEN, 10, 31, 0), -EINVAL);
    nmp_capacity_result_free(&r);
}

/* A stream result of 400 frames 1 ms apart whose OWD rises by 'rise_ns'
 * per frame from 'from' on; frames with seq % lose_every == 1 lost. The
 * receiver's clock runs 'offset_ns' from the sender's (negative delays
 * when it is behind by more than the path's delay). */
static void fake_stream_offset(nmp_stream_result *sr, int64_t rise_ns, uint32_t from, uint32_t lose_every,
                               int64_t offset_ns) {
    memset(sr, 0, sizeof(*sr));
    nmp_stream_result_alloc(sr, 400, 1);
    sr->sent = 400;
    sr->first_send_wall = 5000000000ll;
    for (uint32_t i = 0; i < 400; i++) {
        sr->send_wall[i] = sr->first_send_wall + (nmp_walltime_ns)i * 1000000;
        if (lose_every && i % lose_every == 1) continue;
        sr->owd_ns[i] = 100000 + offset_ns + (i > from ? (int64_t)(i - from) * rise_ns : 0);
        sr->arrival_wall[i] = sr->send_wall[i] + sr->owd_ns[i];
        sr->received++;
    }
    sr->lost = sr->sent - sr->received;
    sr->loss_percent = 100.0 * sr->lost / sr->sent;
    sr->send_user_mbps = 50.0;
    sr->recv_user_mbps = 50.0;
    sr->owd_min_ns = 100000 + offset_ns;
    sr->owd_median_ns = 100000 + offset_ns;
}

static void fake_stream(nmp_stream_result *sr, int64_t rise_ns, uint32_t from, uint32_t lose_every) {
    fake_stream_offset(sr, rise_ns, from, lose_every, 0);
}

TEST(a_step_is_congested_when_delay_grows_the_rate_falls_behind_or_frames_are_lost) {
    nmp_avail_spec spec = {.host = "x", .port = 1, .max_mbps = 100};
    nmp_stream_result sr;
    nmp_avail_step st = {.offered_mbps = 50};
    fake_stream(&sr, 0, 0, 0);
    nmp_avail_classify(&st, &sr, &spec);
    CHECK_EQ_INT(st.flags, 0);
    CHECK_NEAR(st.owd_increase_ms, 0, 1e-9);
    CHECK_NEAR(st.owd_slope_ms_per_s, 0, 1e-9);
    CHECK_EQ_INT(st.frames_received, 400);
    nmp_stream_result_free(&sr);

    fake_stream(&sr, 10000, 200, 0); /* +10 us per ms from frame 200: a queue filling at 1 % excess */
    nmp_avail_classify(&st, &sr, &spec);
    CHECK_EQ_INT(st.flags, NMP_AVAIL_DELAY);
    /* last quarter seq 300..399: median rise (149.5 frames) * 10 us */
    CHECK_NEAR(st.owd_increase_ms, 1.495, 1e-9);
    CHECK(st.owd_slope_ms_per_s > 0);
    nmp_stream_result_free(&sr);

    /* The same queue seen by a receiver whose clock is 50 ms behind: every delay is negative,
     * and the growth, which the offset does not touch, still marks congestion. */
    fake_stream_offset(&sr, 10000, 200, 0, -50000000);
    nmp_avail_classify(&st, &sr, &spec);
    CHECK_EQ_INT(st.flags, NMP_AVAIL_DELAY);
    CHECK_NEAR(st.owd_increase_ms, 1.495, 1e-9);
    CHECK_EQ_INT(st.frames_received, 400);
    nmp_stream_result_free(&sr);

    fake_stream(&sr, 1000, 200, 0); /* 0.15 ms rise: under the 1 ms threshold */
    nmp_avail_classify(&st, &sr, &spec);
    CHECK_EQ_INT(st.flags, 0);
    spec.delay_threshold_ns = 100000; /* 0.1 ms */
    nmp_avail_classify(&st, &sr, &spec);
    CHECK_EQ_INT(st.flags, NMP_AVAIL_DELAY);
    spec.delay_threshold_ns = 0;
    nmp_stream_result_free(&sr);

    fake_stream(&sr, 0, 0, 50); /* 8 of 400 lost = 2 % */
    sr.recv_user_mbps = 47.0;  /* 6 % below the sent rate */
    st.offered_mbps = 60;      /* the sender reached only 50 */
    nmp_avail_classify(&st, &sr, &spec);
    CHECK_EQ_INT(st.flags, NMP_AVAIL_RATE | NMP_AVAIL_LOSS | NMP_AVAIL_SENDER);
    CHECK_NEAR(st.loss_percent, 2.0, 1e-9);
    spec.loss_percent = 5;
    spec.rate_tolerance = 0.1;
    nmp_avail_classify(&st, &sr, &spec);
    CHECK_EQ_INT(st.flags, NMP_AVAIL_SENDER);
    nmp_stream_result_free(&sr);
}

TEST(specs_out_of_range_are_refused_with_einval) {
    char err[NMP_ERRLEN];
    nmp_capacity_result cr;
    nmp_capacity_spec cs = {.host = "127.0.0.1", .port = 1, .train_len = 3};
    CHECK_EQ_INT(nmp_capacity_run(&cs, NULL, &cr, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "train_len 4..") != NULL);
    cs.train_len = 100;
    cs.skip = 98;
    CHECK_EQ_INT(nmp_capacity_run(&cs, NULL, &cr, err, sizeof(err)), -EINVAL);
    cs.skip = 0;
    cs.trains = NMP_CAP_MAX_TRAINS + 1;
    CHECK_EQ_INT(nmp_capacity_run(&cs, NULL, &cr, err, sizeof(err)), -EINVAL);
    cs.trains = 0;
    cs.gap_ns = 1000;
    CHECK_EQ_INT(nmp_capacity_run(&cs, NULL, &cr, err, sizeof(err)), -EINVAL);
    cs.gap_ns = 0;
    cs.host = "";
    CHECK_EQ_INT(nmp_capacity_run(&cs, NULL, &cr, err, sizeof(err)), -EINVAL);
    nmp_avail_result ar;
    nmp_avail_spec as = {.host = "127.0.0.1", .port = 1, .max_mbps = 0};
    CHECK_EQ_INT(nmp_avail_run(&as, NULL, &ar, err, sizeof(err)), -EINVAL);
    as.max_mbps = 100;
    as.min_mbps = 200;
    CHECK_EQ_INT(nmp_avail_run(&as, NULL, &ar, err, sizeof(err)), -EINVAL);
    as.min_mbps = 0;
    as.rate_tolerance = 0.9;
    CHECK_EQ_INT(nmp_avail_run(&as, NULL, &ar, err, sizeof(err)), -EINVAL);
    as.rate_tolerance = 0;
    as.step_mbps = 1; /* 100 coarse steps */
    CHECK_EQ_INT(nmp_avail_run(&as, NULL, &ar, err, sizeof(err)), -EINVAL);
    as.step_mbps = NAN;
    CHECK_EQ_INT(nmp_avail_run(&as, NULL, &ar, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(ar.nsteps, 0);
}


static int port;                    /* responder port */

TEST(a_capacity_test_over_loopback_sends_every_train_and_accounts_for_each) {
    nmp_capacity_spec s = {.host = "127.0.0.1", .port = port, .trains = 10, .train_len = 50, .size = 1472};
    nmp_capacity_result r;
    char err[NMP_ERRLEN];
    int rc = nmp_capacity_run(&s, NULL, &r, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc < 0) return;
    CHECK_EQ_INT(r.trains_sent, 10);
    CHECK_EQ_INT(r.frames_sent, 500);
    CHECK_EQ_INT(r.skip, 25);
    CHECK(r.frames_received >= 490);
    CHECK_EQ_INT(r.trains_used + r.discarded_loss + r.discarded_reorder + r.discarded_sender, 10);
    CHECK(r.pilot_span_ns > 0);
    CHECK(r.gap_ns >= 1000000 && r.gap_ns <= 1000000000);
    CHECK(r.trains_used == 0 ? isnan(r.user_mbps) : r.user_mbps > 0 && r.wire_mbps > r.frame_mbps);
    CHECK(strcmp(r.remote_addr, "127.0.0.1") == 0);
    fprintf(stderr, "  loopback: %u used, %u sender-limited, %u loss, %u reorder; gap %.2f ms; median %.0f Mbit/s\n",
            r.trains_used, r.discarded_sender, r.discarded_loss, r.discarded_reorder, r.gap_ns / 1e6, r.user_mbps);
    nmp_capacity_result_free(&r);
}

TEST(a_rate_scan_over_loopback_follows_every_offered_rate) {
    nmp_avail_spec s = {.host = "127.0.0.1", .port = port, .min_mbps = 20, .max_mbps = 60, .step_mbps = 20,
                        .refine = 2, .step_ns = 100000000, .pause_ns = 20000000, .timeout_ns = 100000000,
                        .delay_threshold_ns = 5000000};
    nmp_avail_result r;
    char err[NMP_ERRLEN];
    int rc = nmp_avail_run(&s, NULL, &r, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc < 0) return;
    for (uint32_t i = 0; i < r.nsteps; i++)
        fprintf(stderr, "  step %u offered %.1f sent %.1f recv %.1f loss %.2f%% owd +%.3f ms flags %d\n", i,
                r.steps[i].offered_mbps, r.steps[i].sent_mbps, r.steps[i].recv_mbps, r.steps[i].loss_percent,
                r.steps[i].owd_increase_ms, r.steps[i].flags);
    CHECK(r.nsteps >= 1 && r.nsteps <= 5);
    CHECK_NEAR(r.steps[0].offered_mbps, 20, 1e-9);
    CHECK(r.steps[0].sent_mbps > 0 && r.steps[0].sent_mbps <= 22); /* never above the offer; a stall only lowers it */
    CHECK(r.steps[0].frames_sent >= 169 && r.steps[0].frames_sent <= 171); /* 100 ms at 20 Mbit/s of 1472 B */
    CHECK_EQ_INT(r.size, 1472);
    CHECK_EQ_INT(r.wire_overhead, 66);
    /* loopback has room for 60 Mbit/s: three uncongested coarse steps, nothing to refine. The
     * lower bound is the most any step passed; 60 itself only when the sender kept up (a slow
     * host, or a sanitizer build, sends short, and each step says so as sender-limited). */
    if (r.nsteps == 3 && !r.bracketed) {
        CHECK(!r.steps[2].refine);
        double passed = 0;
        for (uint32_t i = 0; i < r.nsteps; i++) {
            double p = r.steps[i].recv_mbps < r.steps[i].sent_mbps ? r.steps[i].recv_mbps : r.steps[i].sent_mbps;
            if (p > passed) passed = p;
        }
        CHECK_NEAR(r.lower_mbps, passed, 1e-9);
        if (!(r.steps[2].flags & NMP_AVAIL_SENDER)) CHECK_NEAR(r.lower_mbps, 60, 6);
        CHECK(isnan(r.estimate_mbps));
    } else {
        fprintf(stderr, "  (a loaded host congested loopback: bracket %.1f..%.1f)\n", r.lower_mbps, r.upper_mbps);
    }
}

int main(void) {
    RUN(a_token_bucket_train_reads_the_bucket_rate_from_its_tail);
    RUN(the_estimate_is_the_median_of_the_trains_with_type7_quantiles_as_spread);
    RUN(a_step_is_congested_when_delay_grows_the_rate_falls_behind_or_frames_are_lost);
    RUN(specs_out_of_range_are_refused_with_einval);
    nmp_test_responder b;
    nmp_responder_cfg cfg = nmp_test_responder_cfg("127.0.0.1");
    if ((port = nmp_test_responder_start(&b, &cfg)) < 0) return 1;
    RUN(a_capacity_test_over_loopback_sends_every_train_and_accounts_for_each);
    RUN(a_rate_scan_over_loopback_follows_every_offered_rate);
    nmp_test_responder_stop(&b);
    return nmp_test_failures != 0;
}
