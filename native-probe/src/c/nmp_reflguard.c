/* nmp_reflguard.c -- the checks every reflecting path of the responder makes
 * before it answers (nmp_reflguard.h): no answer to itself, none to a
 * well-known reflector or amplifier port, and a budget per source. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "nmp_net.h"
#include "nmp_reflguard.h"

/* Source ports never answered. Each is a service that itself answers
 * whatever reaches it (echo, chargen, time services, request-response
 * protocols and other test reflectors), so an answer from here would be
 * answered back: a loop between two reflectors, or a spoofed packet turned
 * into traffic towards a third party. The usual amplification list (US-CERT
 * TA14-017A and its successors). Test clients send from ephemeral ports. */
static const uint16_t refused_ports[] = {
    7,     /* echo */
    13,    /* daytime */
    17,    /* qotd */
    19,    /* chargen */
    37,    /* time */
    53,    /* DNS */
    69,    /* TFTP */
    111,   /* portmapper */
    123,   /* NTP */
    137,   /* NetBIOS name service */
    161,   /* SNMP */
    389,   /* CLDAP */
    520,   /* RIP */
    861,   /* OWAMP-Control (and OWAMP test reflectors configured on it) */
    862,   /* TWAMP / STAMP test port: another reflector */
    1900,  /* SSDP */
    3702,  /* WS-Discovery */
    5353,  /* mDNS */
    11211, /* memcached */
};

int nmp_reflguard_port_refused(int port) {
    if (port <= 0) return 1;
    for (size_t i = 0; i < sizeof(refused_ports) / sizeof(refused_ports[0]); i++)
        if (refused_ports[i] == port) return 1;
    return 0;
}

int nmp_reflguard_pktinfo_enable(int fd, int family) {
    int one = 1;
    if (family == AF_INET6) {
        if (setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) < 0) return -errno;
        /* v4-mapped traffic of a dual-stack socket reports IPV6_PKTINFO with a
         * mapped address; asking for IP_PKTINFO as well covers kernels that
         * report the IPv4 form instead (it fails on a v6-only socket: harmless) */
        setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
        return 0;
    }
    return setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0 ? -errno : 0;
}

int nmp_reflguard_cmsg_dst(struct msghdr *msg, struct sockaddr_storage *dst) {
    memset(dst, 0, sizeof(*dst));
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
            struct in_pktinfo pi;
            memcpy(&pi, CMSG_DATA(c), sizeof(pi));
            struct sockaddr_in *a = (struct sockaddr_in *)dst;
            a->sin_family = AF_INET;
            a->sin_addr = pi.ipi_addr; /* the header's destination, not the route's local address */
            return 0;
        }
        if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
            struct in6_pktinfo pi;
            memcpy(&pi, CMSG_DATA(c), sizeof(pi));
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)dst;
            a->sin6_family = AF_INET6;
            a->sin6_addr = pi.ipi6_addr;
            return 0;
        }
    }
    return -ENOENT;
}

int nmp_reflguard_from_self(const struct sockaddr *from, const struct sockaddr *arrived, int bound_port) {
    return nmp_addr_port(from) == bound_port && nmp_net_same_ip(from, arrived);
}

/* ---- per-source budget ---- */

/* sa's address in 16 bytes (IPv4 v4-mapped), so both forms of one address share a bucket. */
static void ip16(const struct sockaddr *sa, uint8_t out[16]) {
    memset(out, 0, 16);
    if (sa->sa_family == AF_INET) {
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    }
}

/* A keyed 64-bit mix of the address (FNV-1a over key and bytes, then a
 * murmur finaliser): not cryptographic, but the key is secret and the worst
 * a sender could gain by guessing it is sharing a set with another source. */
static uint64_t hash_ip(uint64_t key, const uint8_t ip[16]) {
    uint64_t h = 0xcbf29ce484222325ull ^ key;
    for (int i = 0; i < 16; i++) h = (h ^ ip[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

int nmp_reflguard_budget_init(nmp_reflguard_budget *b, double rate, double burst) {
    memset(b, 0, sizeof(*b));
    b->rate = rate;
    b->burst = burst < 1 ? 1 : burst;
    return nmp_net_random(&b->key, sizeof(b->key));
}

/* Refills a bucket for the time since its last refill, up to the burst. */
static void refill(const nmp_reflguard_budget *b, nmp_reflguard_src *s, nmp_monotime_ns now) {
    if (now > s->at) s->tokens += (double)(now - s->at) * b->rate / 1e9;
    if (s->tokens > b->burst) s->tokens = b->burst;
    s->at = now;
}

int nmp_reflguard_budget_take(nmp_reflguard_budget *b, const struct sockaddr *from, nmp_monotime_ns now) {
    if (b->rate <= 0) return 1;
    uint8_t ip[16];
    ip16(from, ip);
    nmp_reflguard_src *set = b->src[hash_ip(b->key, ip) % NMP_REFLGUARD_SETS], *s = NULL, *victim = NULL;
    int vrank = -1;
    for (int w = 0; w < NMP_REFLGUARD_WAYS; w++) {
        nmp_reflguard_src *x = &set[w];
        if (x->used && memcmp(x->ip, ip, 16) == 0) {
            s = x;
            break;
        }
        /* replacement order: a free slot, then a refilled bucket (as good as
         * new), then the least recently used */
        double tokens = x->tokens + (now > x->at ? (double)(now - x->at) * b->rate / 1e9 : 0);
        int rank = !x->used ? 2 : tokens >= b->burst ? 1 : 0;
        if (rank > vrank || (rank == 0 && vrank == 0 && x->at < victim->at)) {
            victim = x;
            vrank = rank;
        }
    }
    if (s == NULL) {
        s = victim;
        memcpy(s->ip, ip, 16);
        s->used = 1;
        s->tokens = b->burst;
        s->at = now;
    }
    refill(b, s, now);
    if (s->tokens < 1) return 0;
    s->tokens -= 1;
    return 1;
}
