/* nmp_pack.h -- named, typed fields in one flat buffer.
 *
 * How a test's spec and result cross JNI and reach the CLI's printer: the
 * engine module that produces a result packs each figure under its name, and
 * every reader (Java's NativeRecord, the CLI's JSON and text printers) finds
 * it by that name. A layout is thus stated once per language, by the code
 * that writes or reads it, and a mismatch is a clear "no field X" error
 * instead of a silently shifted array index.
 *
 * Encoding (little-endian), a sequence of fields until the end of the buffer:
 *
 *   field   := type:u8  namelen:u8  name[namelen]  payload
 *   name    := 1..NMP_PACK_NAME_MAX bytes of [A-Za-z0-9_.]
 *   payload := I64 : 8 bytes two's complement
 *              F64 : 8 bytes IEEE 754 (NaN = "not measured")
 *              STR : n:u32, n bytes of UTF-8 (no NUL)
 *              I32S: n:u32, n * 4 bytes
 *              I64S: n:u32, n * 8 bytes
 *              F64S: n:u32, n * 8 bytes
 *              STRS: n:u32, n * (len:u32, len bytes)
 *
 * Tables of rows (per-hop figures, per-interval TCP samples) are packed as
 * columns of equal length ("hop.ttl", "hop.addr", ...). Names are unique in a
 * buffer; readers take the first. */
#ifndef NMP_PACK_H
#define NMP_PACK_H

#include <stddef.h>
#include <stdint.h>

#define NMP_PACK_NAME_MAX 63
/* Upper bound on a buffer readers accept (a spec from Java, a result). */
#define NMP_PACK_MAX_BYTES (1u << 30)

typedef enum nmp_ftype {
    NMP_F_I64 = 1,
    NMP_F_F64 = 2,
    NMP_F_STR = 3,
    NMP_F_I32S = 4,
    NMP_F_I64S = 5,
    NMP_F_F64S = 6,
    NMP_F_STRS = 7
} nmp_ftype;

/* A growing output buffer. An allocation failure or a bad name sets
 * 'failed' and makes every later call a no-op, so packing code checks once,
 * at the end, with nmp_pack_status. */
typedef struct nmp_pack {
    uint8_t *buf;                    /* owned; NULL until the first field */
    size_t len;                      /* bytes written */
    size_t cap;                      /* bytes allocated */
    int failed;                      /* 0, or the -errno of the first failure */
} nmp_pack;

void nmp_pack_init(nmp_pack *p);
/* Frees the buffer; the pack may be initialised again. */
void nmp_pack_free(nmp_pack *p);
/* 0 when every field so far was written, else -ENOMEM or -EINVAL. */
int nmp_pack_status(const nmp_pack *p);
/* Hands the buffer to the caller (free() it); the pack is left empty. */
uint8_t *nmp_pack_take(nmp_pack *p, size_t *len);

void nmp_pack_i64(nmp_pack *p, const char *name, int64_t v);
void nmp_pack_f64(nmp_pack *p, const char *name, double v);
/* s may be NULL, packed as "". */
void nmp_pack_str(nmp_pack *p, const char *name, const char *s);
/* v may be NULL when n is 0. */
void nmp_pack_i32s(nmp_pack *p, const char *name, const int32_t *v, size_t n);
void nmp_pack_i64s(nmp_pack *p, const char *name, const int64_t *v, size_t n);
void nmp_pack_f64s(nmp_pack *p, const char *name, const double *v, size_t n);
/* Strings from an array of n pointers (NULL entries packed as ""). */
void nmp_pack_strs(nmp_pack *p, const char *name, const char *const *v, size_t n);
/* Strings laid out in fixed-size slots (char addr[n][stride]), NUL-terminated within each. */
void nmp_pack_strs_fixed(nmp_pack *p, const char *name, const char *base, size_t stride, size_t n);

/* One field as read: 'data' points into the buffer being read. */
typedef struct nmp_field {
    nmp_ftype type;
    const char *name;                /* not NUL-terminated: namelen bytes */
    size_t namelen;
    int64_t i64;                     /* NMP_F_I64 */
    double f64;                      /* NMP_F_F64 */
    uint32_t n;                      /* STR: bytes; arrays: elements */
    const uint8_t *data;             /* STR bytes, or the first array element (unaligned) */
    size_t datalen;                  /* bytes at data (STRS: all of the entries with their lengths) */
} nmp_field;

/* Reads the field at *off and advances *off past it. Every length is checked
 * against the buffer. Returns 1 for a field, 0 at the end of the buffer, or
 * -EINVAL with err set ("packed field at byte 17: ...") on a malformed one. */
int nmp_unpack_next(const uint8_t *buf, size_t len, size_t *off, nmp_field *f, char *err, size_t errlen);
/* Finds the first field named name. Returns 1 when found, 0 when absent,
 * -EINVAL with err set when the buffer is malformed before it is found. */
int nmp_unpack_find(const uint8_t *buf, size_t len, const char *name, nmp_field *f, char *err, size_t errlen);
/* Element i of an array field, converted from little-endian. The caller
 * keeps i < f->n. */
int32_t nmp_field_i32_at(const nmp_field *f, uint32_t i);
int64_t nmp_field_i64_at(const nmp_field *f, uint32_t i);
double nmp_field_f64_at(const nmp_field *f, uint32_t i);
/* Walks the entries of a STRS field: *pos starts at 0; stores a pointer to
 * the next entry's bytes and its length. Returns 1, or 0 after the last. */
int nmp_field_strs_next(const nmp_field *f, size_t *pos, const uint8_t **s, uint32_t *slen);

#endif
