/* test_responder_guard.c -- regression tests for two review findings on the
 * responder's single-threaded loop:
 *  - "pending table lock-out": silent control connections from one host
 *    (or a few) must not keep another client from getting a session;
 *  - "RESULTS stalls": RESULTS is answered once per session, and a client
 *    that does not read its results cannot hold the responder past the
 *    session's hard deadline (others are told BUSY meanwhile, at once).
 * Each test runs its own responder in a thread on 127.0.0.1; other source
 * addresses on loopback (127.0.0.2, ...) stand for other hosts. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nmp_client.h"
#include "nmp_test.h"
#include "nmp_test_responder.h"
#include "nmprobe.h"

/* A responder on a free loopback port (idle_timeout_ms 0: its default). Returns its port or -1. */
static int start(nmp_test_responder *b, uint32_t idle_timeout_ms) {
    nmp_responder_cfg cfg = nmp_test_responder_cfg("127.0.0.1");
    if (idle_timeout_ms) cfg.idle_timeout_ms = idle_timeout_ms;
    return nmp_test_responder_start(b, &cfg);
}

/* A blocking TCP connection from source address 'src' to the responder
 * (10 s receive timeout, so that a broken responder fails the test instead
 * of hanging it). Returns the fd or -1. */
static int connect_from(const char *src, int port) {
    struct sockaddr_in a = {.sin_family = AF_INET}, d = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct timeval tv = {.tv_sec = 10};
    inet_pton(AF_INET, src, &a.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &d.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || connect(fd, (struct sockaddr *)&d, sizeof(d)) < 0) {
        perror("connect_from");
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads one line (up to '\n', at most cap - 1 bytes) byte by byte, so that
 * nothing after it is consumed. Returns its length, 0 at EOF, -1 on error. */
static int read_line(int fd, char *line, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = recv(fd, line + n, 1, 0);
        if (r <= 0) break;
        if (line[n++] == '\n') break;
    }
    line[n] = '\0';
    return (int)n;
}

/* Asks for an rr session from 'src' and returns the first answer line. */
static void ask_session(const char *src, int port, char *answer, size_t cap) {
    static const char req[] = "NMP/1 SESSION kind=rr frames=10 size=64 interval_ns=1000000 timeout_ms=1000\n";
    answer[0] = '\0';
    int fd = connect_from(src, port);
    if (fd < 0) return;
    if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof(req) - 1)) {
        read_line(fd, answer, cap);
        if (strncmp(answer, "NMP/1 OK ", 9) == 0) {
            char bye[NMP_CTL_MAXLINE + 1];
            send(fd, "NMP/1 END\n", 10, MSG_NOSIGNAL);
            read_line(fd, bye, sizeof(bye));
            CHECK(strncmp(bye, "NMP/1 BYE ", 10) == 0);
        }
    }
    close(fd);
}

TEST(silent_connections_from_one_host_do_not_lock_out_another_client) {
    nmp_test_responder b;
    if (start(&b, 0) < 0) {
        CHECK(0);
        return;
    }
    int silent[8];
    char line[NMP_CTL_MAXLINE + 1];
    /* 8 silent connections would fill the whole pending table (8 slots) */
    for (int i = 0; i < 8; i++) silent[i] = connect_from("127.0.0.1", b.port);
    ask_session("127.0.0.2", b.port, line, sizeof(line));
    CHECK(strncmp(line, "NMP/1 OK port=", 14) == 0);
    if (strncmp(line, "NMP/1 OK ", 9) != 0) fprintf(stderr, "  answer: %s", line);
    /* each new silent connection beyond 2 pushed out its host's oldest one */
    for (int i = 0; i < 6; i++) {
        CHECK(read_line(silent[i], line, sizeof(line)) > 0 &&
              strncmp(line, "NMP/1 ERR reason=overload ", 26) == 0);
        CHECK_EQ_INT(read_line(silent[i], line, sizeof(line)), 0); /* closed */
    }
    /* a client on the same host as the silent ones is served too */
    ask_session("127.0.0.1", b.port, line, sizeof(line));
    CHECK(strncmp(line, "NMP/1 OK port=", 14) == 0);
    for (int i = 0; i < 8; i++) close(silent[i]);
    nmp_test_responder_stop(&b);
}

