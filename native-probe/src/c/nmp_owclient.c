/* nmp_owclient.c -- client end of OWAMP-/TWAMP-Control (see nmp_owclient.h):
 * the set-up exchange of RFC 4656 3.1 and whole messages after it. */
#define _GNU_SOURCE
#include "nmp_owclient.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "nmp_net.h"

int nmp_owc_addr(const struct sockaddr_storage *ss, uint8_t addr[16], uint16_t *port) {
    memset(addr, 0, 16);
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        memcpy(addr, &s4->sin_addr, 4);
        if (port) *port = ntohs(s4->sin_port);
        return 4;
    }
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
    if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
        memcpy(addr, (const uint8_t *)&s6->sin6_addr + 12, 4);
        if (port) *port = ntohs(s6->sin6_port);
        return 4;
    }
    memcpy(addr, &s6->sin6_addr, 16);
    if (port) *port = ntohs(s6->sin6_port);
    return 6;
}

int nmp_owc_recv(nmp_owc *o, uint8_t *buf, size_t len, char *err, size_t errlen) {
    size_t got = 0;
    nmp_monotime_ns deadline = nmp_mono_now() + (uint64_t)o->io_ms * 1000000ull;
    while (got < len) {
        if (nmp_control_cancelled(o->ctl)) {
            nmp_seterr(err, errlen, "control connection to %s: cancelled", o->peer_str);
            return -ECANCELED;
        }
        ssize_t n = recv(o->fd, buf + got, len - got, 0);
        if (n > 0) {
            got += (size_t)n;
            /* the wait is for silence, not for the whole message: a long Fetch keeps arriving */
            deadline = nmp_mono_now() + (uint64_t)o->io_ms * 1000000ull;
            continue;
        }
        if (n == 0) {
            nmp_seterr(err, errlen, "control connection to %s: closed by the server after %zu of %zu octets",
                       o->peer_str, got, len);
            return -ECONNRESET;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            int e = errno;
            nmp_seterr(err, errlen, "control connection to %s: recv: %s", o->peer_str, strerror(e));
            return -e;
        }
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= deadline) {
            nmp_seterr(err, errlen, "control connection to %s: silent for %u ms (%zu of %zu octets)", o->peer_str,
                       o->io_ms, got, len);
            return -ETIMEDOUT;
        }
        struct pollfd p = {.fd = o->fd, .events = POLLIN};
        uint64_t left = (deadline - now) / 1000000ull + 1;
        poll(&p, 1, left > 50 ? 50 : (int)left); /* wake to see a cancel */
    }
    int rc = nmp_ow_decrypt(&o->c, buf, len);
    if (rc < 0) nmp_seterr(err, errlen, "control connection to %s: decryption failed", o->peer_str);
    return rc;
}

int nmp_owc_send(nmp_owc *o, uint8_t *msg, size_t len, const size_t *hmac_at, int nh, char *err, size_t errlen) {
    int rc = nmp_ow_seal(&o->c, msg, len, hmac_at, nh);
    if (rc < 0) {
        nmp_seterr(err, errlen, "control connection to %s: cannot seal a message of %zu octets", o->peer_str, len);
        return rc;
    }
    char sub[NMP_ERRLEN];
    rc = nmp_net_write_all(o->fd, msg, len, nmp_mono_now() + (uint64_t)o->io_ms * 1000000ull, sub, sizeof(sub));
    if (rc < 0) nmp_seterr(err, errlen, "control connection to %s: %s", o->peer_str, sub);
    return rc;
}

int nmp_owc_verify(nmp_owc *o, const uint8_t *msg, size_t len, const size_t *hmac_at, int nh, const char *what,
                   char *err, size_t errlen) {
    int rc = nmp_ow_verify(&o->c, msg, len, hmac_at, nh);
    if (rc < 0)
        nmp_seterr(err, errlen, "%s from %s: HMAC does not match (wrong key or a tampered stream)", what, o->peer_str);
    return rc;
}

void nmp_owc_close(nmp_owc *o) {
    nmp_net_close(&o->fd);
    OPENSSL_cleanse(&o->c, sizeof(o->c));
}

