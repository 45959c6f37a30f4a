/* nmp_net.c -- small socket helpers (like Redis's anet.c): connect with a
 * timeout, line-oriented control I/O with deadlines, UDP test sockets with
 * large buffers and TTL reception, address formatting. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "nmprobe.h"
#include "nmp_net.h"

void nmp_net_close(int *fd) {
    if (*fd >= 0) {
        int saved = errno;
        close(*fd);
        errno = saved;
    }
    *fd = -1;
}

void nmp_addr_str(const struct sockaddr *sa, char *buf, size_t buflen) {
    const void *a = NULL;
    if (buflen == 0) return;
    if (sa->sa_family == AF_INET) a = &((const struct sockaddr_in *)sa)->sin_addr;
    if (sa->sa_family == AF_INET6) a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    if (a == NULL || inet_ntop(sa->sa_family, a, buf, (socklen_t)buflen) == NULL)
        snprintf(buf, buflen, "?");
}

int nmp_addr_port(const struct sockaddr *sa) {
    if (sa->sa_family == AF_INET) return ntohs(((const struct sockaddr_in *)sa)->sin_port);
    if (sa->sa_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
    return 0;
}

int nmp_linebuf_take(nmp_linebuf *lb, char *line, size_t *linelen) {
    char *nl = memchr(lb->buf, '\n', lb->len);
    if (nl == NULL) return lb->len >= NMP_CTL_MAXLINE ? -EMSGSIZE : 0;
    size_t n = (size_t)(nl - lb->buf) + 1;
    memcpy(line, lb->buf, n);
    line[n] = '\0';
    *linelen = n;
    memmove(lb->buf, lb->buf + n, lb->len - n);
    lb->len -= n;
    return 1;
}

/* Waits for 'events' on fd until deadline. Returns 1 ready, 0 timeout, -errno. */
static int wait_fd(int fd, short events, nmp_monotime_ns deadline, int max_ms) {
    for (;;) {
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= deadline) return 0;
        uint64_t ms = (deadline - now + 999999) / 1000000;
        if (max_ms > 0 && ms > (uint64_t)max_ms) ms = (uint64_t)max_ms;
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, (int)ms);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -errno;
        if (n > 0) return 1;
        if (max_ms > 0) return 0; /* caller re-checks its own state */
    }
}

int nmp_net_tcp_connect(const char *host, int port, uint32_t timeout_ms, int *fd,
                        struct sockaddr_storage *peer, char *err, size_t errlen) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL, *ai;
    char portstr[16];
    int rc = -ECONNREFUSED, s = -1;
    *fd = -1;
    snprintf(portstr, sizeof(portstr), "%d", port);
    int g = getaddrinfo(host, portstr, &hints, &res);
    if (g != 0) {
        nmp_seterr(err, errlen, "resolve %s: %s", host, g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
        return -ENOENT;
    }
    nmp_monotime_ns deadline = nmp_mono_now() + (uint64_t)timeout_ms * 1000000ull;
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        s = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (s < 0) {
            rc = -errno;
            continue;
        }
        if (connect(s, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
            rc = -errno;
            nmp_net_close(&s);
            continue;
        }
        int w = wait_fd(s, POLLOUT, deadline, 0);
        int soerr = 0;
        socklen_t sl = sizeof(soerr);
        if (w == 0) {
            rc = -ETIMEDOUT;
        } else if (w < 0) {
            rc = w;
        } else if (getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr != 0) {
            rc = soerr ? -soerr : -errno;
        } else {
            int one = 1;
            setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            memset(peer, 0, sizeof(*peer));
            memcpy(peer, ai->ai_addr, ai->ai_addrlen);
            *fd = s;
            rc = 0;
            goto end;
        }
        nmp_net_close(&s);
    }
    nmp_seterr(err, errlen, "connect %s:%d: %s", host, port, strerror(-rc));
end:
    freeaddrinfo(res);
    return rc;
}

