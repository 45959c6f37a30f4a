/* test_responder_pipelined.c -- control lines a client writes in one TCP
 * segment are all handled (issue 12: SESSION and END sent together lost the
 * END, and the session lingered until its idle timeout). Runs against a real
 * nmprobe-responder process (argv[1]) over loopback sockets. */
#include <stdint.h>

#include "nmp_test.h"
#include "nmp_test_proc.h"

static const char *bin;

/* Sends 'text' in one send() (one segment: TCP_NODELAY, far below the MSS). */
static int send_once(int fd, const char *text) {
    size_t n = strlen(text);
    return send(fd, text, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

TEST(session_and_end_in_one_segment_are_both_answered) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    char line[600];
    int fd = nmp_test_connect(p.port);
    CHECK(fd >= 0);
    CHECK_EQ_INT(send_once(fd, "NMP/1 SESSION kind=rr frames=10 size=64 interval_ns=1000000 timeout_ms=1000\n"
                               "NMP/1 END\n"), 0);
    double t0 = nmp_test_now();
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 OK port=", 14) == 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strcmp(line, "NMP/1 BYE rx=0 tx=0\n") == 0);
    double took = nmp_test_now() - t0;
    fprintf(stderr, "  BYE after %.3f s: %s", took, line);
    CHECK(took < 0.5); /* answered at once, not when an idle timer ran out */
    CHECK(nmp_test_wait_closed(fd, 2) >= 0);
    close(fd);
    /* the session is over: the next client is admitted, not told BUSY */
    fd = nmp_test_connect(p.port);
    CHECK_EQ_INT(send_once(fd, "NMP/1 SESSION kind=rr frames=1 size=64 interval_ns=0 timeout_ms=100\nNMP/1 END\n"), 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 OK port=", 14) == 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strcmp(line, "NMP/1 BYE rx=0 tx=0\n") == 0);
    close(fd);
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

TEST(session_results_and_end_in_one_segment_get_ok_data_and_bye) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    char line[600];
    int fd = nmp_test_connect(p.port);
    CHECK_EQ_INT(send_once(fd, "NMP/1 SESSION kind=stream frames=10 size=64 interval_ns=0 timeout_ms=100\n"
                               "NMP/1 RESULTS\nNMP/1 END\n"), 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 OK port=", 14) == 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 &&
          strncmp(line, "NMP/1 DATA records=0 bytes=0 rx=0 over=0 invalid=0 ", 51) == 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strcmp(line, "NMP/1 BYE rx=0 tx=0\n") == 0);
    CHECK(nmp_test_wait_closed(fd, 2) >= 0);
    close(fd);
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

TEST(a_bad_line_behind_session_ends_the_new_session_with_err) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    char line[600];
    int fd = nmp_test_connect(p.port);
    CHECK_EQ_INT(send_once(fd, "NMP/1 SESSION kind=rr frames=10 size=64 interval_ns=1000000 timeout_ms=1000\n"
                               "NMP/1 RESULTS\n"), 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 OK port=", 14) == 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 &&
          strcmp(line, "NMP/1 ERR reason=request text=unexpected+RESULTS+in+a+rr+session\n") == 0);
    CHECK(nmp_test_wait_closed(fd, 2) >= 0);
    close(fd);
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s path/to/nmprobe-responder\n", argv[0]);
        return 2;
    }
    bin = argv[1];
    signal(SIGPIPE, SIG_IGN);
    RUN(session_and_end_in_one_segment_are_both_answered);
    RUN(session_results_and_end_in_one_segment_get_ok_data_and_bye);
    RUN(a_bad_line_behind_session_ends_the_new_session_with_err);
    return nmp_test_failures != 0;
}
