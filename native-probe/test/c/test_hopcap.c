/* test_hopcap.c -- per-hop capacity (issue 4 item 3, Trace-Rate style): the
 * train analysis and the hop summary against synthetic answers with exact
 * answers, and the test end to end on loopback (accounting, not accuracy). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_test.h"
#include "nmprobe.h"

#define SIZE 1458 /* + 42 = 1500-byte frames: 12000 bits */
#define OVH 42

/* A train of len frames sent send_gap apart whose answers come head_gap
 * apart for frames 0..skip and tail_gap apart after. */
static void synth(int64_t *send, int64_t *reply, uint32_t *rank, uint32_t len, uint32_t skip, int64_t send_gap,
                  int64_t head_gap, int64_t tail_gap) {
    int64_t t = 5000000;
    for (uint32_t i = 0; i < len; i++) {
        send[i] = 1000000 + (int64_t)i * send_gap;
        if (i > 0) t += i <= skip ? head_gap : tail_gap;
        reply[i] = t;
        rank[i] = i + 1;
    }
}

TEST(a_train_reads_its_tail_dispersion_at_the_frame_level_and_its_head_separately) {
    int64_t send[8], reply[8];
    uint32_t rank[8];
    double mbps, head;
    synth(send, reply, rank, 8, 4, 10000, 12000, 120000);
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 8, 4, SIZE, OVH, &mbps, &head), NMP_HC_USED);
    CHECK_NEAR(mbps, 100.0, 1e-9);  /* 12000 bits per 120 us */
    CHECK_NEAR(head, 1000.0, 1e-9); /* 12000 bits per 12 us */
}

TEST(a_missing_tail_answer_discards_the_train_but_a_missing_head_answer_does_not) {
    int64_t send[8], reply[8];
    uint32_t rank[8];
    double mbps, head;
    synth(send, reply, rank, 8, 4, 10000, 12000, 120000);
    reply[6] = 0;
    rank[6] = 0;
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 8, 4, SIZE, OVH, &mbps, &head), NMP_HC_MISSING);
    CHECK(isnan(mbps));
    synth(send, reply, rank, 8, 4, 10000, 12000, 120000);
    reply[1] = 0;
    rank[1] = 0;
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 8, 4, SIZE, OVH, &mbps, &head), NMP_HC_USED);
    CHECK_NEAR(mbps, 100.0, 1e-9);
    CHECK(isnan(head));
}

TEST(reordered_answers_or_a_zero_span_discard_the_train) {
    int64_t send[8], reply[8];
    uint32_t rank[8];
    double mbps, head;
    synth(send, reply, rank, 8, 4, 10000, 12000, 120000);
    rank[5] = 7;
    rank[6] = 6;
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 8, 4, SIZE, OVH, &mbps, &head), NMP_HC_REORDERED);
    CHECK(isnan(mbps));
    synth(send, reply, rank, 2, 0, 10000, 0, 0); /* a pair answered at the same instant */
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 2, 0, SIZE, OVH, &mbps, &head), NMP_HC_REORDERED);
}

TEST(a_train_the_sender_spread_as_wide_as_its_answers_is_sender_limited) {
    int64_t send[8], reply[8];
    uint32_t rank[8];
    double mbps, head;
    synth(send, reply, rank, 8, 4, 100000, 12000, 120000); /* 400 us sending vs 480 us of answers: 0.83 */
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 8, 4, SIZE, OVH, &mbps, &head), NMP_HC_SENDER);
    CHECK_NEAR(mbps, 100.0, 1e-9);
    synth(send, reply, rank, 8, 4, 95000, 12000, 120000); /* 380 / 480 = 0.79: still the path */
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 8, 4, SIZE, OVH, &mbps, &head), NMP_HC_USED);
}

TEST(a_packet_pair_uses_both_frames_and_bad_geometry_is_rejected) {
    int64_t send[2], reply[2];
    uint32_t rank[2];
    double mbps, head;
    synth(send, reply, rank, 2, 0, 1000, 0, 24000);
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 2, 0, SIZE, OVH, &mbps, &head), NMP_HC_USED);
    CHECK_NEAR(mbps, 500.0, 1e-9);
    CHECK(isnan(head));
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 2, 1, SIZE, OVH, &mbps, &head), -EINVAL);
    CHECK_EQ_INT(nmp_hopcap_train(send, reply, rank, 1, 0, SIZE, OVH, &mbps, &head), -EINVAL);
}

