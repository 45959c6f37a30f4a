/* nmp_kind.c -- the table of measurement kinds and the spec decoding that
 * every way in (JNI, CLI) shares: defaults, range checks and ownership of a
 * spec's strings and lists are done here once, from each kind's field table. */
#include "nmprobe.h"
#include "nmp_kind.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One row per kind; each is defined by the engine file that runs it. */
extern const nmp_kind nmp_kind_rr;
extern const nmp_kind nmp_kind_stream;
extern const nmp_kind nmp_kind_scan;
extern const nmp_kind nmp_kind_tcp;
extern const nmp_kind nmp_kind_hops;
extern const nmp_kind nmp_kind_hopcap;
extern const nmp_kind nmp_kind_capacity;
extern const nmp_kind nmp_kind_avail;
extern const nmp_kind nmp_kind_clock;
extern const nmp_kind nmp_kind_stamp;
extern const nmp_kind nmp_kind_owamp;
extern const nmp_kind nmp_kind_twamp;
extern const nmp_kind nmp_kind_reserve;

const nmp_kind *const nmp_kinds[] = {
    &nmp_kind_rr,     &nmp_kind_stream,   &nmp_kind_scan,  &nmp_kind_tcp,   &nmp_kind_hops,
    &nmp_kind_hopcap, &nmp_kind_capacity, &nmp_kind_avail, &nmp_kind_clock,
    &nmp_kind_stamp,  &nmp_kind_owamp,    &nmp_kind_twamp, &nmp_kind_reserve, NULL,
};

const nmp_kind *nmp_kind_find(const char *name) {
    if (name == NULL) return NULL;
    for (const nmp_kind *const *k = nmp_kinds; *k; k++)
        if (strcmp((*k)->name, name) == 0) return *k;
    return NULL;
}

static void *at(void *spec, size_t off) { return (char *)spec + off; }

/* Stores an already range-checked number into the field's member. */
static void store(const nmp_spec_field *f, void *spec, double v) {
    switch (f->type) {
    case NMP_S_INT:
    case NMP_S_BOOL: *(int *)at(spec, f->offset) = (int)v; break;
    case NMP_S_U32: *(uint32_t *)at(spec, f->offset) = (uint32_t)v; break;
    case NMP_S_U64: *(uint64_t *)at(spec, f->offset) = (uint64_t)v; break;
    case NMP_S_I64: *(int64_t *)at(spec, f->offset) = (int64_t)v; break;
    case NMP_S_F64: *(double *)at(spec, f->offset) = v; break;
    case NMP_S_STR:
    case NMP_S_U32_LIST: break;
    }
}

/* Stores an already range-checked integer into an integer member. */
static void store_int(const nmp_spec_field *f, void *spec, int64_t v) {
    switch (f->type) {
    case NMP_S_INT:
    case NMP_S_BOOL: *(int *)at(spec, f->offset) = (int)v; break;
    case NMP_S_U32: *(uint32_t *)at(spec, f->offset) = (uint32_t)v; break;
    case NMP_S_U64: *(uint64_t *)at(spec, f->offset) = (uint64_t)v; break;
    case NMP_S_I64: *(int64_t *)at(spec, f->offset) = v; break;
    default: store(f, spec, (double)v); break;
    }
}

void nmp_spec_defaults(const nmp_kind *k, void *spec) {
    memset(spec, 0, k->spec_size);
    for (size_t i = 0; i < k->nfields; i++) store(&k->fields[i], spec, k->fields[i].def);
}

void nmp_spec_free(const nmp_kind *k, void *spec) {
    for (size_t i = 0; i < k->nfields; i++) {
        const nmp_spec_field *f = &k->fields[i];
        if (f->type == NMP_S_STR || f->type == NMP_S_U32_LIST) {
            void **p = at(spec, f->offset);
            free(*p);
            *p = NULL;
        }
    }
}

static int is_integer_type(nmp_spec_type t) { return t != NMP_S_F64 && t != NMP_S_STR && t != NMP_S_U32_LIST; }

