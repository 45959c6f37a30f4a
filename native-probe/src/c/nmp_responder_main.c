/* nmp_responder_main.c -- the nmprobe-responder daemon: parses options,
 * runs the responder engine, stops cleanly (exit 0) on SIGTERM / SIGINT. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "nmprobe.h"
#include "nmp_opt.h"
#include "nmp_stamp.h"

static nmp_responder *the_responder; /* for the signal handler only */

static void on_signal(int sig) {
    (void)sig;
    if (the_responder) nmp_responder_stop(the_responder);
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: nmprobe-responder [options]\n"
            "  -p, --port PORT          control port (default %d)\n"
            "  -b, --bind ADDR          bind address (default 0.0.0.0; :: for IPv6 and IPv4)\n"
            "      --max-rate-mbps R    refuse sessions offering more than R Mbit/s (default 0 = no limit)\n"
            "      --max-frames N       refuse sessions of more than N frames (default 1000000)\n"
            "      --max-size BYTES     refuse frames larger than this (default and maximum %d)\n"
            "      --max-duration SEC   refuse sessions longer than SEC seconds (default 120)\n"
            "      --idle-timeout SEC   end a session silent for SEC seconds past when its own schedule\n"
            "                           (frames x interval, then its timeout) had it due (default 1)\n"
            "      --stamp-port PORT    also reflect STAMP / TWAMP-Light test packets on this UDP port\n"
            "                           (%d is the standard one; default: no reflector)\n"
            "      --stamp-stateful     number reflections per session (shows loss on the way there)\n"
            "      --stamp-max-pps N    reflect at most N packets a second (default 10000)\n"
            "      --stamp-source-pps N reflect at most N packets a second to one source address\n"
            "                           (default a quarter of --stamp-max-pps)\n"
            "      --stamp-key-file PATH reflect authenticated STAMP only (RFC 8762 4.2.2, HMAC-SHA-256),\n"
            "                           with the keys of this file: \"KEYID HEXKEY\" a line (owampd's\n"
            "                           pfs format), mode 600; a packet no key verifies is dropped\n"
            "      --key-file PATH      admit only sessions that prove they hold this shared key\n"
            "                           (HMAC-SHA256 challenge-response; 16..1024 bytes, mode 600)\n"
            "      --auth-address A:P   with --key-file: clients also dial this responder at A:P\n"
            "                           ([A]:P for IPv6; a port-forwarding NAT in between); the\n"
            "                           MAC binds the address dialled. Comma-separated, at most 4\n"
            "      --sessions N         serve up to N shared sessions at once (light tests a client\n"
            "                           marks class=normal or background: round trips, one-way\n"
            "                           streams); an exclusive one (tcp, unmarked) still runs alone\n"
            "                           (default 1, at most %d)\n"
            "      --ptp-socket PATH    ptp4l's management socket, asked for this clock's PTP state\n"
            "                           (default " NMP_PTP_DEFAULT_SOCKET ")\n"
            "  -v, --verbose            log more (repeat for debug)\n"
            "  -q, --quiet              log errors only\n"
            "  -V, --version            print the version\n"
            "  -h, --help               this help\n",
            NMP_DEFAULT_PORT, NMP_FRAME_MAX, NMP_STAMP_PORT, NMP_RESPONDER_SESSIONS_MAX);
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out) {
    return nmp_opt_num("nmprobe-responder", opt, s, lo, hi, out);
}

