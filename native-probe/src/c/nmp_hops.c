/* nmp_hops.c -- the hop list (path.hoplist): TTL-limited UDP probes read
 * back through the socket error queue (IP_RECVERR), unprivileged. Each
 * probe has its own destination port so that the ICMP answer, which quotes
 * the UDP header, names the probe. Reverse names are looked up in a
 * detached thread each, with a deadline, so a slow resolver cannot stall
 * the test. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nmprobe.h"
#include "nmp_hops.h"
#include "nmp_kind.h"
#include "nmp_net.h"

#define MAX_PROBES_TOTAL (NMP_HOPS_MAX_TTL * NMP_HOPS_MAX_PROBES)

/* One probe's bookkeeping. */
typedef struct probe {
    int ttl;                         /* its TTL */
    int k;                           /* index within the hop */
    int sent;                        /* nonzero once sent */
    int done;                        /* answered or timed out */
    nmp_monotime_ns t_send;          /* send time */
} probe;

/* ---- reverse lookups with a deadline ---- */

typedef struct rlookup {
    atomic_int refs;                 /* 2 while both sides hold it; the last one frees */
    pthread_mutex_t mu;              /* guards done and name */
    pthread_cond_t cv;               /* signalled when done */
    int done;                        /* lookup finished */
    struct sockaddr_storage sa;      /* address to resolve */
    socklen_t salen;                 /* its length */
    char name[256];                  /* result, "" if none */
} rlookup;

static void rlookup_unref(rlookup *l) {
    if (atomic_fetch_sub(&l->refs, 1) == 1) {
        pthread_mutex_destroy(&l->mu);
        pthread_cond_destroy(&l->cv);
        free(l);
    }
}

static void *rlookup_main(void *arg) {
    rlookup *l = arg;
    char name[256];
    if (getnameinfo((struct sockaddr *)&l->sa, l->salen, name, sizeof(name), NULL, 0, NI_NAMEREQD) != 0)
        name[0] = '\0';
    pthread_mutex_lock(&l->mu);
    snprintf(l->name, sizeof(l->name), "%s", name);
    l->done = 1;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
    rlookup_unref(l);
    return NULL;
}

/* Resolves addr (numeric) into name within timeout_ms; name is "" otherwise. */
static void reverse_name(const char *addr, uint32_t timeout_ms, char *name, size_t namelen) {
    name[0] = '\0';
    rlookup *l = calloc(1, sizeof(*l));
    if (l == NULL) return;
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST}, *ai = NULL;
    if (getaddrinfo(addr, NULL, &hints, &ai) != 0) {
        free(l);
        return;
    }
    memcpy(&l->sa, ai->ai_addr, ai->ai_addrlen);
    l->salen = ai->ai_addrlen;
    freeaddrinfo(ai);
    atomic_init(&l->refs, 2);
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &at, rlookup_main, l) != 0) {
        pthread_attr_destroy(&at);
        atomic_store(&l->refs, 1);
        rlookup_unref(l);
        return;
    }
    pthread_attr_destroy(&at);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&l->mu);
    while (!l->done && pthread_cond_timedwait(&l->cv, &l->mu, &dl) == 0) {
    }
    if (l->done) snprintf(name, namelen, "%s", l->name);
    pthread_mutex_unlock(&l->mu);
    rlookup_unref(l); /* the thread, if still running, frees it when it ends */
}

/* ---- the probing ---- */

static int check_spec(const nmp_hops_spec *s, char *err, size_t errlen) {
    if (s->host == NULL || s->host[0] == '\0' || s->max_ttl < 0 || s->max_ttl > NMP_HOPS_MAX_TTL ||
        s->probes > NMP_HOPS_MAX_PROBES || s->wait_ms > 60000 || s->port < 0 || s->port > 65535 || s->size > 1472 ||
        s->parallel > 64 || s->resolve_timeout_ms > 10000) {
        nmp_seterr(err, errlen,
                   "hops: parameter out of range (host non-empty, max_ttl 0..%d, probes 0..%d, wait_ms <= 60000, "
                   "port 0..65535, size <= 1472, parallel <= 64, resolve_timeout_ms <= 10000)",
                   NMP_HOPS_MAX_TTL, NMP_HOPS_MAX_PROBES);
        return -EINVAL;
    }
    return 0;
}