TEST(an_ends_only_train_reads_the_same_span_from_its_two_answers_alone) {
    int64_t send[8], reply[8];
    uint32_t rank[8];
    double mbps;
    synth(send, reply, rank, 8, 4, 10000, 12000, 120000);
    for (uint32_t i = 0; i < 7; i++) /* only frames 4 and 7 expired at the hop */
        if (i != 4) reply[i] = rank[i] = 0;
    rank[4] = 1;
    rank[7] = 2;
    CHECK_EQ_INT(nmp_hopcap_train_ends(send, reply, rank, 8, 4, SIZE, OVH, &mbps), NMP_HC_USED);
    CHECK_NEAR(mbps, 100.0, 1e-9); /* 3 frames of 12000 bits over 360 us, as the full train read */
    reply[7] = rank[7] = 0;
    CHECK_EQ_INT(nmp_hopcap_train_ends(send, reply, rank, 8, 4, SIZE, OVH, &mbps), NMP_HC_MISSING);
    CHECK(isnan(mbps));
    synth(send, reply, rank, 8, 4, 10000, 12000, 120000);
    rank[4] = 9; /* the last frame's answer came first */
    CHECK_EQ_INT(nmp_hopcap_train_ends(send, reply, rank, 8, 4, SIZE, OVH, &mbps), NMP_HC_REORDERED);
    synth(send, reply, rank, 8, 4, 100000, 12000, 120000); /* sent as slowly as it arrived */
    CHECK_EQ_INT(nmp_hopcap_train_ends(send, reply, rank, 8, 4, SIZE, OVH, &mbps), NMP_HC_SENDER);
    CHECK_EQ_INT(nmp_hopcap_train_ends(send, reply, rank, 8, 7, SIZE, OVH, &mbps), -EINVAL);
}

TEST(a_hop_estimate_is_the_median_of_used_trains_with_type7_spread_and_the_mode) {
    double r[7] = {100, 101, 99, 150, 98, NAN, 1000};
    int32_t st[7] = {NMP_HC_USED, NMP_HC_USED, NMP_HC_USED, NMP_HC_USED, NMP_HC_USED, NMP_HC_MISSING, NMP_HC_SENDER};
    double head[7] = {900, 1100, NAN, 1000, 950, NAN, NAN};
    nmp_hopcap_hop h;
    memset(&h, 0, sizeof(h));
    CHECK_EQ_INT(nmp_hopcap_summarize(&h, r, st, head, 7, SIZE, OVH, 66), 0);
    CHECK_EQ_INT(h.trains_sent, 7);
    CHECK_EQ_INT(h.trains_used, 5);
    CHECK_EQ_INT(h.missing, 1);
    CHECK_EQ_INT(h.sender_limited, 1);
    CHECK_EQ_INT(h.lower_bound, 0);
    CHECK_NEAR(h.frame_mbps, 100.0, 1e-9);
    CHECK_NEAR(h.user_mbps, 97.2, 1e-9);
    CHECK_NEAR(h.wire_mbps, 101.6, 1e-9);
    CHECK_NEAR(h.p10_mbps, 98.4, 1e-9);
    CHECK_NEAR(h.p25_mbps, 99.0, 1e-9);
    CHECK_NEAR(h.p75_mbps, 101.0, 1e-9);
    CHECK_NEAR(h.p90_mbps, 130.4, 1e-9);
    CHECK_NEAR(h.iqr_mbps, 2.0, 1e-9);
    CHECK_NEAR(h.mode_frame_mbps, 99.5, 1e-9); /* the +-5 % window around 98: 98, 99, 100, 101 */
    CHECK_NEAR(h.head_frame_mbps, 975.0, 1e-9);
}

TEST(a_mostly_sender_limited_hop_reads_a_lower_bound_over_all_complete_trains) {
    double r[5] = {900, 1000, 1100, 500, NAN};
    int32_t st[5] = {NMP_HC_SENDER, NMP_HC_SENDER, NMP_HC_SENDER, NMP_HC_USED, NMP_HC_NOT_SENT};
    nmp_hopcap_hop h;
    memset(&h, 0, sizeof(h));
    CHECK_EQ_INT(nmp_hopcap_summarize(&h, r, st, NULL, 5, SIZE, OVH, 66), 0);
    CHECK_EQ_INT(h.trains_sent, 4);
    CHECK_EQ_INT(h.lower_bound, 1);
    CHECK_EQ_INT(h.trains_used, 4);
    CHECK_NEAR(h.frame_mbps, 950.0, 1e-9);
    CHECK(isnan(h.head_frame_mbps));
}

TEST(no_counted_train_leaves_every_figure_nan) {
    double r[2] = {NAN, NAN};
    int32_t st[2] = {NMP_HC_MISSING, NMP_HC_REORDERED};
    nmp_hopcap_hop h;
    memset(&h, 0, sizeof(h));
    CHECK_EQ_INT(nmp_hopcap_summarize(&h, r, st, NULL, 2, SIZE, OVH, 66), 0);
    CHECK(isnan(h.frame_mbps) && isnan(h.mode_frame_mbps) && isnan(h.iqr_mbps));
    CHECK_EQ_INT(h.trains_sent, 2);
    CHECK_EQ_INT(h.reordered, 1);
}