/* Checks a number against the field's range (integral for integer members). */
static int check_num(const nmp_kind *k, const nmp_spec_field *f, double v, char *err, size_t errlen) {
    if (!(v >= f->lo && v <= f->hi)) { /* also refuses NaN */
        nmp_seterr(err, errlen, "%s: %s %g is outside %g..%g", k->name, f->name, v, f->lo, f->hi);
        return -EINVAL;
    }
    if (is_integer_type(f->type) && v != floor(v)) {
        nmp_seterr(err, errlen, "%s: %s %g is not a whole number", k->name, f->name, v);
        return -EINVAL;
    }
    return 0;
}

/* Replaces a string member with a NUL-terminated copy of n bytes. */
static int set_str(const nmp_kind *k, const nmp_spec_field *f, void *spec, const void *s, size_t n, char *err,
                   size_t errlen) {
    if (memchr(s, '\0', n) != NULL || n == 0 || n > f->hi) {
        nmp_seterr(err, errlen, "%s: %s must be 1..%g bytes without NUL", k->name, f->name, f->hi);
        return -EINVAL;
    }
    char *c = malloc(n + 1);
    if (c == NULL) {
        nmp_seterr(err, errlen, "%s: out of memory", k->name);
        return -ENOMEM;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    char **p = at(spec, f->offset);
    free(*p);
    *p = c;
    return 0;
}

/* Replaces a list member with n elements from get(ctx, i), each range-checked. */
static int set_list(const nmp_kind *k, const nmp_spec_field *f, void *spec, size_t n,
                    double (*get)(const void *, size_t), const void *ctx, char *err, size_t errlen) {
    if (n < f->lo_count || n > f->hi_count) {
        nmp_seterr(err, errlen, "%s: %s needs %u..%u values, not %zu", k->name, f->name, f->lo_count, f->hi_count, n);
        return -EINVAL;
    }
    uint32_t *v = malloc((n ? n : 1) * sizeof(*v));
    if (v == NULL) {
        nmp_seterr(err, errlen, "%s: out of memory", k->name);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        double x = get(ctx, i);
        if (!(x >= f->lo && x <= f->hi) || x != floor(x)) {
            nmp_seterr(err, errlen, "%s: %s value %g is not a whole number in %g..%g", k->name, f->name, x, f->lo,
                       f->hi);
            free(v);
            return -EINVAL;
        }
        v[i] = (uint32_t)x;
    }
    uint32_t **p = at(spec, f->offset);
    free(*p);
    *p = v;
    *(uint32_t *)at(spec, f->count_offset) = (uint32_t)n;
    return 0;
}

static double packed_i32_at(const void *ctx, size_t i) { return nmp_field_i32_at(ctx, (uint32_t)i); }

static const nmp_spec_field *field_named(const nmp_kind *k, const char *name, size_t n) {
    for (size_t i = 0; i < k->nfields; i++)
        if (strlen(k->fields[i].name) == n && memcmp(k->fields[i].name, name, n) == 0) return &k->fields[i];
    return NULL;
}

/* Sets one field from a packed field of the matching type. */
static int set_packed(const nmp_kind *k, const nmp_spec_field *f, void *spec, const nmp_field *pf, char *err,
                      size_t errlen) {
    switch (f->type) {
    case NMP_S_STR:
        if (pf->type != NMP_F_STR) break;
        return set_str(k, f, spec, pf->data, pf->n, err, errlen);
    case NMP_S_U32_LIST:
        if (pf->type != NMP_F_I32S) break;
        return set_list(k, f, spec, pf->n, packed_i32_at, pf, err, errlen);
    case NMP_S_F64:
        if (pf->type == NMP_F_F64 || pf->type == NMP_F_I64) {
            double v = pf->type == NMP_F_F64 ? pf->f64 : (double)pf->i64;
            int rc = check_num(k, f, v, err, errlen);
            if (rc == 0) store(f, spec, v);
            return rc;
        }
        break;
    default:
        if (pf->type == NMP_F_I64) {
            /* compare as integers first: a double would round values past 2^53 into range
             * (every lo and hi is below 2^63, so the casts are exact enough and defined) */
            if (pf->i64 < (int64_t)f->lo || pf->i64 > (int64_t)f->hi) {
                nmp_seterr(err, errlen, "%s: %s %lld is outside %g..%g", k->name, f->name, (long long)pf->i64, f->lo,
                           f->hi);
                return -EINVAL;
            }
            store_int(f, spec, pf->i64);
            return 0;
        }
        break;
    }
    nmp_seterr(err, errlen, "%s: %s has the wrong type", k->name, f->name);
    return -EINVAL;
}

/* Checks that every required field was given (seen[i] nonzero). */
static int check_required(const nmp_kind *k, const unsigned char *seen, char *err, size_t errlen) {
    for (size_t i = 0; i < k->nfields; i++)
        if (k->fields[i].required && !seen[i]) {
            nmp_seterr(err, errlen, "%s: %s is required", k->name, k->fields[i].name);
            return -EINVAL;
        }
    return 0;
}

int nmp_spec_unpack(const nmp_kind *k, const uint8_t *buf, size_t len, void *spec, char *err, size_t errlen) {
    unsigned char seen[64] = {0};
    nmp_field pf;
    size_t off = 0;
    int rc;
    nmp_spec_defaults(k, spec);
    if (k->nfields > sizeof(seen)) {
        nmp_seterr(err, errlen, "%s: too many spec fields", k->name);
        return -EINVAL;
    }
    if (len > NMP_PACK_MAX_BYTES) {
        nmp_seterr(err, errlen, "%s: spec of %zu bytes is too large", k->name, len);
        return -EINVAL;
    }
    while ((rc = nmp_unpack_next(buf, len, &off, &pf, err, errlen)) == 1) {
        const nmp_spec_field *f = field_named(k, pf.name, pf.namelen);
        if (f == NULL) {
            nmp_seterr(err, errlen, "%s: unknown spec field '%.*s'", k->name, (int)pf.namelen, pf.name);
            return -EINVAL;
        }
        if (seen[f - k->fields]) { /* names are unique in a buffer: a second one is an error, not a silent override */
            nmp_seterr(err, errlen, "%s: spec field %s given twice", k->name, f->name);
            return -EINVAL;
        }
        if ((rc = set_packed(k, f, spec, &pf, err, errlen)) < 0) return rc;
        seen[f - k->fields] = 1;
    }
    if (rc < 0) return rc;
    if ((rc = check_required(k, seen, err, errlen)) < 0) return rc;
    return k->check ? k->check(spec, err, errlen) : 0;
}

/* A strict decimal number: digits with an optional sign, point and exponent;
 * no hex, no inf/nan, no spaces (strtod alone would take all of those). */
static int parse_decimal(const char *s, double *out) {
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    if (*p == '\0') return -1;
    for (const char *q = p; *q; q++)
        if (!((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' || *q == '-')) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

typedef struct text_list {
    double *v;                       /* parsed elements */
} text_list;

static double text_list_at(const void *ctx, size_t i) { return ((const text_list *)ctx)->v[i]; }

int nmp_spec_set_text(const nmp_kind *k, const nmp_spec_field *f, void *spec, const char *text, char *err,
                      size_t errlen) {
    double scale = f->cli_scale > 0 ? f->cli_scale : 1;
    const char *opt = f->cli ? f->cli : f->name;
    if (text == NULL) text = "";
    switch (f->type) {
    case NMP_S_STR: return set_str(k, f, spec, text, strlen(text), err, errlen);
    case NMP_S_BOOL: store(f, spec, 1); return 0;
    case NMP_S_U32_LIST: {
        size_t n = 1;
        for (const char *c = text; *c; c++) n += *c == ',';
        if (n > f->hi_count) {
            nmp_seterr(err, errlen, "--%s: at most %u values", opt, f->hi_count);
            return -EINVAL;
        }
        double v[n];
        char item[32];
        const char *c = text;
        for (size_t i = 0; i < n; i++) {
            size_t il = strcspn(c, ",");
            if (il == 0 || il >= sizeof(item)) goto bad;
            memcpy(item, c, il);
            item[il] = '\0';
            if (parse_decimal(item, &v[i]) < 0) goto bad;
            v[i] *= scale;
            c += il + (c[il] == ',');
        }
        text_list l = {.v = v};
        return set_list(k, f, spec, n, text_list_at, &l, err, errlen);
    bad:
        nmp_seterr(err, errlen, "--%s %s: want a comma-separated list of numbers", opt, text);
        return -EINVAL;
    }
    default: {
        double v;
        if (parse_decimal(text, &v) < 0) {
            nmp_seterr(err, errlen, "--%s %s: want a number in %g..%g", opt, text, f->lo / scale, f->hi / scale);
            return -EINVAL;
        }
        v *= scale;
        if (is_integer_type(f->type)) v = nearbyint(v); /* --interval-us 0.5 is 500 ns */
        if (!(v >= f->lo && v <= f->hi)) {
            nmp_seterr(err, errlen, "--%s %s: want a number in %g..%g", opt, text, f->lo / scale, f->hi / scale);
            return -EINVAL;
        }
        store(f, spec, v);
        return 0;
    }
    }
}

int nmp_kind_run_packed(const nmp_kind *k, const uint8_t *spec, size_t speclen, const nmp_control *ctl,
                        uint8_t **result, size_t *resultlen, char *err, size_t errlen) {
    /* spec structs are small; this keeps them off the heap with no size guess */
    _Alignas(max_align_t) unsigned char s[1024];
    nmp_pack out;
    int rc;
    *result = NULL;
    *resultlen = 0;
    if (k->spec_size > sizeof(s)) {
        nmp_seterr(err, errlen, "%s: spec struct too large", k->name);
        return -EINVAL;
    }
    nmp_pack_init(&out);
    rc = nmp_spec_unpack(k, spec, speclen, s, err, errlen);
    if (rc < 0) goto end;
    rc = k->run(s, ctl, &out, err, errlen);
    if (rc < 0 && rc != -ECANCELED) goto end;
    int prc = nmp_pack_status(&out);
    if (prc < 0) {
        nmp_seterr(err, errlen, "%s: packing the result failed (%s)", k->name, prc == -ENOMEM ? "out of memory" : "bad field");
        rc = prc;
        goto end;
    }
    *result = nmp_pack_take(&out, resultlen);
end:
    nmp_pack_free(&out);
    nmp_spec_free(k, s);
    return rc;
}

void nmp_pack_bool(nmp_pack *p, const char *name, int v) { nmp_pack_i64(p, name, v != 0); }

void nmp_pack_col_i64(nmp_pack *p, const char *name, const void *rows, size_t n, size_t stride, size_t off,
                      nmp_col_type t) {
    int64_t *v = malloc((n ? n : 1) * sizeof(*v));
    if (v == NULL) {
        if (p->failed == 0) p->failed = -ENOMEM;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *m = (const char *)rows + i * stride + off;
        switch (t) {
        case NMP_C_INT: { int x; memcpy(&x, m, sizeof(x)); v[i] = x; break; }
        case NMP_C_I32: { int32_t x; memcpy(&x, m, sizeof(x)); v[i] = x; break; }
        case NMP_C_U32: { uint32_t x; memcpy(&x, m, sizeof(x)); v[i] = x; break; }
        case NMP_C_I64: { int64_t x; memcpy(&x, m, sizeof(x)); v[i] = x; break; }
        case NMP_C_U64: { uint64_t x; memcpy(&x, m, sizeof(x)); v[i] = (int64_t)x; break; }
        }
    }
    nmp_pack_i64s(p, name, v, n);
    free(v);
}

void nmp_pack_col_f64(nmp_pack *p, const char *name, const void *rows, size_t n, size_t stride, size_t off,
                      double div) {
    double *v = malloc((n ? n : 1) * sizeof(*v));
    if (v == NULL) {
        if (p->failed == 0) p->failed = -ENOMEM;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double x;
        memcpy(&x, (const char *)rows + i * stride + off, sizeof(x));
        v[i] = div == 1 ? x : x / div;
    }
    nmp_pack_f64s(p, name, v, n);
    free(v);
}
