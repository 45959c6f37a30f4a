/* test_reflect_guard.c -- the responder's reflecting paths cannot be turned
 * into loops or starved by one source (issue 21, finding 6: one spoofed
 * 44-byte packet from the STAMP reflector's own address and port made
 * 10,675 packets in the next second; two reflectors pointed at each other
 * 30,219; the loop spent the shared budget and starved honest clients).
 *
 * Spoofed packets are written with a raw socket (IP header included), as an
 * attacker would; that needs root (CAP_NET_RAW). Without it the spoofing
 * cases are skipped (exit 77, reported as skipped by ctest) and the rest
 * still runs. Each case prints what it measured. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nmp_client.h"
#include "nmp_stamp.h"
#include "nmp_test.h"
#include "nmp_test_responder.h"
#include "nmprobe.h"

static int skipped; /* spoofing cases that could not run (no CAP_NET_RAW) */

/* Sends one UDP datagram with a forged IPv4 source (UDP checksum 0: none,
 * which IPv4 allows). Returns 0, -EPERM without CAP_NET_RAW, or -errno. */
static int spoof4(const char *src, int sport, const char *dst, int dport, const void *payload, size_t len) {
    uint8_t pkt[1500];
    struct iphdr *ip = (struct iphdr *)pkt;
    struct udphdr *udp = (struct udphdr *)(pkt + sizeof(*ip));
    struct sockaddr_in d = {.sin_family = AF_INET};
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
    if (fd < 0) return -errno;
    memset(pkt, 0, sizeof(*ip) + sizeof(*udp));
    ip->version = 4;
    ip->ihl = 5;
    ip->ttl = 64;
    ip->protocol = IPPROTO_UDP;
    ip->tot_len = htons((uint16_t)(sizeof(*ip) + sizeof(*udp) + len)); /* the kernel fills it in too */
    inet_pton(AF_INET, src, &ip->saddr);
    inet_pton(AF_INET, dst, &ip->daddr);
    udp->source = htons((uint16_t)sport);
    udp->dest = htons((uint16_t)dport);
    udp->len = htons((uint16_t)(sizeof(*udp) + len));
    memcpy(pkt + sizeof(*ip) + sizeof(*udp), payload, len);
    d.sin_addr.s_addr = ip->daddr;
    ssize_t n = sendto(fd, pkt, sizeof(*ip) + sizeof(*udp) + len, 0, (struct sockaddr *)&d, sizeof(d));
    int rc = n < 0 ? -errno : 0;
    close(fd);
    return rc;
}

/* Whether this process may spoof (checked once, by opening a raw socket). */
static int can_spoof(const char *test) {
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    fprintf(stderr, "  SKIP %s: spoofing needs a raw socket (root / CAP_NET_RAW): %s\n", test, strerror(errno));
    skipped++;
    return 0;
}

