/* test_responder_late.c -- a sender that falls behind its schedule on a
 * busy host (issue 25): the responder's deadline follows its frames, so a
 * stream whose sender was stopped twice (SIGSTOP, as a loaded host
 * preempts it, each stop shorter than the idle timeout, together longer
 * than the session's slack) completes with every frame; a sender that
 * really stops is still ended as idle, and the responder is free again;
 * one late past the bound is ended as it was before.
 * The sender is the nmprobe CLI (its path is the argument), the responder
 * runs on a thread here. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>

#include "nmp_test.h"
#include "nmp_test_proc.h"
#include "nmp_test_responder.h"
#include "nmp_wire.h"

static const char *cli;

static void sleep_s(double s) {
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* Starts cli with args, stdout and stderr to out (a file). Returns its pid or -1. */
static pid_t start(const char *out, const char *const *args) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) _exit(127);
    dup2(fd, 1), dup2(fd, 2);
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)cli;
    for (; args[n - 1] && n < 31; n++) argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    execv(cli, argv);
    _exit(127);
}

static int finish(pid_t pid) {
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The whole of a small file, in a static buffer. */
static const char *slurp(const char *path) {
    static char buf[65536];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    return buf;
}

static nmp_responder_cfg late_cfg(void) {
    nmp_responder_cfg cfg = nmp_test_responder_cfg("127.0.0.1");
    cfg.idle_timeout_ms = 3000; /* each stop below stays well within it */
    return cfg;
}

TEST(a_sender_stopped_twice_finishes_its_stream_with_every_frame) {
    nmp_test_responder b;
    nmp_responder_cfg cfg = late_cfg();
    int port = nmp_test_responder_start(&b, &cfg);
    CHECK(port > 0);
    if (port <= 0) return;
    char ports[16], out[64];
    snprintf(ports, sizeof(ports), "%d", port);
    snprintf(out, sizeof(out), "/tmp/test_responder_late_%d.out", (int)getpid());
    /* 3000 frames 1 ms apart: a 3 s schedule, 0.5 s wait, 2 s margin; stopped 2 s twice,
     * it sends its last frame about 7 s after it began and asks for the records at 7.5 s */
    const char *args[] = {"stream", "-H", "127.0.0.1", "-p", ports, "-c", "3000", "-i", "1000", "-s", "200",
                          "-t", "500", "--json", NULL};
    pid_t pid = start(out, args);
    sleep_s(0.5);
    kill(pid, SIGSTOP);
    sleep_s(2.0);
    kill(pid, SIGCONT);
    sleep_s(0.5);
    kill(pid, SIGSTOP);
    sleep_s(2.0);
    kill(pid, SIGCONT);
    int rc = finish(pid);
    const char *text = slurp(out);
    if (rc != 0) fprintf(stderr, "%s\n", text);
    CHECK_EQ_INT(rc, 0);
    CHECK(strstr(text, "\"received\": 3000") != NULL || strstr(text, "\"received\":3000") != NULL);
    unlink(out);
    nmp_test_responder_stop(&b);
}

TEST(a_sender_that_really_stops_is_still_ended_as_idle) {
    nmp_test_responder b;
    nmp_responder_cfg cfg = nmp_test_responder_cfg("127.0.0.1"); /* the default idle timeout, 1 s */
    int port = nmp_test_responder_start(&b, &cfg);
    CHECK(port > 0);
    if (port <= 0) return;
    char ports[16], out[64], out2[64];
    snprintf(ports, sizeof(ports), "%d", port);
    snprintf(out, sizeof(out), "/tmp/test_responder_late_%d.out", (int)getpid());
    snprintf(out2, sizeof(out2), "/tmp/test_responder_late_%d.rr", (int)getpid());
    const char *args[] = {"stream", "-H", "127.0.0.1", "-p", ports, "-c", "3000", "-i", "1000", "-s", "200",
                          "-t", "500", "--json", NULL};
    pid_t pid = start(out, args);
    sleep_s(0.5);
    kill(pid, SIGSTOP);
    sleep_s(2.5); /* past the idle timeout after its last frame, well before its schedule's end */
    /* the responder is free for the next client while the stopped one still sleeps */
    const char *rr[] = {"rr", "-H", "127.0.0.1", "-p", ports, "-c", "5", NULL};
    int rr_rc = finish(start(out2, rr));
    if (rr_rc != 0) fprintf(stderr, "%s\n", slurp(out2));
    CHECK_EQ_INT(rr_rc, 0);
    kill(pid, SIGCONT);
    int rc = finish(pid);
    const char *text = slurp(out);
    CHECK(rc != 0);
    CHECK(strstr(text, "idle") != NULL);
    if (rc == 0 || !strstr(text, "idle")) fprintf(stderr, "%s\n", text);
    unlink(out), unlink(out2);
    nmp_test_responder_stop(&b);
}

/* The deadline follows a late sender only so far: past its own sending time (5 s at least)
 * beyond its first deadline, a sender that keeps being stopped is ended as before. */
TEST(a_sender_late_beyond_the_bound_is_still_ended) {
    nmp_test_responder b;
    nmp_responder_cfg cfg = late_cfg();
    int port = nmp_test_responder_start(&b, &cfg);
    CHECK(port > 0);
    if (port <= 0) return;
    char ports[16], out[64];
    snprintf(ports, sizeof(ports), "%d", port);
    snprintf(out, sizeof(out), "/tmp/test_responder_late_%d.out", (int)getpid());
    const char *args[] = {"stream", "-H", "127.0.0.1", "-p", ports, "-c", "3000", "-i", "1000", "-s", "200",
                          "-t", "500", "--json", NULL};
    pid_t pid = start(out, args);
    /* 1.5 s of frames (the pace check judges only windows within the 3 s schedule, and this
     * one is full), then 2 s stopped and 0.3 s sending, over and over: its last frame would
     * come at about 13 s, so only the bound (5.5 s + 5 s) can end it */
    int st = 0, cycles = 0;
    sleep_s(1.5);
    for (; cycles < 10 && waitpid(pid, &st, WNOHANG) == 0; cycles++) {
        kill(pid, SIGSTOP);
        sleep_s(2.0);
        kill(pid, SIGCONT);
        sleep_s(0.3);
    }
    int rc = cycles < 10 && WIFEXITED(st) ? WEXITSTATUS(st) : finish(pid);
    const char *text = slurp(out);
    CHECK(rc != 0);
    CHECK(strstr(text, "it outlived what it asked for") != NULL);
    if (rc == 0 || !strstr(text, "outlived")) fprintf(stderr, "%s\n", text);
    unlink(out);
    nmp_test_responder_stop(&b);
}

/* A tcp session's duration counts from its first byte: a sender that starts 2.5 s late (its
 * data connection made then, within the idle timeout) and sends its 1 s is answered, where
 * the deadline from admission (1 s + 0.2 s + 2 s) would have ended it first. */
TEST(a_tcp_sender_that_starts_late_gets_its_duration_from_its_first_byte) {
    nmp_test_responder b;
    nmp_responder_cfg cfg = late_cfg();
    int port = nmp_test_responder_start(&b, &cfg);
    CHECK(port > 0);
    if (port <= 0) return;
    char line[600] = "";
    int ctl = nmp_test_connect(port), dport = 0;
    unsigned long long cookie = 0;
    static const char req[] = "NMP/1 SESSION kind=tcp streams=1 size=1000 interval_ns=0 duration_ms=1000 timeout_ms=200\n";
    CHECK_EQ_INT(send(ctl, req, sizeof(req) - 1, MSG_NOSIGNAL), sizeof(req) - 1);
    CHECK(nmp_test_line(ctl, line, sizeof(line)) > 0 && sscanf(line, "NMP/1 OK port=%d cookie=%16llx", &dport, &cookie) == 2);
    sleep_s(2.5);
    int fd = nmp_test_connect(dport);
    uint8_t hello[NMP_TCP_HELLO], m[1000] = {0};
    nmp_tcp_hello_encode(hello, 0, cookie);
    CHECK(fd >= 0 && send(fd, hello, sizeof(hello), MSG_NOSIGNAL) == (ssize_t)sizeof(hello));
    double t0 = nmp_test_now();
    uint32_t sent = 0;
    while (nmp_test_now() - t0 < 1.0) { /* its 1 s, a message a millisecond */
        nmp_tcp_msg_hdr h = {.stream = 0, .seq = sent, .sched_wall = nmp_wall_now(), .send_wall = nmp_wall_now()};
        nmp_tcp_msg_encode(m, &h);
        if (send(fd, m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m)) break;
        sent++;
        sleep_s(0.001);
    }
    shutdown(fd, SHUT_WR);
    CHECK_EQ_INT(send(ctl, "NMP/1 RESULTS\n", 14, MSG_NOSIGNAL), 14);
    CHECK(nmp_test_line(ctl, line, sizeof(line)) > 0);
    unsigned long long rx = 0;
    CHECK(sscanf(line, "NMP/1 DATA records=%*u bytes=%*u streams=1 bins=%*u bin_ns=%*u start_wall=%*d rx=%llu", &rx) == 1);
    if (rx == 0) fprintf(stderr, "  %s", line);
    CHECK_EQ_INT(rx, (unsigned long long)sent * sizeof(m));
    close(fd);
    close(ctl);
    nmp_test_responder_stop(&b);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s NMPROBE_CLI\n", argv[0]);
        return 2;
    }
    cli = argv[1];
    signal(SIGPIPE, SIG_IGN);
    RUN(a_sender_stopped_twice_finishes_its_stream_with_every_frame);
    RUN(a_sender_that_really_stops_is_still_ended_as_idle);
    RUN(a_sender_late_beyond_the_bound_is_still_ended);
    RUN(a_tcp_sender_that_starts_late_gets_its_duration_from_its_first_byte);
    return nmp_test_failures != 0;
}
