/* nmp_cli_print.c -- JSON and text forms of any packed result (see
 * nmp_cli_print.h). The engine file that runs a kind names every figure it
 * packs; this file only lays them out, so a new kind prints without a line
 * of CLI code. */
#include "nmp_cli_print.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_pack.h"

/* One packed field with, for a string column, its entries located. */
typedef struct col {
    nmp_field f;                     /* the field as read */
    size_t table_len;                /* bytes of the table part of the name ("hops" of "hops.ttl"), 0 = scalar */
    const char *key;                 /* the rest after "table." */
    size_t keylen;
    const uint8_t **s;               /* NMP_F_STRS: entry i's bytes */
    uint32_t *sl;                    /* NMP_F_STRS: entry i's length */
    int printed;                     /* already written as part of its table */
} col;

typedef struct result {
    col *cols;
    size_t n;
} result;

static void result_free(result *r) {
    for (size_t i = 0; i < r->n; i++) free(r->cols[i].s), free(r->cols[i].sl);
    free(r->cols);
}

#define RPFX "reverse."
#define RPFX_LEN 8

static int result_read(const uint8_t *buf, size_t len, result *r) {
    size_t off = 0, cap = 0;
    nmp_field f;
    int rc;
    memset(r, 0, sizeof(*r));
    while ((rc = nmp_unpack_next(buf, len, &off, &f, NULL, 0)) == 1) {
        if (r->n == cap) {
            cap = cap ? cap * 2 : 64;
            col *c = realloc(r->cols, cap * sizeof(*c));
            if (c == NULL) goto nomem;
            r->cols = c;
        }
        col *c = &r->cols[r->n++];
        memset(c, 0, sizeof(*c));
        c->f = f;
        /* "reverse." names a second set of the same figures (owamp "both": the server's session),
         * not a table: "reverse.sent" is a scalar, "reverse.frames.seq" a column of "reverse.frames" */
        size_t ns = f.namelen > RPFX_LEN && memcmp(f.name, RPFX, RPFX_LEN) == 0 ? RPFX_LEN : 0;
        const char *dot = memchr(f.name + ns, '.', f.namelen - ns);
        if (dot) {
            c->table_len = (size_t)(dot - f.name);
            c->key = dot + 1;
            c->keylen = f.namelen - c->table_len - 1;
        }
        if (f.type == NMP_F_STRS) {
            c->s = malloc((f.n ? f.n : 1) * sizeof(*c->s));
            c->sl = malloc((f.n ? f.n : 1) * sizeof(*c->sl));
            if (c->s == NULL || c->sl == NULL) goto nomem;
            size_t pos = 0;
            for (uint32_t i = 0; i < f.n; i++) nmp_field_strs_next(&c->f, &pos, &c->s[i], &c->sl[i]);
        }
    }
    if (rc < 0) {
        result_free(r);
        return -EINVAL;
    }
    return 0;
nomem:
    result_free(r);
    return -ENOMEM;
}

static int is_array(const nmp_field *f) { return f->type >= NMP_F_I32S; }

static void json_str(FILE *o, const uint8_t *s, size_t n) {
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", c);
        else if (c < 0x20)
            fprintf(o, "\\u%04x", c);
        else
            fputc(c, o);
    }
    fputc('"', o);
}

static void json_num(FILE *o, double v) {
    if (isfinite(v))
        fprintf(o, "%.6f", v);
    else
        fputs("null", o); /* a bare nan is not JSON */
}

/* Element i of an array column, as JSON. */
static void json_elem(FILE *o, const col *c, uint32_t i) {
    switch (c->f.type) {
    case NMP_F_I32S: fprintf(o, "%d", nmp_field_i32_at(&c->f, i)); break;
    case NMP_F_I64S: fprintf(o, "%lld", (long long)nmp_field_i64_at(&c->f, i)); break;
    case NMP_F_F64S: json_num(o, nmp_field_f64_at(&c->f, i)); break;
    case NMP_F_STRS: json_str(o, c->s[i], c->sl[i]); break;
    default: fputs("null", o);
    }
}