int nmp_net_read_line(int fd, nmp_linebuf *lb, nmp_monotime_ns deadline, const volatile int32_t *cancel,
                      char *line, size_t *linelen, char *err, size_t errlen) {
    for (;;) {
        int t = nmp_linebuf_take(lb, line, linelen);
        if (t == 1) return 0;
        if (t < 0) {
            nmp_seterr(err, errlen, "control read: line longer than %d bytes", NMP_CTL_MAXLINE);
            return t;
        }
        if (cancel != NULL && *cancel) {
            nmp_seterr(err, errlen, "control read: cancelled");
            return -ECANCELED;
        }
        int w = wait_fd(fd, POLLIN, deadline, 50);
        if (w < 0) {
            nmp_seterr(err, errlen, "control read: poll: %s", strerror(-w));
            return w;
        }
        if (w == 0) {
            if (nmp_mono_now() >= deadline) {
                nmp_seterr(err, errlen, "control read: timed out waiting for the responder");
                return -ETIMEDOUT;
            }
            continue;
        }
        ssize_t n = recv(fd, lb->buf + lb->len, sizeof(lb->buf) - 1 - lb->len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) {
            nmp_seterr(err, errlen, "control read: %s", strerror(errno));
            return -errno;
        }
        if (n == 0) {
            nmp_seterr(err, errlen, "control read: connection closed by the responder");
            return -ECONNRESET;
        }
        lb->len += (size_t)n;
    }
}

int nmp_net_write_all(int fd, const void *buf, size_t len, nmp_monotime_ns deadline, char *err,
                      size_t errlen) {
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            int w = wait_fd(fd, POLLOUT, deadline, 0);
            if (w <= 0) {
                nmp_seterr(err, errlen, "control write: %s", w == 0 ? "timed out" : strerror(-w));
                return w == 0 ? -ETIMEDOUT : w;
            }
            continue;
        }
        if (n < 0) {
            nmp_seterr(err, errlen, "control write: %s", strerror(errno));
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Sets a buffer size, using the *FORCE variant (needs CAP_NET_ADMIN) first
 * so that net.core.[rw]mem_max does not cap it. Best effort. */
static void set_buf(int fd, int opt, int force_opt, int bytes) {
    if (setsockopt(fd, SOL_SOCKET, force_opt, &bytes, sizeof(bytes)) == 0) return;
    setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes));
}

int nmp_net_udp_open(int family, int ttl, int *fd, char *err, size_t errlen) {
    int one = 1, rc = 0;
    *fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (*fd < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "udp socket: %s", strerror(errno));
        return rc;
    }
    set_buf(*fd, SO_RCVBUF, SO_RCVBUFFORCE, NMP_SOCKBUF);
    set_buf(*fd, SO_SNDBUF, SO_SNDBUFFORCE, NMP_SOCKBUF);
    if (family == AF_INET) {
        if (setsockopt(*fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one)) < 0) goto error;
        if (ttl > 0 && setsockopt(*fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)) < 0) goto error;
    } else {
        if (setsockopt(*fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof(one)) < 0) goto error;
        if (ttl > 0 && setsockopt(*fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl)) < 0) goto error;
    }
    return 0;
error:
    rc = -errno;
    nmp_seterr(err, errlen, "udp setsockopt (ttl %d): %s", ttl, strerror(errno));
    nmp_net_close(fd);
    return rc;
}

int nmp_net_cmsg_ttl(struct msghdr *msg) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
        int v;
        if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
            (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT)) {
            memcpy(&v, CMSG_DATA(c), sizeof(v));
            return v;
        }
    }
    return -1;
}

int64_t nmp_net_cmsg_stamp(struct msghdr *msg) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof(ts));
            return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        }
    return 0;
}

/* Extracts a 16-byte IPv6 form (v4 mapped) of sa's address. */
static int ip16(const struct sockaddr *sa, unsigned char out[16]) {
    if (sa->sa_family == AF_INET) {
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return 0;
    }
    if (sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        return 0;
    }
    return -1;
}

int nmp_net_same_ip(const struct sockaddr *a, const struct sockaddr *b) {
    unsigned char x[16], y[16];
    if (ip16(a, x) < 0 || ip16(b, y) < 0) return 0;
    return memcmp(x, y, 16) == 0;
}

int nmp_net_random(void *buf, size_t n) {
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -errno;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}
