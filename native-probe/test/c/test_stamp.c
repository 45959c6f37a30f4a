/* test_stamp.c -- STAMP packets and time formats, and the session-sender
 * against the session-reflector on loopback (stateless and stateful, NTP and
 * PTP), and against a port where nothing reflects. */
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

#include "nmprobe.h"
#include "nmp_stamp.h"
#include "nmp_test.h"

TEST(packets_round_trip_and_short_ones_are_refused) {
    uint8_t b[NMP_STAMP_LEN];
    nmp_stamp_sender_pkt s = {.seq = 0xdeadbeef, .ts = 0x0123456789abcdefull, .error = 0x8101, .ssid = 4242}, s2;
    nmp_stamp_sender_encode(b, &s);
    CHECK_EQ_INT(b[0], 0xde); /* network byte order */
    CHECK(nmp_stamp_sender_decode(b, sizeof(b), &s2) == 0);
    CHECK(s2.seq == s.seq && s2.ts == s.ts && s2.error == s.error && s2.ssid == s.ssid);
    for (int i = 16; i < NMP_STAMP_LEN; i++) CHECK_EQ_INT(b[i], 0); /* MBZ */
    CHECK(nmp_stamp_sender_decode(b, NMP_STAMP_LEN - 1, &s2) == -EINVAL);

    nmp_stamp_reflector_pkt r = {.seq = 7, .ts = 1, .error = 2, .ssid = 3, .rx_ts = 4, .sender_seq = 5,
                                 .sender_ts = 6, .sender_error = 0xc0ff, .sender_ttl = 64}, r2;
    nmp_stamp_reflector_encode(b, &r);
    CHECK(nmp_stamp_reflector_decode(b, sizeof(b), &r2) == 0);
    CHECK(memcmp(&r, &r2, sizeof(r)) == 0);
    CHECK_EQ_INT(b[40], 64); /* Ses-Sender TTL at byte 40, RFC 8762 4.3.1 */
    CHECK(nmp_stamp_reflector_decode(b, 10, &r2) == -EINVAL);
}

TEST(timestamps_convert_both_ways_in_both_formats) {
    nmp_walltime_ns now = nmp_wall_now();
    for (int f = 0; f < 2; f++) {
        for (int64_t d = 0; d < 3000000000LL; d += 123456789) {
            nmp_walltime_ns t = now + d;
            nmp_walltime_ns back = nmp_stamp_ts_to_wall(nmp_stamp_ts_from_wall(t, (nmp_stamp_tsfmt)f), (nmp_stamp_tsfmt)f, now);
            CHECK(llabs(back - t) <= 1); /* NTP's fraction is 0.23 ns */
        }
    }
    /* the NTP seconds of 2026 are those since 1900 */
    uint64_t ntp = nmp_stamp_ts_from_wall(1795000000LL * 1000000000LL, NMP_STAMP_NTP);
    CHECK_EQ_INT(ntp >> 32, 1795000000ull + 2208988800ull);
    /* PTP: seconds since 1970 and nanoseconds */
    uint64_t ptp = nmp_stamp_ts_from_wall(1795000000LL * 1000000000LL + 5, NMP_STAMP_PTP);
    CHECK_EQ_INT(ptp >> 32, 1795000000ull);
    CHECK_EQ_INT(ptp & 0xffffffffu, 5);
    /* after the NTP era rolls over in 2036, a timestamp near it is still placed right */
    nmp_walltime_ns y2037 = 2114380800LL * 1000000000LL;
    CHECK(llabs(nmp_stamp_ts_to_wall(nmp_stamp_ts_from_wall(y2037, NMP_STAMP_NTP), NMP_STAMP_NTP, y2037) - y2037) <= 1);
}

TEST(error_estimates_round_up_and_keep_their_bits) {
    double cases[] = {0, 1e-9, 1e-6, 0.5e-3, 1e-3, 0.123, 1, 16, 1e6};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int sync;
        nmp_stamp_tsfmt fmt;
        uint16_t e = nmp_stamp_error_encode(1, NMP_STAMP_PTP, cases[i]);
        double back = nmp_stamp_error_decode(e, &sync, &fmt);
        CHECK(sync == 1 && fmt == NMP_STAMP_PTP);
        CHECK((e & 0xff) != 0); /* the multiplier is never 0 */
        CHECK(back >= cases[i]);
        CHECK(cases[i] == 0 || back <= cases[i] * 1.01 + 1e-9 || back <= cases[i] * 2); /* the smallest scale that fits */
    }
    uint16_t e = nmp_stamp_error_encode(0, NMP_STAMP_NTP, 1e-3);
    CHECK((e & 0xc000) == 0);
    CHECK_NEAR(nmp_stamp_error_decode(e, NULL, NULL), 1e-3, 1e-5);
}

