/* test_fuzz_corpus.c -- the libFuzzer seed corpus (test/fuzz-corpus) is real
 * and valid input, so fuzzing starts past the parsers' first bytes (issue 21:
 * 30 s from an empty corpus was a smoke run):
 *  - fuzz_ctl/: control lines as responders and clients send them, written by
 *    hand; each must parse, and each SESSION decode within default limits;
 *  - fuzz_spec/: a packed spec per kind, as Java packs them, written by this
 *    program (--write DIR): every field of the kind's table at its default
 *    (unless the default means "not given"), a short list for list fields,
 *    the strings given. Each must decode for the kind its file is
 *    named after.
 * usage: test_fuzz_corpus CORPUS_DIR          (check)
 *        test_fuzz_corpus --write CORPUS_DIR  (rewrite fuzz_spec/) */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_kind.h"
#include "nmp_net.h"
#include "nmp_test.h"
#include "nmprobe.h"

static const char *corpus;

/* A whole file into a heap buffer (caller frees); NULL on error. */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        if (n >= 0 && (b = malloc((size_t)n + 1)) != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
            free(b);
            b = NULL;
        }
        *len = (size_t)(n < 0 ? 0 : n);
    }
    fclose(f);
    return b;
}

/* A string value every kind accepts for a string field of that name. */
static const char *string_for(const char *field) {
    if (strcmp(field, "host") == 0) return "127.0.0.1";
    if (strcmp(field, "keyFile") == 0) return "/etc/nmws/responder.key";
    if (strcmp(field, "congestion") == 0) return "cubic";
    if (strcmp(field, "ptpSocket") == 0) return "/var/run/ptp4l";
    return NULL;
}

/* Packs kind k's spec: every number at its default (I64 for integer fields,
 * F64 for doubles, as Java packs them), lists of three, the strings
 * string_for gives. */
static int pack_spec(const nmp_kind *k, nmp_pack *p) {
    nmp_pack_init(p);
    for (size_t i = 0; i < k->nfields; i++) {
        const nmp_spec_field *f = &k->fields[i];
        switch (f->type) {
        case NMP_S_STR:
            if (string_for(f->name)) nmp_pack_str(p, f->name, string_for(f->name));
            break;
        case NMP_S_U32_LIST: {
            /* three values from the bottom of the range, each twice the last */
            int32_t v[3];
            uint32_t n = f->hi_count < 3 ? f->hi_count : 3;
            for (uint32_t j = 0; j < n; j++)
                v[j] = (int32_t)(j == 0 ? f->lo : v[j - 1] * 2 > f->hi ? f->hi : v[j - 1] * 2);
            if (n >= f->lo_count && n > 0) nmp_pack_i32s(p, f->name, v, n);
            break;
        }
        default: {
            /* a default outside the range means "not given": left out, or the range's
             * bottom when the field is required (avail's maxMbps) */
            double v = f->def;
            if (!(v >= f->lo && v <= f->hi)) {
                if (!f->required) break;
                v = f->lo;
            }
            if (f->type == NMP_S_F64)
                nmp_pack_f64(p, f->name, v);
            else
                nmp_pack_i64(p, f->name, (int64_t)v);
            break;
        }
        }
    }
    return nmp_pack_status(p);
}

static int write_specs(const char *dir) {
    char path[512];
    for (const nmp_kind *const *k = nmp_kinds; *k; k++) {
        nmp_pack p;
        size_t len;
        if (pack_spec(*k, &p) < 0) return 1;
        uint8_t *b = nmp_pack_take(&p, &len);
        snprintf(path, sizeof(path), "%s/fuzz_spec/%s.bin", dir, (*k)->name);
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(b, 1, len, f) != len || fclose(f) != 0) {
            perror(path);
            free(b);
            return 1;
        }
        printf("%s: %zu bytes\n", path, len);
        free(b);
    }
    return 0;
}

TEST(every_control_line_seed_parses_and_every_session_decodes) {
    char dirpath[512], path[1024], err[NMP_ERRLEN];
    snprintf(dirpath, sizeof(dirpath), "%s/fuzz_ctl", corpus);
    DIR *d = opendir(dirpath);
    CHECK(d != NULL);
    if (d == NULL) return;
    int files = 0, sessions = 0;
    nmp_limits lim;
    nmp_limits_default(&lim);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof(path), "%s/%s", dirpath, e->d_name);
        size_t len = 0;
        uint8_t *b = slurp(path, &len);
        nmp_ctl_msg m;
        int rc = b ? nmp_ctl_parse((const char *)b, len, &m, err, sizeof(err)) : -EIO;
        if (rc < 0) fprintf(stderr, "  %s: %s\n", path, err);
        CHECK_EQ_INT(rc, 0);
        CHECK(b && len > 0 && b[len - 1] == '\n'); /* one whole line, as sent */
        if (rc == 0 && m.verb == NMP_CTL_SESSION) {
            nmp_session_req req;
            rc = nmp_ctl_session_decode(&m, &lim, &req, err, sizeof(err));
            if (rc < 0) fprintf(stderr, "  %s: %s\n", path, err);
            CHECK_EQ_INT(rc, 0);
            sessions++;
        }
        files++;
        free(b);
    }
    closedir(d);
    fprintf(stderr, "  %d control lines, %d of them SESSION\n", files, sessions);
    CHECK(files >= 10 && sessions >= 3);
}

TEST(every_kind_has_a_spec_seed_that_decodes) {
    char path[1024], err[NMP_ERRLEN];
    for (const nmp_kind *const *k = nmp_kinds; *k; k++) {
        snprintf(path, sizeof(path), "%s/fuzz_spec/%s.bin", corpus, (*k)->name);
        size_t len = 0;
        uint8_t *b = slurp(path, &len);
        CHECK(b != NULL);
        if (b == NULL) {
            fprintf(stderr, "  %s missing (test_fuzz_corpus --write %s)\n", path, corpus);
            continue;
        }
        _Alignas(max_align_t) unsigned char spec[1024];
        CHECK((*k)->spec_size <= sizeof(spec));
        int rc = nmp_spec_unpack(*k, b, len, spec, err, sizeof(err));
        if (rc < 0) fprintf(stderr, "  %s: %s\n", path, err);
        CHECK_EQ_INT(rc, 0);
        nmp_spec_free(*k, spec);
        /* and it is what this program writes now: the seeds follow the kinds' tables */
        nmp_pack p;
        size_t plen;
        CHECK_EQ_INT(pack_spec(*k, &p), 0);
        uint8_t *want = nmp_pack_take(&p, &plen);
        CHECK(plen == len && memcmp(want, b, len) == 0);
        if (plen != len || memcmp(want, b, len) != 0)
            fprintf(stderr, "  %s is stale: test_fuzz_corpus --write %s\n", path, corpus);
        free(want);
        free(b);
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write") == 0) return write_specs(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: %s [--write] CORPUS_DIR\n", argv[0]);
        return 2;
    }
    corpus = argv[1];
    RUN(every_control_line_seed_parses_and_every_session_decodes);
    RUN(every_kind_has_a_spec_seed_that_decodes);
    return nmp_test_failures != 0;
}
