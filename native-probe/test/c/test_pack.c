/* test_pack.c -- the packed-field format (nmp_pack.h) and spec decoding
 * through the kinds' field tables (nmp_kind.h): every field type round
 * trips; a buffer cut at any byte, or with any length field inflated, is
 * refused with -EINVAL and never read past its end; a spec with an unknown
 * name, a wrong type, an out-of-range value or a missing required field is
 * refused with a message naming the field. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nmprobe.h"
#include "nmp_kind.h"
#include "nmp_test.h"

/* A buffer holding one field of every type. */
static uint8_t *pack_all(size_t *len) {
    nmp_pack p;
    nmp_pack_init(&p);
    const int32_t i32[] = {-1, 0, 2147483647};
    const int64_t i64[] = {INT64_MIN, -1, INT64_MAX};
    const double f64[] = {-0.5, 1e300, NAN};
    const char *strs[] = {"a", NULL, "10.0.0.1"};
    const char fixed[3][8] = {"x", "", "1234567"};
    nmp_pack_i64(&p, "i", -42);
    nmp_pack_f64(&p, "f", 3.25);
    nmp_pack_str(&p, "s", "h\xc3\xa9llo");
    nmp_pack_str(&p, "empty", NULL);
    nmp_pack_i32s(&p, "t.i32", i32, 3);
    nmp_pack_i64s(&p, "t.i64", i64, 3);
    nmp_pack_f64s(&p, "t.f64", f64, 3);
    nmp_pack_strs(&p, "t.strs", strs, 3);
    nmp_pack_strs_fixed(&p, "t.fixed", fixed[0], sizeof(fixed[0]), 3);
    nmp_pack_i64s(&p, "none", NULL, 0);
    CHECK_EQ_INT(nmp_pack_status(&p), 0);
    return nmp_pack_take(&p, len);
}

TEST(every_field_type_round_trips) {
    size_t len;
    uint8_t *b = pack_all(&len);
    char err[NMP_ERRLEN];
    nmp_field f;
    CHECK_EQ_INT(nmp_unpack_find(b, len, "i", &f, err, sizeof(err)), 1);
    CHECK_EQ_INT(f.type, NMP_F_I64);
    CHECK_EQ_INT(f.i64, -42);
    CHECK_EQ_INT(nmp_unpack_find(b, len, "f", &f, err, sizeof(err)), 1);
    CHECK(f.type == NMP_F_F64 && f.f64 == 3.25);
    CHECK_EQ_INT(nmp_unpack_find(b, len, "s", &f, err, sizeof(err)), 1);
    CHECK(f.type == NMP_F_STR && f.n == 6 && memcmp(f.data, "h\xc3\xa9llo", 6) == 0);
    CHECK_EQ_INT(nmp_unpack_find(b, len, "empty", &f, err, sizeof(err)), 1);
    CHECK(f.type == NMP_F_STR && f.n == 0);
    CHECK_EQ_INT(nmp_unpack_find(b, len, "t.i32", &f, err, sizeof(err)), 1);
    CHECK(f.type == NMP_F_I32S && f.n == 3);
    CHECK_EQ_INT(nmp_field_i32_at(&f, 0), -1);
    CHECK_EQ_INT(nmp_field_i32_at(&f, 2), 2147483647);
    CHECK_EQ_INT(nmp_unpack_find(b, len, "t.i64", &f, err, sizeof(err)), 1);
    CHECK(f.type == NMP_F_I64S && f.n == 3);
    CHECK(nmp_field_i64_at(&f, 0) == INT64_MIN && nmp_field_i64_at(&f, 2) == INT64_MAX);
    CHECK_EQ_INT(nmp_unpack_find(b, len, "t.f64", &f, err, sizeof(err)), 1);
    CHECK(f.type == NMP_F_F64S && f.n == 3 && nmp_field_f64_at(&f, 1) == 1e300 && isnan(nmp_field_f64_at(&f, 2)));
    const char *want[] = {"a", "", "10.0.0.1"};
    const char *want_fixed[] = {"x", "", "1234567"};
    const char *names[] = {"t.strs", "t.fixed"};
    for (int w = 0; w < 2; w++) {
        CHECK_EQ_INT(nmp_unpack_find(b, len, names[w], &f, err, sizeof(err)), 1);
        CHECK(f.type == NMP_F_STRS && f.n == 3);
        size_t pos = 0;
        const uint8_t *s;
        uint32_t sl;
        for (int i = 0; i < 3; i++) {
            const char *x = w ? want_fixed[i] : want[i];
            CHECK_EQ_INT(nmp_field_strs_next(&f, &pos, &s, &sl), 1);
            CHECK(sl == strlen(x) && memcmp(s, x, sl) == 0);
        }
        CHECK_EQ_INT(nmp_field_strs_next(&f, &pos, &s, &sl), 0);
    }
    CHECK_EQ_INT(nmp_unpack_find(b, len, "none", &f, err, sizeof(err)), 1);
    CHECK(f.type == NMP_F_I64S && f.n == 0);
    CHECK_EQ_INT(nmp_unpack_find(b, len, "absent", &f, err, sizeof(err)), 0);
    free(b);
}

