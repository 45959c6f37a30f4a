/* test_stamp.c -- STAMP packets and time formats, and the session-sender
 * against the session-reflector on loopback (stateless and stateful, NTP and
 * PTP, unauthenticated and authenticated), against a port where nothing
 * reflects, and each mode against the other. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nmprobe.h"
#include "nmp_pfs.h"
#include "nmp_stamp.h"
#include "nmp_test.h"

/* Writes a key file (mode 600) under /tmp; returns its path in a static buffer per slot. */
static const char *key_file(int slot, const char *text) {
    static char path[4][64];
    snprintf(path[slot], sizeof(path[slot]), "/tmp/test_stamp_keys_%d_%d", (int)getpid(), slot);
    unlink(path[slot]);
    FILE *f = fopen(path[slot], "w");
    if (f == NULL) return NULL;
    fputs(text, f);
    fclose(f);
    chmod(path[slot], 0600);
    return path[slot];
}

/* The two key files of these tests: the reflector holds two keys, the sender one of them
 * under the same id, and a sender with another key under that id. */
#define REFLECTOR_KEYS "# keys of the lab's STAMP sessions\n" \
    "other 000102030405060708090a0b0c0d0e0f\n\n" \
    "lab 8f3a1c9e5b7d2f4061a8c3e5f7092b4d6e8f0a1c3e5b7d9f2a4c6e8b0d2f4a61\r\n"
#define SENDER_KEYS "lab 8f3a1c9e5b7d2f4061a8c3e5f7092b4d6e8f0a1c3e5b7d9f2a4c6e8b0d2f4a61\n"
#define WRONG_KEYS "lab 8f3a1c9e5b7d2f4061a8c3e5f7092b4d6e8f0a1c3e5b7d9f2a4c6e8b0d2f4a62\n"
static const uint8_t LAB_KEY[32] = {0x8f, 0x3a, 0x1c, 0x9e, 0x5b, 0x7d, 0x2f, 0x40, 0x61, 0xa8, 0xc3,
                                    0xe5, 0xf7, 0x09, 0x2b, 0x4d, 0x6e, 0x8f, 0x0a, 0x1c, 0x3e, 0x5b,
                                    0x7d, 0x9f, 0x2a, 0x4c, 0x6e, 0x8b, 0x0d, 0x2f, 0x4a, 0x61};

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

static int start_reflector_keyed(reflector_thread *t, int stateful, const char *keys) {
    char err[NMP_ERRLEN];
    nmp_stamp_reflector_cfg cfg = {.bind_addr = "::", .port = 0, .stateful = stateful, .max_pps = 100000,
                                   .key_file = keys};
    memset(t, 0, sizeof(*t));
    if (nmp_stamp_reflector_open(&cfg, &t->r, err, sizeof(err)) < 0) {
        fprintf(stderr, "reflector: %s\n", err);
        return -1;
    }
    pthread_create(&t->th, NULL, serve, t);
    return nmp_stamp_reflector_port(t->r);
}

static int start_reflector(reflector_thread *t, int stateful) { return start_reflector_keyed(t, stateful, NULL); }

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

/* Every byte of both authenticated layouts at the offset RFC 8762 gives it (Figures 4 and 6,
 * with RFC 8972's SSID), MBZ zero, and the HMAC over the first 96 bytes at 96..111. */