/* Reads every queued error; fills the matching hop. */
static void read_errors(int fd, int family, int base_port, int nprobes_total, probe *pr, nmp_hops_result *res,
                        int *dest_ttl) {
    for (;;) {
        uint8_t data[64], cbuf[512];
        struct sockaddr_storage orig;
        struct iovec iov = {.iov_base = data, .iov_len = sizeof(data)};
        struct msghdr msg = {.msg_name = &orig, .msg_namelen = sizeof(orig), .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        ssize_t n = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        nmp_monotime_ns now = nmp_mono_now();
        struct sock_extended_err *ee = NULL;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
            if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR))
                ee = (struct sock_extended_err *)CMSG_DATA(c);
        if (ee == NULL || (ee->ee_origin != SO_EE_ORIGIN_ICMP && ee->ee_origin != SO_EE_ORIGIN_ICMP6)) continue;
        int idx = nmp_addr_port((struct sockaddr *)&orig) - base_port;
        if (idx < 0 || idx >= nprobes_total || !pr[idx].sent || pr[idx].done) continue;
        probe *p = &pr[idx];
        p->done = 1;
        nmp_hop *h = &res->hops[p->ttl - 1];
        char addr[64];
        nmp_addr_str(SO_EE_OFFENDER(ee), addr, sizeof(addr));
        h->rtt_ns[p->k] = (int64_t)(now - p->t_send);
        if (h->answered++ == 0) {
            snprintf(h->addr, sizeof(h->addr), "%s", addr);
            h->icmp_type = ee->ee_type;
            h->icmp_code = ee->ee_code;
        } else if (strcmp(addr, h->addr) != 0) {
            h->other_addrs++;
        }
        int reach = family == AF_INET ? (ee->ee_type == 3 && ee->ee_code == 3)   /* port unreachable */
                                      : (ee->ee_type == 1 && ee->ee_code == 4);  /* ICMPv6 port unreachable */
        int unreach = family == AF_INET ? ee->ee_type == 3 : ee->ee_type == 1;
        if (reach) h->destination = 1;
        else if (unreach) h->unreachable = 1;
        if ((reach || unreach) && (*dest_ttl == 0 || p->ttl < *dest_ttl)) *dest_ttl = p->ttl;
    }
    /* ordinary datagrams (something answered the probe with UDP): drop them */
    uint8_t junk[64];
    while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0) {
    }
}