/* Walks every field; returns the last nmp_unpack_next code (0 = clean end). */
static int walk(const uint8_t *b, size_t len, char *err, size_t errlen) {
    size_t off = 0;
    nmp_field f;
    int rc;
    while ((rc = nmp_unpack_next(b, len, &off, &f, err, errlen)) == 1) {
        if (off > len) return 99; /* read past the end */
    }
    return rc;
}

TEST(a_buffer_cut_at_any_byte_inside_a_field_is_refused) {
    size_t len;
    uint8_t *b = pack_all(&len);
    char err[NMP_ERRLEN];
    /* the offsets where a field starts: a cut there is a shorter valid buffer */
    unsigned char *starts = calloc(len + 1, 1);
    size_t off = 0;
    nmp_field f;
    starts[0] = 1;
    while (nmp_unpack_next(b, len, &off, &f, err, sizeof(err)) == 1) starts[off] = 1;
    CHECK_EQ_INT(off, len);
    for (size_t cut = 0; cut <= len; cut++) {
        uint8_t *c = malloc(cut ? cut : 1); /* exact size: ASan sees any over-read */
        memcpy(c, b, cut);
        err[0] = '\0';
        int rc = walk(c, cut, err, sizeof(err));
        if (starts[cut]) {
            CHECK_EQ_INT(rc, 0);
        } else {
            CHECK_EQ_INT(rc, -EINVAL);
            CHECK(err[0] != '\0');
        }
        free(c);
    }
    free(starts);
    free(b);
}

