/* nmp_pack.c -- named, typed fields in one flat buffer (format in nmp_pack.h).
 *
 * Written by hand: the format must be read by C (every length checked, as a
 * packed spec comes from outside the engine) and by Java without a schema
 * compiler on either side; protobuf or CBOR would bring a library to both for
 * seven field types. */
#include "nmp_pack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmprobe.h"

void nmp_pack_init(nmp_pack *p) { memset(p, 0, sizeof(*p)); }

void nmp_pack_free(nmp_pack *p) {
    free(p->buf);
    memset(p, 0, sizeof(*p));
}

int nmp_pack_status(const nmp_pack *p) { return p->failed; }

uint8_t *nmp_pack_take(nmp_pack *p, size_t *len) {
    uint8_t *b = p->buf;
    *len = p->len;
    memset(p, 0, sizeof(*p));
    return b;
}

/* Makes room for n more bytes. Returns a pointer to them or NULL (failed set). */
static uint8_t *reserve(nmp_pack *p, size_t n) {
    if (p->failed) return NULL;
    if (n > NMP_PACK_MAX_BYTES || p->len > NMP_PACK_MAX_BYTES - n) {
        p->failed = -ENOMEM;
        return NULL;
    }
    if (p->len + n > p->cap) {
        size_t cap = p->cap ? p->cap : 256;
        while (cap < p->len + n) cap *= 2;
        uint8_t *b = realloc(p->buf, cap);
        if (b == NULL) {
            p->failed = -ENOMEM;
            return NULL;
        }
        p->buf = b;
        p->cap = cap;
    }
    uint8_t *at = p->buf + p->len;
    p->len += n;
    return at;
}

static void put_le(uint8_t *at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) at[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)at[i] << (8 * i);
    return v;
}

static int name_ok(const char *name, size_t n) {
    if (n == 0 || n > NMP_PACK_NAME_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
            return 0;
    }
    return 1;
}

/* Writes type, name and room for 'payload' bytes; returns where the payload goes. */
static uint8_t *header(nmp_pack *p, nmp_ftype type, const char *name, size_t payload) {
    size_t n = name ? strlen(name) : 0;
    if (p->failed) return NULL;
    if (!name_ok(name, n)) {
        p->failed = -EINVAL;
        return NULL;
    }
    if (payload > NMP_PACK_MAX_BYTES) {
        p->failed = -ENOMEM;
        return NULL;
    }
    uint8_t *at = reserve(p, 2 + n + payload);
    if (at == NULL) return NULL;
    at[0] = (uint8_t)type;
    at[1] = (uint8_t)n;
    memcpy(at + 2, name, n);
    return at + 2 + n;
}

void nmp_pack_i64(nmp_pack *p, const char *name, int64_t v) {
    uint8_t *at = header(p, NMP_F_I64, name, 8);
    if (at) put_le(at, (uint64_t)v, 8);
}

void nmp_pack_f64(nmp_pack *p, const char *name, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    uint8_t *at = header(p, NMP_F_F64, name, 8);
    if (at) put_le(at, bits, 8);
}

void nmp_pack_str(nmp_pack *p, const char *name, const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n > UINT32_MAX) {
        p->failed = p->failed ? p->failed : -EINVAL;
        return;
    }
    uint8_t *at = header(p, NMP_F_STR, name, 4 + n);
    if (at == NULL) return;
    put_le(at, n, 4);
    if (n) memcpy(at + 4, s, n);
}

/* An array of n elements of 'width' bytes: count, then each little-endian. */
static uint8_t *array(nmp_pack *p, nmp_ftype type, const char *name, size_t n, size_t width) {
    if (n > UINT32_MAX || n > NMP_PACK_MAX_BYTES / width) {
        p->failed = p->failed ? p->failed : -ENOMEM;
        return NULL;
    }
    uint8_t *at = header(p, type, name, 4 + n * width);
    if (at) put_le(at, n, 4);
    return at ? at + 4 : NULL;
}

void nmp_pack_i32s(nmp_pack *p, const char *name, const int32_t *v, size_t n) {
    uint8_t *at = array(p, NMP_F_I32S, name, n, 4);
    if (at)
        for (size_t i = 0; i < n; i++) put_le(at + 4 * i, (uint32_t)v[i], 4);
}

void nmp_pack_i64s(nmp_pack *p, const char *name, const int64_t *v, size_t n) {
    uint8_t *at = array(p, NMP_F_I64S, name, n, 8);
    if (at)
        for (size_t i = 0; i < n; i++) put_le(at + 8 * i, (uint64_t)v[i], 8);
}

void nmp_pack_f64s(nmp_pack *p, const char *name, const double *v, size_t n) {
    uint8_t *at = array(p, NMP_F_F64S, name, n, 8);
    if (at == NULL) return;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i], sizeof(bits));
        put_le(at + 8 * i, bits, 8);
    }
}