static void json_scalar(FILE *o, const col *c) {
    switch (c->f.type) {
    case NMP_F_I64: fprintf(o, "%lld", (long long)c->f.i64); break;
    case NMP_F_F64: json_num(o, c->f.f64); break;
    case NMP_F_STR: json_str(o, c->f.data, c->f.n); break;
    default:
        fputc('[', o);
        for (uint32_t i = 0; i < c->f.n; i++) {
            if (i) fputs(", ", o);
            json_elem(o, c, i);
        }
        fputc(']', o);
    }
}

static int same_table(const col *a, const col *b) {
    return a->table_len && a->table_len == b->table_len && memcmp(a->f.name, b->f.name, a->table_len) == 0;
}

static int shown(const col *c, const nmp_print_opts *o) {
    size_t t = c->table_len;
    const char *n = c->f.name;
    if (t > RPFX_LEN && memcmp(n, RPFX, RPFX_LEN) == 0) n += RPFX_LEN, t -= RPFX_LEN; /* reverse.frames: as frames */
    if (t == 6 && memcmp(n, "frames", 6) == 0) return o->frames;
    if ((t == 7 && memcmp(n, "tcpInfo", 7) == 0) || (t == 8 && memcmp(n, "messages", 8) == 0)) return o->detail;
    return 1;
}

/* The rows of the table that starts at column t: the length of its first
 * column with one dot (a per-row value). */
static uint32_t table_rows(const result *r, size_t t) {
    for (size_t j = t; j < r->n; j++)
        if (same_table(&r->cols[t], &r->cols[j]) && is_array(&r->cols[j].f) &&
            memchr(r->cols[j].key, '.', r->cols[j].keylen) == NULL)
            return r->cols[j].f.n;
    return 0;
}

/* Writes table t (all its columns) as an array of row objects. */
static void json_table(FILE *o, result *r, size_t t) {
    uint32_t rows = table_rows(r, t);
    fprintf(o, "  \"%.*s\": [", (int)r->cols[t].table_len, r->cols[t].f.name);
    for (uint32_t i = 0; i < rows; i++) {
        fputs(i ? ",\n    {" : "\n    {", o);
        int first = 1;
        for (size_t j = t; j < r->n; j++) {
            col *c = &r->cols[j];
            if (!same_table(&r->cols[t], c) || !is_array(&c->f)) continue;
            const char *dot = memchr(c->key, '.', c->keylen);
            uint32_t per = rows && c->f.n % rows == 0 ? c->f.n / rows : 0;
            if (dot) {
                /* "table.sub.key": rows hold a list "sub" of objects; columns of one sub
                 * are written together, at the first of them */
                size_t sublen = (size_t)(dot - c->key);
                int seen_before = 0;
                for (size_t k = t; k < j && !seen_before; k++)
                    seen_before = same_table(&r->cols[t], &r->cols[k]) && r->cols[k].keylen > sublen &&
                                  memcmp(r->cols[k].key, c->key, sublen + 1) == 0;
                if (seen_before || per == 0) continue;
                fprintf(o, "%s\"%.*s\": [", first ? "" : ", ", (int)sublen, c->key);
                for (uint32_t e = 0; e < per; e++) {
                    fputs(e ? ", {" : "{", o);
                    int f2 = 1;
                    for (size_t k = j; k < r->n; k++) {
                        col *d = &r->cols[k];
                        if (!same_table(&r->cols[t], d) || d->keylen <= sublen ||
                            memcmp(d->key, c->key, sublen + 1) != 0 || d->f.n != c->f.n)
                            continue;
                        fprintf(o, "%s\"%.*s\": ", f2 ? "" : ", ", (int)(d->keylen - sublen - 1), d->key + sublen + 1);
                        json_elem(o, d, i * per + e);
                        f2 = 0;
                    }
                    fputc('}', o);
                }
                fputc(']', o);
            } else if (per == 1) {
                fprintf(o, "%s\"%.*s\": ", first ? "" : ", ", (int)c->keylen, c->key);
                json_elem(o, c, i);
            } else if (per > 1) {
                fprintf(o, "%s\"%.*s\": [", first ? "" : ", ", (int)c->keylen, c->key);
                for (uint32_t e = 0; e < per; e++) {
                    if (e) fputs(", ", o);
                    json_elem(o, c, i * per + e);
                }
                fputc(']', o);
            } else {
                continue;
            }
            first = 0;
        }
        fputc('}', o);
    }
    fputs(rows ? "\n  ]" : "]", o);
    for (size_t j = t; j < r->n; j++)
        if (same_table(&r->cols[t], &r->cols[j])) r->cols[j].printed = 1;
}