TEST(loopback_is_one_hop_whose_every_frame_is_answered_and_accounted) {
    nmp_hopcap_spec spec = {.host = "127.0.0.1", .trains = 5, .train_len = 8, .skip = -1, .port = 40100};
    nmp_hopcap_result res;
    char err[NMP_ERRLEN] = "";
    int rc = nmp_hopcap_run(&spec, NULL, &res, err, sizeof(err));
    if (rc != 0) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(res.discovered, 1);
    CHECK_EQ_INT(res.reached, 1);
    CHECK_EQ_INT(res.hop_count, 1);
    CHECK_EQ_INT(res.nhops, 1);
    CHECK_EQ_INT(res.skip, 4);
    CHECK(res.train_frame_mbps != NULL && res.train_status != NULL && res.rows >= 1);
    const nmp_hopcap_hop *h = &res.hops[0];
    CHECK_EQ_INT(h->ttl, 1);
    CHECK(strcmp(h->addr, "127.0.0.1") == 0);
    CHECK_EQ_INT(h->destination, 1);
    CHECK_EQ_INT(h->probes_sent, 40);
    CHECK_EQ_INT(h->replies, 40);
    CHECK_EQ_INT(h->trains_sent, 5);
    /* a lower bound counts its sender-limited trains among the used ones (nmp_hopcap.c) */
    CHECK_EQ_INT(h->missing + h->reordered + h->trains_used + (h->lower_bound ? 0 : h->sender_limited), 5);
    CHECK(h->kernel_stamped <= h->replies);
    fprintf(stderr, "  loopback: %.1f Mbit/s frame level (lower bound %d), %u of %u answers kernel-stamped\n",
            h->frame_mbps, h->lower_bound, h->kernel_stamped, h->replies);
    nmp_hopcap_result_free(&res);
}

TEST(a_test_cancelled_before_it_starts_keeps_its_per_train_arrays) {
    volatile int32_t flag = 1;
    nmp_control ctl = {.cancel = &flag};
    nmp_hopcap_spec spec = {.host = "127.0.0.1", .trains = 3, .train_len = 4, .skip = -1};
    nmp_hopcap_result res;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_hopcap_run(&spec, &ctl, &res, err, sizeof(err)), -ECANCELED);
    CHECK_EQ_INT(res.nhops, 0);
    CHECK(res.rows == 30 && res.train_frame_mbps != NULL && res.train_status != NULL);
    CHECK_EQ_INT(res.train_status[0], NMP_HC_NOT_SENT);
    nmp_hopcap_result_free(&res);
    spec.hops = 2; /* no hop list: cancelled before the first train */
    CHECK_EQ_INT(nmp_hopcap_run(&spec, &ctl, &res, err, sizeof(err)), -ECANCELED);
    CHECK_EQ_INT(res.rows, 2);
    CHECK_EQ_INT(res.nhops, 1);
    CHECK_EQ_INT(res.hops[0].trains_sent, 0);
    nmp_hopcap_result_free(&res);
}

TEST(an_invalid_spec_is_rejected_before_anything_is_allocated) {
    nmp_hopcap_spec spec = {.host = "127.0.0.1", .train_len = 4, .skip = 3};
    nmp_hopcap_result res;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_hopcap_run(&spec, NULL, &res, err, sizeof(err)), -EINVAL);
    CHECK(res.train_frame_mbps == NULL && res.rows == 0);
    spec.skip = -2;
    CHECK_EQ_INT(nmp_hopcap_run(&spec, NULL, &res, err, sizeof(err)), -EINVAL);
    spec.skip = -1;
    spec.size = 31;
    CHECK_EQ_INT(nmp_hopcap_run(&spec, NULL, &res, err, sizeof(err)), -EINVAL);
}

int main(void) {
    RUN(a_train_reads_its_tail_dispersion_at_the_frame_level_and_its_head_separately);
    RUN(a_missing_tail_answer_discards_the_train_but_a_missing_head_answer_does_not);
    RUN(reordered_answers_or_a_zero_span_discard_the_train);
    RUN(a_train_the_sender_spread_as_wide_as_its_answers_is_sender_limited);
    RUN(a_packet_pair_uses_both_frames_and_bad_geometry_is_rejected);
    RUN(an_ends_only_train_reads_the_same_span_from_its_two_answers_alone);
    RUN(a_hop_estimate_is_the_median_of_used_trains_with_type7_spread_and_the_mode);
    RUN(a_mostly_sender_limited_hop_reads_a_lower_bound_over_all_complete_trains);
    RUN(no_counted_train_leaves_every_figure_nan);
    RUN(loopback_is_one_hop_whose_every_frame_is_answered_and_accounted);
    RUN(a_test_cancelled_before_it_starts_keeps_its_per_train_arrays);
    RUN(an_invalid_spec_is_rejected_before_anything_is_allocated);
    return nmp_test_failures != 0; /* not the count: 256 failures made exit status 0 (issue 21) */
}
