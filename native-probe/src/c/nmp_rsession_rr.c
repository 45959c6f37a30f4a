/* nmp_rsession_rr.c -- the responder's side of an rr (request-response)
 * session: each valid request frame is reflected, as it came, to the one
 * client address the session pinned, never more often than the frames the
 * session asked for. A reply long enough carries its turnaround (nmp_wire.h):
 * how long the request waited here, from its kernel receive stamp to the
 * reply's send. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nmp_be.h"

#include "nmp_reflguard.h"
#include "nmp_rsession.h"

/* An rr session's state. */
typedef struct rr_state {
    nmp_rsession_udp udp;            /* its socket and pinned client */
    uint8_t buf[NMP_FRAME_MAX + 64]; /* one datagram */
} rr_state;

static int rr_start(nmp_rsession *s, char *err, size_t errlen) {
    rr_state *st = malloc(sizeof(*st));
    if (st == NULL) {
        nmp_seterr(err, errlen, "rr: out of memory");
        return -ENOMEM;
    }
    st->udp.fd = -1;
    s->kstate = st;
    int rc = nmp_rsession_udp_open(s, &st->udp, err, errlen);
    int on = 1; /* without stamps replies say no turnaround: the reflection still works */
    if (rc == 0) setsockopt(st->udp.fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
    return rc;
}

/* Writes the turnaround into a reply of len bytes, when it has room and the
 * request's stamp is known. Read as late as it can be, just before the send:
 * what is left after it is the send call's own path. A wall clock step
 * between the two reads gives a negative gap (written as 0) or a large one,
 * which the client bounds by the round trip. */
static void put_turnaround(uint8_t *buf, size_t len, nmp_walltime_ns rx) {
    if (rx == 0 || len < NMP_FRAME_TURNAROUND_OFF + 4) return;
    int64_t d = nmp_wall_now() - rx;
    uint32_t v = d <= 0 ? 0 : d >= (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)d;
    put16(buf + 6, (uint16_t)(get16(buf + 6) | NMP_FRAME_F_TURNAROUND));
    put32(buf + NMP_FRAME_TURNAROUND_OFF, v);
}

static void rr_stop(nmp_rsession *s) {
    rr_state *st = s->kstate;
    if (st == NULL) return;
    nmp_rsession_udp_close(&st->udp);
    free(st);
    s->kstate = NULL;
}

static int rr_pollfds(nmp_rsession *s, struct pollfd *p, int max) {
    rr_state *st = s->kstate;
    if (max < 1) return 0;
    p[0] = (struct pollfd){.fd = st->udp.fd, .events = POLLIN};
    return 1;
}

/* The refusals of every reflecting path (nmp_reflguard.h): a frame from the
 * session's own socket (its bound address is the control connection's local
 * one) or from a well-known reflector port is not answered, and pins
 * nothing. The session's budget needs no table: it answers one pinned
 * address, and at most the frames it asked for. */
static int rr_refused(const nmp_rsession *s, const struct sockaddr_storage *from) {
    return nmp_reflguard_port_refused(nmp_addr_port((const struct sockaddr *)from)) ||
           nmp_reflguard_from_self((const struct sockaddr *)from, (const struct sockaddr *)&s->local, s->port);
}

/* Reflects what is waiting on the socket, at most a batch. */
static void rr_ready(nmp_rsession *s, const struct pollfd *p, int n) {
    rr_state *st = s->kstate;
    if (n < 1 || p[0].revents == 0) return;
    for (int i = 0; i < NMP_RSESSION_DRAIN_BATCH && s->active; i++) {
        struct sockaddr_storage from;
        char cbuf[128];
        struct iovec iov = {.iov_base = st->buf, .iov_len = sizeof(st->buf)};
        struct msghdr msg = {.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        nmp_frame_hdr h;
        ssize_t len = recvmsg(st->udp.fd, &msg, MSG_DONTWAIT);
        if (len < 0 && errno == EINTR) continue;
        if (len < 0) return;
        if (rr_refused(s, &from)) {
            s->refused++;
            continue;
        }
        if (!nmp_rsession_udp_valid(s, &st->udp, st->buf, (size_t)len, NMP_FRAME_RR_REQ, &from, msg.msg_namelen, &h)) {
            s->invalid++;
            continue;
        }
        s->rx++;
        s->last_activity = nmp_mono_now();
        if (s->tx >= s->req.frames) continue; /* never send more than asked for */
        st->buf[5] = NMP_FRAME_RR_REPLY;
        put_turnaround(st->buf, (size_t)len, nmp_net_cmsg_stamp(&msg));
        ssize_t w;
        do {
            w = sendto(st->udp.fd, st->buf, (size_t)len, 0, (struct sockaddr *)&st->udp.client, st->udp.client_len);
        } while (w < 0 && errno == EINTR);
        if (w == len) s->tx++;
    }
}

const nmp_rkind nmp_rkind_rr = {.name = "rr", .start = rr_start, .pollfds = rr_pollfds, .ready = rr_ready,
                                .stop = rr_stop, .send_ns = nmp_rsession_udp_send_ns,
                                .describe = nmp_rsession_udp_describe, .paced = 1};
