/* test_responder_nonblocking.c -- the responder's single loop never waits
 * on one client (issue 12: a client that did not read its RESULTS answer, or
 * left a tcp data connection open, held the loop for up to 60 s, and every
 * other client with it). While one session's answer is being written or
 * its tcp streams drained, other clients are answered BUSY at once and the
 * STAMP reflector keeps reflecting; a slow reader still gets every record.
 * Runs against a real nmprobe-responder process (argv[1]). */
#include <stdint.h>

#include "nmp_client.h"
#include "nmp_stamp.h"
#include "nmp_test.h"
#include "nmp_test_proc.h"
#include "nmprobe.h"

static const char *bin;

/* Asks for an rr session on a new connection; stores the first answer line
 * and how long it took. Ends an admitted session at once. */
static double ask(int port, char *answer, size_t cap) {
    static const char req[] = "NMP/1 SESSION kind=rr frames=10 size=64 interval_ns=1000000 timeout_ms=100\n";
    answer[0] = '\0';
    double t0 = nmp_test_now();
    int fd = nmp_test_connect(port);
    if (fd < 0) return -1;
    if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof(req) - 1)) nmp_test_line(fd, answer, cap);
    double took = nmp_test_now() - t0;
    if (strncmp(answer, "NMP/1 OK ", 9) == 0) {
        char bye[600];
        send(fd, "NMP/1 END\n", 10, MSG_NOSIGNAL);
        nmp_test_line(fd, bye, sizeof(bye));
    }
    close(fd);
    return took;
}

/* Sends one STAMP test packet to the reflector and waits up to 'ms' for
 * its reflection. Returns 1 when reflected. */
static int stamp_reflected(int port, int ms) {
    struct sockaddr_in d = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &d.sin_addr);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    uint8_t buf[NMP_STAMP_LEN] = {0}, in[NMP_STAMP_MAX_LEN];
    nmp_stamp_sender_pkt pk = {.seq = 7, .ts = nmp_stamp_ts_from_wall(nmp_wall_now(), NMP_STAMP_NTP)};
    nmp_stamp_sender_encode(buf, &pk);
    int ok = 0;
    if (sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&d, sizeof(d)) == (ssize_t)sizeof(buf)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        nmp_stamp_reflector_pkt rp;
        ssize_t n;
        ok = poll(&p, 1, ms) == 1 && (n = recv(fd, in, sizeof(in), 0)) > 0 &&
             nmp_stamp_reflector_decode(in, (size_t)n, &rp) == 0 && rp.sender_seq == 7;
    }
    close(fd);
    return ok;
}

/* Sends n stream frames of 'size' bytes, yielding now and then so the
 * responder's socket buffer keeps up. */
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

/* Opens a stream session of 'frames' 32-byte frames, sends them, asks for
 * RESULTS and reads the DATA line. Returns the announced payload bytes, or
 * 0 on failure (c is then closed). */
static uint64_t stream_until_data(nmp_client *c, int port, uint32_t frames) {
    char err[NMP_ERRLEN], req[NMP_CTL_MAXLINE + 1], line[NMP_CTL_MAXLINE + 1];
    nmp_ctl_format(req, sizeof(req), NMP_CTL_SESSION, "kind=stream frames=%u size=32 interval_ns=5000 timeout_ms=100",
                   frames);
    if (nmp_client_open(c, "127.0.0.1", port, 5000, NULL, req, 0, NULL, err, sizeof(err)) < 0) {
        fprintf(stderr, "  %s\n", err);
        return 0;
    }
    send_frames(c, frames, 32);
    usleep(100000);
    size_t len;
    nmp_ctl_msg data;
    uint64_t records = 0, bytes = 0;
    if (send(c->ctl, "NMP/1 RESULTS\n", 14, MSG_NOSIGNAL) != 14 ||
        nmp_net_read_line(c->ctl, &c->lb, nmp_mono_now() + 10000000000ull, NULL, line, &len, err, sizeof(err)) < 0 ||
        nmp_ctl_parse(line, len, &data, err, sizeof(err)) < 0 || data.verb != NMP_CTL_DATA ||
        nmp_ctl_get_u64(&data, "records", 0, frames, &records, err, sizeof(err)) < 0 ||
        nmp_ctl_get_u64(&data, "bytes", 0, UINT64_MAX, &bytes, err, sizeof(err)) < 0 || bytes != records * NMP_REC_SIZE) {
        fprintf(stderr, "  RESULTS: %s\n", err);
        nmp_client_close(c);
        return 0;
    }
    fprintf(stderr, "  DATA announces %llu records (%llu bytes)\n", (unsigned long long)records,
            (unsigned long long)bytes);
    return bytes;
}