TEST(authenticated_packets_have_the_rfc_layout_and_any_changed_byte_fails_the_hmac) {
    uint8_t b[NMP_STAMP_AUTH_LEN];
    nmp_stamp_mac *m = NULL, *other = NULL;
    CHECK(nmp_stamp_mac_new(LAB_KEY, sizeof(LAB_KEY), &m) == 0);
    CHECK(nmp_stamp_mac_new(LAB_KEY, 16, &other) == 0);
    if (m == NULL || other == NULL) return;
    nmp_stamp_sender_pkt s = {.seq = 0x01020304, .ts = 0x1112131415161718ull, .error = 0x8101, .ssid = 0xabcd}, s2;
    nmp_stamp_sender_encode_auth(b, &s);
    const uint8_t want_s[28] = {1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x81, 0x01, 0xab, 0xcd};
    CHECK(memcmp(b, want_s, sizeof(want_s)) == 0);
    for (int i = 28; i < NMP_STAMP_AUTH_LEN; i++) CHECK_EQ_INT(b[i], 0); /* MBZ, and the HMAC not yet */
    CHECK_EQ_INT(nmp_stamp_verify(m, b, sizeof(b)), 0);
    CHECK(nmp_stamp_sign(m, b) == 0);
    CHECK_EQ_INT(nmp_stamp_verify(m, b, sizeof(b)), 1);
    CHECK_EQ_INT(nmp_stamp_verify(other, b, sizeof(b)), 0);
    CHECK_EQ_INT(nmp_stamp_verify(m, b, NMP_STAMP_AUTH_LEN - 1), 0);
    for (int i = 0; i < NMP_STAMP_AUTH_LEN; i++) { /* the MAC covers 0..95 and is 96..111 */
        b[i] ^= 0x20;
        CHECK_EQ_INT(nmp_stamp_verify(m, b, sizeof(b)), 0);
        b[i] ^= 0x20;
    }
    CHECK(nmp_stamp_sender_decode_auth(b, sizeof(b), &s2) == 0);
    CHECK(s2.seq == s.seq && s2.ts == s.ts && s2.error == s.error && s2.ssid == s.ssid);
    CHECK(nmp_stamp_sender_decode_auth(b, NMP_STAMP_AUTH_LEN - 1, &s2) == -EINVAL);
    CHECK_EQ_INT(nmp_stamp_is_reflection_auth(b, sizeof(b)), 0);

    nmp_stamp_reflector_pkt r = {.seq = 0x21222324, .ts = 0x3132333435363738ull, .error = 0x4102, .ssid = 0x5152,
                                 .rx_ts = 0x3132333400000001ull, .sender_seq = 0x61626364,
                                 .sender_ts = 0x7172737475767778ull, .sender_error = 0x8182, .sender_ttl = 63}, r2;
    nmp_stamp_reflector_encode_auth(b, &r);
    struct { int at, len; uint64_t v; } fields[] = {{0, 4, r.seq}, {16, 8, r.ts}, {24, 2, r.error}, {26, 2, r.ssid},
                                                    {32, 8, r.rx_ts}, {48, 4, r.sender_seq}, {64, 8, r.sender_ts},
                                                    {72, 2, r.sender_error}, {80, 1, r.sender_ttl}};
    uint8_t used[NMP_STAMP_AUTH_LEN] = {0};
    for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
        uint64_t v = 0;
        for (int i = 0; i < fields[f].len; i++) v = v << 8 | b[fields[f].at + i], used[fields[f].at + i] = 1;
        CHECK(v == fields[f].v);
    }
    for (int i = 0; i < NMP_STAMP_AUTH_LEN; i++)
        if (!used[i]) CHECK_EQ_INT(b[i], 0); /* MBZ 4..15, 28..31, 40..47, 52..63, 74..79, 81..95; HMAC unset */
    CHECK(nmp_stamp_reflector_decode_auth(b, sizeof(b), &r2) == 0);
    CHECK(r2.seq == r.seq && r2.ts == r.ts && r2.error == r.error && r2.ssid == r.ssid && r2.rx_ts == r.rx_ts &&
          r2.sender_seq == r.sender_seq && r2.sender_ts == r.sender_ts && r2.sender_error == r.sender_error &&
          r2.sender_ttl == r.sender_ttl);
    /* a reflection sent back to a reflector is recognised, before its HMAC (which verifies) is checked */
    CHECK_EQ_INT(nmp_stamp_is_reflection_auth(b, sizeof(b)), 1);
    nmp_stamp_mac_free(m);
    nmp_stamp_mac_free(other);
}

