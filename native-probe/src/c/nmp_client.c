/* nmp_client.c -- opening and ending a test session from the client side:
 * the control conversation (SESSION -> OK/BUSY/ERR, END -> BYE) and the
 * connected UDP socket that carries the test frames. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_client.h"
#include "nmp_auth.h"

void nmp_client_close(nmp_client *c) {
    nmp_net_close(&c->ctl);
    nmp_net_close(&c->udp);
}

/* Reads and parses one control line. */
static int read_msg(nmp_client *c, nmp_ctl_msg *m, char *err, size_t errlen) {
    char line[NMP_CTL_MAXLINE + 1], e[NMP_ERRLEN];
    size_t len;
    nmp_monotime_ns deadline = nmp_mono_now() + (uint64_t)c->timeout_ms * 1000000ull;
    int rc = nmp_net_read_line(c->ctl, &c->lb, deadline, c->cancel, line, &len, e, sizeof(e));
    if (rc == 0 && (rc = nmp_ctl_parse(line, len, m, e, sizeof(e))) < 0) {
        /* Not one byte of what the far end sent goes into the error: a test towards some
         * other service would otherwise hand its banner (SSH's, say) to whoever asked. */
        nmp_seterr(err, errlen, "responder %s:%d: the answer is not the nmws control protocol (no nmws responder "
                   "on that port?)", c->host, c->port);
        return rc;
    }
    if (rc < 0) nmp_seterr(err, errlen, "responder %s:%d: %s", c->host, c->port, e);
    return rc;
}

static int parse_hex(const char *s, int maxdigits, uint64_t *out) {
    uint64_t v = 0;
    int n = 0;
    for (; s && *s; s++, n++) {
        int d = (*s >= '0' && *s <= '9') ? *s - '0' : (*s >= 'a' && *s <= 'f') ? *s - 'a' + 10 : -1;
        if (d < 0 || n >= maxdigits) return -EPROTO;
        v = (v << 4) | (uint64_t)d;
    }
    if (n == 0) return -EPROTO;
    *out = v;
    return 0;
}

/* An ERR where another answer was due: the responder ended the session
 * (its timers, a refused line) and said why. Returns the code to fail with. */
static int ended_by_responder(nmp_client *c, const nmp_ctl_msg *m, char *err, size_t errlen) {
    char e[NMP_ERRLEN];
    const char *t = nmp_ctl_get(m, "text"), *reason = nmp_ctl_get(m, "reason");
    nmp_ctl_text_decode(e, sizeof(e), t ? t : "no reason given");
    nmp_seterr(err, errlen, "responder %s:%d ended the session %.3f s into the test: %s", c->host, c->port,
               (double)(nmp_mono_now() - c->opened) / 1e9, e);
    return reason && strcmp(reason, "timeout") == 0 ? -ETIMEDOUT : -EPERM;
}

/* Formats the BUSY answer: the responder says only when to retry. */
static void busy_message(nmp_client *c, const nmp_ctl_msg *m, char *err, size_t errlen) {
    const char *remaining = nmp_ctl_get(m, "remaining_ms"), *holder = nmp_ctl_get(m, "holder");
    char h[NMP_CTL_VALMAX + 1];
    if (holder != NULL) { /* a reserved slot: its holder chose to be named */
        nmp_ctl_text_decode(h, sizeof(h), holder);
        nmp_seterr(err, errlen, "responder %s:%d busy: the slot is reserved for %s, retry after %s ms", c->host,
                   c->port, h, remaining ? remaining : "?");
        return;
    }
    nmp_seterr(err, errlen, "responder %s:%d busy: another client's test runs there, retry after %s ms", c->host,
               c->port, remaining ? remaining : "?");
}

