/* test_cancel.c -- regression tests for the review finding "JVM crash on
 * cancel before SESSION is answered": every client test cancelled while its
 * responder has not answered SESSION yet must return -ECANCELED with a
 * well-formed result (per-frame arrays allocated, nothing sent), never a
 * result whose arrays were freed. The "responder" is a TCP socket on
 * 127.0.0.1 that listens and never accepts: the kernel completes each
 * connection, and the SESSION line is never answered. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nmp_test.h"
#include "nmprobe.h"

static int silent_fd = -1;          /* listening socket that never answers */
static int silent_port;             /* its port */

static int silent_open(void) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    silent_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (silent_fd < 0 || bind(silent_fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(silent_fd, 128) < 0 ||
        getsockname(silent_fd, (struct sockaddr *)&a, &al) < 0)
        return -1;
    silent_port = ntohs(a.sin_port);
    return 0;
}

/* Sets the flag from another thread after a short delay, so that the test
 * is (most likely) inside nmp_client_open waiting for the answer; either
 * way the outcome must be the same. */
static void *cancel_soon(void *arg) {
    usleep(100000);
    *(volatile int32_t *)arg = 1;
    return NULL;
}

TEST(an_rr_test_cancelled_before_the_session_keeps_its_arrays_with_nothing_sent) {
    for (int threaded = 0; threaded <= 1; threaded++) {
        volatile int32_t flag = !threaded;
        nmp_control ctl = {.cancel = &flag};
        nmp_rr_spec s = {.host = "127.0.0.1", .port = silent_port, .count = 20, .size = 64};
        nmp_rr_result r;
        char err[NMP_ERRLEN] = "";
        pthread_t th;
        if (threaded) pthread_create(&th, NULL, cancel_soon, (void *)&flag);
        int rc = nmp_rr_run(&s, &ctl, &r, err, sizeof(err));
        if (threaded) pthread_join(th, NULL);
        CHECK_EQ_INT(rc, -ECANCELED);
        CHECK(strstr(err, "cancelled before the session started") != NULL);
        CHECK(r.seq != NULL && r.send_wall != NULL && r.rtt_ns != NULL && r.bytes != NULL && r.ttl != NULL);
        CHECK_EQ_INT(r.requested, 20);
        CHECK_EQ_INT(r.sent, 0);
        CHECK_EQ_INT(r.received, 0);
        CHECK_EQ_INT(r.lost, 0);
        CHECK(isnan(r.rtt_min_ns) && isnan(r.rtt_median_ns) && isnan(r.ipd_iqr_ns));
        if (r.seq && r.send_wall && r.rtt_ns && r.bytes && r.ttl)
            for (uint32_t i = 0; i < 20; i++)
                CHECK(r.seq[i] == (int32_t)i && r.send_wall[i] == 0 && r.rtt_ns[i] == -1 && r.bytes[i] == 0 &&
                      r.ttl[i] == -1);
        nmp_rr_result_free(&r);
    }
}

TEST(a_stream_cancelled_before_the_session_keeps_its_arrays_with_nothing_sent) {
    for (int threaded = 0; threaded <= 1; threaded++) {
        volatile int32_t flag = !threaded;
        nmp_control ctl = {.cancel = &flag};
        nmp_stream_spec s = {.host = "127.0.0.1", .port = silent_port, .count = 30, .size = 64, .hist_bins = 7};
        nmp_stream_result r;
        char err[NMP_ERRLEN] = "";
        pthread_t th;
        if (threaded) pthread_create(&th, NULL, cancel_soon, (void *)&flag);
        int rc = nmp_stream_run(&s, &ctl, &r, err, sizeof(err));
        if (threaded) pthread_join(th, NULL);
        CHECK_EQ_INT(rc, -ECANCELED);
        CHECK(r.seq != NULL && r.send_wall != NULL && r.arrival_wall != NULL && r.owd_ns != NULL &&
              r.bytes != NULL && r.hist != NULL);
        CHECK_EQ_INT(r.requested, 30);
        CHECK_EQ_INT(r.hist_bins, 7);
        CHECK_EQ_INT(r.sent, 0);
        CHECK_EQ_INT(r.received, 0);
        CHECK_EQ_INT(r.first_loss_seq, -1);
        CHECK(isnan(r.owd_min_ns) && isnan(r.recv_user_mbps) && isnan(r.send_user_mbps));
        if (r.seq && r.owd_ns && r.arrival_wall)
            for (uint32_t i = 0; i < 30; i++) CHECK(r.seq[i] == (int32_t)i && r.owd_ns[i] == -1 && r.arrival_wall[i] == 0);
        nmp_stream_result_free(&r);
    }
}

