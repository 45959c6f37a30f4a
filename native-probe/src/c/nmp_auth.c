/* nmp_auth.c -- shared keys and the HMAC-SHA256 challenge-response of
 * authenticated sessions (OWAMP's authenticated mode, RFC 4656, in spirit:
 * a key both ends hold, never sent, and a fresh random challenge per
 * session so that a recorded answer cannot be replayed). The MAC is
 * OpenSSL's: one audited HMAC instead of one written here. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "nmp_auth.h"
#include "nmp_base.h"

int nmp_auth_key_load(const char *path, nmp_auth_key *key, char *err, size_t errlen) {
    uint8_t buf[NMP_AUTH_KEY_MAX + 3];
    struct stat st;
    size_t n = 0;
    int rc = 0;
    memset(key, 0, sizeof(*key));
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "key file %s: %s", path, strerror(errno));
        return rc;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        rc = -EINVAL;
        nmp_seterr(err, errlen, "key file %s: not a regular file", path);
        goto end;
    }
    if (st.st_mode & 077) {
        rc = -EPERM;
        nmp_seterr(err, errlen, "key file %s: group or others may read or write it (mode %03o; chmod 600 it)", path,
                   (unsigned)(st.st_mode & 0777));
        goto end;
    }
    for (;;) { /* one byte more than a key may have: a longer file is refused, not cut */
        ssize_t r = read(fd, buf + n, sizeof(buf) - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            rc = -errno;
            nmp_seterr(err, errlen, "key file %s: %s", path, strerror(errno));
            goto end;
        }
        if (r == 0 || (n += (size_t)r) == sizeof(buf)) break;
    }
    if (n > 0 && buf[n - 1] == '\n') n--;
    if (n > 0 && buf[n - 1] == '\r') n--;
    if (n < NMP_AUTH_KEY_MIN || n > NMP_AUTH_KEY_MAX) {
        rc = -EINVAL;
        nmp_seterr(err, errlen, "key file %s: a key has %d..%d bytes (head -c 32 /dev/urandom > FILE)", path,
                   NMP_AUTH_KEY_MIN, NMP_AUTH_KEY_MAX);
        goto end;
    }
    memcpy(key->k, buf, n);
    key->len = n;
end:
    OPENSSL_cleanse(buf, sizeof(buf));
    close(fd);
    return rc;
}

void nmp_auth_key_wipe(nmp_auth_key *key) { OPENSSL_cleanse(key, sizeof(*key)); }

size_t nmp_auth_line_len(const char *line, size_t len) {
    if (len > 0 && line[len - 1] == '\n') len--;
    if (len > 0 && line[len - 1] == '\r') len--;
    return len;
}

void nmp_auth_mac(const nmp_auth_key *key, const uint8_t nonce[NMP_AUTH_NONCE], const nmp_auth_ends *ends,
                  const char *line, size_t len, uint8_t mac[NMP_AUTH_MAC]) {
    char msg[2048], hex[2 * NMP_AUTH_NONCE + 1];
    unsigned int maclen = NMP_AUTH_MAC;
    len = nmp_auth_line_len(line, len);
    nmp_hex_encode(hex, nonce, NMP_AUTH_NONCE);
    int n = snprintf(msg, sizeof(msg), "nmp-auth/%d\nnonce=%s\nresponder=%s %d\nclient=%s\n", NMP_AUTH_VERSION, hex,
                     ends->responder, ends->responder_port, ends->client);
    /* the fields are bounded (addresses < 64 bytes, control lines <= 512): this never cuts */
    if (n < 0 || (size_t)n + len > sizeof(msg)) {
        memset(mac, 0, NMP_AUTH_MAC); /* matches nothing a peer sends */
        return;
    }
    memcpy(msg + n, line, len);
    if (HMAC(EVP_sha256(), key->k, (int)key->len, (const uint8_t *)msg, (size_t)n + len, mac, &maclen) == NULL)
        memset(mac, 0, NMP_AUTH_MAC); /* cannot happen with SHA-256; a zero MAC then matches nothing a peer sends */
    OPENSSL_cleanse(msg, sizeof(msg));
}

/* Formats a 4- or 16-byte address (af) as a MAC covers it. */
static int addr_fmt(int af, const void *a, char *buf, size_t buflen) {
    if (af == AF_INET6 && IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)a)) {
        af = AF_INET;
        a = (const uint8_t *)a + 12;
    }
    return inet_ntop(af, a, buf, (socklen_t)buflen) ? 0 : -EINVAL;
}

int nmp_auth_addr(const struct sockaddr *sa, char *buf, size_t buflen) {
    if (sa->sa_family == AF_INET) return addr_fmt(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, buflen);
    if (sa->sa_family == AF_INET6)
        return addr_fmt(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, buflen);
    return -EINVAL;
}

int nmp_auth_addr_text(const char *text, char *buf, size_t buflen) {
    uint8_t a[16];
    if (text == NULL) return -EINVAL;
    if (inet_pton(AF_INET, text, a) == 1) return addr_fmt(AF_INET, a, buf, buflen);
    if (inet_pton(AF_INET6, text, a) == 1) return addr_fmt(AF_INET6, a, buf, buflen);
    return -EINVAL;
}

int nmp_auth_mac_equal(const uint8_t a[NMP_AUTH_MAC], const uint8_t b[NMP_AUTH_MAC]) {
    return CRYPTO_memcmp(a, b, NMP_AUTH_MAC) == 0;
}

void nmp_hex_encode(char *dst, const uint8_t *src, size_t n) {
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        dst[2 * i] = hex[src[i] >> 4];
        dst[2 * i + 1] = hex[src[i] & 15];
    }
    dst[2 * n] = '\0';
}

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int nmp_hex_decode(uint8_t *dst, size_t n, const char *src) {
    if (src == NULL || strlen(src) != 2 * n) return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(src[2 * i]), lo = hexval(src[2 * i + 1]);
        if (hi < 0 || lo < 0) return -EINVAL;
        dst[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}