int nmp_client_open(nmp_client *c, const char *host, int port, uint32_t timeout_ms,
                    const volatile int32_t *cancel, const char *request, int ttl, const char *key_file, char *err,
                    size_t errlen) {
    int rc = nmp_client_open_ctl(c, host, port, timeout_ms, cancel, request, key_file, err, errlen);
    if (rc < 0) return rc;
    if ((rc = nmp_net_udp_open(c->peer.ss_family, ttl, &c->udp, err, errlen)) < 0) goto error;
    struct sockaddr_storage dst = c->peer;
    if (dst.ss_family == AF_INET)
        ((struct sockaddr_in *)&dst)->sin_port = htons((uint16_t)c->udp_port);
    else
        ((struct sockaddr_in6 *)&dst)->sin6_port = htons((uint16_t)c->udp_port);
    socklen_t dl = dst.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    if (connect(c->udp, (struct sockaddr *)&dst, dl) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "udp connect %s:%d: %s", host, c->udp_port, strerror(errno));
        goto error;
    }
    return 0;
error:
    nmp_client_close(c);
    return rc;
}

/* Answers a CHALLENGE with AUTH: the MAC (nmp_auth.h, version 2) of its
 * nonce, the responder's address and port as we dialled them, our address
 * as the responder names it, and our SESSION line, under the shared key.
 * A challenge of another version is not answered: a v1 answer would bind
 * neither end. Returns 0, -EPERM when we have no key, -EPROTO. */
static int answer_challenge(nmp_client *c, const nmp_ctl_msg *m, const nmp_auth_key *key, const char *request,
                            char *err, size_t errlen) {
    char line[NMP_CTL_MAXLINE + 1], hex[2 * NMP_AUTH_MAC + 1], e[NMP_ERRLEN];
    uint8_t nonce[NMP_AUTH_NONCE], mac[NMP_AUTH_MAC];
    nmp_auth_ends ends;
    const char *v = nmp_ctl_get(m, "auth");
    if (key == NULL) {
        nmp_seterr(err, errlen, "responder %s:%d admits only authenticated sessions: give its shared key "
                   "(keyFile, --key-file)", c->host, c->port);
        return -EPERM;
    }
    if (v == NULL || strcmp(v, "2") != 0) {
        nmp_seterr(err, errlen, "responder %s:%d asks for authentication version %s, this client answers only "
                   "version %d (which binds the responder's address and the client's): upgrade the responder",
                   c->host, c->port, v ? v : "1", NMP_AUTH_VERSION);
        return -EPROTO;
    }
    if (nmp_hex_decode(nonce, sizeof(nonce), nmp_ctl_get(m, "nonce")) < 0) {
        nmp_seterr(err, errlen, "responder %s:%d: CHALLENGE without a valid nonce", c->host, c->port);
        return -EPROTO;
    }
    if (nmp_auth_addr_text(nmp_ctl_get(m, "peer"), ends.client, sizeof(ends.client)) < 0 ||
        nmp_auth_addr((struct sockaddr *)&c->peer, ends.responder, sizeof(ends.responder)) < 0) {
        nmp_seterr(err, errlen, "responder %s:%d: CHALLENGE without a valid peer address", c->host, c->port);
        return -EPROTO;
    }
    ends.responder_port = nmp_addr_port((struct sockaddr *)&c->peer);
    nmp_auth_mac(key, nonce, &ends, request, strlen(request), mac);
    nmp_hex_encode(hex, mac, sizeof(mac));
    int len = nmp_ctl_format(line, sizeof(line), NMP_CTL_AUTH, "mac=%s", hex);
    int rc = nmp_net_write_all(c->ctl, line, (size_t)len, nmp_mono_now() + (uint64_t)c->timeout_ms * 1000000ull, e,
                               sizeof(e));
    if (rc < 0) nmp_seterr(err, errlen, "responder %s:%d: %s", c->host, c->port, e);
    return rc;
}

