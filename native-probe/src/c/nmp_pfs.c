/* nmp_pfs.c -- owampd's pfs key files (nmp_pfs.h). Written here because the
 * format is one line per key and no library reads it; every field is
 * bounded and the whole file is read at once (at most what the caller
 * allows: 64 kB for STAMP's key sets, 1 MiB for OWAMP's lookup). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "nmp_auth.h"
#include "nmp_base.h"
#include "nmp_pfs.h"

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int nmp_pfs_id_valid(const char *id) {
    size_t n = id ? strlen(id) : 0;
    if (n < 1 || n > NMP_PFS_ID_MAX) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)id[i] <= ' ' || (unsigned char)id[i] >= 0x7f) return 0;
    return 1;
}

int nmp_pfs_line(const char *s, size_t len, const char **id, size_t *idlen, const char **hex, size_t *hexlen) {
    size_t i = 0;
    while (i < len && is_space(s[i])) i++;
    if (i == len || s[i] == '#') return 0;
    size_t id0 = i;
    while (i < len && !is_space(s[i])) i++;
    *id = s + id0;
    *idlen = i - id0;
    while (i < len && is_space(s[i])) i++;
    size_t hex0 = i;
    while (i < len && !is_space(s[i])) i++;
    *hex = s + hex0;
    *hexlen = i - hex0;
    while (i < len && is_space(s[i])) i++;
    return *hexlen == 0 || i != len ? -EINVAL : 1;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int nmp_pfs_hex(const char *hex, size_t hexlen, uint8_t *out) {
    if (hexlen % 2 != 0) return -EINVAL;
    for (size_t k = 0; k < hexlen / 2; k++) {
        int hi = hexval((unsigned char)hex[2 * k]), lo = hexval((unsigned char)hex[2 * k + 1]);
        if (hi < 0 || lo < 0) return -EINVAL;
        out[k] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* Parses one line (without its "\n") into a new key of f. */
static int parse_line(const char *s, size_t len, const char *what, int lineno, nmp_pfs *f, char *err, size_t errlen) {
    const char *id, *hex;
    size_t idlen, hexlen;
    int kind = nmp_pfs_line(s, len, &id, &idlen, &hex, &hexlen);
    if (kind == 0) return 0;
    if (kind < 0) {
        nmp_seterr(err, errlen, "key file %s line %d: expected \"KEYID HEXKEY\"", what, lineno);
        return -EINVAL;
    }
    if (idlen > NMP_PFS_ID_MAX) {
        nmp_seterr(err, errlen, "key file %s line %d: a key id has at most %d bytes", what, lineno, NMP_PFS_ID_MAX);
        return -EINVAL;
    }
    if (hexlen % 2 != 0 || hexlen / 2 < NMP_PFS_KEY_MIN || hexlen / 2 > NMP_PFS_KEY_MAX) {
        nmp_seterr(err, errlen, "key file %s line %d: a key is %d..%d bytes as an even number of hex digits "
                   "(openssl rand -hex 32)", what, lineno, NMP_PFS_KEY_MIN, NMP_PFS_KEY_MAX);
        return -EINVAL;
    }
    if (f->n == NMP_PFS_MAX_KEYS) {
        nmp_seterr(err, errlen, "key file %s line %d: more than %d keys", what, lineno, NMP_PFS_MAX_KEYS);
        return -EINVAL;
    }
    nmp_pfs_key *k = &f->key[f->n];
    memcpy(k->id, id, idlen);
    k->id[idlen] = '\0';
    int bad = nmp_pfs_hex(hex, hexlen, k->k) < 0;
    if (bad || !nmp_pfs_id_valid(k->id)) {
        nmp_seterr(err, errlen, "key file %s line %d: %s", what, lineno,
                   bad ? "the key is not hex digits" : "the key id has a control character");
        OPENSSL_cleanse(k, sizeof(*k));
        return -EINVAL;
    }
    if (nmp_pfs_find(f, k->id) != NULL) {
        nmp_seterr(err, errlen, "key file %s line %d: key id %s is given twice", what, lineno, k->id);
        OPENSSL_cleanse(k, sizeof(*k));
        return -EINVAL;
    }
    k->len = hexlen / 2;
    f->n++;
    return 0;
}

int nmp_pfs_parse(const char *text, size_t len, const char *what, nmp_pfs *out, char *err, size_t errlen) {
    memset(out, 0, sizeof(*out));
    int lineno = 0;
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t l = nl ? (size_t)(nl - (text + at)) : len - at;
        lineno++;
        if (memchr(text + at, '\0', l) != NULL) {
            nmp_seterr(err, errlen, "key file %s line %d: a NUL byte", what, lineno);
            nmp_pfs_wipe(out);
            return -EINVAL;
        }
        int rc = parse_line(text + at, l, what, lineno, out, err, errlen);
        if (rc < 0) {
            nmp_pfs_wipe(out);
            return rc;
        }
        at += l + (nl != NULL);
    }
    if (out->n == 0) {
        nmp_seterr(err, errlen, "key file %s: no keys (one \"KEYID HEXKEY\" a line)", what);
        return -EINVAL;
    }
    return 0;
}

int nmp_pfs_read(const char *path, size_t max, char **text, size_t *len, char *err, size_t errlen) {
    struct stat st;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    *text = NULL;
    *len = 0;
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
    /* room for what the file says it holds (within max) and one byte more: a file
     * longer than that (or grown while read) is refused, not cut */
    cap = (uint64_t)st.st_size < max ? (size_t)st.st_size : max;
    if ((buf = malloc(cap + 1)) == NULL) {
        rc = -ENOMEM;
        nmp_seterr(err, errlen, "key file %s: out of memory", path);
        goto end;
    }
    for (;;) {
        ssize_t r = read(fd, buf + n, cap + 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            rc = -errno;
            nmp_seterr(err, errlen, "key file %s: %s", path, strerror(errno));
            goto end;
        }
        if (r == 0 || (n += (size_t)r) == cap + 1) break;
    }
    if (n > cap) {
        rc = -EINVAL;
        nmp_seterr(err, errlen, "key file %s: longer than %zu bytes%s", path, cap,
                   cap < max ? " (it grew while read)" : "");
        goto end;
    }
    *text = buf;
    *len = n;
    buf = NULL;
end:
    if (buf) nmp_pfs_free_text(buf, cap + 1);
    close(fd);
    return rc;
}

void nmp_pfs_free_text(char *text, size_t len) {
    if (text == NULL) return;
    OPENSSL_cleanse(text, len);
    free(text);
}

int nmp_pfs_load(const char *path, nmp_pfs *out, char *err, size_t errlen) {
    char *text;
    size_t n;
    memset(out, 0, sizeof(*out));
    int rc = nmp_pfs_read(path, NMP_PFS_FILE_MAX, &text, &n, err, errlen);
    if (rc < 0) return rc;
    rc = nmp_pfs_parse(text, n, path, out, err, errlen);
    nmp_pfs_free_text(text, n);
    return rc;
}

const nmp_pfs_key *nmp_pfs_find(const nmp_pfs *f, const char *id) {
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->key[i].id, id) == 0) return &f->key[i];
    return NULL;
}

void nmp_pfs_wipe(nmp_pfs *f) { OPENSSL_cleanse(f, sizeof(*f)); }
