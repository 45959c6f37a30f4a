/* nmp_cli_main.c -- the nmprobe command line: one subcommand per measurement
 * kind in the engine's table (nmp_kind.h). A kind's options are generated
 * from its spec fields (name, range, default, help) and its result is
 * printed from the packed result (nmp_cli_print.c), so the CLI has no
 * per-test option parsing or printing. Ctrl-C cancels a test and prints what
 * was measured so far. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_cli_print.h"
#include "nmp_kind.h"

#define MAX_OPTS 64                  /* spec fields plus the CLI's own options */

enum { OPT_JSON = 1000, OPT_FRAMES, OPT_DETAIL, OPT_HELP, OPT_FIELD };

static volatile int32_t cancel_flag; /* set by SIGINT / SIGTERM */

static void on_signal(int sig) {
    (void)sig;
    cancel_flag = 1;
}

static void usage(FILE *f) {
    fprintf(f, "usage: nmprobe KIND [options]   (nmprobe KIND --help lists a kind's options)\n");
    for (const nmp_kind *const *k = nmp_kinds; *k; k++) fprintf(f, "  %-10s %s\n", (*k)->name, (*k)->summary);
    fprintf(f, "every kind: --json (print JSON), --frames (per-frame records), --detail (detail tables), "
               "-h/--help\n");
}

/* The unit an option's name ends in, for the help text. */
static const char *unit_of(const char *cli) {
    const char *dash = strrchr(cli, '-');
    return dash && (strcmp(dash, "-us") == 0 || strcmp(dash, "-ms") == 0 || strcmp(dash, "-s") == 0 ||
                    strcmp(dash, "-mbps") == 0)
               ? dash + 1
               : "";
}

/* Prints a number of the stored unit as the CLI takes it (scaled back). */
static void fmt_cli(char *b, size_t n, const nmp_spec_field *fd, double v) {
    double scale = fd->cli_scale > 0 ? fd->cli_scale : 1;
    snprintf(b, n, "%g", v / scale);
}

static void kind_usage(FILE *f, const nmp_kind *k) {
    fprintf(f, "usage: nmprobe %s [options]\n  %s\n", k->name, k->summary);
    for (size_t i = 0; i < k->nfields; i++) {
        const nmp_spec_field *fd = &k->fields[i];
        if (fd->cli == NULL) continue;
        char opt[64], range[96] = "", def[48] = "";
        snprintf(opt, sizeof(opt), "%c%c%s--%s%s", fd->cli_short ? '-' : ' ', fd->cli_short ? fd->cli_short : ' ',
                 fd->cli_short ? ", " : "  ", fd->cli,
                 fd->type == NMP_S_BOOL ? "" : fd->type == NMP_S_U32_LIST ? " LIST" : fd->type == NMP_S_STR ? " TEXT" : " N");
        if (fd->type != NMP_S_STR && fd->type != NMP_S_BOOL) {
            char lo[24], hi[24];
            fmt_cli(lo, sizeof(lo), fd, fd->lo);
            fmt_cli(hi, sizeof(hi), fd, fd->hi);
            snprintf(range, sizeof(range), ", %s..%s%s%s", lo, hi, *unit_of(fd->cli) ? " " : "", unit_of(fd->cli));
        }
        if (fd->required)
            snprintf(def, sizeof(def), ", required");
        else if (fd->type != NMP_S_STR && fd->type != NMP_S_BOOL && fd->type != NMP_S_U32_LIST) {
            char d[24];
            fmt_cli(d, sizeof(d), fd, fd->def);
            snprintf(def, sizeof(def), ", default %s", d);
        }
        fprintf(f, "  %-28s %s%s%s\n", opt, fd->help ? fd->help : "", range, def);
    }
    fprintf(f, "  %-28s %s\n  %-28s %s\n  %-28s %s\n  %-28s %s\n", "    --json", "print JSON", "    --frames",
            "include per-frame records", "    --detail", "include detail tables", "-h, --help", "this help");
}

/* Parses a kind's options into spec. Returns 0, 1 after --help, or 2 on a
 * bad option (message printed). */
