/* nmp_frame.c -- encoding and decoding of the UDP test frame header and of
 * the receiver records a responder returns after a stream test.
 *
 * The layout is fixed and big-endian (see nmprobe.h) so that a client and a
 * responder on different hosts agree byte for byte. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "nmp_wire.h"
#include "nmprobe.h"

#include "nmp_be.h"

/* buf must hold NMP_FRAME_HDR bytes; only the header is written. */
void nmp_frame_encode(uint8_t *buf, const nmp_frame_hdr *h) {
    put32(buf, NMP_FRAME_MAGIC);
    buf[4] = NMP_PROTO_VERSION;
    buf[5] = h->type;
    buf[6] = 0;
    buf[7] = 0;
    put64(buf + 8, h->cookie);
    put32(buf + 16, h->seq);
    put32(buf + 20, h->total);
    put64(buf + 24, (uint64_t)h->send_wall);
}

int nmp_frame_decode(const uint8_t *buf, size_t len, nmp_frame_hdr *h) {
    if (len < NMP_FRAME_HDR || get32(buf) != NMP_FRAME_MAGIC || buf[4] != NMP_PROTO_VERSION)
        return -EPROTO;
    h->type = buf[5];
    h->flags = get16(buf + 6);
    h->cookie = get64(buf + 8);
    h->seq = get32(buf + 16);
    h->total = get32(buf + 20);
    h->send_wall = (nmp_walltime_ns)get64(buf + 24);
    return 0;
}

void nmp_rec_encode(uint8_t *buf, const nmp_rec *r) {
    put32(buf, r->seq);
    put32(buf + 4, r->bytes);
    put64(buf + 8, (uint64_t)r->send_wall);
    put64(buf + 16, (uint64_t)r->arrival_wall);
}

void nmp_rec_decode(const uint8_t *buf, nmp_rec *r) {
    r->seq = get32(buf);
    r->bytes = get32(buf + 4);
    r->send_wall = (nmp_walltime_ns)get64(buf + 8);
    r->arrival_wall = (nmp_walltime_ns)get64(buf + 16);
}

/* ---- TCP data connections: hello, message header, records ---- */

void nmp_tcp_hello_encode(uint8_t *buf, uint32_t stream, uint64_t cookie) {
    put32(buf, NMP_TCP_HELLO_MAGIC);
    put32(buf + 4, stream);
    put64(buf + 8, cookie);
}

int nmp_tcp_hello_decode(const uint8_t *buf, uint32_t *stream, uint64_t *cookie) {
    if (get32(buf) != NMP_TCP_HELLO_MAGIC) return -EPROTO;
    *stream = get32(buf + 4);
    *cookie = get64(buf + 8);
    return 0;
}

void nmp_tcp_msg_encode(uint8_t *buf, const nmp_tcp_msg_hdr *h) {
    put32(buf, NMP_TCP_MSG_MAGIC);
    put32(buf + 4, h->stream);
    put32(buf + 8, h->seq);
    put32(buf + 12, 0);
    put64(buf + 16, (uint64_t)h->sched_wall);
    put64(buf + 24, (uint64_t)h->send_wall);
}

int nmp_tcp_msg_decode(const uint8_t *buf, nmp_tcp_msg_hdr *h) {
    if (get32(buf) != NMP_TCP_MSG_MAGIC || get32(buf + 12) != 0) return -EPROTO;
    h->stream = get32(buf + 4);
    h->seq = get32(buf + 8);
    h->sched_wall = (nmp_walltime_ns)get64(buf + 16);
    h->send_wall = (nmp_walltime_ns)get64(buf + 24);
    return 0;
}

void nmp_tcp_rec_encode(uint8_t *buf, const nmp_tcp_rec *r) {
    put32(buf, r->stream);
    put32(buf + 4, r->seq);
    put64(buf + 8, (uint64_t)r->sched_wall);
    put64(buf + 16, (uint64_t)r->arrival_wall);
}

void nmp_tcp_rec_decode(const uint8_t *buf, nmp_tcp_rec *r) {
    r->stream = get32(buf);
    r->seq = get32(buf + 4);
    r->sched_wall = (nmp_walltime_ns)get64(buf + 8);
    r->arrival_wall = (nmp_walltime_ns)get64(buf + 16);
}
