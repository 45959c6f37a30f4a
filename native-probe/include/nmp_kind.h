/* nmp_kind.h -- the table of measurement kinds: one row per test the engine runs.
 *
 * A kind names a test ("rr", "stream", "tcp", ...), describes its spec as a
 * table of fields (name, type, place in the spec struct, range, default, CLI
 * spelling, help), and runs it into a packed result (nmp_pack.h). The JNI
 * binding (one generic entry), the CLI (one subcommand per kind) and the C
 * tests all go through this table, so adding a kind is one engine file that
 * defines its nmp_kind and one row in nmp_kinds[] (nmp_kind.c). */
#ifndef NMP_KIND_H
#define NMP_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "nmp_pack.h"
#include "nmp_base.h"

/* How a spec field is stored in the kind's spec struct. */
typedef enum nmp_spec_type {
    NMP_S_STR,                       /* const char * (heap copy owned by the decoded spec; see nmp_spec_free) */
    NMP_S_INT,                       /* int */
    NMP_S_U32,                       /* uint32_t */
    NMP_S_U64,                       /* uint64_t */
    NMP_S_I64,                       /* int64_t */
    NMP_S_F64,                       /* double */
    NMP_S_BOOL,                      /* int, 0 or 1 (CLI: a flag without a value) */
    NMP_S_U32_LIST                   /* const uint32_t * at offset, its uint32_t count at count_offset
                                        (heap copy owned by the decoded spec; CLI: "64,128,1472") */
} nmp_spec_type;

/* One field of a spec. Ranges are inclusive and checked on every path in
 * (packed spec from Java, CLI option) before the test sees the value; for a
 * list they bound each element, and lo_count..hi_count bound its length. */
typedef struct nmp_spec_field {
    const char *name;                /* name in a packed spec (camelCase, e.g. "intervalNs") */
    nmp_spec_type type;
    size_t offset;                   /* offsetof(spec struct, member) */
    double lo, hi;                   /* accepted range of the stored value */
    double def;                      /* stored value when the field is absent (NMP_S_STR: must be given) */
    int required;                    /* nonzero: absent is an error */
    const char *cli;                 /* CLI long option without "--" (e.g. "interval-us"), NULL = not on the CLI */
    char cli_short;                  /* CLI short option, 0 = none */
    double cli_scale;                /* stored = CLI value * cli_scale (us -> ns: 1000); 0 means 1 */
    size_t count_offset;             /* NMP_S_U32_LIST: offsetof its uint32_t count */
    uint32_t lo_count, hi_count;     /* NMP_S_U32_LIST: accepted number of elements */
    const char *help;                /* one line for the CLI's --help */
} nmp_spec_field;

/* A measurement kind. */
typedef struct nmp_kind {
    const char *name;                /* "rr", "stream", ...: the CLI subcommand and the JNI kind */
    const char *summary;             /* one line for the CLI's usage */
    const nmp_spec_field *fields;    /* the spec's fields */
    size_t nfields;
    size_t spec_size;                /* sizeof the spec struct */
    /* Optional: checks fields against each other and fills defaults that
     * depend on other fields, after every field is set. Returns 0 or -EINVAL
     * with err set. */
    int (*check)(void *spec, char *err, size_t errlen);
    /* Runs the test and packs its result into out. A cancelled test still
     * packs what it measured, with "cancelled" = 1, and returns -ECANCELED;
     * any other failure returns -errno with err set (out then holds nothing
     * useful). 'spec' was decoded and checked through this table. */
    int (*run)(const void *spec, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen);
} nmp_kind;

/* Every kind, in CLI order; NULL-terminated. */
extern const nmp_kind *const nmp_kinds[];

/* The kind of that name, or NULL. */
const nmp_kind *nmp_kind_find(const char *name);

/* Fills spec (spec_size bytes) with every field's default. */
void nmp_spec_defaults(const nmp_kind *k, void *spec);
/* Decodes a packed spec into spec (defaults first, then the packed fields,
 * each checked against its range and type; an unknown name is an error),
 * then runs the kind's check. Returns 0, or -EINVAL / -ENOMEM with err set
 * ("rr: count 0 is outside 1..1000000"). Free with nmp_spec_free, also on
 * failure. */
int nmp_spec_unpack(const nmp_kind *k, const uint8_t *buf, size_t len, void *spec, char *err, size_t errlen);
/* Sets one field from text, as the CLI gives it (scaled by cli_scale,
 * range-checked). Returns 0 or -EINVAL / -ENOMEM with err set. */
int nmp_spec_set_text(const nmp_kind *k, const nmp_spec_field *f, void *spec, const char *text, char *err,
                      size_t errlen);
/* Frees what a decoded spec owns (strings, lists). */
void nmp_spec_free(const nmp_kind *k, void *spec);

/* ---- helpers for the kinds' run functions (packing tables of rows) ---- */

/* How a member of a row struct is stored. */
typedef enum nmp_col_type {
    NMP_C_INT,                       /* int */
    NMP_C_I32,                       /* int32_t */
    NMP_C_U32,                       /* uint32_t */
    NMP_C_I64,                       /* int64_t */
    NMP_C_U64                        /* uint64_t (values above INT64_MAX wrap, as a Java long) */
} nmp_col_type;

/* Packs member 'off' of n rows 'stride' bytes apart as one I64S column. An
 * allocation failure marks the pack failed (see nmp_pack_status). */
void nmp_pack_col_i64(nmp_pack *p, const char *name, const void *rows, size_t n, size_t stride, size_t off,
                      nmp_col_type t);
/* Packs the double member 'off' of n rows, each divided by div (1e6 turns
 * ns into ms exactly as the CLI always printed them), as one F64S column. */
void nmp_pack_col_f64(nmp_pack *p, const char *name, const void *rows, size_t n, size_t stride, size_t off,
                      double div);
/* Packs a boolean: nonzero as 1. */
void nmp_pack_bool(nmp_pack *p, const char *name, int v);

/* Decodes, checks and runs a packed spec: the one call the JNI binding makes.
 * On return *result is a packed result the caller frees (free()), or NULL. */
int nmp_kind_run_packed(const nmp_kind *k, const uint8_t *spec, size_t speclen, const nmp_control *ctl,
                        uint8_t **result, size_t *resultlen, char *err, size_t errlen);

#endif