int nmp_hops_run(const nmp_hops_spec *spec, const nmp_control *ctl, nmp_hops_result *res, char *err,
                 size_t errlen) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *ai = NULL;
    probe pr[MAX_PROBES_TOTAL];
    int rc, fd = -1, one = 1;
    memset(res, 0, sizeof(*res));
    if ((rc = check_spec(spec, err, errlen)) < 0) return rc;
    int max_ttl = spec->max_ttl ? spec->max_ttl : 30;
    int np = spec->probes ? (int)spec->probes : 3;
    uint64_t wait_ns = (uint64_t)(spec->wait_ms ? spec->wait_ms : 1000) * 1000000ull;
    int base = spec->port ? spec->port : 33434;
    int parallel = spec->parallel ? (int)spec->parallel : 16;
    int total = max_ttl * np;
    if (base + total - 1 > 65535) base = 65535 - total + 1;
    int g = getaddrinfo(spec->host, NULL, &hints, &ai);
    if (g != 0) {
        nmp_seterr(err, errlen, "resolve %s: %s", spec->host, g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
        return -ENOENT;
    }
    struct sockaddr_storage dst;
    socklen_t dl = ai->ai_addrlen;
    memcpy(&dst, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    int fam = dst.ss_family;
    nmp_addr_str((struct sockaddr *)&dst, res->dest_addr, sizeof(res->dest_addr));
    fd = socket(fam, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 ||
        (fam == AF_INET ? setsockopt(fd, SOL_IP, IP_RECVERR, &one, sizeof(one))
                        : setsockopt(fd, SOL_IPV6, IPV6_RECVERR, &one, sizeof(one))) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "hops: udp socket with RECVERR: %s", strerror(errno));
        goto end;
    }
    for (int t = 0; t < max_ttl; t++) {
        res->hops[t].ttl = t + 1;
        res->hops[t].icmp_type = res->hops[t].icmp_code = -1;
        for (int k = 0; k < NMP_HOPS_MAX_PROBES; k++) res->hops[t].rtt_ns[k] = -1;
    }
    memset(pr, 0, sizeof(pr));
    uint8_t payload[1472];
    memset(payload, 0, sizeof(payload));
    nmp_monotime_ns t0 = nmp_mono_now();
    int next = 0, dest_ttl = 0, cancelled = 0;
    for (;;) {
        nmp_monotime_ns now = nmp_mono_now();
        if (ctl && ctl->cancel && *ctl->cancel) {
            cancelled = 1;
            break;
        }
        int inflight = 0, pending = 0;
        for (int i = 0; i < next; i++) {
            if (pr[i].sent && !pr[i].done && now - pr[i].t_send >= wait_ns) pr[i].done = 1; /* timed out */
            if (pr[i].sent && !pr[i].done) {
                if (dest_ttl && pr[i].ttl > dest_ttl) pr[i].done = 1; /* beyond the destination: moot */
                else inflight++;
            }
        }
        int limit_ttl = dest_ttl ? dest_ttl : max_ttl;
        while (next < total && inflight < parallel && next / np + 1 <= limit_ttl) {
            probe *p = &pr[next];
            p->ttl = next / np + 1;
            p->k = next % np;
            if (fam == AF_INET)
                setsockopt(fd, SOL_IP, IP_TTL, &p->ttl, sizeof(p->ttl));
            else
                setsockopt(fd, SOL_IPV6, IPV6_UNICAST_HOPS, &p->ttl, sizeof(p->ttl));
            if (fam == AF_INET)
                ((struct sockaddr_in *)&dst)->sin_port = htons((uint16_t)(base + next));
            else
                ((struct sockaddr_in6 *)&dst)->sin6_port = htons((uint16_t)(base + next));
            ssize_t w;
            int tries = 0;
            do { /* an earlier probe's ICMP error is reported once by the next send: send again */
                p->t_send = nmp_mono_now();
                w = sendto(fd, payload, spec->size, 0, (struct sockaddr *)&dst, dl);
            } while (w < 0 && (errno == EINTR || errno == ECONNREFUSED || errno == EHOSTUNREACH ||
                               errno == ENETUNREACH) && ++tries < 4);
            if (w < 0 && errno != EHOSTUNREACH && errno != ENETUNREACH && errno != ECONNREFUSED) {
                rc = -errno;
                nmp_seterr(err, errlen, "hops: send to %s ttl %d: %s", res->dest_addr, p->ttl, strerror(errno));
                goto end;
            }
            p->sent = 1;
            res->probes_sent++;
            inflight++;
            next++;
        }
        for (int i = 0; i < next; i++) pending |= pr[i].sent && !pr[i].done;
        if (!pending && (next >= total || next / np + 1 > limit_ttl)) break;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int pr_ = poll(&p, 1, 10);
        if (pr_ < 0 && errno != EINTR) {
            rc = -errno;
            nmp_seterr(err, errlen, "hops: poll: %s", strerror(errno));
            goto end;
        }
        read_errors(fd, fam, base, total, pr, res, &dest_ttl);
        if (ctl && ctl->progress) ctl->progress(ctl->progress_ctx, (uint32_t)(next), (uint32_t)total);
    }
    res->reached = dest_ttl > 0 && res->hops[dest_ttl - 1].destination;
    res->hop_count = res->reached ? dest_ttl : 0;
    res->nhops = dest_ttl ? dest_ttl : max_ttl;
    /* trailing hops never probed (cancel) are not listed */
    while (res->nhops > 0 && (res->nhops - 1) * np >= next) res->nhops--;
    if (spec->resolve) {
        uint32_t to = spec->resolve_timeout_ms ? spec->resolve_timeout_ms : 500;
        for (int t = 0; t < res->nhops && !(ctl && ctl->cancel && *ctl->cancel); t++) /* lookups stop on cancel */
            if (res->hops[t].addr[0]) reverse_name(res->hops[t].addr, to, res->hops[t].name, sizeof(res->hops[t].name));
    }
    res->elapsed_ms = (double)(nmp_mono_now() - t0) / 1e6;
    rc = 0;
    if (cancelled) {
        rc = -ECANCELED;
        nmp_seterr(err, errlen, "hops %s: cancelled after %d probes", spec->host, next);
    }
end:
    nmp_net_close(&fd);
    return rc;
}

/* ---- the "hops" kind: spec table and packed result (nmp_kind.h) ---- */