TEST(key_files_are_read_strictly) {
    nmp_pfs *f = malloc(sizeof(*f));
    char err[NMP_ERRLEN];
    CHECK(nmp_pfs_parse(REFLECTOR_KEYS, strlen(REFLECTOR_KEYS), "t", f, err, sizeof(err)) == 0);
    CHECK_EQ_INT(f->n, 2);
    const nmp_pfs_key *k = nmp_pfs_find(f, "lab");
    CHECK(k != NULL && k->len == 32 && memcmp(k->k, LAB_KEY, 32) == 0);
    CHECK(nmp_pfs_find(f, "other") != NULL && nmp_pfs_find(f, "other")->len == 16);
    CHECK(nmp_pfs_find(f, "nobody") == NULL);
    struct { const char *text, *why; } bad[] = {
        {"lab 8f3a1c9e5b7d2f4061a8c3e5f7092b4\n", "an even number of hex digits"},
        {"lab 8f3a1c9e5b7d2f4061a8c3e5f7092b\n", "16..64 bytes"}, /* 15 bytes */
        {"lab 8f3a1c9e5b7d2f4061a8c3e5f7092bzz\n", "not hex digits"},
        {"lab\n", "expected \"KEYID HEXKEY\""},
        {"lab 000102030405060708090a0b0c0d0e0f extra\n", "expected"},
        {"a 000102030405060708090a0b0c0d0e0f\na 000102030405060708090a0b0c0d0e0f\n", "given twice"},
        {"# nothing\n\n", "no keys"},
        {"lab 000102030405060708090a0b0c0d0e0f\0\n", "NUL"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        size_t len = strlen(bad[i].text) + (strstr(bad[i].why, "NUL") ? 2 : 0);
        CHECK(nmp_pfs_parse(bad[i].text, len, "t", f, err, sizeof(err)) == -EINVAL);
        CHECK(strstr(err, bad[i].why) != NULL);
        if (!strstr(err, bad[i].why)) fprintf(stderr, "  got: %s\n", err);
    }
    char id81[200];
    memset(id81, 'x', 81);
    strcpy(id81 + 81, " 000102030405060708090a0b0c0d0e0f\n");
    CHECK(nmp_pfs_parse(id81, strlen(id81), "t", f, err, sizeof(err)) == -EINVAL && strstr(err, "at most 80"));
    const char *path = key_file(0, SENDER_KEYS);
    CHECK(nmp_pfs_load(path, f, err, sizeof(err)) == 0 && f->n == 1);
    chmod(path, 0644);
    CHECK(nmp_pfs_load(path, f, err, sizeof(err)) == -EPERM && strstr(err, "chmod 600"));
    unlink(path);
    CHECK(nmp_pfs_load(path, f, err, sizeof(err)) == -ENOENT);
    free(f);
}

TEST(an_authenticated_sender_measures_against_an_authenticated_reflector) {
    const char *rkeys = key_file(0, REFLECTOR_KEYS), *skeys = key_file(1, SENDER_KEYS);
    for (int stateful = 0; stateful < 2; stateful++) {
        reflector_thread rt;
        int port = start_reflector_keyed(&rt, stateful, rkeys);
        CHECK(port > 0);
        if (port <= 0) return;
        char err[NMP_ERRLEN] = "";
        nmp_stamp_spec s = spec_for(stateful ? "::1" : "127.0.0.1", port, 200);
        s.auth = 1, s.key_id = "lab", s.key_file = skeys;
        s.ptp = stateful;
        s.size = stateful ? 300 : NMP_STAMP_LEN; /* 44: no padding, 112 bytes in this mode */
        nmp_stamp_result r;
        int rc = nmp_stamp_run(&s, NULL, &r, err, sizeof(err));
        if (rc != 0) fprintf(stderr, "stamp: %s\n", err);
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(r.authenticated, 1);
        CHECK_EQ_INT(r.received, 200);
        CHECK_EQ_INT(r.lost, 0);
        CHECK_EQ_INT(r.invalid + r.auth_failed + r.unauth_answers, 0);
        CHECK_EQ_INT(r.reflector_ptp, stateful);
        CHECK(r.rtt_min_ns > 0 && r.rtt_median_ns < 5e6);
        for (uint32_t i = 0; i < r.requested; i++) {
            CHECK(r.rtt_ns[i] >= 0 && llabs(r.fwd_ns[i] + r.bwd_ns[i] - r.rtt_ns[i]) <= 2);
            CHECK(r.sender_ttl[i] > 0);
        }
        CHECK_EQ_INT(r.forward_lost, 0);
        CHECK_EQ_INT(r.max_reflector_seq, 199); /* stateful: its own numbering from 0, no gap; else the sender's */
        rt.stop = 1;
        pthread_join(rt.th, NULL);
        nmp_stamp_reflector_counters n;
        nmp_stamp_reflector_counts(rt.r, &n);
        CHECK_EQ_INT(n.reflected, 200);
        CHECK_EQ_INT(n.auth_failed, 0);
        nmp_stamp_result_free(&r);
        nmp_stamp_reflector_close(rt.r);
    }
    unlink(rkeys), unlink(skeys);
}

/* Runs a sender of mode 'auth' (key file 'skeys') against a reflector with 'rkeys' (NULL:
 * open); returns the run's code with its message in err and the reflector's counters. */
static int mismatched(int auth, const char *skeys, const char *rkeys, char *err, size_t errlen,
                      nmp_stamp_reflector_counters *n) {
    reflector_thread rt;
    int port = start_reflector_keyed(&rt, 1, rkeys);
    if (port <= 0) return 1;
    nmp_stamp_spec s = spec_for("127.0.0.1", port, 1000);
    s.agree_ns = 100000000;
    if (auth) s.auth = 1, s.key_id = "lab", s.key_file = skeys;
    nmp_stamp_result r;
    int rc = nmp_stamp_run(&s, NULL, &r, err, errlen);
    rt.stop = 1;
    pthread_join(rt.th, NULL);
    nmp_stamp_reflector_counts(rt.r, n);
    nmp_stamp_reflector_close(rt.r);
    nmp_stamp_result_free(&r);
    return rc;
}

TEST(each_mode_against_the_other_fails_with_its_reason) {
    const char *rkeys = key_file(0, REFLECTOR_KEYS), *skeys = key_file(1, SENDER_KEYS),
               *wrong = key_file(2, WRONG_KEYS);
    char err[NMP_ERRLEN] = "";
    nmp_stamp_reflector_counters n;
    /* authenticated sender, open reflector: its answer comes in the other layout */
    CHECK_EQ_INT(mismatched(1, skeys, NULL, err, sizeof(err), &n), -EPROTO);
    CHECK(strstr(err, "the reflector answered in unauthenticated mode") != NULL);
    CHECK(strstr(err, "nothing more was sent") != NULL);
    CHECK_EQ_INT(n.reflected, 1); /* one packet was enough to tell */
    fprintf(stderr, "  %s\n", err);
    /* open sender, authenticated reflector: nothing answered, each packet counted */
    CHECK_EQ_INT(mismatched(0, NULL, rkeys, err, sizeof(err), &n), -ETIMEDOUT);
    CHECK(strstr(err, "no answer to the first test packet") != NULL);
    CHECK(strstr(err, "the reflector requires authentication") != NULL);
    CHECK_EQ_INT(n.reflected, 0);
    CHECK_EQ_INT(n.auth_failed, 3);
    fprintf(stderr, "  %s\n", err);
    /* the right id with the wrong key: dropped, never reflected */
    CHECK_EQ_INT(mismatched(1, wrong, rkeys, err, sizeof(err), &n), -ETIMEDOUT);
    CHECK(strstr(err, "does not hold key lab") != NULL);
    CHECK_EQ_INT(n.reflected, 0);
    CHECK_EQ_INT(n.auth_failed, 3);
    fprintf(stderr, "  %s\n", err);
    /* a port where nothing listens answers with ICMP: one packet, and said so */
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    close(fd); /* the port is free again, and nothing listens on it */
    nmp_stamp_spec closed = spec_for("127.0.0.1", ntohs(a.sin_port), 10);
    nmp_stamp_result cr;
    CHECK_EQ_INT(nmp_stamp_run(&closed, NULL, &cr, err, sizeof(err)), -ECONNREFUSED);
    CHECK(strstr(err, "no reflector listens there (ICMP port unreachable)") != NULL);
    CHECK_EQ_INT(cr.sent, 1);
    nmp_stamp_result_free(&cr);
    /* a key id the sender's file lacks, and specs that cannot be authenticated */
    nmp_stamp_spec s = spec_for("127.0.0.1", 9, 1);
    nmp_stamp_result r;
    s.auth = 1, s.key_id = "nobody", s.key_file = skeys;
    CHECK_EQ_INT(nmp_stamp_run(&s, NULL, &r, err, sizeof(err)), -ENOENT);
    CHECK(strstr(err, "has no key nobody") != NULL);
    nmp_stamp_result_free(&r);
    s.key_id = "lab", s.size = 100;
    CHECK_EQ_INT(nmp_stamp_run(&s, NULL, &r, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "112..9000") != NULL);
    nmp_stamp_result_free(&r);
    s.size = NMP_STAMP_LEN, s.key_file = NULL;
    CHECK_EQ_INT(nmp_stamp_run(&s, NULL, &r, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "needs a key file") != NULL);
    nmp_stamp_result_free(&r);
    s.auth = 0, s.key_file = skeys;
    CHECK_EQ_INT(nmp_stamp_run(&s, NULL, &r, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "without authenticated mode") != NULL);
    nmp_stamp_result_free(&r);
    unlink(rkeys), unlink(skeys), unlink(wrong);
}

/* Waits up to 300 ms for a datagram on fd; returns its length or -1. */
static ssize_t recv_within(int fd, uint8_t *buf, size_t len) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 300) == 1 ? recv(fd, buf, len, 0) : -1;
}