TEST(a_client_that_does_not_read_its_results_does_not_stall_the_responder) {
    nmp_test_proc p;
    const char *args[] = {"--stamp-port", "0", "--idle-timeout", "1", NULL};
    if (nmp_test_proc_start(&p, bin, args) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    long stamp_port = nmp_test_proc_log_num(&p, "reflector on UDP port ");
    CHECK(stamp_port > 0);
    nmp_client c;
    enum { FRAMES = 400000 }; /* 9.6 MB of records: far more than the socket buffers on the way hold */
    uint64_t bytes = stream_until_data(&c, p.port, FRAMES);
    CHECK(bytes > (uint64_t)FRAMES / 2 * NMP_REC_SIZE);
    if (bytes == 0) goto end;
    double t_results = nmp_test_now();
    /* the stalled answer blocks nobody: BUSY at once, every time, and STAMP is reflected */
    char line[600];
    int busy = 0;
    for (int i = 0; i < 3; i++) {
        double took = ask(p.port, line, sizeof(line));
        fprintf(stderr, "  asked %.3f s after RESULTS: %.3f s for %s", nmp_test_now() - t_results, took, line);
        if (strncmp(line, "NMP/1 BUSY remaining_ms=", 24) != 0) break;
        CHECK(took < 0.5);
        busy++;
        CHECK(stamp_reflected((int)stamp_port, 500));
        usleep(100000);
    }
    CHECK_EQ_INT(busy, 3);
    /* the stalled session ends by its deadline; then the next client is admitted */
    double admitted = -1;
    while (nmp_test_now() - t_results < 15) {
        double took = ask(p.port, line, sizeof(line));
        CHECK(took < 0.5);
        if (strncmp(line, "NMP/1 OK port=", 14) == 0) {
            admitted = nmp_test_now() - t_results;
            break;
        }
        CHECK(strncmp(line, "NMP/1 BUSY remaining_ms=", 24) == 0);
        usleep(100000);
    }
    fprintf(stderr, "  next client admitted %.3f s after the stalled RESULTS\n", admitted);
    CHECK(admitted > 0 && admitted < 5);
    /* the stalled client got part of the answer, then the close */
    uint64_t got = c.lb.len;
    char sink[65536];
    for (;;) {
        struct pollfd pp = {.fd = c.ctl, .events = POLLIN};
        if (poll(&pp, 1, 2000) <= 0) break;
        ssize_t n = recv(c.ctl, sink, sizeof(sink), 0);
        if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR))) break;
        if (n > 0) got += (uint64_t)n;
    }
    fprintf(stderr, "  the stalled client had %llu of %llu bytes when the responder closed\n", (unsigned long long)got,
            (unsigned long long)bytes);
    CHECK(got < bytes);
    nmp_client_close(&c);
end:
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