int nmp_client_ask(nmp_client *c, const char *host, int port, uint32_t timeout_ms, const volatile int32_t *cancel,
                   const char *request, const char *key_file, nmp_ctl_msg *answer, char *err, size_t errlen) {
    char e[NMP_ERRLEN];
    nmp_ctl_msg m;
    nmp_auth_key key;
    int rc;
    memset(c, 0, sizeof(*c));
    c->ctl = c->udp = -1;
    c->host = host;
    c->port = port;
    c->timeout_ms = timeout_ms ? timeout_ms : 5000;
    c->cancel = cancel;
    memset(&key, 0, sizeof(key));
    /* a key that cannot be read fails the test before anything is sent */
    if (key_file != NULL && (rc = nmp_auth_key_load(key_file, &key, err, errlen)) < 0) goto error;
    if ((rc = nmp_net_tcp_connect(host, port, c->timeout_ms, &c->ctl, &c->peer, err, errlen)) < 0) goto error;
    rc = nmp_net_write_all(c->ctl, request, strlen(request),
                           nmp_mono_now() + (uint64_t)c->timeout_ms * 1000000ull, e, sizeof(e));
    if (rc < 0) {
        nmp_seterr(err, errlen, "responder %s:%d: %s", host, port, e);
        goto error;
    }
    if ((rc = read_msg(c, &m, err, errlen)) < 0) goto error;
    if (m.verb == NMP_CTL_CHALLENGE) {
        /* an authenticating responder; one that does not ask is answered without the key */
        if ((rc = answer_challenge(c, &m, key_file ? &key : NULL, request, err, errlen)) < 0 ||
            (rc = read_msg(c, &m, err, errlen)) < 0)
            goto error;
    }
    nmp_auth_key_wipe(&key);
    *answer = m;
    return 0;
error:
    nmp_auth_key_wipe(&key);
    nmp_client_close(c);
    return rc;
}

int nmp_client_open_ctl(nmp_client *c, const char *host, int port, uint32_t timeout_ms,
                        const volatile int32_t *cancel, const char *request, const char *key_file, char *err,
                        size_t errlen) {
    char e[NMP_ERRLEN];
    nmp_ctl_msg m;
    uint64_t v;
    int rc = nmp_client_ask(c, host, port, timeout_ms, cancel, request, key_file, &m, err, errlen);
    if (rc < 0) return rc;
    if (m.verb == NMP_CTL_BUSY) {
        busy_message(c, &m, err, errlen);
        rc = -EBUSY;
        goto error;
    }
    if (m.verb == NMP_CTL_ERR) {
        const char *t = nmp_ctl_get(&m, "text");
        nmp_ctl_text_decode(e, sizeof(e), t ? t : "no reason given");
        nmp_seterr(err, errlen, "responder %s:%d refused the session: %s", host, port, e);
        rc = -EPERM;
        goto error;
    }
    if (m.verb != NMP_CTL_OK || nmp_ctl_get_u64(&m, "port", 1, 65535, &v, e, sizeof(e)) < 0 ||
        parse_hex(nmp_ctl_get(&m, "cookie"), 16, &c->cookie) < 0) {
        nmp_seterr(err, errlen, "responder %s:%d: unexpected answer %s to SESSION", host, port,
                   nmp_ctl_verb_name(m.verb));
        rc = -EPROTO;
        goto error;
    }
    uint64_t id = 0;
    parse_hex(nmp_ctl_get(&m, "session"), 8, &id);
    c->id = (uint32_t)id;
    c->udp_port = (int)v;
    c->opened = nmp_mono_now();
    return 0;
error:
    nmp_client_close(c);
    return rc;
}

int nmp_client_end(nmp_client *c, uint64_t *rx, uint64_t *tx, char *err, size_t errlen) {
    char line[NMP_CTL_MAXLINE + 1], e[NMP_ERRLEN];
    nmp_ctl_msg m;
    int len = nmp_ctl_format(line, sizeof(line), NMP_CTL_END, NULL);
    int rc = nmp_net_write_all(c->ctl, line, (size_t)len, nmp_mono_now() + (uint64_t)c->timeout_ms * 1000000ull,
                               e, sizeof(e));
    if (rc < 0) {
        nmp_seterr(err, errlen, "responder %s:%d: %s", c->host, c->port, e);
        return rc;
    }
    const volatile int32_t *saved = c->cancel;
    c->cancel = NULL; /* END is short and must complete even after a cancel */
    rc = read_msg(c, &m, err, errlen);
    c->cancel = saved;
    if (rc < 0) return rc;
    if (m.verb == NMP_CTL_ERR) return ended_by_responder(c, &m, err, errlen);
    if (m.verb != NMP_CTL_BYE) {
        nmp_seterr(err, errlen, "responder %s:%d: unexpected answer %s to END", c->host, c->port,
                   nmp_ctl_verb_name(m.verb));
        return -EPROTO;
    }
    uint64_t v;
    if (rx && nmp_ctl_get_u64(&m, "rx", 0, UINT64_MAX, &v, NULL, 0) == 0) *rx = v;
    if (tx && nmp_ctl_get_u64(&m, "tx", 0, UINT64_MAX, &v, NULL, 0) == 0) *tx = v;
    return 0;
}