/* A STAMP test packet as a sender writes it, stamped now. */
static void stamp_packet(uint8_t *buf, uint32_t seq) {
    nmp_stamp_sender_pkt p = {.seq = seq, .ts = nmp_stamp_ts_from_wall(nmp_wall_now(), NMP_STAMP_NTP),
                              .error = nmp_stamp_error_encode(0, NMP_STAMP_NTP, 1e-3), .ssid = 1};
    nmp_stamp_sender_encode(buf, &p);
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

/* Opens a reflector as nmprobe-responder does by default (10,000 packets a
 * second) unless max_pps says otherwise, and serves it. Returns its port or -1. */
static int start_reflector(reflector_thread *t, const char *bind, uint32_t max_pps) {
    char err[NMP_ERRLEN];
    nmp_stamp_reflector_cfg cfg = {.bind_addr = bind, .port = 0, .max_pps = max_pps ? max_pps : 10000};
    memset(t, 0, sizeof(*t));
    if (nmp_stamp_reflector_open(&cfg, &t->r, err, sizeof(err)) < 0) {
        fprintf(stderr, "reflector: %s\n", err);
        return -1;
    }
    pthread_create(&t->th, NULL, serve, t);
    return nmp_stamp_reflector_port(t->r);
}

/* Stops the thread (the counters are final then) and returns them; closes. */
static nmp_stamp_reflector_counters stop_reflector(reflector_thread *t) {
    nmp_stamp_reflector_counters c;
    t->stop = 1;
    pthread_join(t->th, NULL);
    nmp_stamp_reflector_counts(t->r, &c);
    nmp_stamp_reflector_close(t->r);
    return c;
}

TEST(a_spoofed_packet_from_the_reflectors_own_address_and_port_gets_no_answer) {
    if (!can_spoof(__func__)) return;
    /* bound to one address, and to "::" as nmprobe-responder binds it (IPv4 arrives v4-mapped) */
    const char *binds[] = {"127.0.0.1", "::"};
    for (int i = 0; i < 2; i++) {
        reflector_thread rt;
        int port = start_reflector(&rt, binds[i], 0);
        CHECK(port > 0);
        if (port <= 0) return;
        uint8_t pkt[NMP_STAMP_LEN];
        stamp_packet(pkt, 0);
        CHECK_EQ_INT(spoof4("127.0.0.1", port, "127.0.0.1", port, pkt, sizeof(pkt)), 0);
        usleep(1000000); /* the issue counted the second after the packet */
        nmp_stamp_reflector_counters c = stop_reflector(&rt);
        fprintf(stderr, "  bound to %s: reflections in the second after one self-addressed packet: %llu "
                "(refused as its own: %llu)\n", binds[i], (unsigned long long)c.reflected,
                (unsigned long long)c.refused_self);
        CHECK_EQ_INT(c.reflected, 0);
        CHECK_EQ_INT(c.refused_self, 1);
    }
}

TEST(a_packet_from_the_echo_port_or_another_reflectors_port_gets_no_answer) {
    if (!can_spoof(__func__)) return;
    reflector_thread rt;
    int port = start_reflector(&rt, "127.0.0.1", 0);
    CHECK(port > 0);
    if (port <= 0) return;
    /* a real service listens on the echo port: it must hear nothing from the reflector */
    int echo = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in ea = {.sin_family = AF_INET, .sin_port = htons(7), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int echo_bound = bind(echo, (struct sockaddr *)&ea, sizeof(ea)) == 0;
    const int ports[] = {7, 19, 53, 123, 861, 862};
    uint8_t pkt[NMP_STAMP_LEN];
    for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
        stamp_packet(pkt, (uint32_t)i);
        CHECK_EQ_INT(spoof4("127.0.0.1", ports[i], "127.0.0.1", port, pkt, sizeof(pkt)), 0);
    }
    usleep(200000);
    nmp_stamp_reflector_counters c = stop_reflector(&rt);
    int heard = 0;
    while (echo_bound && recv(echo, pkt, sizeof(pkt), 0) > 0) heard++;
    close(echo);
    fprintf(stderr, "  6 packets from ports 7, 19, 53, 123, 861, 862: %llu reflected, %llu refused; the echo "
            "port heard %d\n", (unsigned long long)c.reflected, (unsigned long long)c.refused_port, heard);
    CHECK_EQ_INT(c.reflected, 0);
    CHECK_EQ_INT(c.refused_port, 6);
    CHECK_EQ_INT(heard, 0);
}

TEST(two_reflectors_pointed_at_each_other_do_not_loop) {
    if (!can_spoof(__func__)) return;
    reflector_thread a, b;
    int pa = start_reflector(&a, "127.0.0.1", 0), pb = start_reflector(&b, "127.0.0.1", 0);
    CHECK(pa > 0 && pb > 0);
    if (pa <= 0 || pb <= 0) return;
    /* one packet to B that claims to come from A: B answers A, and A must not answer that */
    uint8_t pkt[NMP_STAMP_LEN];
    stamp_packet(pkt, 0);
    CHECK_EQ_INT(spoof4("127.0.0.1", pa, "127.0.0.1", pb, pkt, sizeof(pkt)), 0);
    usleep(1000000);
    nmp_stamp_reflector_counters ca = stop_reflector(&a), cb = stop_reflector(&b);
    fprintf(stderr, "  packets in the second after one spoofed packet: A reflected %llu, B reflected %llu "
            "(A refused %llu reflections)\n", (unsigned long long)ca.reflected, (unsigned long long)cb.reflected,
            (unsigned long long)ca.refused_reflection);
    CHECK_EQ_INT(cb.reflected, 1); /* B cannot tell the spoofed packet from a test packet */
    CHECK_EQ_INT(ca.reflected, 0);
    CHECK_EQ_INT(ca.refused_reflection, 1);
}

/* A source sending test packets as fast as it may until told to stop. */
typedef struct flooder {
    int port;                        /* the reflector's */
    volatile int stop;
    uint64_t sent;
    pthread_t th;
} flooder;

static void *flood(void *arg) {
    flooder *f = arg;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)f->port)};
    inet_pton(AF_INET, "127.0.0.2", &src.sin_addr); /* another host than the honest client */
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    if (bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0) perror("flooder bind");
    uint8_t pkt[NMP_STAMP_LEN];
    /* 20 packets a millisecond: ten times the reflector's whole budget, well within
     * what it reads, so the test is about its budget and not the socket buffer */
    while (!f->stop) {
        for (int i = 0; i < 20; i++) {
            stamp_packet(pkt, (uint32_t)f->sent);
            if (sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&dst, sizeof(dst)) == sizeof(pkt)) f->sent++;
        }
        usleep(1000);
    }
    close(fd);
    return NULL;
}

