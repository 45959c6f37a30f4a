/* nmp_owampd_main.c -- the nmprobe-owampd daemon: OWAMP (RFC 4656) and TWAMP
 * (RFC 5357) server for owping, powstream, twping, routers' TWAMP clients
 * and nmws's own "owamp" / "twamp" kinds. Parses options, runs the server,
 * stops cleanly (exit 0) on SIGTERM / SIGINT. */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "nmp_opt.h"
#include "nmp_owampd.h"
#include "nmp_owctl.h"
#include "nmprobe.h"

static nmp_owampd *the_server; /* for the signal handler only */

static void on_signal(int sig) {
    (void)sig;
    if (the_server) nmp_owampd_stop(the_server);
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: nmprobe-owampd [options]\n"
            "  -b, --bind ADDR          bind address (default 0.0.0.0; :: for IPv6 and IPv4)\n"
            "      --owamp-port PORT    OWAMP-Control TCP port (default %d; 0 = any free; -1 = off)\n"
            "      --twamp-port PORT    TWAMP-Control TCP port (default %d; 0 = any free; -1 = off)\n"
            "      --modes LIST         modes offered: open,authenticated,encrypted,mixed (default open;\n"
            "                           mixed is TWAMP's, RFC 5618)\n"
            "      --key-file PATH      owampd pfs file: \"keyid hexkey\" per line, # comments, mode 600\n"
            "      --servwait SEC       close a control connection silent this long (default 60)\n"
            "      --max-conns N        control connections at once (default 64)\n"
            "      --max-sessions N     test sessions at once, all clients (default 32)\n"
            "      --max-per-client N   test sessions at once from one address (default 8)\n"
            "      --max-per-key N      test sessions at once under one key id (default 8)\n"
            "      --max-pps N          packets per second in one session (default 10000)\n"
            "      --max-mbps R         Mbit/s in one session (default 100)\n"
            "      --max-duration SEC   longest test session (default 300)\n"
            "      --max-packets N      most packets in one OWAMP session (default 1000000)\n"
            "      --test-ports LO-HI   UDP ports for test sessions (default: any free port)\n"
            "  -v, --verbose            a line per session (twice: per message)\n"
            "  -q, --quiet              log errors only\n"
            "  -V, --version            print the version\n"
            "  -h, --help               this help\n"
            "A refused session carries the RFC's Accept value: 4 for a request beyond the per-session\n"
            "limits, 5 for too many sessions at once, 3 for what is not supported, 1 for a bad key.\n",
            NMP_OW_OWAMP_PORT, NMP_OW_TWAMP_PORT);
}

static int num(const char *opt, const char *s, double lo, double hi, double *out) {
    return nmp_opt_num("nmprobe-owampd", opt, s, lo, hi, out);
}

int main(int argc, char **argv) {
    static const struct option opts[] = {
        {"bind", required_argument, NULL, 'b'},         {"owamp-port", required_argument, NULL, 'O'},
        {"twamp-port", required_argument, NULL, 'T'},   {"modes", required_argument, NULL, 'M'},
        {"key-file", required_argument, NULL, 'K'},     {"servwait", required_argument, NULL, 'W'},
        {"max-conns", required_argument, NULL, 'C'},    {"max-sessions", required_argument, NULL, 'S'},
        {"max-per-client", required_argument, NULL, 'A'}, {"max-per-key", required_argument, NULL, 'Y'},
        {"max-pps", required_argument, NULL, 'P'},      {"max-mbps", required_argument, NULL, 'R'},
        {"max-duration", required_argument, NULL, 'D'}, {"max-packets", required_argument, NULL, 'N'},
        {"test-ports", required_argument, NULL, 'X'},   {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},              {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},               {NULL, 0, NULL, 0}};
    nmp_owampd_cfg cfg;
    char err[NMP_ERRLEN];
    double v;
    int c;
    nmp_owampd_cfg_default(&cfg);
    while ((c = getopt_long(argc, argv, "b:vqVh", opts, NULL)) != -1) {
        switch (c) {
        case 'b': cfg.bind_addr = optarg; break;
        case 'O': if (num("--owamp-port", optarg, -1, 65535, &v) < 0) return 2; cfg.owamp_port = (int)v; break;
        case 'T': if (num("--twamp-port", optarg, -1, 65535, &v) < 0) return 2; cfg.twamp_port = (int)v; break;
        case 'M': {
            cfg.modes = 0;
            char *dup = strdup(optarg), *save = NULL;
            for (char *t = dup ? strtok_r(dup, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
                uint32_t m = nmp_ow_mode_parse(t);
                if (m == 0) {
                    fprintf(stderr, "nmprobe-owampd: --modes: \"%s\" is not open, authenticated, encrypted or mixed\n", t);
                    free(dup);
                    return 2;
                }
                cfg.modes |= m;
            }
            free(dup);
            break;
        }
        case 'K': cfg.key_file = optarg; break;
        case 'W': if (num("--servwait", optarg, 0.1, 86400, &v) < 0) return 2; cfg.servwait_ms = (uint32_t)(v * 1000); break;
        case 'C': if (num("--max-conns", optarg, 1, 100000, &v) < 0) return 2; cfg.max_conns = (uint32_t)v; break;
        case 'S': if (num("--max-sessions", optarg, 1, 100000, &v) < 0) return 2; cfg.max_sessions = (uint32_t)v; break;
        case 'A': if (num("--max-per-client", optarg, 1, 100000, &v) < 0) return 2; cfg.max_per_client = (uint32_t)v; break;
        case 'Y': if (num("--max-per-key", optarg, 1, 100000, &v) < 0) return 2; cfg.max_per_key = (uint32_t)v; break;
        case 'P': if (num("--max-pps", optarg, 1, 10000000, &v) < 0) return 2; cfg.max_pps = v; break;
        case 'R': if (num("--max-mbps", optarg, 0.001, 1e6, &v) < 0) return 2; cfg.max_mbps = v; break;
        case 'D': if (num("--max-duration", optarg, 1, 86400, &v) < 0) return 2; cfg.max_duration_ms = (uint32_t)(v * 1000); break;
        case 'N': if (num("--max-packets", optarg, 1, 100000000, &v) < 0) return 2; cfg.max_packets = (uint32_t)v; break;
        case 'X':
            if (sscanf(optarg, "%d-%d", &cfg.port_lo, &cfg.port_hi) != 2 || cfg.port_lo < 1 || cfg.port_hi > 65535 ||
                cfg.port_lo > cfg.port_hi) {
                fprintf(stderr, "nmprobe-owampd: --test-ports %s: want LO-HI within 1..65535\n", optarg);
                return 2;
            }
            break;
        case 'v': cfg.verbose++; break;
        case 'q': cfg.quiet = 1; break;
        case 'V': printf("nmprobe-owampd %s\n", NMP_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nmprobe-owampd: unexpected argument %s\n", argv[optind]);
        return 2;
    }
    /* the loop's timer sends test packets at their slots: the kernel's default 50 us of timer
     * slack would make every one that late (a process setting, so here and not in the library) */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (nmp_owampd_open(&cfg, &the_server, err, sizeof(err)) < 0) {
        fprintf(stderr, "nmprobe-owampd: %s\n", err);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int rc = nmp_owampd_run(the_server, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "nmprobe-owampd: %s\n", err);
    nmp_owampd *d = the_server;
    the_server = NULL;
    nmp_owampd_close(d);
    return rc < 0 ? 1 : 0;
}
