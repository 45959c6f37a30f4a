/* test_responder_shared.c -- light tests sharing a responder (issue 24:
 * background-class tests run beside others as their class allows). A real
 * nmprobe-responder process (its path is the argument) started with
 * --sessions N serves up to N shared sessions (SESSION class=normal) at
 * once; an exclusive session (unmarked, or tcp) still runs alone, and a
 * responder without --sessions serves one session at a time as before.
 * Tests run on threads here and start together: a second one that was
 * refused would return -EBUSY, so every rc 0 means they overlapped. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nmp_test.h"
#include "nmp_test_proc.h"
#include "nmprobe.h"

static const char *bin;

typedef struct job {
    int port;
    int stream;                    /* 0 rr, 1 one-way stream */
    int shared;
    uint32_t count;
    int rc;
    uint32_t received;
    double start, end;             /* monotonic seconds */
    char err[NMP_ERRLEN];
} job;

static void *run_job(void *arg) {
    job *j = arg;
    j->start = nmp_test_now();
    if (j->stream) {
        nmp_stream_spec s = {.host = "127.0.0.1", .port = j->port, .count = j->count, .size = 200,
                             .interval_ns = 1000000, .timeout_ns = 200000000, .shared = j->shared};
        nmp_stream_result r;
        j->rc = nmp_stream_run(&s, NULL, &r, j->err, sizeof(j->err));
        j->received = r.received;
        if (j->rc == 0) nmp_stream_result_free(&r);
    } else {
        nmp_rr_spec s = {.host = "127.0.0.1", .port = j->port, .count = j->count, .size = 64,
                         .interval_ns = 1000000, .timeout_ns = 200000000, .shared = j->shared};
        nmp_rr_result r;
        j->rc = nmp_rr_run(&s, NULL, &r, j->err, sizeof(j->err));
        j->received = r.received;
        if (j->rc == 0) nmp_rr_result_free(&r);
    }
    j->end = nmp_test_now();
    return NULL;
}

/* Runs n jobs at once; the first starts alone and the others 50 ms later,
 * so the first holds its session when they ask. */
static void run_together(job *jobs, int n) {
    pthread_t th[8];
    pthread_create(&th[0], NULL, run_job, &jobs[0]);
    usleep(50000);
    for (int i = 1; i < n; i++) pthread_create(&th[i], NULL, run_job, &jobs[i]);
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < n; i++)
        if (jobs[i].rc < 0) fprintf(stderr, "  job %d: rc %d: %s\n", i, jobs[i].rc, jobs[i].err);
}

static int start(nmp_test_proc *p, const char *sessions) {
    const char *extra[] = {"--sessions", sessions, NULL};
    return nmp_test_proc_start(p, bin, sessions ? extra : NULL);
}

TEST(shared_round_trips_and_a_stream_run_at_once) {
    nmp_test_proc p;
    if (start(&p, "3") < 0) {
        CHECK(!"the responder starts");
        return;
    }
    job jobs[3] = {{.port = p.port, .shared = 1, .count = 400},
                   {.port = p.port, .shared = 1, .count = 200},
                   {.port = p.port, .stream = 1, .shared = 1, .count = 200}};
    run_together(jobs, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(jobs[i].rc, 0);
        CHECK_EQ_INT(jobs[i].received, jobs[i].count);
    }
    /* they overlapped in time: the later two started before the first ended (a refusal would be -EBUSY) */
    CHECK(jobs[1].start < jobs[0].end && jobs[2].start < jobs[0].end);
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

TEST(an_exclusive_test_waits_for_shared_ones_and_they_for_it) {
    nmp_test_proc p;
    if (start(&p, "3") < 0) {
        CHECK(!"the responder starts");
        return;
    }
    /* shared running: an unmarked (exclusive) rr and a tcp test are busy */
    job a[3] = {{.port = p.port, .shared = 1, .count = 400}, {.port = p.port, .shared = 0, .count = 10},
                {.port = p.port, .shared = 0, .count = 10}};
    run_together(a, 2);
    CHECK_EQ_INT(a[0].rc, 0);
    CHECK_EQ_INT(a[1].rc, -EBUSY);
    /* exclusive running: a shared one is busy */
    job b[2] = {{.port = p.port, .shared = 0, .count = 400}, {.port = p.port, .shared = 1, .count = 10}};
    run_together(b, 2);
    CHECK_EQ_INT(b[0].rc, 0);
    CHECK_EQ_INT(b[1].rc, -EBUSY);
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

TEST(no_more_shared_sessions_than_the_responder_serves) {
    nmp_test_proc p;
    if (start(&p, "2") < 0) {
        CHECK(!"the responder starts");
        return;
    }
    job j[3] = {{.port = p.port, .shared = 1, .count = 500}, {.port = p.port, .shared = 1, .count = 400},
                {.port = p.port, .shared = 1, .count = 10}};
    pthread_t t0, t1;
    pthread_create(&t0, NULL, run_job, &j[0]);
    usleep(50000);
    pthread_create(&t1, NULL, run_job, &j[1]);
    usleep(100000);
    run_job(&j[2]); /* the third, while two run */
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    CHECK_EQ_INT(j[0].rc, 0);
    CHECK_EQ_INT(j[1].rc, 0);
    CHECK_EQ_INT(j[2].rc, -EBUSY);
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

TEST(a_responder_without_sessions_serves_one_at_a_time_whatever_the_class) {
    nmp_test_proc p;
    if (start(&p, NULL) < 0) {
        CHECK(!"the responder starts");
        return;
    }
    job j[2] = {{.port = p.port, .shared = 1, .count = 400}, {.port = p.port, .shared = 1, .count = 10}};
    run_together(j, 2);
    CHECK_EQ_INT(j[0].rc, 0);
    CHECK_EQ_INT(j[1].rc, -EBUSY);
    CHECK_EQ_INT(nmp_test_proc_stop(&p, nmp_test_failures != 0), 0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s NMPROBE_RESPONDER\n", argv[0]);
        return 2;
    }
    bin = argv[1];
    signal(SIGPIPE, SIG_IGN);
    RUN(shared_round_trips_and_a_stream_run_at_once);
    RUN(an_exclusive_test_waits_for_shared_ones_and_they_for_it);
    RUN(no_more_shared_sessions_than_the_responder_serves);
    RUN(a_responder_without_sessions_serves_one_at_a_time_whatever_the_class);
    return nmp_test_failures != 0;
}