TEST(a_slow_reader_gets_every_record_while_others_are_told_busy) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    nmp_client c;
    enum { FRAMES = 300000 };
    uint64_t bytes = stream_until_data(&c, p.port, FRAMES);
    CHECK(bytes > 0);
    if (bytes == 0) goto end;
    uint8_t *blob = malloc(bytes);
    size_t got = c.lb.len < bytes ? c.lb.len : bytes;
    memcpy(blob, c.lb.buf, got); /* what came with the DATA line */
    memmove(c.lb.buf, c.lb.buf + got, c.lb.len - got);
    c.lb.len -= got;
    int busy_checks = 0;
    double t0 = nmp_test_now();
    /* read 64 KiB at a time with pauses: the responder writes as the socket takes it */
    while (got < bytes && nmp_test_now() - t0 < 20) {
        struct pollfd pp = {.fd = c.ctl, .events = POLLIN};
        if (poll(&pp, 1, 2000) <= 0) break;
        size_t want = bytes - got < 65536 ? bytes - got : 65536;
        ssize_t n = recv(c.ctl, blob + got, want, 0);
        if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR))) break;
        if (n > 0) got += (size_t)n;
        usleep(2000);
        if (busy_checks < 3 && got > bytes / 4 * (size_t)(busy_checks + 1)) {
            char line[600];
            double took = ask(p.port, line, sizeof(line));
            CHECK(took < 0.5 && strncmp(line, "NMP/1 BUSY ", 11) == 0);
            busy_checks++;
        }
    }
    fprintf(stderr, "  read %zu of %llu bytes in %.3f s\n", got, (unsigned long long)bytes, nmp_test_now() - t0);
    CHECK_EQ_INT(got, bytes);
    CHECK_EQ_INT(busy_checks, 3);
    /* every frame's record arrived intact: each seq once */
    uint8_t *seen = calloc(FRAMES, 1);
    uint32_t distinct = 0, bad = 0;
    for (size_t i = 0; i + NMP_REC_SIZE <= got; i += NMP_REC_SIZE) {
        nmp_rec rec;
        nmp_rec_decode(blob + i, &rec);
        if (rec.seq >= FRAMES || rec.bytes != 32 || seen[rec.seq]) {
            bad++;
            continue;
        }
        seen[rec.seq] = 1;
        distinct++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(distinct, bytes / NMP_REC_SIZE);
    free(seen);
    free(blob);
    uint64_t rx = 0, tx = 1;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_client_end(&c, &rx, &tx, err, sizeof(err)), 0);
    CHECK_EQ_INT(rx, bytes / NMP_REC_SIZE);
    CHECK_EQ_INT(tx, 0);
    nmp_client_close(&c);
end:
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

/* Opens a data connection for stream idx and writes 'msgs' messages of
 * 'size' bytes. Returns the fd or -1. */