int nmp_client_results(nmp_client *c, uint32_t max_records, nmp_ctl_msg *hdr, uint8_t **blob, size_t *bloblen,
                       char *err, size_t errlen) {
    uint64_t records;
    int rc = nmp_client_results_raw(c, (uint64_t)max_records * NMP_REC_SIZE, hdr, blob, bloblen, err, errlen);
    if (rc < 0) return rc;
    if (nmp_ctl_get_u64(hdr, "records", 0, max_records, &records, NULL, 0) < 0 ||
        *bloblen != records * NMP_REC_SIZE) {
        nmp_seterr(err, errlen, "responder %s:%d: bad answer to RESULTS: %zu bytes for the records", c->host,
                   c->port, *bloblen);
        free(*blob);
        *blob = NULL;
        *bloblen = 0;
        return -EPROTO;
    }
    return 0;
}

int nmp_client_results_raw(nmp_client *c, uint64_t max_bytes, nmp_ctl_msg *hdr, uint8_t **blob, size_t *bloblen,
                           char *err, size_t errlen) {
    char line[NMP_CTL_MAXLINE + 1], e[NMP_ERRLEN];
    uint64_t bytes;
    int rc;
    *blob = NULL;
    *bloblen = 0;
    int len = nmp_ctl_format(line, sizeof(line), NMP_CTL_RESULTS, NULL);
    nmp_monotime_ns deadline = nmp_mono_now() + (uint64_t)c->timeout_ms * 1000000ull;
    if ((rc = nmp_net_write_all(c->ctl, line, (size_t)len, deadline, e, sizeof(e))) < 0) {
        nmp_seterr(err, errlen, "responder %s:%d: %s", c->host, c->port, e);
        return rc;
    }
    const volatile int32_t *saved = c->cancel;
    c->cancel = NULL;
    rc = read_msg(c, hdr, err, errlen);
    c->cancel = saved;
    if (rc < 0) return rc;
    if (hdr->verb == NMP_CTL_ERR) return ended_by_responder(c, hdr, err, errlen);
    if (hdr->verb != NMP_CTL_DATA || nmp_ctl_get_u64(hdr, "bytes", 0, max_bytes, &bytes, e, sizeof(e)) < 0) {
        if (hdr->verb != NMP_CTL_DATA) nmp_seterr(e, sizeof(e), "answer %s", nmp_ctl_verb_name(hdr->verb));
        nmp_seterr(err, errlen, "responder %s:%d: bad answer to RESULTS: %s", c->host, c->port, e);
        return -EPROTO;
    }
    uint8_t *b = malloc(bytes ? bytes : 1);
    if (b == NULL) {
        nmp_seterr(err, errlen, "results: out of memory for %llu bytes", (unsigned long long)bytes);
        return -ENOMEM;
    }
    size_t have = c->lb.len < bytes ? c->lb.len : bytes; /* bytes that came with the line */
    memcpy(b, c->lb.buf, have);
    memmove(c->lb.buf, c->lb.buf + have, c->lb.len - have);
    c->lb.len -= have;
    deadline = nmp_mono_now() + 60000000000ull;
    while (have < bytes) {
        struct pollfd p = {.fd = c->ctl, .events = POLLIN};
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= deadline) {
            rc = -ETIMEDOUT;
            nmp_seterr(err, errlen, "responder %s:%d: results timed out after %zu of %llu bytes", c->host, c->port,
                       have, (unsigned long long)bytes);
            goto error;
        }
        int pr = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
        if (pr < 0 && errno != EINTR) {
            rc = -errno;
            goto error;
        }
        if (pr <= 0) continue;
        ssize_t n = recv(c->ctl, b + have, bytes - have, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) {
            rc = n == 0 ? -ECONNRESET : -errno;
            nmp_seterr(err, errlen, "responder %s:%d: results: %s", c->host, c->port,
                       n == 0 ? "connection closed" : strerror(errno));
            goto error;
        }
        have += (size_t)n;
    }
    *blob = b;
    *bloblen = bytes;
    return 0;
