/* nmp_net.h -- socket helpers shared by the client tests and the responder.
 * Internal to the engine (not installed); the public API is nmprobe.h. */
#ifndef NMP_NET_H
#define NMP_NET_H

#include <stdint.h>
#include <sys/socket.h>

#include "nmp_wire.h"

#define NMP_SOCKBUF (4 * 1024 * 1024) /* SO_RCVBUF / SO_SNDBUF for test sockets */

/* Accumulates bytes of the control stream until a full line is present. */
typedef struct nmp_linebuf {
    char buf[NMP_CTL_MAXLINE + 1]; /* pending bytes, not NUL-terminated */
    size_t len;                    /* bytes used in buf */
} nmp_linebuf;

/* Moves the first complete line (with its '\n') from lb into line (which
 * holds NMP_CTL_MAXLINE + 1 bytes) and sets *linelen. Returns 1 when a line
 * was taken, 0 when more bytes are needed, -EMSGSIZE when the buffer is full
 * without a newline (the line is too long). */
int nmp_linebuf_take(nmp_linebuf *lb, char *line, size_t *linelen);

/* Resolves host (name or literal, v4 or v6) and connects with a timeout.
 * On success *fd is a non-blocking TCP socket with TCP_NODELAY and *peer
 * holds the connected address. Errors: -ENOENT (name), -errno (connect). */
int nmp_net_tcp_connect(const char *host, int port, uint32_t timeout_ms, int *fd,
                        struct sockaddr_storage *peer, char *err, size_t errlen);

/* Reads one control line from a non-blocking socket into line (NMP_CTL_MAXLINE
 * + 1 bytes) before 'deadline'; checks *cancel (may be NULL) every 50 ms.
 * Returns 0, -ETIMEDOUT, -ECONNRESET (peer closed), -EMSGSIZE, -ECANCELED
 * or -errno. */
int nmp_net_read_line(int fd, nmp_linebuf *lb, nmp_monotime_ns deadline, const volatile int32_t *cancel,
                      char *line, size_t *linelen, char *err, size_t errlen);

/* Writes all of buf before 'deadline' (MSG_NOSIGNAL). Returns 0 or -errno. */
int nmp_net_write_all(int fd, const void *buf, size_t len, nmp_monotime_ns deadline, char *err,
                      size_t errlen);

/* Opens a non-blocking UDP socket of 'family' with 4 MB buffers and
 * reception of the TTL / hop limit of each datagram; ttl > 0 sets the
 * outgoing TTL. Returns 0 or -errno; *fd is -1 on failure. */
int nmp_net_udp_open(int family, int ttl, int *fd, char *err, size_t errlen);

/* Returns the TTL / hop limit carried in the control messages of msg, or -1. */
int nmp_net_cmsg_ttl(struct msghdr *msg);

/* Returns the kernel's receive stamp (SO_TIMESTAMPNS, CLOCK_REALTIME ns)
 * carried in the control messages of msg, or 0 when it has none. */
int64_t nmp_net_cmsg_stamp(struct msghdr *msg);

/* Compares the IP addresses of two socket addresses (ports ignored);
 * an IPv4-mapped IPv6 address equals its IPv4 form. Returns 1 if equal. */
int nmp_net_same_ip(const struct sockaddr *a, const struct sockaddr *b);

/* Fills buf with n random bytes from getrandom(). Returns 0 or -errno. */
int nmp_net_random(void *buf, size_t n);

/* close() that keeps errno and ignores fd < 0; sets *fd to -1. */
void nmp_net_close(int *fd);

#endif
