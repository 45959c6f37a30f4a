/* nmp_cli_main.c -- the nmprobe command line client: runs one test against
 * an nmprobe-responder and prints a human summary or JSON. Ctrl-C cancels
 * the test and prints what was measured so far. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmprobe.h"

static volatile int32_t cancel_flag; /* set by SIGINT / SIGTERM */

static void on_signal(int sig) {
    (void)sig;
    cancel_flag = 1;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: nmprobe rr --host HOST [options]\n"
            "  request-response latency test against an nmprobe-responder\n"
            "  -H, --host HOST          responder name or address (IPv4 or IPv6)\n"
            "  -p, --port PORT          responder control port (default %d)\n"
            "  -c, --count N            frames to send (default 10)\n"
            "  -s, --size BYTES         UDP payload per frame, %d..%d (default 64)\n"
            "  -i, --interval-us US     spacing between frames in microseconds (default 1000; 0 = back to back)\n"
            "  -t, --timeout-ms MS      wait for replies after the last frame (default 1000)\n"
            "      --ttl N              outgoing TTL / hop limit (default: system)\n"
            "      --json               print JSON\n"
            "      --frames             include per-frame records\n"
            "  -h, --help               this help\n",
            NMP_DEFAULT_PORT, NMP_FRAME_HDR, NMP_FRAME_MAX);
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "nmprobe: %s %s: want a number in %g..%g\n", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* Prints a double in JSON (null for NaN). */
static void jnum(const char *name, double v, int comma) {
    if (isnan(v))
        printf("  \"%s\": null%s\n", name, comma ? "," : "");
    else
        printf("  \"%s\": %.6f%s\n", name, v, comma ? "," : "");
}

static void print_rr_json(const nmp_rr_result *r, int frames, int cancelled) {
    printf("{\n  \"test\": \"rr\",\n  \"cancelled\": %s,\n", cancelled ? "true" : "false");
    printf("  \"localAddress\": \"%s\",\n  \"remoteAddress\": \"%s\",\n  \"remotePort\": %d,\n", r->local_addr,
           r->remote_addr, r->remote_port);
    printf("  \"requested\": %u,\n  \"sent\": %u,\n  \"received\": %u,\n  \"lost\": %u,\n", r->requested, r->sent,
           r->received, r->lost);
    printf("  \"duplicates\": %u,\n  \"outOfOrder\": %u,\n  \"invalid\": %u,\n", r->duplicates, r->out_of_order,
           r->invalid);
    jnum("lossPercent", r->loss_percent, 1);
    jnum("minRttMs", r->rtt_min_ns / 1e6, 1);
    jnum("meanRttMs", r->rtt_mean_ns / 1e6, 1);
    jnum("medianRttMs", r->rtt_median_ns / 1e6, 1);
    jnum("maxRttMs", r->rtt_max_ns / 1e6, 1);
    jnum("minIpdMs", r->ipd_min_ns / 1e6, 1);
    jnum("meanIpdMs", r->ipd_mean_ns / 1e6, 1);
    jnum("maxIpdMs", r->ipd_max_ns / 1e6, 1);
    jnum("iqrIpdMs", r->ipd_iqr_ns / 1e6, 1);
    printf("  \"startEpochNanos\": %lld,\n  \"endEpochNanos\": %lld%s\n", (long long)r->start_wall,
           (long long)r->end_wall, frames ? "," : "");
    if (frames) {
        printf("  \"frames\": [\n");
        for (uint32_t i = 0; i < r->requested; i++)
            printf("    {\"seq\": %d, \"sendEpochNanos\": %lld, \"rttNanos\": %lld, \"bytes\": %d, \"ttl\": %d}%s\n",
                   r->seq[i], (long long)r->send_wall[i], (long long)r->rtt_ns[i], r->bytes[i], r->ttl[i],
                   i + 1 < r->requested ? "," : "");
        printf("  ]\n");
    }
    printf("}\n");
}