static int parse(const nmp_kind *k, int argc, char **argv, void *spec, int *json, nmp_print_opts *po) {
    struct option opts[MAX_OPTS + 1];
    char shorts[2 * MAX_OPTS + 2] = "h";
    unsigned char seen[MAX_OPTS] = {0};
    size_t n = 0, sn = 1;
    char err[NMP_ERRLEN];
    for (size_t i = 0; i < k->nfields && n < MAX_OPTS - 4; i++) {
        const nmp_spec_field *fd = &k->fields[i];
        if (fd->cli == NULL) continue;
        int arg = fd->type == NMP_S_BOOL ? no_argument : required_argument;
        opts[n++] = (struct option){fd->cli, arg, NULL, OPT_FIELD + (int)i};
        if (fd->cli_short) {
            shorts[sn++] = fd->cli_short;
            if (arg == required_argument) shorts[sn++] = ':';
        }
    }
    opts[n++] = (struct option){"json", no_argument, NULL, OPT_JSON};
    opts[n++] = (struct option){"frames", no_argument, NULL, OPT_FRAMES};
    opts[n++] = (struct option){"detail", no_argument, NULL, OPT_DETAIL};
    opts[n++] = (struct option){"help", no_argument, NULL, OPT_HELP};
    opts[n] = (struct option){NULL, 0, NULL, 0};
    shorts[sn] = '\0';
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        const nmp_spec_field *fd = NULL;
        if (c >= OPT_FIELD) {
            fd = &k->fields[c - OPT_FIELD];
        } else if (c > 0 && c < 256 && c != 'h') {
            for (size_t i = 0; i < k->nfields && fd == NULL; i++)
                if (k->fields[i].cli && k->fields[i].cli_short == c) fd = &k->fields[i];
        }
        if (fd) {
            if (nmp_spec_set_text(k, fd, spec, optarg, err, sizeof(err)) < 0) {
                fprintf(stderr, "nmprobe %s: %s\n", k->name, err);
                return 2;
            }
            seen[fd - k->fields] = 1;
            continue;
        }
        switch (c) {
        case OPT_JSON: *json = 1; break;
        case OPT_FRAMES: po->frames = 1; break;
        case OPT_DETAIL: po->detail = 1; break;
        case 'h':
        case OPT_HELP: kind_usage(stdout, k); return 1;
        default: kind_usage(stderr, k); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nmprobe %s: unexpected argument %s\n", k->name, argv[optind]);
        return 2;
    }
    for (size_t i = 0; i < k->nfields; i++)
        if (k->fields[i].required && !seen[i]) {
            fprintf(stderr, "nmprobe %s: --%s is required\n", k->name, k->fields[i].cli ? k->fields[i].cli : k->fields[i].name);
            return 2;
        }
    if (k->check && k->check(spec, err, sizeof(err)) < 0) {
        fprintf(stderr, "nmprobe %s: %s\n", k->name, err);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const nmp_kind *k = nmp_kind_find(argv[1]);
    if (k == NULL) {
        fprintf(stderr, "nmprobe: unknown command %s (want", argv[1]);
        for (const nmp_kind *const *p = nmp_kinds; *p; p++) fprintf(stderr, " %s", (*p)->name);
        fprintf(stderr, ")\n");
        return 2;
    }
    /* spec structs are small; aligned storage avoids a heap allocation per run */
    _Alignas(max_align_t) unsigned char spec[1024];
    if (k->spec_size > sizeof(spec)) return 2;
    int json = 0, rc;
    nmp_print_opts po = {0};
    nmp_spec_defaults(k, spec);
    int prc = parse(k, argc - 1, argv + 1, spec, &json, &po);
    if (prc != 0) {
        nmp_spec_free(k, spec);
        return prc == 1 ? 0 : 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    nmp_control ctl = {.cancel = &cancel_flag};
    nmp_pack out;
    char err[NMP_ERRLEN] = "";
    nmp_pack_init(&out);
    rc = k->run(spec, &ctl, &out, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        fprintf(stderr, "nmprobe %s: %s\n", k->name, err);
        goto end;
    }
    if (rc == -ECANCELED) fprintf(stderr, "nmprobe %s: %s\n", k->name, err);
    if (nmp_pack_status(&out) < 0 ||
        (json ? nmp_print_json(stdout, k->name, out.buf, out.len, &po)
              : nmp_print_text(stdout, k->name, out.buf, out.len, &po)) < 0) {
        fprintf(stderr, "nmprobe %s: the result could not be printed\n", k->name);
        rc = -EINVAL;
    }
end:
    nmp_pack_free(&out);
    nmp_spec_free(k, spec);
    return rc < 0 ? 1 : 0;
}