error:
    free(b);
    return rc;
}

int nmp_client_send_frame(nmp_client *c, uint8_t type, uint32_t seq, uint32_t total, uint8_t *buf, size_t size,
                          nmp_monotime_ns *mono, nmp_walltime_ns *wall, char *err, size_t errlen) {
    nmp_frame_hdr h = {.type = type, .cookie = c->cookie, .seq = seq, .total = total};
    for (int tries = 0;; tries++) {
        h.send_wall = nmp_wall_now();
        nmp_frame_encode(buf, &h);
        nmp_monotime_ns now = nmp_mono_now();
        ssize_t n = send(c->udp, buf, size, 0);
        if (n == (ssize_t)size) {
            *mono = now;
            *wall = h.send_wall;
            return 0;
        }
        if (n < 0 && (errno == EINTR || errno == ECONNREFUSED) && tries < 3) continue;
        if (n < 0 && (errno == EAGAIN || errno == ENOBUFS) && tries < 100000 && !(c->cancel && *c->cancel)) {
            struct pollfd p = {.fd = c->udp, .events = POLLOUT};
            poll(&p, 1, 1);
            continue;
        }
        int rc = n < 0 ? -errno : -EMSGSIZE;
        nmp_seterr(err, errlen, "udp send to %s:%d: %s", c->host, c->udp_port, strerror(-rc));
        return rc;
    }
}

int nmp_client_watch(nmp_client *c, int now, char *err, size_t errlen) {
    nmp_monotime_ns t = nmp_mono_now();
    char line[NMP_CTL_MAXLINE + 1], e[NMP_ERRLEN];
    size_t len;
    nmp_ctl_msg m;
    if ((!now && t < c->next_watch) || c->ctl < 0) return 0;
    c->next_watch = t + NMP_CLIENT_WATCH_NS;
    struct pollfd p = {.fd = c->ctl, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0) return 0;
    size_t room = sizeof(c->lb.buf) - 1 - c->lb.len;
    ssize_t n = room ? recv(c->ctl, c->lb.buf + c->lb.len, room, MSG_DONTWAIT) : 0;
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
    if (n > 0) {
        c->lb.len += (size_t)n;
        int rc = nmp_linebuf_take(&c->lb, line, &len);
        if (rc == 0) return 0; /* the rest of the line is on its way */
        if (rc == 1 && nmp_ctl_parse(line, len, &m, e, sizeof(e)) == 0) {
            if (m.verb == NMP_CTL_ERR) return ended_by_responder(c, &m, err, errlen);
            nmp_seterr(err, errlen, "responder %s:%d: unexpected %s during the test", c->host, c->port,
                       nmp_ctl_verb_name(m.verb));
        } else {
            nmp_seterr(err, errlen, "responder %s:%d: the control connection carried something else than the "
                       "nmws control protocol during the test", c->host, c->port);
        }
        return -EPROTO;
    }
    if (room == 0) {
        nmp_seterr(err, errlen, "responder %s:%d: control line too long during the test", c->host, c->port);
        return -EPROTO;
    }
    nmp_seterr(err, errlen, "responder %s:%d went away %.3f s into the test: the control connection was %s "
               "(responder stopped or killed, or its host unreachable)", c->host, c->port,
               (double)(t - c->opened) / 1e9, n == 0 ? "closed" : strerror(errno));
    return -ECONNRESET;
}