static void print_rr_human(const nmp_rr_result *r, int frames) {
    printf("rr %s -> %s (control port %d)\n", r->local_addr, r->remote_addr, r->remote_port);
    printf("  frames: requested %u, sent %u, received %u, lost %u (%.3f %%), duplicates %u, out of order %u\n",
           r->requested, r->sent, r->received, r->lost, r->loss_percent, r->duplicates, r->out_of_order);
    printf("  rtt ms: min %.4f  mean %.4f  median %.4f  max %.4f\n", r->rtt_min_ns / 1e6, r->rtt_mean_ns / 1e6,
           r->rtt_median_ns / 1e6, r->rtt_max_ns / 1e6);
    printf("  ipd ms: min %.4f  mean %.4f  max %.4f  iqr %.4f\n", r->ipd_min_ns / 1e6, r->ipd_mean_ns / 1e6,
           r->ipd_max_ns / 1e6, r->ipd_iqr_ns / 1e6);
    if (frames) {
        printf("  %8s %20s %12s %6s %4s\n", "seq", "send_epoch_ns", "rtt_ns", "bytes", "ttl");
        for (uint32_t i = 0; i < r->requested; i++)
            printf("  %8d %20lld %12lld %6d %4d\n", r->seq[i], (long long)r->send_wall[i], (long long)r->rtt_ns[i],
                   r->bytes[i], r->ttl[i]);
    }
}

static int cmd_rr(int argc, char **argv) {
    static const struct option opts[] = {
        {"host", required_argument, NULL, 'H'},      {"port", required_argument, NULL, 'p'},
        {"count", required_argument, NULL, 'c'},     {"size", required_argument, NULL, 's'},
        {"interval-us", required_argument, NULL, 'i'}, {"timeout-ms", required_argument, NULL, 't'},
        {"ttl", required_argument, NULL, 'T'},       {"json", no_argument, NULL, 'j'},
        {"frames", no_argument, NULL, 'F'},          {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    nmp_rr_spec spec = {.port = NMP_DEFAULT_PORT, .count = 10, .size = 64, .interval_ns = 1000000,
                        .timeout_ns = 1000000000};
    int json = 0, frames = 0, c;
    double v;
    while ((c = getopt_long(argc, argv, "H:p:c:s:i:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'H': spec.host = optarg; break;
        case 'p':
            if (parse_num("--port", optarg, 1, 65535, &v) < 0) return 2;
            spec.port = (int)v;
            break;
        case 'c':
            if (parse_num("--count", optarg, 1, 10000000, &v) < 0) return 2;
            spec.count = (uint32_t)v;
            break;
        case 's':
            if (parse_num("--size", optarg, NMP_FRAME_HDR, NMP_FRAME_MAX, &v) < 0) return 2;
            spec.size = (uint32_t)v;
            break;
        case 'i':
            if (parse_num("--interval-us", optarg, 0, 60e6, &v) < 0) return 2;
            spec.interval_ns = (uint64_t)(v * 1000);
            break;
        case 't':
            if (parse_num("--timeout-ms", optarg, 0, 60000, &v) < 0) return 2;
            spec.timeout_ns = (uint64_t)(v * 1e6);
            break;
        case 'T':
            if (parse_num("--ttl", optarg, 0, 255, &v) < 0) return 2;
            spec.ttl = (int)v;
            break;
        case 'j': json = 1; break;
        case 'F': frames = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (spec.host == NULL) {
        fprintf(stderr, "nmprobe rr: --host is required\n");
        return 2;
    }
    nmp_control ctl = {.cancel = &cancel_flag};
    nmp_rr_result res;
    char err[NMP_ERRLEN];
    int rc = nmp_rr_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        fprintf(stderr, "nmprobe rr: %s\n", err);
        return 1;
    }
    if (rc == -ECANCELED) fprintf(stderr, "nmprobe rr: %s\n", err);
    if (json)
        print_rr_json(&res, frames, rc == -ECANCELED);
    else
        print_rr_human(&res, frames);
    nmp_rr_result_free(&res);
    return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("nmprobe %s\n", NMP_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "rr") == 0) return cmd_rr(argc - 1, argv + 1);
    fprintf(stderr, "nmprobe: unknown command %s (want rr)\n", argv[1]);
    return 2;
}
