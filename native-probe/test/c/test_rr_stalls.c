/* test_rr_stalls.c -- a round trip on a busy host (issue 25, goal 4).
 * The responder is a real nmprobe-responder process (its path is the
 * argument); a thread here stops it with SIGSTOP for a known time while an
 * rr test runs, as a loaded host preempts a reflector. The frames that
 * waited out the stop must say so: their host part (the reflector's
 * turnaround) covers the stop, they count as stalls, and the path's share
 * of their round trip stays what loopback gives. Also the closed loop
 * (ping-pong): never two frames in flight. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nmp_test.h"
#include "nmp_test_proc.h"
#include "nmprobe.h"

static const char *bin;

typedef struct stopper {
    pid_t pid;
    double after_s, for_s; /* stop once, after_s into the test, for for_s */
} stopper;

static void sleep_s(double s) {
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

static void *stop_once(void *arg) {
    stopper *st = arg;
    if (st->pid <= 0) return NULL; /* kill(0) would stop this test itself */
    sleep_s(st->after_s);
    kill(st->pid, SIGSTOP);
    sleep_s(st->for_s);
    kill(st->pid, SIGCONT);
    return NULL;
}

static nmp_rr_spec spec(int port, uint32_t count, uint64_t interval_ns) {
    nmp_rr_spec s = {.host = "127.0.0.1", .port = port, .count = count, .size = 64, .interval_ns = interval_ns,
                     .timeout_ns = 1000000000ull};
    return s;
}

TEST(a_reflector_stopped_mid_test_shows_as_host_stalls_not_path_delay) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(!"the responder starts");
        return;
    }
    /* 400 frames 1 ms apart; the responder stopped 150 ms in for 50 ms: the
     * frames sent during the stop wait in its socket and leave together */
    nmp_rr_spec s = spec(p.port, 400, 1000000);
    stopper st = {.pid = p.pid, .after_s = 0.15, .for_s = 0.05};
    pthread_t th;
    nmp_rr_result r;
    char err[NMP_ERRLEN];
    pthread_create(&th, NULL, stop_once, &st);
    int rc = nmp_rr_run(&s, NULL, &r, err, sizeof(err));
    pthread_join(th, NULL);
    if (rc < 0) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc < 0) {
        nmp_test_proc_stop(&p, 1);
        return;
    }
    CHECK_EQ_INT(r.received, 400);
    CHECK_EQ_INT(r.turnaround_known, 400);
    uint32_t long_rtt = 0, explained = 0;
    for (uint32_t i = 0; i < r.requested; i++) {
        CHECK(r.host_ns[i] >= 0 && r.host_ns[i] <= r.rtt_ns[i]);
        if (r.rtt_ns[i] >= 10000000) { /* waited out part of the stop */
            long_rtt++;
            /* the reflector held it for all but the path's share */
            if (r.rtt_ns[i] - r.host_ns[i] < 2000000) explained++;
        }
    }
    fprintf(stderr, "  rtt max %.2f ms, host max %.2f ms, stalls %u, frames over 10 ms %u (%u explained),"
                    " path p99 %.3f ms, rtt p99 %.3f ms\n",
            r.rtt_max_ns / 1e6, r.host_max_ns / 1e6, r.stalls, long_rtt, explained, r.path_p99_ns / 1e6,
            r.rtt_p99_ns / 1e6);
    /* ~50 frames were sent during the stop (fewer when this host is slow too) */
    CHECK(long_rtt >= 20);
    CHECK_EQ_INT(explained, long_rtt);
    CHECK(r.stalls >= long_rtt);
    CHECK(r.host_max_ns >= 40e6 && r.host_max_ns <= r.rtt_max_ns);
    CHECK(r.rtt_max_ns >= 40e6);
    /* with the stop taken out, the path's p99 is loopback's, not the stop's */
    CHECK(r.path_p99_ns < 5e6);
    nmp_rr_result_free(&r);
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

TEST(an_unstopped_reflector_has_no_stalls_and_a_small_turnaround) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(!"the responder starts");
        return;
    }
    nmp_rr_spec s = spec(p.port, 100, 1000000);
    nmp_rr_result r;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_rr_run(&s, NULL, &r, err, sizeof(err)), 0);
    CHECK_EQ_INT(r.received, 100);
    CHECK_EQ_INT(r.turnaround_known, 100);
    /* a busy CI host may preempt the responder now and then, but not often */
    CHECK(r.stalls <= 5);
    int64_t positive = 0;
    for (uint32_t i = 0; i < r.requested; i++) positive += r.host_ns[i] > 0;
    CHECK(positive >= 90); /* a reflector takes some time to turn a frame round */
    nmp_rr_result_free(&r);
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