/* A reflector served by a thread until 'stop' is set. */
typedef struct reflector_thread {
    nmp_stamp_reflector *r;
    volatile int stop;
    pthread_t th;
} reflector_thread;

static void *serve(void *arg) {
    reflector_thread *t = arg;
    while (!t->stop) {
        struct pollfd p = {.fd = nmp_stamp_reflector_fd(t->r), .events = POLLIN};
        if (poll(&p, 1, 20) > 0) nmp_stamp_reflector_drain(t->r);
    }
    return NULL;
}

static int start_reflector(reflector_thread *t, int stateful) {
    char err[NMP_ERRLEN];
    nmp_stamp_reflector_cfg cfg = {.bind_addr = "::", .port = 0, .stateful = stateful, .max_pps = 100000};
    memset(t, 0, sizeof(*t));
    if (nmp_stamp_reflector_open(&cfg, &t->r, err, sizeof(err)) < 0) {
        fprintf(stderr, "reflector: %s\n", err);
        return -1;
    }
    pthread_create(&t->th, NULL, serve, t);
    return nmp_stamp_reflector_port(t->r);
}

static void stop_reflector(reflector_thread *t) {
    t->stop = 1;
    pthread_join(t->th, NULL);
    nmp_stamp_reflector_close(t->r);
}

static nmp_stamp_spec spec_for(const char *host, int port, uint32_t count) {
    nmp_stamp_spec s = {.host = host, .port = port, .count = count, .size = NMP_STAMP_LEN, .interval_ns = 1000000,
                        .timeout_ns = 300000000, .ssid = 7, .agree_ns = 300000000};
    return s;
}

TEST(sender_measures_against_the_reflector) {
    for (int stateful = 0; stateful < 2; stateful++)
        for (int ptp = 0; ptp < 2; ptp++) {
            reflector_thread rt;
            int port = start_reflector(&rt, stateful);
            CHECK(port > 0);
            if (port <= 0) return;
            char err[NMP_ERRLEN] = "";
            nmp_stamp_spec s = spec_for(stateful ? "::1" : "127.0.0.1", port, 200);
            s.ptp = ptp;
            s.size = ptp ? 200 : NMP_STAMP_LEN;
            nmp_stamp_result r;
            int rc = nmp_stamp_run(&s, NULL, &r, err, sizeof(err));
            if (rc != 0) fprintf(stderr, "stamp: %s\n", err);
            CHECK_EQ_INT(rc, 0);
            CHECK_EQ_INT(r.sent, 200);
            CHECK_EQ_INT(r.received, 200);
            CHECK_EQ_INT(r.lost, 0);
            CHECK_EQ_INT(r.invalid, 0);
            CHECK(r.rtt_min_ns > 0 && r.rtt_median_ns < 5e6);
            CHECK(r.rtt_min_ns <= r.rtt_median_ns && r.rtt_median_ns <= r.rtt_p99_ns && r.rtt_p99_ns <= r.rtt_max_ns);
            CHECK_EQ_INT(r.reflector_ptp, ptp);
            for (uint32_t i = 0; i < r.requested; i++) {
                /* one clock on both ends: the two one-way delays add up to the round trip */
                CHECK(r.rtt_ns[i] >= 0 && llabs(r.fwd_ns[i] + r.bwd_ns[i] - r.rtt_ns[i]) <= 2);
                CHECK(r.fwd_ns[i] >= -1 && r.bwd_ns[i] >= -1);
                CHECK(r.sender_ttl[i] > 0 && r.reply_ttl[i] > 0);
            }
            CHECK(r.sender_error_ns > 0 && r.reflector_error_ns > 0);
            nmp_stamp_reflector_counters n;
            rt.stop = 1;
            pthread_join(rt.th, NULL); /* its counters are final once it stopped */
            nmp_stamp_reflector_counts(rt.r, &n);
            CHECK_EQ_INT(n.reflected, 200);
            nmp_stamp_result_free(&r);
            nmp_stamp_reflector_close(rt.r);
        }
}