TEST(malformed_headers_lengths_and_types_are_refused) {
    size_t len;
    uint8_t *b = pack_all(&len);
    char err[NMP_ERRLEN];
    /* every byte set to each of a few hostile values: refused or parsed, never read out of bounds */
    const uint8_t evil[] = {0x00, 0x08, 0x40, 0x7f, 0xff};
    for (size_t i = 0; i < len; i++)
        for (size_t e = 0; e < sizeof(evil); e++) {
            uint8_t *c = malloc(len);
            memcpy(c, b, len);
            c[i] = evil[e];
            int rc = walk(c, len, err, sizeof(err));
            CHECK(rc == 0 || rc == -EINVAL);
            free(c);
        }
    uint8_t bad_type[] = {9, 1, 'x', 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(walk(bad_type, sizeof(bad_type), err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "unknown type") != NULL);
    uint8_t bad_name[] = {1, 1, '-', 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(walk(bad_name, sizeof(bad_name), err, sizeof(err)), -EINVAL);
    uint8_t no_name[] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(walk(no_name, sizeof(no_name), err, sizeof(err)), -EINVAL);
    uint8_t huge[] = {NMP_F_I64S, 1, 'a', 0xff, 0xff, 0xff, 0xff};
    CHECK_EQ_INT(walk(huge, sizeof(huge), err, sizeof(err)), -EINVAL);
    uint8_t huge_strs[] = {NMP_F_STRS, 1, 'a', 2, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f};
    CHECK_EQ_INT(walk(huge_strs, sizeof(huge_strs), err, sizeof(err)), -EINVAL);
    free(b);
}

TEST(packing_refuses_bad_names) {
    nmp_pack p;
    nmp_pack_init(&p);
    nmp_pack_i64(&p, "bad name", 1);
    CHECK_EQ_INT(nmp_pack_status(&p), -EINVAL);
    nmp_pack_i64(&p, "good", 1); /* a no-op after the failure */
    CHECK_EQ_INT(p.len, 0);
    nmp_pack_free(&p);
    char longname[NMP_PACK_NAME_MAX + 2];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    nmp_pack_init(&p);
    nmp_pack_i64(&p, longname, 1);
    CHECK_EQ_INT(nmp_pack_status(&p), -EINVAL);
    nmp_pack_free(&p);
}

/* Decodes a spec packed by fill(); returns the nmp_spec_unpack code. */
static int decode(const char *kind, void (*fill)(nmp_pack *), char *err, size_t errlen) {
    const nmp_kind *k = nmp_kind_find(kind);
    nmp_pack p;
    nmp_pack_init(&p);
    fill(&p);
    _Alignas(max_align_t) unsigned char spec[1024];
    err[0] = '\0';
    int rc = nmp_spec_unpack(k, p.buf, p.len, spec, err, errlen);
    nmp_spec_free(k, spec);
    nmp_pack_free(&p);
    return rc;
}

static void rr_ok(nmp_pack *p) {
    nmp_pack_str(p, "host", "127.0.0.1");
    nmp_pack_i64(p, "count", 5);
}
static void rr_unknown(nmp_pack *p) {
    rr_ok(p);
    nmp_pack_i64(p, "bogus", 1);
}
static void rr_wrong_type(nmp_pack *p) {
    nmp_pack_str(p, "host", "127.0.0.1");
    nmp_pack_f64(p, "count", 5);
}
static void rr_range(nmp_pack *p) {
    nmp_pack_str(p, "host", "127.0.0.1");
    nmp_pack_i64(p, "count", 0);
}
static void rr_huge(nmp_pack *p) {
    nmp_pack_str(p, "host", "127.0.0.1");
    nmp_pack_i64(p, "intervalNs", INT64_MAX);
}
static void rr_missing_host(nmp_pack *p) { nmp_pack_i64(p, "count", 5); }
static void rr_twice(nmp_pack *p) {
    rr_ok(p);
    nmp_pack_i64(p, "count", 6);
}
static void rr_nul_host(nmp_pack *p) {
    const uint8_t field[] = {NMP_F_STR, 4, 'h', 'o', 's', 't', 3, 0, 0, 0, 'a', 0, 'b'};
    memcpy(p->buf = malloc(sizeof(field)), field, sizeof(field));
    p->len = p->cap = sizeof(field);
}
static void avail_no_max(nmp_pack *p) { nmp_pack_str(p, "host", "h"); }
static void avail_nan(nmp_pack *p) {
    nmp_pack_str(p, "host", "h");
    nmp_pack_f64(p, "maxMbps", NAN);
}
static void avail_min_above_max(nmp_pack *p) {
    nmp_pack_str(p, "host", "h");
    nmp_pack_f64(p, "maxMbps", 10);
    nmp_pack_f64(p, "minMbps", 20);
}
static void avail_ok(nmp_pack *p) {
    nmp_pack_str(p, "host", "h");
    nmp_pack_i64(p, "maxMbps", 10); /* an I64 is taken for an F64 field */
}
static void scan_one_size(nmp_pack *p) {
    const int32_t sizes[] = {64};
    nmp_pack_str(p, "host", "h");
    nmp_pack_i32s(p, "sizes", sizes, 1);
}
static void scan_size_range(nmp_pack *p) {
    const int32_t sizes[] = {64, 9001};
    nmp_pack_str(p, "host", "h");
    nmp_pack_i32s(p, "sizes", sizes, 2);
}
static void tcp_cbr_without_period(nmp_pack *p) {
    nmp_pack_str(p, "host", "h");
    nmp_pack_i64(p, "cbr", 1);
}
static void tcp_bool_range(nmp_pack *p) {
    nmp_pack_str(p, "host", "h");
    nmp_pack_i64(p, "cbr", 2);
}
static void hopcap_skip(nmp_pack *p) {
    nmp_pack_str(p, "host", "h");
    nmp_pack_i64(p, "trainLen", 4);
    nmp_pack_i64(p, "skip", 3);
}
static void capacity_frames(nmp_pack *p) {
    nmp_pack_str(p, "host", "h");
    nmp_pack_i64(p, "trains", 1000);
    nmp_pack_i64(p, "trainLen", 10000);
}
static void nothing(nmp_pack *p) { (void)p; }

TEST(spec_decoding_refuses_unknown_names_wrong_types_ranges_and_missing_fields) {
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(decode("rr", rr_ok, err, sizeof(err)), 0);
    CHECK_EQ_INT(decode("rr", rr_unknown, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "unknown spec field 'bogus'") != NULL);
    CHECK_EQ_INT(decode("rr", rr_wrong_type, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "count has the wrong type") != NULL);
    CHECK_EQ_INT(decode("rr", rr_range, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "count 0 is outside") != NULL);
    CHECK_EQ_INT(decode("rr", rr_huge, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("rr", rr_missing_host, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "host is required") != NULL);
    CHECK_EQ_INT(decode("rr", rr_twice, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "given twice") != NULL);
    CHECK_EQ_INT(decode("rr", rr_nul_host, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("avail", avail_no_max, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "maxMbps is required") != NULL);
    CHECK_EQ_INT(decode("avail", avail_nan, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("avail", avail_min_above_max, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("avail", avail_ok, err, sizeof(err)), 0);
    CHECK_EQ_INT(decode("scan", scan_one_size, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("scan", scan_size_range, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("tcp", tcp_cbr_without_period, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("tcp", tcp_bool_range, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("hopcap", hopcap_skip, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("capacity", capacity_frames, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(decode("clock", nothing, err, sizeof(err)), 0);
    /* every kind with a required field refuses an empty spec */
    for (const nmp_kind *const *k = nmp_kinds; *k; k++) {
        int required = 0;
        for (size_t i = 0; i < (*k)->nfields; i++) required |= (*k)->fields[i].required;
        if (required) CHECK_EQ_INT(decode((*k)->name, nothing, err, sizeof(err)), -EINVAL);
    }
}

TEST(defaults_and_values_land_in_the_spec_struct) {
    const nmp_kind *k = nmp_kind_find("rr");
    nmp_pack p;
    nmp_pack_init(&p);
    nmp_pack_str(&p, "host", "::1");
    nmp_pack_i64(&p, "timeoutNs", 123456789012LL / 10);
    char err[NMP_ERRLEN];
    nmp_rr_spec s;
    CHECK_EQ_INT(nmp_spec_unpack(k, p.buf, p.len, &s, err, sizeof(err)), 0);
    CHECK(s.host && strcmp(s.host, "::1") == 0);
    CHECK_EQ_INT(s.port, NMP_DEFAULT_PORT);
    CHECK_EQ_INT(s.count, 10);
    CHECK_EQ_INT(s.size, 64);
    CHECK_EQ_INT(s.interval_ns, 1000000);
    CHECK_EQ_INT(s.timeout_ns, 12345678901LL);
    nmp_spec_free(k, &s);
    nmp_pack_free(&p);
    /* every kind's table: names packable, defaults inside the ranges, CLI scale sane */
    for (const nmp_kind *const *kk = nmp_kinds; *kk; kk++)
        for (size_t i = 0; i < (*kk)->nfields; i++) {
            const nmp_spec_field *f = &(*kk)->fields[i];
            nmp_pack q;
            nmp_pack_init(&q);
            nmp_pack_i64(&q, f->name, 0);
            CHECK_EQ_INT(nmp_pack_status(&q), 0);
            nmp_pack_free(&q);
            if (f->type != NMP_S_STR && f->type != NMP_S_U32_LIST && !f->required)
                CHECK(f->def >= f->lo && f->def <= f->hi);
            CHECK(f->hi < 9.2e18 && f->lo > -9.2e18);
        }
}

TEST(cli_text_is_scaled_and_range_checked) {
    const nmp_kind *k = nmp_kind_find("rr");
    nmp_rr_spec s;
    char err[NMP_ERRLEN];
    nmp_spec_defaults(k, &s);
    const nmp_spec_field *iv = NULL;
    for (size_t i = 0; i < k->nfields; i++)
        if (strcmp(k->fields[i].name, "intervalNs") == 0) iv = &k->fields[i];
    CHECK(iv != NULL && iv->cli_short == 'i' && strcmp(iv->cli, "interval-us") == 0);
    CHECK_EQ_INT(nmp_spec_set_text(k, iv, &s, "2.5", err, sizeof(err)), 0);
    CHECK_EQ_INT(s.interval_ns, 2500);
    CHECK_EQ_INT(nmp_spec_set_text(k, iv, &s, "0x10", err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(nmp_spec_set_text(k, iv, &s, "60000001", err, sizeof(err)), -EINVAL);
    nmp_spec_free(k, &s);
}

int main(void) {
    RUN(every_field_type_round_trips);
    RUN(a_buffer_cut_at_any_byte_inside_a_field_is_refused);
    RUN(malformed_headers_lengths_and_types_are_refused);
    RUN(packing_refuses_bad_names);
    RUN(spec_decoding_refuses_unknown_names_wrong_types_ranges_and_missing_fields);
    RUN(defaults_and_values_land_in_the_spec_struct);
    RUN(cli_text_is_scaled_and_range_checked);
    return nmp_test_failures ? 1 : 0;
}