TEST(a_tcp_test_cancelled_before_the_session_keeps_an_empty_series) {
    volatile int32_t flag = 0;
    nmp_control ctl = {.cancel = &flag};
    nmp_tcp_spec s = {.host = "127.0.0.1", .port = silent_port, .streams = 2, .msg_size = 1000,
                      .duration_ns = 500000000ull};
    nmp_tcp_result r;
    char err[NMP_ERRLEN] = "";
    pthread_t th;
    pthread_create(&th, NULL, cancel_soon, (void *)&flag);
    int rc = nmp_tcp_run(&s, &ctl, &r, err, sizeof(err));
    pthread_join(th, NULL);
    CHECK_EQ_INT(rc, -ECANCELED);
    CHECK_EQ_INT(r.streams, 2);
    CHECK(r.bins > 0 && r.series != NULL);
    CHECK_EQ_INT(r.bytes_sent, 0);
    CHECK_EQ_INT(r.bytes_received, 0);
    CHECK_EQ_INT(r.nsamples, 0);
    CHECK_EQ_INT(r.nmsgs, 0);
    CHECK(isnan(r.recv_mbps) && isnan(r.send_mbps));
    if (r.series)
        for (uint32_t i = 0; i < r.streams * r.bins; i++) CHECK(r.series[i] == 0);
    nmp_tcp_result_free(&r);
}

TEST(a_capacity_test_cancelled_before_its_trains_session_marks_every_train_not_sent) {
    /* gap set: no pilot, so the trains' own session is the one cancelled
     * (before the fix the freed stream arrays made this -EINVAL) */
    volatile int32_t flag = 0;
    nmp_control ctl = {.cancel = &flag};
    nmp_capacity_spec s = {.host = "127.0.0.1", .port = silent_port, .trains = 5, .train_len = 20,
                           .gap_ns = 1000000};
    nmp_capacity_result r;
    char err[NMP_ERRLEN] = "";
    pthread_t th;
    pthread_create(&th, NULL, cancel_soon, (void *)&flag);
    int rc = nmp_capacity_run(&s, &ctl, &r, err, sizeof(err));
    pthread_join(th, NULL);
    if (rc != -ECANCELED) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, -ECANCELED);
    CHECK_EQ_INT(r.trains, 5);
    CHECK_EQ_INT(r.trains_sent, 0);
    CHECK_EQ_INT(r.trains_used, 0);
    CHECK(isnan(r.user_mbps));
    CHECK(r.train_status != NULL && r.train_user_mbps != NULL && r.train_received != NULL);
    if (r.train_status)
        for (uint32_t t = 0; t < 5; t++) CHECK_EQ_INT(r.train_status[t], NMP_TRAIN_NOT_SENT);
    nmp_capacity_result_free(&r);
}

TEST(a_rate_scan_cancelled_before_a_step_session_keeps_no_empty_step) {
    volatile int32_t flag = 0;
    nmp_control ctl = {.cancel = &flag};
    nmp_avail_spec s = {.host = "127.0.0.1", .port = silent_port, .max_mbps = 10};
    nmp_avail_result *r = malloc(sizeof(*r));
    char err[NMP_ERRLEN] = "";
    pthread_t th;
    pthread_create(&th, NULL, cancel_soon, (void *)&flag);
    int rc = nmp_avail_run(&s, &ctl, r, err, sizeof(err));
    pthread_join(th, NULL);
    CHECK_EQ_INT(rc, -ECANCELED);
    CHECK_EQ_INT(r->nsteps, 0);
    CHECK_EQ_INT(r->bracketed, 0);
    CHECK(isnan(r->estimate_mbps));
    free(r);
}

TEST(a_latency_scan_cancelled_before_its_first_session_has_no_points) {
    volatile int32_t flag = 0;
    nmp_control ctl = {.cancel = &flag};
    uint32_t sizes[2] = {64, 512};
    nmp_scan_spec s = {.rr = {.host = "127.0.0.1", .port = silent_port, .count = 10}, .sizes = sizes, .nsizes = 2};
    nmp_scan_result r;
    char err[NMP_ERRLEN] = "";
    pthread_t th;
    pthread_create(&th, NULL, cancel_soon, (void *)&flag);
    int rc = nmp_scan_run(&s, &ctl, &r, err, sizeof(err));
    pthread_join(th, NULL);
    CHECK_EQ_INT(rc, -ECANCELED);
    CHECK_EQ_INT(r.npoints, 0);
    CHECK_EQ_INT(r.fit_ok, 0);
    nmp_scan_result_free(&r);
}

int main(void) {
    if (silent_open() < 0) {
        perror("silent listener");
        return 1;
    }
    RUN(an_rr_test_cancelled_before_the_session_keeps_its_arrays_with_nothing_sent);
    RUN(a_stream_cancelled_before_the_session_keeps_its_arrays_with_nothing_sent);
    RUN(a_tcp_test_cancelled_before_the_session_keeps_an_empty_series);
    RUN(a_capacity_test_cancelled_before_its_trains_session_marks_every_train_not_sent);
    RUN(a_rate_scan_cancelled_before_a_step_session_keeps_no_empty_step);
    RUN(a_latency_scan_cancelled_before_its_first_session_has_no_points);
    close(silent_fd);
    return nmp_test_failures != 0;
}
