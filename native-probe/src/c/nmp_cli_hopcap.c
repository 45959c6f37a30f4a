/* nmp_cli_hopcap.c -- "nmprobe hopcap": per-hop capacity, Trace-Rate style
 * (see nmp_hopcap.h), as a human table or JSON. Ctrl-C prints the hops
 * measured so far. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_cli_hopcap.h"
#include "nmp_opt.h"
#include "nmprobe.h"

static const char USAGE[] =
    "usage: nmprobe hopcap --host HOST [--hops N | --max-ttl N] [--trains N] [--train-len N] [--skip N]\n"
    "                      [--size B] [--gap-us U] [--wait-ms MS] [--dport P] [--json]\n"
    "  per-hop capacity: trains of TTL-limited UDP frames, the dispersion of the routers' ICMP\n"
    "  answers (kernel-stamped on the error queue); no responder needed.\n"
    "  --hops N       measure TTL 1..N (default: find the hop count with the hop list, up to --max-ttl, 30)\n"
    "  --trains N     trains per hop (30)        --train-len N  frames per train, 2 = pairs (64)\n"
    "  --skip N       head frames left out of each train (train-len / 2; 0 for pairs)\n"
    "  --size B       UDP payload bytes, sent with DF (1472)\n"
    "  --gap-us U     pause after each train (3x its answer span)\n"
    "  --wait-ms MS   wait for a train's answers (1000)   --dport P  first destination port (33434)\n";

static int num(const char *opt, const char *s, double lo, double hi, double *out) {
    return nmp_opt_num("nmprobe", opt, s, lo, hi, out);
}

/* A JSON number, null for NaN. */
static void jv(const char *name, double v, const char *sep) {
    if (isnan(v)) printf("\"%s\": null%s", name, sep);
    else printf("\"%s\": %.4f%s", name, v, sep);
}

static const char *status_name(int st) {
    switch (st) {
    case NMP_HC_USED: return "used";
    case NMP_HC_SENDER: return "sender-limited";
    case NMP_HC_MISSING: return "missing";
    case NMP_HC_REORDERED: return "reordered";
    default: return "not-sent";
    }
}

static void print_json(const nmp_hopcap_result *r, int cancelled, double elapsed_ms) {
    printf("{\n  \"test\": \"hopcap\",\n  \"cancelled\": %s,\n  \"destination\": \"%s\",\n", cancelled ? "true" : "false",
           r->dest_addr);
    printf("  \"discovered\": %s,\n  \"reached\": %s,\n  \"hopCount\": %d,\n", r->discovered ? "true" : "false",
           r->reached ? "true" : "false", r->hop_count);
    printf("  \"trains\": %u,\n  \"trainLength\": %u,\n  \"skip\": %u,\n  \"packetSize\": %u,\n", r->trains,
           r->train_len, r->skip, r->size);
    printf("  \"frameOverheadBytes\": %u,\n  \"wireOverheadBytes\": %u,\n  \"level\": \"frame\",\n", r->frame_overhead,
           r->wire_overhead);
    printf("  \"elapsedMs\": %.1f,\n  \"hops\": [\n", elapsed_ms);
    for (int t = 0; t < r->nhops; t++) {
        const nmp_hopcap_hop *h = &r->hops[t];
        printf("    {\"ttl\": %d, \"address\": \"%s\", \"destination\": %s, \"otherAddresses\": %d, ", h->ttl, h->addr,
               h->destination ? "true" : "false", h->other_addrs);
        jv("frameMbps", h->frame_mbps, ", ");
        jv("userMbps", h->user_mbps, ", ");
        jv("wireMbps", h->wire_mbps, ", ");
        jv("modeFrameMbps", h->mode_frame_mbps, ", ");
        jv("p10Mbps", h->p10_mbps, ", ");
        jv("p25Mbps", h->p25_mbps, ", ");
        jv("p75Mbps", h->p75_mbps, ", ");
        jv("p90Mbps", h->p90_mbps, ", ");
        jv("iqrMbps", h->iqr_mbps, ", ");
        jv("headFrameMbps", h->head_frame_mbps, ", ");
        printf("\"lowerBound\": %s, \"endsOnly\": %s, \"trainsSent\": %u, \"trainsUsed\": %u, \"missing\": %u, \"reordered\": %u, "
               "\"senderLimited\": %u, \"probesSent\": %u, \"replies\": %u, \"kernelStamped\": %u, "
               "\"trainsUserStamped\": %u,\n     \"perTrain\": [",
               h->lower_bound ? "true" : "false", h->ends_only ? "true" : "false", h->trains_sent, h->trains_used, h->missing, h->reordered,
               h->sender_limited, h->probes_sent, h->replies, h->kernel_stamped, h->trains_user_stamped);
        for (uint32_t i = 0; i < r->trains; i++) {
            size_t k = (size_t)t * r->trains + i;
            printf("%s{", i ? ", " : "");
            jv("frameMbps", r->train_frame_mbps[k], ", ");
            printf("\"status\": \"%s\"}", status_name(r->train_status[k]));
        }
        printf("]}%s\n", t + 1 < r->nhops ? "," : "");
    }
    printf("  ]\n}\n");
}