TEST(a_tampered_packet_is_counted_and_never_reflected) {
    const char *rkeys = key_file(0, REFLECTOR_KEYS);
    reflector_thread rt;
    int port = start_reflector_keyed(&rt, 0, rkeys);
    CHECK(port > 0);
    nmp_stamp_mac *m = NULL;
    CHECK(nmp_stamp_mac_new(LAB_KEY, sizeof(LAB_KEY), &m) == 0);
    if (port <= 0 || m == NULL) return;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = htons((uint16_t)port)};
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    uint8_t pkt[NMP_STAMP_AUTH_LEN + 16], back[2048];
    memset(pkt, 0, sizeof(pkt));
    nmp_stamp_sender_pkt sp = {.seq = 42, .ts = nmp_stamp_ts_from_wall(nmp_wall_now(), NMP_STAMP_NTP), .error = 1, .ssid = 9};
    nmp_stamp_sender_encode_auth(pkt, &sp);
    CHECK(nmp_stamp_sign(m, pkt) == 0);
    /* each of: the sequence number, the timestamp, an MBZ byte, the HMAC changed on the way */
    int at[] = {3, 20, 50, 100};
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        pkt[at[i]] ^= 1;
        CHECK(send(fd, pkt, sizeof(pkt), 0) == (ssize_t)sizeof(pkt));
        CHECK(recv_within(fd, back, sizeof(back)) < 0);
        pkt[at[i]] ^= 1;
    }
    /* untouched, it is reflected: signed with the key, padded to its length, the sender's fields echoed */
    CHECK(send(fd, pkt, sizeof(pkt), 0) == (ssize_t)sizeof(pkt));
    ssize_t n = recv_within(fd, back, sizeof(back));
    CHECK_EQ_INT(n, sizeof(pkt));
    CHECK_EQ_INT(nmp_stamp_verify(m, back, (size_t)(n > 0 ? n : 0)), 1);
    nmp_stamp_reflector_pkt rp;
    CHECK(nmp_stamp_reflector_decode_auth(back, (size_t)(n > 0 ? n : 0), &rp) == 0);
    CHECK(rp.sender_seq == 42 && rp.seq == 42 && rp.sender_ts == sp.ts && rp.sender_error == 1 && rp.ssid == 9);
    for (size_t i = NMP_STAMP_AUTH_LEN; i < sizeof(pkt); i++) CHECK_EQ_INT(back[i], 0);
    /* the reflection sent back to the reflector verifies, and is refused as a reflection */
    CHECK(send(fd, back, (size_t)n, 0) == n);
    CHECK(recv_within(fd, back, sizeof(back)) < 0);
    rt.stop = 1;
    pthread_join(rt.th, NULL);
    nmp_stamp_reflector_counters c;
    nmp_stamp_reflector_counts(rt.r, &c);
    CHECK_EQ_INT(c.auth_failed, 4);
    CHECK_EQ_INT(c.reflected, 1);
    CHECK_EQ_INT(c.refused_reflection, 1);
    close(fd);
    nmp_stamp_mac_free(m);
    nmp_stamp_reflector_close(rt.r);
    unlink(rkeys);
}

int main(void) {
    RUN(packets_round_trip_and_short_ones_are_refused);
    RUN(timestamps_convert_both_ways_in_both_formats);
    RUN(error_estimates_round_up_and_keep_their_bits);
    RUN(sender_measures_against_the_reflector);
    RUN(a_stateful_reflector_tells_forward_loss);
    RUN(a_host_without_a_reflector_gets_three_packets_at_most);
    RUN(the_reflector_drops_short_packets_and_keeps_to_its_rate);
    RUN(authenticated_packets_have_the_rfc_layout_and_any_changed_byte_fails_the_hmac);
    RUN(key_files_are_read_strictly);
    RUN(an_authenticated_sender_measures_against_an_authenticated_reflector);
    RUN(each_mode_against_the_other_fails_with_its_reason);
    RUN(a_tampered_packet_is_counted_and_never_reflected);
    return nmp_test_failures != 0;
}