/* Defaults are the engine's (its 0 = default values, spelled out). */
static const nmp_spec_field hops_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_hops_spec, host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "destination name or address (IPv4 or IPv6)"},
    {.name = "maxTtl", .type = NMP_S_INT, .offset = offsetof(nmp_hops_spec, max_ttl), .lo = 1, .hi = NMP_HOPS_MAX_TTL,
     .def = 30, .cli = "max-ttl", .cli_short = 'm', .help = "largest TTL probed"},
    {.name = "probes", .type = NMP_S_U32, .offset = offsetof(nmp_hops_spec, probes), .lo = 1,
     .hi = NMP_HOPS_MAX_PROBES, .def = 3, .cli = "probes", .cli_short = 'q', .help = "probes per hop"},
    {.name = "waitMs", .type = NMP_S_U32, .offset = offsetof(nmp_hops_spec, wait_ms), .lo = 1, .hi = 60000,
     .def = 1000, .cli = "wait-ms", .cli_short = 'w', .help = "wait for each probe's answer"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_hops_spec, port), .lo = 1, .hi = 65535, .def = 33434,
     .cli = "dport", .cli_short = 'p', .help = "first destination port"},
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(nmp_hops_spec, size), .hi = 1472, .cli = "size",
     .cli_short = 's', .help = "UDP payload bytes"},
    {.name = "parallel", .type = NMP_S_U32, .offset = offsetof(nmp_hops_spec, parallel), .lo = 1, .hi = 64,
     .def = 16, .cli = "parallel", .cli_short = 'N', .help = "probes in flight"},
    {.name = "resolve", .type = NMP_S_BOOL, .offset = offsetof(nmp_hops_spec, resolve), .hi = 1, .cli = "resolve",
     .help = "reverse DNS of the hops (short timeout)"},
    {.name = "resolveTimeoutMs", .type = NMP_S_U32, .offset = offsetof(nmp_hops_spec, resolve_timeout_ms),
     .hi = 10000, .def = 500, .help = "deadline of each reverse lookup (0 = 500 ms)"},
};

static int hops_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    const nmp_hops_spec *spec = sp;
    nmp_hops_result *r = calloc(1, sizeof(*r));
    double *rtt = NULL;
    if (r == NULL) {
        nmp_seterr(err, errlen, "hops: out of memory");
        return -ENOMEM;
    }
    int rc = nmp_hops_run(spec, ctl, r, err, errlen);
    if (rc < 0 && rc != -ECANCELED) goto end;
    uint32_t np = spec->probes ? spec->probes : 3;
    int nh = r->nhops < 0 ? 0 : r->nhops > NMP_HOPS_MAX_TTL ? NMP_HOPS_MAX_TTL : r->nhops;
    nmp_pack_bool(out, "cancelled", rc == -ECANCELED);
    nmp_pack_str(out, "destination", r->dest_addr);
    nmp_pack_bool(out, "reached", r->reached);
    nmp_pack_i64(out, "hopCount", r->hop_count);
    nmp_pack_i64(out, "probesSent", r->probes_sent);
    nmp_pack_f64(out, "elapsedMs", r->elapsed_ms);
    nmp_pack_i64(out, "probesPerHop", np);
    const size_t st = sizeof(nmp_hop);
    nmp_pack_col_i64(out, "hops.ttl", r->hops, nh, st, offsetof(nmp_hop, ttl), NMP_C_INT);
    nmp_pack_strs_fixed(out, "hops.address", r->hops[0].addr, st, nh);
    nmp_pack_strs_fixed(out, "hops.name", r->hops[0].name, st, nh);
    nmp_pack_col_i64(out, "hops.answered", r->hops, nh, st, offsetof(nmp_hop, answered), NMP_C_INT);
    nmp_pack_col_i64(out, "hops.icmpType", r->hops, nh, st, offsetof(nmp_hop, icmp_type), NMP_C_INT);
    nmp_pack_col_i64(out, "hops.icmpCode", r->hops, nh, st, offsetof(nmp_hop, icmp_code), NMP_C_INT);
    nmp_pack_col_i64(out, "hops.destination", r->hops, nh, st, offsetof(nmp_hop, destination), NMP_C_INT);
    nmp_pack_col_i64(out, "hops.otherAddresses", r->hops, nh, st, offsetof(nmp_hop, other_addrs), NMP_C_INT);
    nmp_pack_col_i64(out, "hops.unreachable", r->hops, nh, st, offsetof(nmp_hop, unreachable), NMP_C_INT);
    /* probe k of hop t at t * probesPerHop + k; NaN when unanswered */
    rtt = malloc(((size_t)nh * np + 1) * sizeof(*rtt));
    if (rtt == NULL) {
        nmp_seterr(err, errlen, "hops: out of memory");
        rc = -ENOMEM;
        goto end;
    }
    for (int t = 0; t < nh; t++)
        for (uint32_t k = 0; k < np; k++)
            rtt[(size_t)t * np + k] = r->hops[t].rtt_ns[k] < 0 ? NAN : r->hops[t].rtt_ns[k] / 1e6;
    nmp_pack_f64s(out, "hops.rttMs", rtt, (size_t)nh * np);
end:
    free(rtt);
    free(r);
    return rc;
}

const nmp_kind nmp_kind_hops = {
    .name = "hops",
    .summary = "hop list with TTL-limited UDP probes (no responder needed)",
    .fields = hops_fields,
    .nfields = sizeof(hops_fields) / sizeof(hops_fields[0]),
    .spec_size = sizeof(nmp_hops_spec),
    .run = hops_kind_run,
};