static int tcp_stream(int dport, uint32_t idx, uint64_t cookie, uint32_t msgs, uint32_t size) {
    int fd = nmp_test_connect(dport);
    if (fd < 0) return -1;
    uint8_t hello[NMP_TCP_HELLO], m[1000] = {0};
    nmp_tcp_hello_encode(hello, idx, cookie);
    if (send(fd, hello, sizeof(hello), MSG_NOSIGNAL) != (ssize_t)sizeof(hello) || size > sizeof(m)) {
        close(fd);
        return -1;
    }
    for (uint32_t i = 0; i < msgs; i++) {
        nmp_tcp_msg_hdr h = {.stream = idx, .seq = i, .sched_wall = nmp_wall_now(), .send_wall = nmp_wall_now()};
        nmp_tcp_msg_encode(m, &h);
        if (send(fd, m, size, MSG_NOSIGNAL) != (ssize_t)size) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

static uint64_t be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

/* A tcp session with two streams of 10 messages; stream 1 is shut down
 * only when 'leave_open' is 0. RESULTS is answered when both streams ended,
 * else when the session's timeout (2 s) ran out, and others are served BUSY
 * meanwhile. Checks the totals against what was written. */
static void tcp_results_with(int leave_open) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    char line[600];
    int ctl = nmp_test_connect(p.port), dport = 0;
    unsigned long long cookie = 0;
    static const char req[] = "NMP/1 SESSION kind=tcp streams=2 size=1000 interval_ns=0 duration_ms=500 timeout_ms=2000\n";
    CHECK_EQ_INT(send(ctl, req, sizeof(req) - 1, MSG_NOSIGNAL), sizeof(req) - 1);
    CHECK(nmp_test_line(ctl, line, sizeof(line)) > 0 && sscanf(line, "NMP/1 OK port=%d cookie=%16llx", &dport, &cookie) == 2);
    int s0 = tcp_stream(dport, 0, cookie, 10, 1000), s1 = tcp_stream(dport, 1, cookie, 10, 1000);
    CHECK(s0 >= 0 && s1 >= 0);
    shutdown(s0, SHUT_WR);
    if (!leave_open) shutdown(s1, SHUT_WR);
    usleep(100000);
    double t0 = nmp_test_now();
    CHECK_EQ_INT(send(ctl, "NMP/1 RESULTS\n", 14, MSG_NOSIGNAL), 14);
    if (leave_open) {
        usleep(200000);
        double took = ask(p.port, line, sizeof(line));
        fprintf(stderr, "  while draining: %.3f s for %s", took, line);
        CHECK(took < 0.5 && strncmp(line, "NMP/1 BUSY remaining_ms=", 24) == 0);
    }
    CHECK(nmp_test_line(ctl, line, sizeof(line)) > 0);
    double waited = nmp_test_now() - t0;
    fprintf(stderr, "  DATA after %.3f s: %s", waited, line);
    if (leave_open)
        CHECK(waited > 1.7 && waited < 3.5); /* the 2 s the session allowed for its streams to end */
    else
        CHECK(waited < 0.5);
    unsigned long long records = 9, bytes = 0, rx = 0, connected = 0;
    CHECK(sscanf(line, "NMP/1 DATA records=%llu bytes=%llu streams=2 bins=1 bin_ns=0 start_wall=%*d rx=%llu over=0 "
                       "connected=%llu", &records, &bytes, &rx, &connected) == 4);
    CHECK_EQ_INT(records, 0);
    CHECK_EQ_INT(bytes, 2 * NMP_TCP_STREAM_REC + 2 * 8);
    CHECK_EQ_INT(rx, 20000);
    CHECK_EQ_INT(connected, 2);
    uint8_t payload[2 * NMP_TCP_STREAM_REC + 16];
    size_t have = 0;
    while (have < sizeof(payload)) {
        ssize_t n = recv(ctl, payload + have, sizeof(payload) - have, 0);
        if (n <= 0) break;
        have += (size_t)n;
    }
    CHECK_EQ_INT(have, sizeof(payload));
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(be64(payload + i * NMP_TCP_STREAM_REC), 10000);   /* bytes */
        CHECK_EQ_INT(be64(payload + i * NMP_TCP_STREAM_REC + 8), 10);  /* messages */
        CHECK_EQ_INT(be64(payload + 2 * NMP_TCP_STREAM_REC + i * 8), 10000); /* the one bin */
    }
    CHECK_EQ_INT(send(ctl, "NMP/1 END\n", 10, MSG_NOSIGNAL), 10);
    CHECK(nmp_test_line(ctl, line, sizeof(line)) > 0 && strcmp(line, "NMP/1 BYE rx=20000 tx=0\n") == 0);
    close(s0);
    close(s1);
    close(ctl);
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

TEST(a_tcp_stream_left_open_delays_only_its_own_answer) { tcp_results_with(1); }

TEST(tcp_results_come_as_soon_as_every_stream_ended) { tcp_results_with(0); }

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s path/to/nmprobe-responder\n", argv[0]);
        return 2;
    }
    bin = argv[1];
    signal(SIGPIPE, SIG_IGN);
    RUN(a_client_that_does_not_read_its_results_does_not_stall_the_responder);
    RUN(a_slow_reader_gets_every_record_while_others_are_told_busy);
    RUN(a_tcp_stream_left_open_delays_only_its_own_answer);
    RUN(tcp_results_come_as_soon_as_every_stream_ended);
    return nmp_test_failures != 0;
}