TEST(one_flooding_source_does_not_stop_another_sources_answers) {
    reflector_thread rt;
    int port = start_reflector(&rt, "127.0.0.1", 2000); /* 500 a second to one source */
    CHECK(port > 0);
    if (port <= 0) return;
    flooder f = {.port = port};
    pthread_create(&f.th, NULL, flood, &f);
    usleep(300000); /* the flood has spent its share before the honest client starts */
    char err[NMP_ERRLEN] = "";
    nmp_stamp_spec s = {.host = "127.0.0.1", .port = port, .count = 100, .size = NMP_STAMP_LEN,
                        .interval_ns = 10000000, .timeout_ns = 300000000, .ssid = 7, .agree_ns = 300000000};
    nmp_stamp_result r;
    int rc = nmp_stamp_run(&s, NULL, &r, err, sizeof(err));
    f.stop = 1;
    pthread_join(f.th, NULL);
    nmp_stamp_reflector_counters c = stop_reflector(&rt);
    if (rc < 0) fprintf(stderr, "  stamp: %s\n", err);
    fprintf(stderr, "  flooder sent %llu; reflector: %llu reflected, %llu over their source's budget, %llu over "
            "its own; the honest client got %u of 100\n", (unsigned long long)f.sent, (unsigned long long)c.reflected,
            (unsigned long long)c.over_source, (unsigned long long)c.dropped, rc == 0 ? r.received : 0);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) CHECK_EQ_INT(r.received, 100);
    CHECK(c.over_source > f.sent / 2);
    nmp_stamp_result_free(&r);
}

/* Sends an rr request frame of the session with a forged source. */
static int spoof_rr(const nmp_client *c, int sport) {
    uint8_t buf[64] = {0};
    nmp_frame_hdr h = {.type = NMP_FRAME_RR_REQ, .cookie = c->cookie, .seq = 0, .total = 2,
                       .send_wall = nmp_wall_now()};
    nmp_frame_encode(buf, &h);
    return spoof4("127.0.0.1", sport, "127.0.0.1", c->udp_port, buf, sizeof(buf));
}

TEST(an_rr_session_answers_neither_itself_nor_an_echo_port) {
    if (!can_spoof(__func__)) return;
    nmp_test_responder b;
    nmp_responder_cfg cfg = nmp_test_responder_cfg("127.0.0.1");
    if (nmp_test_responder_start(&b, &cfg) < 0) {
        CHECK(0);
        return;
    }
    nmp_client c;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_client_open(&c, "127.0.0.1", b.port, 5000, NULL,
                                 "NMP/1 SESSION kind=rr frames=2 size=64 interval_ns=100000000 timeout_ms=500\n", 0,
                                 NULL, err, sizeof(err)), 0);
    /* frames with the session's cookie, from the session's own socket and from the
     * echo port: the first would make it answer itself, the second the echo service */
    CHECK_EQ_INT(spoof_rr(&c, c.udp_port), 0);
    CHECK_EQ_INT(spoof_rr(&c, 7), 0);
    usleep(100000);
    /* the real client is still served: the refused frames pinned nothing */
    uint8_t buf[64];
    nmp_monotime_ns mono;
    nmp_walltime_ns wall;
    CHECK_EQ_INT(nmp_client_send_frame(&c, NMP_FRAME_RR_REQ, 1, 2, buf, sizeof(buf), &mono, &wall, err, sizeof(err)), 0);
    struct pollfd p = {.fd = c.udp, .events = POLLIN};
    CHECK(poll(&p, 1, 2000) == 1 && recv(c.udp, buf, sizeof(buf), 0) == sizeof(buf));
    uint64_t rx = 99, tx = 99;
    CHECK_EQ_INT(nmp_client_end(&c, &rx, &tx, err, sizeof(err)), 0);
    fprintf(stderr, "  two forged frames and one real: BYE rx=%llu tx=%llu\n", (unsigned long long)rx,
            (unsigned long long)tx);
    CHECK_EQ_INT(rx, 1);
    CHECK_EQ_INT(tx, 1);
    nmp_client_close(&c);
    nmp_test_responder_stop(&b);
}

int main(void) {
    RUN(a_spoofed_packet_from_the_reflectors_own_address_and_port_gets_no_answer);
    RUN(a_packet_from_the_echo_port_or_another_reflectors_port_gets_no_answer);
    RUN(two_reflectors_pointed_at_each_other_do_not_loop);
    RUN(one_flooding_source_does_not_stop_another_sources_answers);
    RUN(an_rr_session_answers_neither_itself_nor_an_echo_port);
    if (nmp_test_failures) return 1;
    return skipped ? 77 : 0;
}