/* Packs n strings, the i-th from get(ctx, i). */
static void pack_strs(nmp_pack *p, const char *name, size_t n, const char *(*get)(const void *, size_t),
                      const void *ctx) {
    size_t total = 4;
    if (n > UINT32_MAX) {
        p->failed = p->failed ? p->failed : -ENOMEM;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = get(ctx, i);
        size_t sl = s ? strlen(s) : 0;
        if (sl > NMP_PACK_MAX_BYTES || total > NMP_PACK_MAX_BYTES - 4 - sl) {
            p->failed = p->failed ? p->failed : -ENOMEM;
            return;
        }
        total += 4 + sl;
    }
    uint8_t *at = header(p, NMP_F_STRS, name, total);
    if (at == NULL) return;
    put_le(at, n, 4);
    at += 4;
    for (size_t i = 0; i < n; i++) {
        const char *s = get(ctx, i);
        size_t sl = s ? strlen(s) : 0;
        put_le(at, sl, 4);
        if (sl) memcpy(at + 4, s, sl);
        at += 4 + sl;
    }
}

static const char *ptr_at(const void *ctx, size_t i) { return ((const char *const *)ctx)[i]; }

void nmp_pack_strs(nmp_pack *p, const char *name, const char *const *v, size_t n) {
    pack_strs(p, name, n, ptr_at, v);
}

typedef struct fixed_slots {
    const char *base;                /* first slot */
    size_t stride;                   /* bytes per slot */
} fixed_slots;

static const char *slot_at(const void *ctx, size_t i) {
    const fixed_slots *f = ctx;
    const char *s = f->base + i * f->stride;
    /* a slot always ends in NUL in the engine's structs; refuse to run past it anyway */
    return memchr(s, '\0', f->stride) ? s : "";
}

void nmp_pack_strs_fixed(nmp_pack *p, const char *name, const char *base, size_t stride, size_t n) {
    fixed_slots f = {.base = base, .stride = stride};
    if (stride == 0) {
        p->failed = p->failed ? p->failed : -EINVAL;
        return;
    }
    pack_strs(p, name, n, slot_at, &f);
}

int nmp_unpack_next(const uint8_t *buf, size_t len, size_t *off, nmp_field *f, char *err, size_t errlen) {
    size_t at = *off;
    if (at >= len) return 0;
    memset(f, 0, sizeof(*f));
    if (len - at < 2) goto truncated;
    f->type = (nmp_ftype)buf[at];
    f->namelen = buf[at + 1];
    f->name = (const char *)buf + at + 2;
    if (!name_ok(f->name, len - at - 2 < f->namelen ? 0 : f->namelen)) {
        nmp_seterr(err, errlen, "packed field at byte %zu: bad name", at);
        return -EINVAL;
    }
    at += 2 + f->namelen;
    size_t avail = len - at;
    switch (f->type) {
    case NMP_F_I64:
    case NMP_F_F64: {
        if (avail < 8) goto truncated;
        uint64_t v = get_le(buf + at, 8);
        if (f->type == NMP_F_I64)
            f->i64 = (int64_t)v;
        else
            memcpy(&f->f64, &v, sizeof(v));
        f->data = buf + at;
        f->datalen = 8;
        break;
    }
    case NMP_F_STR:
    case NMP_F_I32S:
    case NMP_F_I64S:
    case NMP_F_F64S:
    case NMP_F_STRS: {
        if (avail < 4) goto truncated;
        f->n = (uint32_t)get_le(buf + at, 4);
        at += 4;
        avail -= 4;
        size_t width = f->type == NMP_F_STR ? 1 : f->type == NMP_F_I32S ? 4 : 8;
        if (f->type == NMP_F_STRS) {
            size_t pos = 0;
            for (uint32_t i = 0; i < f->n; i++) {
                if (avail - pos < 4) goto truncated;
                uint32_t sl = (uint32_t)get_le(buf + at + pos, 4);
                if (avail - pos - 4 < sl) goto truncated;
                pos += 4 + (size_t)sl;
            }
            f->datalen = pos;
        } else {
            if ((size_t)f->n > avail / width) goto truncated;
            f->datalen = (size_t)f->n * width;
        }
        f->data = buf + at;
        break;
    }
    default:
        nmp_seterr(err, errlen, "packed field '%.*s': unknown type %d", (int)f->namelen, f->name, (int)f->type);
        return -EINVAL;
    }
    *off = at + f->datalen;
    return 1;
truncated:
    nmp_seterr(err, errlen, "packed field at byte %zu: runs past the end of the buffer (%zu bytes)", *off, len);
    return -EINVAL;
}

int nmp_unpack_find(const uint8_t *buf, size_t len, const char *name, nmp_field *f, char *err, size_t errlen) {
    size_t off = 0, n = strlen(name);
    int rc;
    while ((rc = nmp_unpack_next(buf, len, &off, f, err, errlen)) == 1)
        if (f->namelen == n && memcmp(f->name, name, n) == 0) return 1;
    return rc;
}

int32_t nmp_field_i32_at(const nmp_field *f, uint32_t i) { return (int32_t)(uint32_t)get_le(f->data + 4 * (size_t)i, 4); }

int64_t nmp_field_i64_at(const nmp_field *f, uint32_t i) { return (int64_t)get_le(f->data + 8 * (size_t)i, 8); }

double nmp_field_f64_at(const nmp_field *f, uint32_t i) {
    uint64_t bits = get_le(f->data + 8 * (size_t)i, 8);
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

int nmp_field_strs_next(const nmp_field *f, size_t *pos, const uint8_t **s, uint32_t *slen) {
    if (*pos + 4 > f->datalen) return 0; /* lengths were checked when the field was read */
    *slen = (uint32_t)get_le(f->data + *pos, 4);
    *s = f->data + *pos + 4;
    *pos += 4 + (size_t)*slen;
    return 1;
}