int main(int argc, char **argv) {
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},     {"bind", required_argument, NULL, 'b'},
        {"max-rate-mbps", required_argument, NULL, 'r'}, {"max-frames", required_argument, NULL, 'f'},
        {"max-size", required_argument, NULL, 's'}, {"max-duration", required_argument, NULL, 'd'},
        {"idle-timeout", required_argument, NULL, 'i'}, {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},          {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},           {"stamp-port", required_argument, NULL, 'S'},
        {"stamp-stateful", no_argument, NULL, 'T'}, {"stamp-max-pps", required_argument, NULL, 'P'},
        {"stamp-source-pps", required_argument, NULL, 'Q'}, {"stamp-key-file", required_argument, NULL, 'k'},
        {"key-file", required_argument, NULL, 'K'}, {"auth-address", required_argument, NULL, 'A'}, {"ptp-socket", required_argument, NULL, 'C'},
        {"sessions", required_argument, NULL, 'N'}, {NULL, 0, NULL, 0}};
    nmp_responder_cfg cfg;
    char err[NMP_ERRLEN];
    double v;
    int c;
    nmp_responder_cfg_default(&cfg);
    while ((c = getopt_long(argc, argv, "p:b:vqVh", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (parse_num("--port", optarg, 0, 65535, &v) < 0) return 2;
            cfg.port = (int)v;
            break;
        case 'b': cfg.bind_addr = optarg; break;
        case 'r':
            if (parse_num("--max-rate-mbps", optarg, 0, 1e6, &v) < 0) return 2;
            cfg.limits.max_rate_mbps = v;
            break;
        case 'f':
            if (parse_num("--max-frames", optarg, 1, 100000000, &v) < 0) return 2;
            cfg.limits.max_frames = (uint32_t)v;
            break;
        case 's':
            if (parse_num("--max-size", optarg, NMP_FRAME_HDR, NMP_FRAME_MAX, &v) < 0) return 2;
            cfg.limits.max_size = (uint32_t)v;
            break;
        case 'd':
            if (parse_num("--max-duration", optarg, 1, 86400, &v) < 0) return 2;
            cfg.limits.max_duration_ms = (uint32_t)(v * 1000);
            break;
        case 'i':
            if (parse_num("--idle-timeout", optarg, 0.1, 3600, &v) < 0) return 2;
            cfg.idle_timeout_ms = (uint32_t)(v * 1000);
            break;
        case 'S':
            if (parse_num("--stamp-port", optarg, 0, 65535, &v) < 0) return 2;
            cfg.stamp_port = (int)v;
            break;
        case 'T': cfg.stamp_stateful = 1; break;
        case 'P':
            if (parse_num("--stamp-max-pps", optarg, 1, 10000000, &v) < 0) return 2;
            cfg.stamp_max_pps = (uint32_t)v;
            break;
        case 'Q':
            if (parse_num("--stamp-source-pps", optarg, 1, 10000000, &v) < 0) return 2;
            cfg.stamp_source_pps = (uint32_t)v;
            break;
        case 'N':
            if (parse_num("--sessions", optarg, 1, NMP_RESPONDER_SESSIONS_MAX, &v) < 0) return 2;
            cfg.max_sessions = (int)v;
            break;
        case 'K': cfg.key_file = optarg; break;
        case 'k': cfg.stamp_key_file = optarg; break;
        case 'A': cfg.auth_addresses = optarg; break;
        case 'C':
            if (strlen(optarg) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
                fprintf(stderr, "nmprobe-responder: --ptp-socket: path too long\n");
                return 2;
            }
            nmp_ptp_set_socket(optarg);
            break;
        case 'v': cfg.verbose++; break;
        case 'q': cfg.quiet = 1; break;
        case 'V': printf("nmprobe-responder %s\n", NMP_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nmprobe-responder: unexpected argument %s\n", argv[optind]);
        return 2;
    }
    if (cfg.stamp_key_file != NULL && cfg.stamp_port < 0) {
        fprintf(stderr, "nmprobe-responder: --stamp-key-file keys the STAMP reflector: give --stamp-port too\n");
        return 2;
    }
    if (nmp_responder_open(&cfg, &the_responder, err, sizeof(err)) < 0) {
        fprintf(stderr, "nmprobe-responder: %s\n", err);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int rc = nmp_responder_run(the_responder, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "nmprobe-responder: %s\n", err);
    nmp_responder *r = the_responder;
    the_responder = NULL;
    nmp_responder_close(r);
    return rc < 0 ? 1 : 0;
}
