/* nmp_auth.c -- shared keys and the HMAC-SHA256 challenge-response of
 * authenticated sessions (OWAMP's authenticated mode, RFC 4656, in spirit:
 * a key both ends hold, never sent, and a fresh random challenge per
 * session so that a recorded answer cannot be replayed). The MAC is
 * OpenSSL's: one audited HMAC instead of one written here. */
#define _GNU_SOURCE
#include <errno.h>
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

void nmp_auth_mac(const nmp_auth_key *key, const uint8_t nonce[NMP_AUTH_NONCE], const char *line, size_t len,
                  uint8_t mac[NMP_AUTH_MAC]) {
    uint8_t msg[NMP_AUTH_NONCE + 1024];
    unsigned int maclen = NMP_AUTH_MAC;
    len = nmp_auth_line_len(line, len);
    if (len > sizeof(msg) - NMP_AUTH_NONCE) len = sizeof(msg) - NMP_AUTH_NONCE; /* control lines are <= 512 */
    memcpy(msg, nonce, NMP_AUTH_NONCE);
    memcpy(msg + NMP_AUTH_NONCE, line, len);
    if (HMAC(EVP_sha256(), key->k, (int)key->len, msg, NMP_AUTH_NONCE + len, mac, &maclen) == NULL)
        memset(mac, 0, NMP_AUTH_MAC); /* cannot happen with SHA-256; a zero MAC then matches nothing a peer sends */
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