int nmp_owc_open(nmp_owc *o, const char *host, int port, int twamp, uint32_t mode, const char *key_id,
                 const char *key_file, uint32_t io_ms, const nmp_control *ctl, char *err, size_t errlen) {
    const char *proto = twamp ? "TWAMP" : "OWAMP";
    uint8_t secret[1024], buf[NMP_OW_SETUP_LEN];
    long secretlen = 0;
    int rc;
    memset(o, 0, sizeof(*o));
    o->fd = -1;
    o->twamp = twamp;
    o->mode = mode;
    o->io_ms = io_ms;
    o->ctl = ctl;
    if (mode == NMP_OW_MODE_MIXED && !twamp) {
        nmp_seterr(err, errlen, "owamp: mixed mode is TWAMP's (RFC 5618); OWAMP has open, authenticated, encrypted");
        return -EINVAL;
    }
    if (mode != NMP_OW_MODE_OPEN) {
        char sub[NMP_ERRLEN];
        if (key_id == NULL || key_file == NULL) {
            nmp_seterr(err, errlen, "%s %s mode needs keyId and keyFile", proto, nmp_ow_mode_name(mode));
            return -EINVAL;
        }
        secretlen = nmp_ow_pfs_load(key_file, key_id, secret, sizeof(secret), sub, sizeof(sub));
        if (secretlen < 0) {
            nmp_seterr(err, errlen, "%s: %s", proto, sub);
            return (int)secretlen;
        }
    }
    char sub[NMP_ERRLEN];
    if ((rc = nmp_net_tcp_connect(host, port, io_ms, &o->fd, &o->peer, sub, sizeof(sub))) < 0) {
        nmp_seterr(err, errlen, "%s control %s port %d: %s", proto, host, port, sub);
        goto end;
    }
    socklen_t ll = sizeof(o->local);
    getsockname(o->fd, (struct sockaddr *)&o->local, &ll);
    nmp_addr_str((struct sockaddr *)&o->peer, o->peer_str, sizeof(o->peer_str));
    nmp_addr_str((struct sockaddr *)&o->local, o->local_str, sizeof(o->local_str));

    if ((rc = nmp_owc_recv(o, buf, NMP_OW_GREETING_LEN, err, errlen)) < 0) goto end;
    if ((rc = nmp_ow_greeting_decode(buf, NMP_OW_GREETING_LEN, &o->g, sub, sizeof(sub))) < 0) {
        nmp_seterr(err, errlen, "%s server %s: %s", proto, o->peer_str, sub);
        goto end;
    }
    if (!(o->g.modes & mode)) {
        nmp_seterr(err, errlen, "%s server %s does not offer %s mode (it offers 0x%x: %s%s%s%s)", proto, o->peer_str,
                   nmp_ow_mode_name(mode), o->g.modes, o->g.modes & 1 ? "open " : "",
                   o->g.modes & 2 ? "authenticated " : "", o->g.modes & 4 ? "encrypted " : "",
                   o->g.modes & 8 ? "mixed" : "");
        rc = -EACCES;
        goto end;
    }
    nmp_ow_setup s;
    memset(&s, 0, sizeof(s));
    s.mode = mode;
    if (mode != NMP_OW_MODE_OPEN) {
        o->c.on = 1;
        size_t idl = strlen(key_id);
        memcpy(s.keyid, key_id, idl > NMP_OW_KEYID_LEN ? NMP_OW_KEYID_LEN : idl);
        if ((rc = nmp_net_random(&o->c.keys, sizeof(o->c.keys))) < 0 ||
            (rc = nmp_net_random(s.client_iv, sizeof(s.client_iv))) < 0 ||
            (rc = nmp_ow_token_make(secret, (size_t)secretlen, &o->g, &o->c.keys, s.token)) < 0) {
            nmp_seterr(err, errlen, "%s: cannot make the Token", proto);
            goto end;
        }
        memcpy(o->c.send_iv, s.client_iv, 16);
    }
    nmp_ow_setup_encode(buf, &s);
    if ((rc = nmp_net_write_all(o->fd, buf, NMP_OW_SETUP_LEN, nmp_mono_now() + (uint64_t)io_ms * 1000000ull, sub,
                                sizeof(sub))) < 0) {
        nmp_seterr(err, errlen, "%s control %s: %s", proto, o->peer_str, sub);
        goto end;
    }
    /* Server-Start: two clear blocks, then one block encrypted with the Server-IV */
    int on = o->c.on;
    o->c.on = 0;
    rc = nmp_owc_recv(o, buf, 32, err, errlen);
    o->c.on = on;
    if (rc < 0) goto end;
    memcpy(o->c.recv_iv, buf + 16, 16);
    if (buf[15] != NMP_OW_ACCEPT_OK) {
        nmp_seterr(err, errlen, "%s server %s refused the connection in Server-Start: Accept %u (%s)%s", proto,
                   o->peer_str, buf[15], nmp_ow_accept_name(buf[15]),
                   buf[15] == NMP_OW_ACCEPT_FAILURE && mode != NMP_OW_MODE_OPEN ? "; is the key right for this key id?"
                                                                                  : "");
        rc = -EACCES;
        goto end;
    }
    if ((rc = nmp_owc_recv(o, buf + 32, 16, err, errlen)) < 0) goto end;
    nmp_ow_server_start ss;
    if ((rc = nmp_ow_server_start_decode(buf, NMP_OW_SERVER_START_LEN, &ss, sub, sizeof(sub))) < 0) {
        nmp_seterr(err, errlen, "%s server %s: %s", proto, o->peer_str, sub);
        goto end;
    }
    o->server_start = ss.start_time;
    if (o->c.on) memcpy(o->c.recv_carry, buf + 32, 16), o->c.recv_carry_len = 16; /* covered by the next HMAC */
end:
    OPENSSL_cleanse(secret, sizeof(secret));
    if (rc < 0) nmp_owc_close(o);
    return rc;
}