static void print_human(const char *host, const nmp_hopcap_result *r, double elapsed_ms) {
    printf("hopcap to %s (%s): %s %d hops, %u trains x %u frames of %u B per hop (skip %u), %.0f ms\n", host,
           r->dest_addr, r->reached ? "reached in" : "not reached,", r->reached ? r->hop_count : r->nhops, r->trains,
           r->train_len, r->size, r->skip, elapsed_ms);
    printf("  ttl  address          frame Mbit/s   (mode; p25..p75)            used/sent  head Mbit/s  stamps\n");
    for (int t = 0; t < r->nhops; t++) {
        const nmp_hopcap_hop *h = &r->hops[t];
        printf("  %3d  %-16s %s%10.2f   (%.2f; %.2f..%.2f)   %3u/%-3u  %10.2f  %u/%u kernel%s%s\n", h->ttl,
               h->addr[0] ? h->addr : "*", h->lower_bound ? ">=" : "  ", h->frame_mbps, h->mode_frame_mbps,
               h->p25_mbps, h->p75_mbps, h->trains_used, h->trains_sent, h->head_frame_mbps, h->kernel_stamped,
               h->replies, h->destination ? "  (destination)" : "", h->ends_only ? "  (ends only: ICMP rate-limited)" : "");
    }
}

int nmp_cli_hopcap(int argc, char **argv, volatile int32_t *cancel) {
    static const struct option opts[] = {
        {"host", required_argument, NULL, 'H'},      {"hops", required_argument, NULL, 'n'},
        {"max-ttl", required_argument, NULL, 'm'},   {"trains", required_argument, NULL, 't'},
        {"train-len", required_argument, NULL, 'l'}, {"skip", required_argument, NULL, 'k'},
        {"size", required_argument, NULL, 's'},      {"gap-us", required_argument, NULL, 'g'},
        {"wait-ms", required_argument, NULL, 'w'},   {"dport", required_argument, NULL, 'p'},
        {"json", no_argument, NULL, 'j'},            {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    nmp_hopcap_spec spec = {.skip = -1};
    int c, json = 0;
    double v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "H:n:m:t:l:k:s:g:w:p:jh", opts, NULL)) != -1) {
        switch (c) {
        case 'H': spec.host = optarg; break;
        case 'n': if (num("--hops", optarg, 1, NMP_HOPS_MAX_TTL, &v) < 0) return 2; spec.hops = (int)v; break;
        case 'm': if (num("--max-ttl", optarg, 1, NMP_HOPS_MAX_TTL, &v) < 0) return 2; spec.max_ttl = (int)v; break;
        case 't': if (num("--trains", optarg, 1, NMP_HOPCAP_MAX_TRAINS, &v) < 0) return 2; spec.trains = (uint32_t)v; break;
        case 'l': if (num("--train-len", optarg, 2, NMP_HOPCAP_MAX_LEN, &v) < 0) return 2; spec.train_len = (uint32_t)v; break;
        case 'k': if (num("--skip", optarg, 0, NMP_HOPCAP_MAX_LEN - 2, &v) < 0) return 2; spec.skip = (int)v; break;
        case 's': if (num("--size", optarg, NMP_FRAME_HDR, NMP_FRAME_MAX, &v) < 0) return 2; spec.size = (uint32_t)v; break;
        case 'g': if (num("--gap-us", optarg, 1, 10e6, &v) < 0) return 2; spec.gap_ns = (uint64_t)(v * 1e3); break;
        case 'w': if (num("--wait-ms", optarg, 1, 60000, &v) < 0) return 2; spec.wait_ms = (uint32_t)v; break;
        case 'p': if (num("--dport", optarg, 1, 65535, &v) < 0) return 2; spec.port = (int)v; break;
        case 'j': json = 1; break;
        case 'h': fputs(USAGE, stdout); return 0;
        default: fputs(USAGE, stderr); return 2;
        }
    }
    if (spec.host == NULL) {
        fprintf(stderr, "nmprobe: --host is required\n");
        return 2;
    }
    nmp_control ctl = {.cancel = cancel};
    nmp_hopcap_result r;
    char err[NMP_ERRLEN] = "";
    nmp_monotime_ns t0 = nmp_mono_now();
    int rc = nmp_hopcap_run(&spec, &ctl, &r, err, sizeof(err));
    double elapsed_ms = (double)(nmp_mono_now() - t0) / 1e6;
    if (rc < 0 && rc != -ECANCELED) {
        fprintf(stderr, "nmprobe hopcap: %s\n", err);
        return 1;
    }
    if (json) print_json(&r, rc == -ECANCELED, elapsed_ms);
    else print_human(spec.host, &r, elapsed_ms);
    nmp_hopcap_result_free(&r);
    return rc < 0 ? 1 : 0;
}
