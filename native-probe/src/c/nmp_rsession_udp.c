/* nmp_rsession_udp.c -- the UDP socket of the responder's rr and stream
 * sessions: opened on the address the client dialled, and the check every
 * datagram passes before it counts (the session's peer, cookie, type, size
 * and sequence range, from one pinned client address). */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "nmp_rsession.h"

int nmp_rsession_udp_open(nmp_rsession *s, nmp_rsession_udp *u, char *err, size_t errlen) {
    struct sockaddr_storage local = s->local;
    socklen_t sl = local.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    memset(u, 0, sizeof(*u));
    int rc = nmp_net_udp_open(local.ss_family, 0, &u->fd, err, errlen);
    if (rc < 0) return rc;
    if (local.ss_family == AF_INET)
        ((struct sockaddr_in *)&local)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)&local)->sin6_port = 0;
    if (bind(u->fd, (struct sockaddr *)&local, sl) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "udp bind: %s", strerror(errno));
        nmp_net_close(&u->fd);
        return rc;
    }
    sl = sizeof(local);
    getsockname(u->fd, (struct sockaddr *)&local, &sl);
    s->port = nmp_addr_port((struct sockaddr *)&local);
    return 0;
}

int nmp_rsession_udp_valid(nmp_rsession *s, nmp_rsession_udp *u, const uint8_t *buf, size_t len, uint8_t type,
                           const struct sockaddr_storage *from, socklen_t fromlen, nmp_frame_hdr *h) {
    if (!nmp_net_same_ip((const struct sockaddr *)from, (const struct sockaddr *)&s->peer)) return 0;
    if (nmp_frame_decode(buf, len, h) < 0 || h->cookie != s->cookie || h->type != type || len != s->req.size ||
        h->seq >= s->req.frames)
        return 0;
    if (u->client_len == 0) {
        u->client = *from;
        u->client_len = fromlen;
    } else if (fromlen != u->client_len || memcmp(from, &u->client, fromlen) != 0) {
        return 0; /* another port of the same host: not this session's socket */
    }
    return 1;
}

void nmp_rsession_udp_close(nmp_rsession_udp *u) { nmp_net_close(&u->fd); }

uint64_t nmp_rsession_udp_send_ns(const nmp_session_req *q) { return (uint64_t)q->frames * q->interval_ns; }

int nmp_rsession_udp_describe(const nmp_session_req *q, char *buf, size_t len) {
    return snprintf(buf, len, "frames=%u size=%u interval_ns=%llu timeout_ms=%u udp", q->frames, q->size,
                    (unsigned long long)q->interval_ns, q->timeout_ms);
}