/* A stateful reflector numbers what it received: packets it dropped (over its rate
 * here) show as lost on the way there; a stateless one cannot tell. */
TEST(a_stateful_reflector_tells_forward_loss) {
    for (int stateful = 0; stateful < 2; stateful++) {
        reflector_thread rt;
        char err[NMP_ERRLEN] = "";
        nmp_stamp_reflector_cfg cfg = {.bind_addr = "127.0.0.1", .port = 0, .stateful = stateful, .max_pps = 100};
        memset(&rt, 0, sizeof(rt));
        CHECK(nmp_stamp_reflector_open(&cfg, &rt.r, err, sizeof(err)) == 0);
        pthread_create(&rt.th, NULL, serve, &rt);
        nmp_stamp_spec s = spec_for("127.0.0.1", nmp_stamp_reflector_port(rt.r), 400);
        nmp_stamp_result r;
        CHECK_EQ_INT(nmp_stamp_run(&s, NULL, &r, err, sizeof(err)), 0);
        stop_reflector(&rt);
        CHECK(r.lost > 100); /* 100 tokens and 100/s against 400 packets in 0.4 s */
        if (stateful) {
            /* every loss was the reflector's, except those after the last reflection */
            CHECK(r.forward_lost > 0 && r.forward_lost <= r.lost);
            CHECK(r.forward_lost + (r.requested - 1 - r.max_sender_seq) == r.lost);
        } else {
            CHECK_EQ_INT(r.forward_lost, 0);
        }
        nmp_stamp_result_free(&r);
    }
}

TEST(a_host_without_a_reflector_gets_three_packets_at_most) {
    /* a plain UDP socket that only counts what arrives */
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    char err[NMP_ERRLEN] = "";
    nmp_stamp_spec s = spec_for("127.0.0.1", ntohs(a.sin_port), 100000);
    s.agree_ns = 50000000;
    nmp_stamp_result r;
    int rc = nmp_stamp_run(&s, NULL, &r, err, sizeof(err));
    CHECK_EQ_INT(rc, -ETIMEDOUT);
    CHECK(strstr(err, "nothing more was sent") != NULL);
    int got = 0;
    char b[64];
    while (recv(fd, b, sizeof(b), 0) > 0) got++;
    CHECK_EQ_INT(got, 3);
    nmp_stamp_result_free(&r);
    close(fd);
}

TEST(the_reflector_drops_short_packets_and_keeps_to_its_rate) {
    reflector_thread rt;
    char err[NMP_ERRLEN];
    nmp_stamp_reflector_cfg cfg = {.bind_addr = "127.0.0.1", .port = 0, .max_pps = 10};
    memset(&rt, 0, sizeof(rt));
    CHECK(nmp_stamp_reflector_open(&cfg, &rt.r, err, sizeof(err)) == 0);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)nmp_stamp_reflector_port(rt.r))};
    uint8_t pkt[NMP_STAMP_LEN] = {0};
    sendto(fd, pkt, 20, 0, (struct sockaddr *)&a, sizeof(a)); /* too short to be a test packet */
    for (int i = 0; i < 50; i++) sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&a, sizeof(a));
    usleep(50000);
    while (nmp_stamp_reflector_drain(rt.r) > 0) {
    }
    nmp_stamp_reflector_counters n;
    nmp_stamp_reflector_counts(rt.r, &n);
    CHECK(n.reflected <= 11); /* a second's worth of tokens, and what refilled meanwhile */
    CHECK_EQ_INT(n.reflected + n.dropped + n.over_source, 51);
    close(fd);
    nmp_stamp_reflector_close(rt.r);
}

int main(void) {
    RUN(packets_round_trip_and_short_ones_are_refused);
    RUN(timestamps_convert_both_ways_in_both_formats);
    RUN(error_estimates_round_up_and_keep_their_bits);
    RUN(sender_measures_against_the_reflector);
    RUN(a_stateful_reflector_tells_forward_loss);
    RUN(a_host_without_a_reflector_gets_three_packets_at_most);
    RUN(the_reflector_drops_short_packets_and_keeps_to_its_rate);
    return nmp_test_failures != 0;
}