TEST(a_full_pending_table_makes_room_by_dropping_its_oldest_connection) {
    nmp_test_responder b;
    if (start(&b, 0) < 0) {
        CHECK(0);
        return;
    }
    int silent[10];
    char src[32], line[NMP_CTL_MAXLINE + 1];
    /* five hosts, two silent connections each (the per-host limit): 10 > 8 slots */
    for (int i = 0; i < 10; i++) {
        snprintf(src, sizeof(src), "127.0.0.%d", 3 + i / 2);
        silent[i] = connect_from(src, b.port);
    }
    ask_session("127.0.0.2", b.port, line, sizeof(line));
    CHECK(strncmp(line, "NMP/1 OK port=", 14) == 0);
    if (strncmp(line, "NMP/1 OK ", 9) != 0) fprintf(stderr, "  answer: %s", line);
    /* the two oldest made room for connections 9 and 10; the real client
     * then took the slot of the third oldest */
    for (int i = 0; i < 3; i++)
        CHECK(read_line(silent[i], line, sizeof(line)) > 0 &&
              strncmp(line, "NMP/1 ERR reason=overload ", 26) == 0);
    for (int i = 0; i < 10; i++) close(silent[i]);
    nmp_test_responder_stop(&b);
}

TEST(results_are_answered_once_per_session) {
    nmp_test_responder b;
    if (start(&b, 0) < 0) {
        CHECK(0);
        return;
    }
    nmp_client c;
    char err[NMP_ERRLEN], req[NMP_CTL_MAXLINE + 1], line[NMP_CTL_MAXLINE + 1];
    nmp_ctl_format(req, sizeof(req), NMP_CTL_SESSION, "kind=stream frames=10 size=64 interval_ns=0 timeout_ms=100");
    CHECK_EQ_INT(nmp_client_open(&c, "127.0.0.1", b.port, 5000, NULL, req, 0, NULL, err, sizeof(err)), 0);
    /* an extra RESULTS first; nmp_client_results sends the second */
    CHECK_EQ_INT(send(c.ctl, "NMP/1 RESULTS\n", 14, MSG_NOSIGNAL), 14);
    nmp_ctl_msg data;
    uint8_t *blob = NULL;
    size_t bloblen = 0;
    CHECK_EQ_INT(nmp_client_results(&c, 100, &data, &blob, &bloblen, err, sizeof(err)), 0);
    free(blob);
    size_t len;
    int rc = nmp_net_read_line(c.ctl, &c.lb, nmp_mono_now() + 5000000000ull, NULL, line, &len, err, sizeof(err));
    CHECK_EQ_INT(rc, 0);
    CHECK(rc == 0 && strncmp(line, "NMP/1 ERR reason=request text=RESULTS+already+answered", 54) == 0);
    rc = nmp_net_read_line(c.ctl, &c.lb, nmp_mono_now() + 5000000000ull, NULL, line, &len, err, sizeof(err));
    CHECK_EQ_INT(rc, -ECONNRESET); /* the session is over */
    nmp_client_close(&c);
    nmp_test_responder_stop(&b);
}

/* Sends n stream frames of 'size' bytes on the session's UDP socket,
 * yielding now and then so the responder's socket buffer keeps up. */
static void send_frames(const nmp_client *c, uint32_t n, uint32_t size) {
    uint8_t buf[64] = {0};
    for (uint32_t i = 0; i < n; i++) {
        nmp_frame_hdr h = {.type = NMP_FRAME_STREAM, .cookie = c->cookie, .seq = i, .total = n,
                           .send_wall = nmp_wall_now()};
        nmp_frame_encode(buf, &h);
        while (send(c->udp, buf, size, 0) < 0 && (errno == EAGAIN || errno == ENOBUFS || errno == EINTR)) {
            struct pollfd p = {.fd = c->udp, .events = POLLOUT};
            poll(&p, 1, 1);
        }
        if (i % 128 == 127) usleep(20);
    }
}