int nmp_print_json(FILE *f, const char *kind, const uint8_t *buf, size_t len, const nmp_print_opts *o) {
    result r;
    int rc = result_read(buf, len, &r);
    if (rc < 0) return rc;
    fprintf(f, "{\n  \"test\": \"%s\"", kind);
    for (size_t i = 0; i < r.n; i++) {
        col *c = &r.cols[i];
        if (c->printed) continue;
        if (c->table_len && !shown(c, o)) {
            c->printed = 1;
            continue;
        }
        fputs(",\n", f);
        if (c->table_len && is_array(&c->f)) {
            json_table(f, &r, i);
        } else {
            fprintf(f, "  \"%.*s\": ", (int)c->f.namelen, c->f.name);
            json_scalar(f, c);
        }
    }
    fputs("\n}\n", f);
    result_free(&r);
    return 0;
}

/* A value as text into b (n bytes). */
static void text_elem(char *b, size_t n, const col *c, uint32_t i) {
    switch (c->f.type) {
    case NMP_F_I32S: snprintf(b, n, "%d", nmp_field_i32_at(&c->f, i)); break;
    case NMP_F_I64S: snprintf(b, n, "%lld", (long long)nmp_field_i64_at(&c->f, i)); break;
    case NMP_F_F64S: {
        double v = nmp_field_f64_at(&c->f, i);
        snprintf(b, n, isfinite(v) ? "%.4f" : "-", v);
        break;
    }
    case NMP_F_STRS: snprintf(b, n, "%.*s", (int)c->sl[i], (const char *)c->s[i]); break;
    default: snprintf(b, n, "?");
    }
}

int nmp_print_text(FILE *f, const char *kind, const uint8_t *buf, size_t len, const nmp_print_opts *o) {
    result r;
    int rc = result_read(buf, len, &r);
    if (rc < 0) return rc;
    fprintf(f, "%s\n", kind);
    for (size_t i = 0; i < r.n; i++) { /* scalars first, aligned */
        col *c = &r.cols[i];
        if (c->table_len) continue;
        fprintf(f, "  %-28.*s ", (int)c->f.namelen, c->f.name);
        if (c->f.type == NMP_F_I64)
            fprintf(f, "%lld\n", (long long)c->f.i64);
        else if (c->f.type == NMP_F_F64)
            fprintf(f, isfinite(c->f.f64) ? "%.4f\n" : "-\n", c->f.f64);
        else if (c->f.type == NMP_F_STR)
            fprintf(f, "%.*s\n", (int)c->f.n, (const char *)c->f.data);
        else
            fprintf(f, "[%u values]\n", c->f.n);
    }
    for (size_t t = 0; t < r.n; t++) { /* then each table as columns */
        col *c = &r.cols[t];
        if (!c->table_len || c->printed || !shown(c, o)) continue;
        uint32_t rows = table_rows(&r, t);
        fprintf(f, "%.*s (%u)\n ", (int)c->table_len, c->f.name, rows);
        for (size_t j = t; j < r.n; j++)
            if (same_table(c, &r.cols[j]) && r.cols[j].f.n == rows && !memchr(r.cols[j].key, '.', r.cols[j].keylen))
                fprintf(f, " %14.*s", (int)(r.cols[j].keylen > 14 ? 14 : r.cols[j].keylen), r.cols[j].key);
        fputc('\n', f);
        for (uint32_t i = 0; i < rows; i++) {
            fputc(' ', f);
            for (size_t j = t; j < r.n; j++) {
                col *d = &r.cols[j];
                if (!same_table(c, d) || d->f.n != rows || memchr(d->key, '.', d->keylen)) continue;
                char b[64];
                text_elem(b, sizeof(b), d, i);
                fprintf(f, " %14s", b);
            }
            fputc('\n', f);
        }
        for (size_t j = t; j < r.n; j++)
            if (same_table(c, &r.cols[j])) r.cols[j].printed = 1;
    }
    result_free(&r);
    return 0;
}