TEST(a_frame_too_short_for_the_turnaround_is_answered_without_it) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(!"the responder starts");
        return;
    }
    nmp_rr_spec s = spec(p.port, 20, 1000000);
    s.size = NMP_FRAME_HDR;
    nmp_rr_result r;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_rr_run(&s, NULL, &r, err, sizeof(err)), 0);
    CHECK_EQ_INT(r.received, 20);
    CHECK_EQ_INT(r.turnaround_known, 0);
    for (uint32_t i = 0; i < r.requested; i++) CHECK(r.host_ns[i] == 0 && r.bytes[i] == NMP_FRAME_HDR);
    nmp_rr_result_free(&r);
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

/* Ping-pong: each frame leaves after the one before was answered, so its
 * send time is at least the one before's send plus its round trip. Open
 * loop at the same spacing (0) sends back to back, many in flight. */
TEST(closed_loop_never_has_two_frames_in_flight) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(!"the responder starts");
        return;
    }
    nmp_rr_spec s = spec(p.port, 2000, 0);
    s.closed_loop = 1;
    s.timeout_ns = 20000000ull; /* the responder admits frames x (interval + timeout): 40 s */
    nmp_rr_result r;
    char err[NMP_ERRLEN];
    int rc = nmp_rr_run(&s, NULL, &r, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        CHECK_EQ_INT(r.received, 2000);
        uint32_t overlapped = 0;
        /* wall send stamps against monotonic RTTs: 1 us of slack for the clocks' reads */
        for (uint32_t i = 1; i < r.requested; i++)
            if (r.send_wall[i] + 1000 < r.send_wall[i - 1] + r.rtt_ns[i - 1]) overlapped++;
        fprintf(stderr, "  closed loop: rtt median %.1f us, %u overlapped\n", r.rtt_median_ns / 1e3, overlapped);
        CHECK_EQ_INT(overlapped, 0);
        nmp_rr_result_free(&r);
    }
    s.closed_loop = 0;
    s.count = 200;
    CHECK_EQ_INT(nmp_rr_run(&s, NULL, &r, err, sizeof(err)), 0);
    uint32_t overlapped = 0;
    for (uint32_t i = 1; i < r.requested; i++)
        if (r.rtt_ns[i - 1] >= 0 && r.send_wall[i] < r.send_wall[i - 1] + r.rtt_ns[i - 1]) overlapped++;
    fprintf(stderr, "  open loop back to back: %u of 199 sent before the one before was answered\n", overlapped);
    CHECK(overlapped > 100);
    nmp_rr_result_free(&r);
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

/* A closed loop whose replies never come (a responder stopped for good)
 * waits timeout_ns per frame and no longer, and the responder, told the
 * worst case, does not end the session as behind its pace. */
TEST(closed_loop_waits_its_timeout_per_lost_frame) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(!"the responder starts");
        return;
    }
    nmp_rr_spec s = spec(p.port, 40, 1000000);
    s.closed_loop = 1;
    s.timeout_ns = 50000000ull;
    stopper st = {.pid = p.pid, .after_s = 0.005, .for_s = 0.5};
    pthread_t th;
    nmp_rr_result r;
    char err[NMP_ERRLEN];
    double t0 = nmp_test_now();
    pthread_create(&th, NULL, stop_once, &st);
    int rc = nmp_rr_run(&s, NULL, &r, err, sizeof(err));
    pthread_join(th, NULL);
    double took = nmp_test_now() - t0;
    if (rc < 0) fprintf(stderr, "  %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        fprintf(stderr, "  took %.3f s, received %u of 40, stalls %u\n", took, r.received, r.stalls);
        /* the frames sent in the 0.5 s stop waited 50 ms each, then were answered late
         * (a duplicate-free late answer counts) or lost */
        CHECK_EQ_INT(r.sent, 40);
        CHECK(took >= 0.5 && took < 3.0);
        nmp_rr_result_free(&r);
    }
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s NMPROBE_RESPONDER\n", argv[0]);
        return 2;
    }
    bin = argv[1];
    signal(SIGPIPE, SIG_IGN);
    RUN(a_reflector_stopped_mid_test_shows_as_host_stalls_not_path_delay);
    RUN(an_unstopped_reflector_has_no_stalls_and_a_small_turnaround);
    RUN(a_frame_too_short_for_the_turnaround_is_answered_without_it);
    RUN(closed_loop_never_has_two_frames_in_flight);
    RUN(closed_loop_waits_its_timeout_per_lost_frame);
    return nmp_test_failures != 0;
}