TEST(a_client_that_does_not_read_its_results_cannot_hold_the_responder_past_the_deadline) {
    /* idle timeout 1 s: the hard deadline is admission + 2 s declared + 0.1 s + 1 s */
    nmp_test_responder b;
    if (start(&b, 1000) < 0) {
        CHECK(0);
        return;
    }
    enum { FRAMES = 400000 }; /* 9.6 MB of records: far more than socket buffers hold */
    nmp_client c;
    char err[NMP_ERRLEN], req[NMP_CTL_MAXLINE + 1], line[NMP_CTL_MAXLINE + 1];
    nmp_ctl_format(req, sizeof(req), NMP_CTL_SESSION, "kind=stream frames=%u size=32 interval_ns=5000 timeout_ms=100",
                   (unsigned)FRAMES);
    CHECK_EQ_INT(nmp_client_open(&c, "127.0.0.1", b.port, 5000, NULL, req, 0, NULL, err, sizeof(err)), 0);
    send_frames(&c, FRAMES, 32);
    /* ask for the results and read only the DATA line, never the records */
    CHECK_EQ_INT(send(c.ctl, "NMP/1 RESULTS\n", 14, MSG_NOSIGNAL), 14);
    size_t len;
    int rc = nmp_net_read_line(c.ctl, &c.lb, nmp_mono_now() + 10000000000ull, NULL, line, &len, err, sizeof(err));
    CHECK_EQ_INT(rc, 0);
    nmp_ctl_msg data;
    uint64_t records = 0, bytes = 0;
    CHECK(rc == 0 && nmp_ctl_parse(line, len, &data, err, sizeof(err)) == 0 && data.verb == NMP_CTL_DATA &&
          nmp_ctl_get_u64(&data, "records", 0, FRAMES * 2, &records, err, sizeof(err)) == 0 &&
          nmp_ctl_get_u64(&data, "bytes", 0, UINT64_MAX, &bytes, err, sizeof(err)) == 0);
    fprintf(stderr, "  DATA announces %llu records (%llu bytes)\n", (unsigned long long)records,
            (unsigned long long)bytes);
    CHECK(records > FRAMES / 2); /* enough to overflow every buffer on the way */
    /* another client is told BUSY at once while the answer waits (the loop
     * does not), and gets a session once the stalled one's time is up */
    nmp_rr_spec s = {.host = "127.0.0.1", .port = b.port, .count = 5, .size = 64, .timeout_ns = 1000000000ull,
                     .connect_timeout_ms = 10000};
    nmp_rr_result r;
    nmp_monotime_ns t0 = nmp_mono_now();
    for (;;) {
        nmp_monotime_ns asked = nmp_mono_now();
        rc = nmp_rr_run(&s, NULL, &r, err, sizeof(err));
        if (rc != -EBUSY || nmp_mono_now() - t0 > 10000000000ull) break;
        CHECK(nmp_mono_now() - asked < 500000000ull);
        usleep(50000);
    }
    if (rc < 0) fprintf(stderr, "  second client: %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        CHECK_EQ_INT(r.received, 5);
        nmp_rr_result_free(&r);
    }
    /* the stalled client got its DATA line and part of the records, then the close */
    uint64_t got = c.lb.len;
    char sink[65536];
    for (;;) {
        struct pollfd p = {.fd = c.ctl, .events = POLLIN};
        if (poll(&p, 1, 5000) <= 0) break;
        ssize_t n = recv(c.ctl, sink, sizeof(sink), 0);
        if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR))) break;
        if (n > 0) got += (uint64_t)n;
    }
    CHECK(got < bytes);
    nmp_client_close(&c);
    nmp_test_responder_stop(&b);
}

int main(void) {
    RUN(silent_connections_from_one_host_do_not_lock_out_another_client);
    RUN(a_full_pending_table_makes_room_by_dropping_its_oldest_connection);
    RUN(results_are_answered_once_per_session);
    RUN(a_client_that_does_not_read_its_results_cannot_hold_the_responder_past_the_deadline);
    return nmp_test_failures != 0;
}
