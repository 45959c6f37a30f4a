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

#include "nmp_cli_hopcap.h"
#include "nmp_opt.h"
#include "nmp_wire.h"
#include "nmprobe.h"

static volatile int32_t cancel_flag; /* set by SIGINT / SIGTERM */

static void on_signal(int sig) {
    (void)sig;
    cancel_flag = 1;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: nmprobe rr|stream|scan|tcp|hops|hopcap|capacity|avail --host HOST [options]\n"
            "  rr      request-response latency test against an nmprobe-responder\n"
            "  stream  one-way UDP stream: rates, loss, reordering, one-way delay, host load\n"
            "  scan    latency versus frame size (--sizes 64,512,1472), with a line fit\n"
            "common options:\n"
            "  -H, --host HOST          responder name or address (IPv4 or IPv6)\n"
            "  -p, --port PORT          responder control port (default %d)\n"
            "  -c, --count N            frames to send (default 10)\n"
            "  -s, --size BYTES         UDP payload per frame, %d..%d (default 64)\n"
            "  -i, --interval-us US     spacing between frames in microseconds (default 1000; 0 = back to back)\n"
            "  -t, --timeout-ms MS      wait for replies after the last frame (default 1000)\n"
            "      --ttl N              outgoing TTL / hop limit (default: system)\n"
            "      --json               print JSON\n"
            "      --frames             include per-frame records\n"
            "stream: defaults --count 1000 --size 1472 --interval-us 100 --timeout-ms 500\n"
            "      --bins N             inter-arrival histogram bins (default 50)\n"
            "      --bin-width-us US    histogram bin width (default automatic)\n"
            "scan: --sizes LIST         comma-separated frame sizes (default 64,128,256,512,1024,1472)\n"
            "tcp: TCP throughput (memory to memory) to an nmprobe-responder\n"
            "      --streams N (1..16, default 1) --size BYTES message size (default 131072)\n"
            "      --interval-us US spacing between messages | --cbr-us US constant bit rate period\n"
            "      --window BYTES socket buffers (default autotuning) --duration-s S (default 10) --bytes N\n"
            "      --sample-ms MS series and TCP_INFO interval (default 100) --detail (TCP_INFO, CBR messages)\n"
            "hops: hop list with TTL-limited UDP probes (no responder needed)\n"
            "      --max-ttl N (default 30) --probes N per hop (default 3) --wait-ms MS (default 1000)\n"
            "      --dport PORT first destination port (default 33434) --resolve (reverse DNS, short timeout)\n"
            "hopcap: per-hop capacity from the dispersion of ICMP answers to TTL-limited trains (hopcap --help)\n"
            "capacity: path capacity by packet-train dispersion (Mbit/s user, frame and wire level)\n"
            "      --trains N (default 40) --train-len N frames per train (default 100) --size BYTES (default 1472)\n"
            "      --skip N head frames left out per train (default train-len/2) --gap-us US between trains\n"
            "      (default: 4x a pilot train's arrival span)\n"
            "avail: available bandwidth by a rate scan (UDP payload Mbit/s)\n"
            "      --max-mbps R (required) --min-mbps R --step-mbps R (default max/10) --refine N (default 4)\n"
            "      --step-ms MS per step (default 500) --pause-ms MS (default 200) --size BYTES (default 1472)\n"
            "      --delay-ms MS one-way delay growth that marks congestion (default 1) --loss-percent P (default 1)\n"
            "      --rate-tolerance F received-rate shortfall (default 0.03)\n"
            "  -h, --help               this help\n",
            NMP_DEFAULT_PORT, NMP_FRAME_HDR, NMP_FRAME_MAX);
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out) {
    return nmp_opt_num("nmprobe", opt, s, lo, hi, out);
}

/* Prints a double in JSON (null for NaN). */
static void jnum(const char *name, double v, int comma) {
    if (isnan(v))
        printf("  \"%s\": null%s\n", name, comma ? "," : "");
    else
        printf("  \"%s\": %.6f%s\n", name, v, comma ? "," : "");
}

/* A number for JSON inside a longer printf: null for NaN or infinity (a bare nan is not
 * JSON). Returns one of 16 rotating buffers, so a single printf may use up to 16. */
static const char *jd(double v) {
    static char ring[16][32];
    static unsigned next;
    if (!isfinite(v)) return "null";
    char *b = ring[next++ % 16];
    snprintf(b, sizeof(ring[0]), "%.6f", v);
    return b;
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

/* Options of every subcommand; which apply depends on the command. */
typedef struct cli_opts {
    nmp_rr_spec rr;                 /* host, port, count, size, interval, timeout, ttl */
    int count_set, size_set, interval_set, timeout_set; /* given explicitly */
    uint32_t bins;                  /* histogram bins, 0 = default */
    uint64_t bin_width_ns;          /* histogram width, 0 = automatic */
    uint32_t sizes[NMP_SCAN_MAX_SIZES]; /* scan sizes */
    uint32_t nsizes;                /* how many */
    int json, frames;               /* output format */
} cli_opts;

static int parse_sizes(const char *s, cli_opts *o) {
    char buf[1024], *save = NULL;
    snprintf(buf, sizeof(buf), "%s", s);
    o->nsizes = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double v;
        if (o->nsizes >= NMP_SCAN_MAX_SIZES || parse_num("--sizes", t, NMP_FRAME_HDR, NMP_FRAME_MAX, &v) < 0) return -1;
        o->sizes[o->nsizes++] = (uint32_t)v;
    }
    return o->nsizes >= 2 ? 0 : -1;
}

/* Parses argv into o; returns 0, 1 (help printed) or 2 (usage error). */
static int parse_opts(int argc, char **argv, cli_opts *o) {
    static const struct option opts[] = {
        {"host", required_argument, NULL, 'H'},      {"port", required_argument, NULL, 'p'},
        {"count", required_argument, NULL, 'c'},     {"size", required_argument, NULL, 's'},
        {"interval-us", required_argument, NULL, 'i'}, {"timeout-ms", required_argument, NULL, 't'},
        {"ttl", required_argument, NULL, 'T'},       {"json", no_argument, NULL, 'j'},
        {"frames", no_argument, NULL, 'F'},          {"help", no_argument, NULL, 'h'},
        {"bins", required_argument, NULL, 'b'},      {"bin-width-us", required_argument, NULL, 'w'},
        {"sizes", required_argument, NULL, 'S'},     {NULL, 0, NULL, 0}};
    nmp_rr_spec spec = {.port = NMP_DEFAULT_PORT, .count = 10, .size = 64, .interval_ns = 1000000,
                        .timeout_ns = 1000000000};
    int c;
    double v;
    static const uint32_t default_sizes[] = {64, 128, 256, 512, 1024, 1472};
    memcpy(o->sizes, default_sizes, sizeof(default_sizes));
    o->nsizes = 6;
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
            o->count_set = 1;
            break;
        case 's':
            if (parse_num("--size", optarg, NMP_FRAME_HDR, NMP_FRAME_MAX, &v) < 0) return 2;
            spec.size = (uint32_t)v;
            o->size_set = 1;
            break;
        case 'i':
            if (parse_num("--interval-us", optarg, 0, 60e6, &v) < 0) return 2;
            spec.interval_ns = (uint64_t)(v * 1000);
            o->interval_set = 1;
            break;
        case 't':
            if (parse_num("--timeout-ms", optarg, 0, 60000, &v) < 0) return 2;
            spec.timeout_ns = (uint64_t)(v * 1e6);
            o->timeout_set = 1;
            break;
        case 'T':
            if (parse_num("--ttl", optarg, 0, 255, &v) < 0) return 2;
            spec.ttl = (int)v;
            break;
        case 'j': o->json = 1; break;
        case 'F': o->frames = 1; break;
        case 'b':
            if (parse_num("--bins", optarg, 1, NMP_HIST_MAX, &v) < 0) return 2;
            o->bins = (uint32_t)v;
            break;
        case 'w':
            if (parse_num("--bin-width-us", optarg, 0, 60e6, &v) < 0) return 2;
            o->bin_width_ns = (uint64_t)(v * 1000);
            break;
        case 'S':
            if (parse_sizes(optarg, o) < 0) {
                fprintf(stderr, "nmprobe: --sizes wants 2..%d comma-separated sizes in %d..%d\n",
                        NMP_SCAN_MAX_SIZES, NMP_FRAME_HDR, NMP_FRAME_MAX);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return 2;
        }
    }
    if (spec.host == NULL) {
        fprintf(stderr, "nmprobe: --host is required\n");
        return 2;
    }
    o->rr = spec;
    return 0;
}

static int cmd_rr(int argc, char **argv) {
    cli_opts o;
    memset(&o, 0, sizeof(o));
    int prc = parse_opts(argc, argv, &o);
    if (prc) return prc == 1 ? 0 : 2;
    nmp_rr_spec spec = o.rr;
    int json = o.json, frames = o.frames;
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

static void print_stream_human(const nmp_stream_result *r, int frames) {
    printf("stream %s -> %s (control port %d)\n", r->local_addr, r->remote_addr, r->remote_port);
    printf("  frames: requested %u, sent %u, received %u, lost %u (%.3f %%), duplicates %u\n", r->requested, r->sent,
           r->received, r->lost, r->loss_percent, r->duplicates);
    printf("  sender: spacing %.0f ns, %.2f Mbit/s user, %.2f Mbit/s wire\n", r->send_spacing_ns, r->send_user_mbps,
           r->send_wire_mbps);
    printf("  receiver: %.2f Mbit/s user, %.2f Mbit/s wire (wire = payload + %u B per frame: UDP 8, IP, Ethernet 14, "
           "FCS 4, preamble+IFG 20)\n",
           r->recv_user_mbps, r->recv_wire_mbps, r->wire_overhead);
    printf("  reordering (RFC 4737): %u reordered, ratio %.4f, max extent %u, n-reordering 1/2/3 = %.4f/%.4f/%.4f\n",
           r->reordered, r->reorder_ratio, r->reorder_max_extent, r->n_reorder_ratio[0], r->n_reorder_ratio[1],
           r->n_reorder_ratio[2]);
    printf("  one-way delay ms: min %.4f median %.4f mean %.4f p95 %.4f p99 %.4f max %.4f; jitter (p95-p50) %.4f; "
           "mean |ipdv| %.4f\n",
           r->owd_min_ns / 1e6, r->owd_median_ns / 1e6, r->owd_mean_ns / 1e6, r->owd_p95_ns / 1e6,
           r->owd_p99_ns / 1e6, r->owd_max_ns / 1e6, r->jitter_ns / 1e6, r->ipdv_mean_abs_ns / 1e6);
    printf("  inter-arrival us: min %.2f mean %.2f max %.2f; histogram from %.2f us, %.2f us bins:", r->iat_min_ns / 1e3,
           r->iat_mean_ns / 1e3, r->iat_max_ns / 1e3, r->hist_lo_ns / 1e3, r->hist_width_ns / 1e3);
    for (uint32_t i = 0; i < r->hist_bins; i++) printf(" %llu", (unsigned long long)r->hist[i]);
    printf(" (under %llu, over %llu)\n", (unsigned long long)r->hist_under, (unsigned long long)r->hist_over);
    printf("  loss pattern: %u gaps, mean %.2f frames, exponential rate %.5f/frame, KS distance %.3f\n",
           r->loss_intervals, r->loss_interval_mean, r->loss_exp_rate, r->loss_exp_ks_d);
    if (r->first_loss_seq >= 0)
        printf("  loss onset: first lost seq %lld; before %.2f Mbit/s, after %.2f Mbit/s; buffer ~ %.1f frames = %.0f B "
               "(queue delay %.3f ms -> %.0f B)\n",
               (long long)r->first_loss_seq, r->rate_before_loss_mbps, r->rate_after_loss_mbps, r->buffer_est_frames,
               r->buffer_est_bytes, r->queue_delay_at_loss_ns / 1e6, r->buffer_est_delay_bytes);
    printf("  hosts: cpu sender %.1f %% receiver %.1f %%; interrupts sender %llu receiver %llu; receiver UDP in %llu, "
           "socket-buffer drops %llu; network loss %u\n",
           r->sender_cpu_percent, r->receiver_cpu_percent, (unsigned long long)r->sender_interrupts,
           (unsigned long long)r->receiver_interrupts, (unsigned long long)r->receiver_udp_in,
           (unsigned long long)r->receiver_rcvbuf_drops, r->network_lost);
    if (frames) {
        printf("  %8s %20s %20s %12s %6s\n", "seq", "send_epoch_ns", "arrival_epoch_ns", "owd_ns", "bytes");
        for (uint32_t i = 0; i < r->requested; i++)
            printf("  %8d %20lld %20lld %12lld %6d\n", r->seq[i], (long long)r->send_wall[i],
                   (long long)r->arrival_wall[i], (long long)r->owd_ns[i], r->bytes[i]);
    }
}

static void print_stream_json(const nmp_stream_result *r, int frames, int cancelled) {
    printf("{\n  \"test\": \"stream\",\n  \"cancelled\": %s,\n", cancelled ? "true" : "false");
    printf("  \"localAddress\": \"%s\",\n  \"remoteAddress\": \"%s\",\n  \"remotePort\": %d,\n", r->local_addr,
           r->remote_addr, r->remote_port);
    printf("  \"requested\": %u,\n  \"sent\": %u,\n  \"received\": %u,\n  \"lost\": %u,\n  \"duplicates\": %u,\n",
           r->requested, r->sent, r->received, r->lost, r->duplicates);
    printf("  \"reordered\": %u,\n  \"maxReorderExtent\": %u,\n  \"wireOverheadBytes\": %u,\n", r->reordered,
           r->reorder_max_extent, r->wire_overhead);
    printf("  \"firstLossSeq\": %lld,\n  \"lossIntervals\": %u,\n  \"ipdvPairs\": %u,\n", (long long)r->first_loss_seq,
           r->loss_intervals, r->ipdv_pairs);
    printf("  \"senderInterrupts\": %llu,\n  \"receiverInterrupts\": %llu,\n  \"receiverUdpIn\": %llu,\n",
           (unsigned long long)r->sender_interrupts, (unsigned long long)r->receiver_interrupts,
           (unsigned long long)r->receiver_udp_in);
    printf("  \"receiverSocketDrops\": %llu,\n  \"networkLost\": %u,\n", (unsigned long long)r->receiver_rcvbuf_drops,
           r->network_lost);
    printf("  \"firstSendEpochNanos\": %lld,\n  \"lastSendEpochNanos\": %lld,\n", (long long)r->first_send_wall,
           (long long)r->last_send_wall);
    printf("  \"firstArrivalEpochNanos\": %lld,\n  \"lastArrivalEpochNanos\": %lld,\n",
           (long long)r->first_arrival_wall, (long long)r->last_arrival_wall);
    jnum("lossPercent", r->loss_percent, 1);
    jnum("sendSpacingNs", r->send_spacing_ns, 1);
    jnum("sendUserMbps", r->send_user_mbps, 1);
    jnum("sendWireMbps", r->send_wire_mbps, 1);
    jnum("recvUserMbps", r->recv_user_mbps, 1);
    jnum("recvWireMbps", r->recv_wire_mbps, 1);
    jnum("reorderRatio", r->reorder_ratio, 1);
    jnum("n1ReorderRatio", r->n_reorder_ratio[0], 1);
    jnum("n2ReorderRatio", r->n_reorder_ratio[1], 1);
    jnum("n3ReorderRatio", r->n_reorder_ratio[2], 1);
    jnum("minOwdMs", r->owd_min_ns / 1e6, 1);
    jnum("medianOwdMs", r->owd_median_ns / 1e6, 1);
    jnum("meanOwdMs", r->owd_mean_ns / 1e6, 1);
    jnum("p95OwdMs", r->owd_p95_ns / 1e6, 1);
    jnum("p99OwdMs", r->owd_p99_ns / 1e6, 1);
    jnum("maxOwdMs", r->owd_max_ns / 1e6, 1);
    jnum("jitterMs", r->jitter_ns / 1e6, 1);
    jnum("meanAbsIpdvMs", r->ipdv_mean_abs_ns / 1e6, 1);
    jnum("minInterArrivalNs", r->iat_min_ns, 1);
    jnum("meanInterArrivalNs", r->iat_mean_ns, 1);
    jnum("maxInterArrivalNs", r->iat_max_ns, 1);
    jnum("lossIntervalMean", r->loss_interval_mean, 1);
    jnum("lossExpRate", r->loss_exp_rate, 1);
    jnum("lossExpKsDistance", r->loss_exp_ks_d, 1);
    jnum("rateBeforeLossMbps", r->rate_before_loss_mbps, 1);
    jnum("rateAfterLossMbps", r->rate_after_loss_mbps, 1);
    jnum("bufferEstimateFrames", r->buffer_est_frames, 1);
    jnum("bufferEstimateBytes", r->buffer_est_bytes, 1);
    jnum("queueDelayAtLossMs", r->queue_delay_at_loss_ns / 1e6, 1);
    jnum("bufferEstimateByDelayBytes", r->buffer_est_delay_bytes, 1);
    jnum("senderCpuPercent", r->sender_cpu_percent, 1);
    jnum("receiverCpuPercent", r->receiver_cpu_percent, 1);
    jnum("histogramStartNs", r->hist_lo_ns, 1);
    jnum("histogramBinWidthNs", r->hist_width_ns, 1);
    printf("  \"histogram\": [");
    for (uint32_t i = 0; i < r->hist_bins; i++) printf("%s%llu", i ? ", " : "", (unsigned long long)r->hist[i]);
    printf("],\n  \"histogramUnder\": %llu,\n  \"histogramOver\": %llu,\n", (unsigned long long)r->hist_under,
           (unsigned long long)r->hist_over);
    printf("  \"startEpochNanos\": %lld,\n  \"endEpochNanos\": %lld%s\n", (long long)r->start_wall,
           (long long)r->end_wall, frames ? "," : "");
    if (frames) {
        printf("  \"frames\": [\n");
        for (uint32_t i = 0; i < r->requested; i++)
            printf("    {\"seq\": %d, \"sendEpochNanos\": %lld, \"arrivalEpochNanos\": %lld, \"owdNanos\": %lld, "
                   "\"bytes\": %d}%s\n",
                   r->seq[i], (long long)r->send_wall[i], (long long)r->arrival_wall[i], (long long)r->owd_ns[i],
                   r->bytes[i], i + 1 < r->requested ? "," : "");
        printf("  ]\n");
    }
    printf("}\n");
}

static int cmd_stream(int argc, char **argv) {
    cli_opts o;
    memset(&o, 0, sizeof(o));
    int prc = parse_opts(argc, argv, &o);
    if (prc) return prc == 1 ? 0 : 2;
    nmp_stream_spec spec = {.host = o.rr.host, .port = o.rr.port, .count = o.count_set ? o.rr.count : 1000,
                            .size = o.size_set ? o.rr.size : 1472,
                            .interval_ns = o.interval_set ? o.rr.interval_ns : 100000,
                            .timeout_ns = o.timeout_set ? o.rr.timeout_ns : 500000000, .ttl = o.rr.ttl,
                            .hist_bins = o.bins, .hist_width_ns = o.bin_width_ns};
    nmp_control ctl = {.cancel = &cancel_flag};
    nmp_stream_result res;
    char err[NMP_ERRLEN];
    int rc = nmp_stream_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        fprintf(stderr, "nmprobe stream: %s\n", err);
        return 1;
    }
    if (rc == -ECANCELED) fprintf(stderr, "nmprobe stream: %s\n", err);
    if (o.json)
        print_stream_json(&res, o.frames, rc == -ECANCELED);
    else
        print_stream_human(&res, o.frames);
    nmp_stream_result_free(&res);
    return rc < 0 ? 1 : 0;
}

static int cmd_scan(int argc, char **argv) {
    cli_opts o;
    memset(&o, 0, sizeof(o));
    int prc = parse_opts(argc, argv, &o);
    if (prc) return prc == 1 ? 0 : 2;
    nmp_scan_spec spec = {.rr = o.rr, .sizes = o.sizes, .nsizes = o.nsizes, .hist_bins = o.bins,
                          .hist_width_ns = o.bin_width_ns};
    if (!o.count_set) spec.rr.count = 100;
    if (!o.interval_set) spec.rr.interval_ns = 100000;
    nmp_control ctl = {.cancel = &cancel_flag};
    nmp_scan_result res;
    char err[NMP_ERRLEN];
    int rc = nmp_scan_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        fprintf(stderr, "nmprobe scan: %s\n", err);
        return 1;
    }
    if (o.json) {
        printf("{\n  \"test\": \"scan\",\n  \"cancelled\": %s,\n  \"remoteAddress\": \"%s\",\n",
               rc == -ECANCELED ? "true" : "false", res.remote_addr);
        jnum("slopeUsPerByte", res.slope_us_per_byte, 1);
        jnum("interceptUs", res.intercept_us, 1);
        jnum("r2", res.r2, 1);
        printf("  \"points\": [\n");
        for (uint32_t i = 0; i < res.npoints; i++) {
            const nmp_scan_point *p = &res.points[i];
            printf("    {\"size\": %u, \"sent\": %u, \"received\": %u, \"minRttMs\": %s, \"meanRttMs\": %s, "
                   "\"medianRttMs\": %s, \"maxRttMs\": %s, \"histogramStartNs\": %s, \"histogramBinWidthNs\": %s, "
                   "\"histogram\": [",
                   p->size, p->sent, p->received, jd(p->min_ns / 1e6), jd(p->mean_ns / 1e6), jd(p->median_ns / 1e6),
                   jd(p->max_ns / 1e6), jd(p->hist_lo_ns), jd(p->hist_width_ns));
            for (uint32_t b = 0; b < res.hist_bins; b++) printf("%s%llu", b ? ", " : "", (unsigned long long)p->hist[b]);
            printf("], \"histogramUnder\": %llu, \"histogramOver\": %llu}%s\n", (unsigned long long)p->hist_under,
                   (unsigned long long)p->hist_over, i + 1 < res.npoints ? "," : "");
        }
        printf("  ]\n}\n");
    } else {
        printf("scan -> %s: %u sizes\n  %6s %6s %6s %10s %10s %10s %10s\n", res.remote_addr, res.npoints, "size",
               "sent", "recv", "min_us", "mean_us", "median_us", "max_us");
        for (uint32_t i = 0; i < res.npoints; i++) {
            const nmp_scan_point *p = &res.points[i];
            printf("  %6u %6u %6u %10.2f %10.2f %10.2f %10.2f\n", p->size, p->sent, p->received, p->min_ns / 1e3,
                   p->mean_ns / 1e3, p->median_ns / 1e3, p->max_ns / 1e3);
        }
        printf("  fit of min RTT: slope %.6f us/byte, intercept %.3f us, r^2 %.4f\n", res.slope_us_per_byte,
               res.intercept_us, res.r2);
    }
    nmp_scan_result_free(&res);
    return rc < 0 ? 1 : 0;
}

/* ---- tcp: TCP throughput ---- */

static void print_tcp_json(const nmp_tcp_result *r, int detail, int cancelled) {
    printf("{\n  \"test\": \"tcp\",\n  \"cancelled\": %s,\n", cancelled ? "true" : "false");
    printf("  \"localAddress\": \"%s\",\n  \"remoteAddress\": \"%s\",\n  \"remotePort\": %d,\n", r->local_addr,
           r->remote_addr, r->remote_port);
    printf("  \"streams\": %u,\n  \"messageSize\": %u,\n  \"bytesSent\": %llu,\n  \"bytesReceived\": %llu,\n",
           r->streams, r->msg_size, (unsigned long long)r->bytes_sent, (unsigned long long)r->bytes_received);
    printf("  \"totalRetransmits\": %u,\n  \"refusedConnections\": %u,\n", r->total_retrans, r->refused);
    jnum("senderSeconds", r->sender_seconds, 1);
    jnum("receiverSeconds", r->receiver_seconds, 1);
    jnum("sendMbps", r->send_mbps, 1);
    jnum("throughputMbps", r->recv_mbps, 1);
    jnum("latenessMinMs", r->late_min_ns / 1e6, 1);
    jnum("latenessMedianMs", r->late_median_ns / 1e6, 1);
    jnum("latenessP99Ms", r->late_p99_ns / 1e6, 1);
    jnum("latenessMaxMs", r->late_max_ns / 1e6, 1);
    printf("  \"cbrMessages\": %u,\n  \"perStream\": [\n", r->nmsgs);
    for (uint32_t i = 0; i < r->streams; i++) {
        const nmp_tcp_stream_result *p = &r->per[i];
        printf("    {\"bytesSent\": %llu, \"bytesReceived\": %llu, \"messagesReceived\": %llu, \"sendMbps\": %s, "
               "\"throughputMbps\": %s, \"retransmits\": %u, \"srttUs\": %u}%s\n",
               (unsigned long long)p->bytes_sent, (unsigned long long)p->bytes_received,
               (unsigned long long)p->messages_received, jd(p->send_mbps), jd(p->recv_mbps),
               p->total_retrans, p->final_srtt_us, i + 1 < r->streams ? "," : "");
    }
    printf("  ],\n  \"binNanos\": %llu,\n  \"seriesMbps\": [\n", (unsigned long long)r->bin_ns);
    /* bins up to the last non-empty one, all streams summed */
    uint32_t lastbin = 0;
    for (uint32_t b = 0; b < r->bins; b++)
        for (uint32_t i = 0; i < r->streams; i++)
            if (r->series[(size_t)i * r->bins + b]) lastbin = b + 1;
    for (uint32_t i = 0; i < r->streams; i++) {
        printf("    [");
        for (uint32_t b = 0; b < lastbin; b++)
            printf("%s%.3f", b ? ", " : "", (double)r->series[(size_t)i * r->bins + b] * 8e3 / (double)r->bin_ns);
        printf("]%s\n", i + 1 < r->streams ? "," : "");
    }
    printf("  ]%s\n", detail ? "," : "");
    if (detail) {
        printf("  \"tcpInfo\": [\n");
        for (uint32_t i = 0; i < r->nsamples; i++) {
            const nmp_tcp_info_sample *s = &r->samples[i];
            printf("    {\"tNs\": %llu, \"stream\": %u, \"cwnd\": %u, \"mss\": %u, \"srttUs\": %u, \"rttvarUs\": %u, "
                   "\"retransmits\": %u, \"totalRetrans\": %u, \"pacingRateBps\": %llu, \"deliveryRateBps\": %llu, "
                   "\"bytesAcked\": %llu}%s\n",
                   (unsigned long long)s->t_ns, s->stream, s->cwnd, s->mss, s->srtt_us, s->rttvar_us, s->retransmits,
                   s->total_retrans, (unsigned long long)s->pacing_rate * 8, (unsigned long long)s->delivery_rate * 8,
                   (unsigned long long)s->bytes_acked, i + 1 < r->nsamples ? "," : "");
        }
        printf("  ],\n  \"messages\": [\n");
        for (uint32_t i = 0; i < r->nmsgs; i++)
            printf("    {\"stream\": %u, \"seq\": %u, \"latenessNs\": %lld}%s\n", r->msg_stream[i], r->msg_seq[i],
                   (long long)r->msg_late_ns[i], i + 1 < r->nmsgs ? "," : "");
        printf("  ]\n");
    }
    printf("}\n");
}

static void print_tcp_human(const nmp_tcp_result *r) {
    printf("tcp %s -> %s (control port %d): %u stream(s) of %u-byte messages\n", r->local_addr, r->remote_addr,
           r->remote_port, r->streams, r->msg_size);
    printf("  throughput %.2f Mbit/s (receiver, %.3f s); sender %.2f Mbit/s (%.3f s to last ack); retransmits %u\n",
           r->recv_mbps, r->receiver_seconds, r->send_mbps, r->sender_seconds, r->total_retrans);
    for (uint32_t i = 0; i < r->streams; i++)
        printf("  stream %u: %llu bytes, %.2f Mbit/s, retransmits %u, srtt %u us\n", i,
               (unsigned long long)r->per[i].bytes_received, r->per[i].recv_mbps, r->per[i].total_retrans,
               r->per[i].final_srtt_us);
    if (r->nmsgs)
        printf("  cbr lateness ms: min %.3f median %.3f p99 %.3f max %.3f over %u messages\n", r->late_min_ns / 1e6,
               r->late_median_ns / 1e6, r->late_p99_ns / 1e6, r->late_max_ns / 1e6, r->nmsgs);
}

static int cmd_tcp(int argc, char **argv) {
    static const struct option opts[] = {
        {"host", required_argument, NULL, 'H'},      {"port", required_argument, NULL, 'p'},
        {"streams", required_argument, NULL, 'P'},   {"size", required_argument, NULL, 's'},
        {"interval-us", required_argument, NULL, 'i'}, {"cbr-us", required_argument, NULL, 'C'},
        {"window", required_argument, NULL, 'w'},    {"duration-s", required_argument, NULL, 'd'},
        {"bytes", required_argument, NULL, 'n'},     {"sample-ms", required_argument, NULL, 'S'},
        {"timeout-ms", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
        {"detail", no_argument, NULL, 'D'},          {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    nmp_tcp_spec spec = {.port = NMP_DEFAULT_PORT, .streams = 1, .msg_size = 131072, .duration_ns = 10000000000ull,
                         .sample_ns = 100000000ull};
    int c, json = 0, detail = 0;
    double v;
    while ((c = getopt_long(argc, argv, "H:p:P:s:i:w:d:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'H': spec.host = optarg; break;
        case 'p': if (parse_num("--port", optarg, 1, 65535, &v) < 0) return 2; spec.port = (int)v; break;
        case 'P': if (parse_num("--streams", optarg, 1, NMP_TCP_MAX_STREAMS, &v) < 0) return 2; spec.streams = (uint32_t)v; break;
        case 's': if (parse_num("--size", optarg, NMP_TCP_MSG_HDR, NMP_TCP_MSG_MAX, &v) < 0) return 2; spec.msg_size = (uint32_t)v; break;
        case 'i': if (parse_num("--interval-us", optarg, 0, 60e6, &v) < 0) return 2; spec.interval_ns = (uint64_t)(v * 1e3); spec.cbr = 0; break;
        case 'C': if (parse_num("--cbr-us", optarg, 1, 60e6, &v) < 0) return 2; spec.interval_ns = (uint64_t)(v * 1e3); spec.cbr = 1; break;
        case 'w': if (parse_num("--window", optarg, 0, NMP_TCP_WINDOW_MAX, &v) < 0) return 2; spec.window = (uint32_t)v; break;
        case 'd': if (parse_num("--duration-s", optarg, 0.001, 3600, &v) < 0) return 2; spec.duration_ns = (uint64_t)(v * 1e9); break;
        case 'n': if (parse_num("--bytes", optarg, 0, 1e18, &v) < 0) return 2; spec.bytes = (uint64_t)v; break;
        case 'S': if (parse_num("--sample-ms", optarg, 1, 60000, &v) < 0) return 2; spec.sample_ns = (uint64_t)(v * 1e6); break;
        case 't': if (parse_num("--timeout-ms", optarg, 1, 60000, &v) < 0) return 2; spec.timeout_ns = (uint64_t)(v * 1e6); break;
        case 'j': json = 1; break;
        case 'D': detail = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (spec.host == NULL) {
        fprintf(stderr, "nmprobe: --host is required\n");
        return 2;
    }
    nmp_control ctl = {.cancel = &cancel_flag};
    nmp_tcp_result res;
    char err[NMP_ERRLEN];
    int rc = nmp_tcp_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        fprintf(stderr, "nmprobe tcp: %s\n", err);
        return 1;
    }
    if (json)
        print_tcp_json(&res, detail, rc == -ECANCELED);
    else
        print_tcp_human(&res);
    nmp_tcp_result_free(&res);
    return rc < 0 ? 1 : 0;
}

/* ---- hops: hop list ---- */

static int cmd_hops(int argc, char **argv) {
    static const struct option opts[] = {
        {"host", required_argument, NULL, 'H'},     {"max-ttl", required_argument, NULL, 'm'},
        {"probes", required_argument, NULL, 'q'},   {"wait-ms", required_argument, NULL, 'w'},
        {"dport", required_argument, NULL, 'p'},    {"size", required_argument, NULL, 's'},
        {"parallel", required_argument, NULL, 'N'}, {"resolve", no_argument, NULL, 'r'},
        {"json", no_argument, NULL, 'j'},           {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    nmp_hops_spec spec = {0};
    int c, json = 0;
    double v;
    while ((c = getopt_long(argc, argv, "H:m:q:w:p:s:N:h", opts, NULL)) != -1) {
        switch (c) {
        case 'H': spec.host = optarg; break;
        case 'm': if (parse_num("--max-ttl", optarg, 1, NMP_HOPS_MAX_TTL, &v) < 0) return 2; spec.max_ttl = (int)v; break;
        case 'q': if (parse_num("--probes", optarg, 1, NMP_HOPS_MAX_PROBES, &v) < 0) return 2; spec.probes = (uint32_t)v; break;
        case 'w': if (parse_num("--wait-ms", optarg, 1, 60000, &v) < 0) return 2; spec.wait_ms = (uint32_t)v; break;
        case 'p': if (parse_num("--dport", optarg, 1, 65535, &v) < 0) return 2; spec.port = (int)v; break;
        case 's': if (parse_num("--size", optarg, 0, 1472, &v) < 0) return 2; spec.size = (uint32_t)v; break;
        case 'N': if (parse_num("--parallel", optarg, 1, 64, &v) < 0) return 2; spec.parallel = (uint32_t)v; break;
        case 'r': spec.resolve = 1; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (spec.host == NULL) {
        fprintf(stderr, "nmprobe: --host is required\n");
        return 2;
    }
    nmp_control ctl = {.cancel = &cancel_flag};
    nmp_hops_result res;
    char err[NMP_ERRLEN];
    int rc = nmp_hops_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        fprintf(stderr, "nmprobe hops: %s\n", err);
        return 1;
    }
    uint32_t np = spec.probes ? spec.probes : 3;
    if (json) {
        printf("{\n  \"test\": \"hops\",\n  \"cancelled\": %s,\n  \"destination\": \"%s\",\n  \"reached\": %s,\n",
               rc == -ECANCELED ? "true" : "false", res.dest_addr, res.reached ? "true" : "false");
        printf("  \"hopCount\": %d,\n  \"probesSent\": %u,\n", res.hop_count, res.probes_sent);
        jnum("elapsedMs", res.elapsed_ms, 1);
        printf("  \"hops\": [\n");
        for (int t = 0; t < res.nhops; t++) {
            const nmp_hop *h = &res.hops[t];
            printf("    {\"ttl\": %d, \"address\": \"%s\", \"name\": \"%s\", \"answered\": %d, \"icmpType\": %d, "
                   "\"icmpCode\": %d, \"destination\": %s, \"otherAddresses\": %d, \"rttMs\": [",
                   h->ttl, h->addr, h->name, h->answered, h->icmp_type, h->icmp_code, h->destination ? "true" : "false",
                   h->other_addrs);
            for (uint32_t k = 0; k < np; k++) {
                if (h->rtt_ns[k] < 0) printf("%snull", k ? ", " : "");
                else printf("%s%.4f", k ? ", " : "", h->rtt_ns[k] / 1e6);
            }
            printf("]}%s\n", t + 1 < res.nhops ? "," : "");
        }
        printf("  ]\n}\n");
    } else {
        printf("hops to %s (%s): %s in %d hops, %u probes, %.1f ms\n", spec.host, res.dest_addr,
               res.reached ? "reached" : "not reached", res.hop_count, res.probes_sent, res.elapsed_ms);
        for (int t = 0; t < res.nhops; t++) {
            const nmp_hop *h = &res.hops[t];
            printf("  %2d  %-16s %s", h->ttl, h->answered ? h->addr : "*", h->name);
            for (uint32_t k = 0; k < np; k++) {
                if (h->rtt_ns[k] < 0) printf("  *");
                else printf("  %.3f ms", h->rtt_ns[k] / 1e6);
            }
            printf("%s\n", h->unreachable ? "  !unreachable" : "");
        }
    }
    return rc < 0 ? 1 : 0;
}

/* ---- capacity: packet-train dispersion ---- */

static const char *train_status_name(int st) {
    switch (st) {
    case NMP_TRAIN_USED: return "used";
    case NMP_TRAIN_LOSS: return "loss";
    case NMP_TRAIN_REORDER: return "reordered";
    case NMP_TRAIN_SENDER: return "sender-limited";
    default: return "not-sent";
    }
}

static int cmd_capacity(int argc, char **argv) {
    static const struct option opts[] = {
        {"host", required_argument, NULL, 'H'},   {"port", required_argument, NULL, 'p'},
        {"trains", required_argument, NULL, 'n'}, {"train-len", required_argument, NULL, 'l'},
        {"size", required_argument, NULL, 's'},   {"skip", required_argument, NULL, 'k'},
        {"gap-us", required_argument, NULL, 'g'}, {"timeout-ms", required_argument, NULL, 't'},
        {"ttl", required_argument, NULL, 'T'},    {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    nmp_capacity_spec spec = {.port = NMP_DEFAULT_PORT};
    int c, json = 0;
    double v;
    while ((c = getopt_long(argc, argv, "H:p:n:l:s:k:g:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'H': spec.host = optarg; break;
        case 'p': if (parse_num("--port", optarg, 1, 65535, &v) < 0) return 2; spec.port = (int)v; break;
        case 'n': if (parse_num("--trains", optarg, 1, NMP_CAP_MAX_TRAINS, &v) < 0) return 2; spec.trains = (uint32_t)v; break;
        case 'l': if (parse_num("--train-len", optarg, 4, NMP_TRAIN_MAX, &v) < 0) return 2; spec.train_len = (uint32_t)v; break;
        case 's': if (parse_num("--size", optarg, NMP_FRAME_HDR, NMP_FRAME_MAX, &v) < 0) return 2; spec.size = (uint32_t)v; break;
        case 'k': if (parse_num("--skip", optarg, 1, NMP_TRAIN_MAX, &v) < 0) return 2; spec.skip = (uint32_t)v; break;
        case 'g': if (parse_num("--gap-us", optarg, 100, 10e6, &v) < 0) return 2; spec.gap_ns = (uint64_t)(v * 1e3); break;
        case 't': if (parse_num("--timeout-ms", optarg, 0, 60000, &v) < 0) return 2; spec.timeout_ns = (uint64_t)(v * 1e6); break;
        case 'T': if (parse_num("--ttl", optarg, 1, 255, &v) < 0) return 2; spec.ttl = (int)v; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (spec.host == NULL) {
        fprintf(stderr, "nmprobe: --host is required\n");
        return 2;
    }
    nmp_control ctl = {.cancel = &cancel_flag};
    nmp_capacity_result r;
    char err[NMP_ERRLEN];
    nmp_monotime_ns t0 = nmp_mono_now();
    int rc = nmp_capacity_run(&spec, &ctl, &r, err, sizeof(err));
    double elapsed_ms = (double)(nmp_mono_now() - t0) / 1e6;
    if (rc < 0 && rc != -ECANCELED) {
        fprintf(stderr, "nmprobe capacity: %s\n", err);
        return 1;
    }
    if (json) {
        printf("{\n  \"test\": \"capacity\",\n  \"cancelled\": %s,\n", rc == -ECANCELED ? "true" : "false");
        printf("  \"localAddress\": \"%s\",\n  \"remoteAddress\": \"%s\",\n  \"remotePort\": %d,\n", r.local_addr,
               r.remote_addr, r.remote_port);
        printf("  \"trains\": %u,\n  \"trainsSent\": %u,\n  \"trainsUsed\": %u,\n", r.trains, r.trains_sent,
               r.trains_used);
        printf("  \"discardedLoss\": %u,\n  \"discardedReordered\": %u,\n  \"discardedSenderLimited\": %u,\n",
               r.discarded_loss, r.discarded_reorder, r.discarded_sender);
        printf("  \"trainLength\": %u,\n  \"packetSize\": %u,\n  \"skip\": %u,\n  \"gapNanos\": %llu,\n", r.train_len,
               r.size, r.skip, (unsigned long long)r.gap_ns);
        printf("  \"framesSent\": %u,\n  \"framesReceived\": %u,\n  \"frameOverheadBytes\": %u,\n"
               "  \"wireOverheadBytes\": %u,\n",
               r.frames_sent, r.frames_received, r.frame_overhead, r.wire_overhead);
        jnum("pilotSpanMs", r.pilot_span_ns / 1e6, 1);
        jnum("userMbps", r.user_mbps, 1);
        jnum("frameMbps", r.frame_mbps, 1);
        jnum("wireMbps", r.wire_mbps, 1);
        jnum("p10Mbps", r.p10_mbps, 1);
        jnum("p25Mbps", r.p25_mbps, 1);
        jnum("p75Mbps", r.p75_mbps, 1);
        jnum("p90Mbps", r.p90_mbps, 1);
        jnum("iqrMbps", r.iqr_mbps, 1);
        jnum("headUserMbps", r.head_user_mbps, 1);
        jnum("elapsedMs", elapsed_ms, 1);
        printf("  \"perTrain\": [\n");
        for (uint32_t t = 0; t < r.trains; t++) {
            printf("    {\"userMbps\": ");
            if (isnan(r.train_user_mbps[t])) printf("null");
            else printf("%.4f", r.train_user_mbps[t]);
            printf(", \"received\": %u, \"status\": \"%s\"}%s\n", r.train_received[t],
                   train_status_name(r.train_status[t]), t + 1 < r.trains ? "," : "");
        }
        printf("  ]\n}\n");
    } else {
        printf("capacity to %s (%s): %.2f Mbit/s user (payload), %.2f frame (+%u B headers), %.2f wire (+%u B)\n",
               spec.host, r.remote_addr, r.user_mbps, r.frame_mbps, r.frame_overhead, r.wire_mbps, r.wire_overhead);
        printf("  spread (user): p10 %.2f p25 %.2f p75 %.2f p90 %.2f IQR %.2f Mbit/s\n", r.p10_mbps, r.p25_mbps,
               r.p75_mbps, r.p90_mbps, r.iqr_mbps);
        printf("  trains: %u used of %u sent (%u loss, %u reordered, %u sender-limited), %u frames of %u B, skip %u, "
               "gap %.2f ms\n",
               r.trains_used, r.trains_sent, r.discarded_loss, r.discarded_reorder, r.discarded_sender, r.train_len,
               r.size, r.skip, r.gap_ns / 1e6);
        printf("  head (skipped) dispersion %.2f Mbit/s; %u of %u frames received; %.0f ms\n", r.head_user_mbps,
               r.frames_received, r.frames_sent, elapsed_ms);
    }
    nmp_capacity_result_free(&r);
    return rc < 0 ? 1 : 0;
}

/* ---- avail: rate scan ---- */

static int cmd_avail(int argc, char **argv) {
    static const struct option opts[] = {
        {"host", required_argument, NULL, 'H'},       {"port", required_argument, NULL, 'p'},
        {"size", required_argument, NULL, 's'},       {"min-mbps", required_argument, NULL, 'm'},
        {"max-mbps", required_argument, NULL, 'M'},   {"step-mbps", required_argument, NULL, 'S'},
        {"refine", required_argument, NULL, 'r'},     {"step-ms", required_argument, NULL, 'd'},
        {"pause-ms", required_argument, NULL, 'P'},   {"loss-percent", required_argument, NULL, 'L'},
        {"rate-tolerance", required_argument, NULL, 'R'}, {"delay-ms", required_argument, NULL, 'D'},
        {"timeout-ms", required_argument, NULL, 't'}, {"ttl", required_argument, NULL, 'T'},
        {"json", no_argument, NULL, 'j'},             {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    nmp_avail_spec spec = {.port = NMP_DEFAULT_PORT, .refine = 4};
    int c, json = 0;
    double v;
    while ((c = getopt_long(argc, argv, "H:p:s:m:M:S:r:d:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'H': spec.host = optarg; break;
        case 'p': if (parse_num("--port", optarg, 1, 65535, &v) < 0) return 2; spec.port = (int)v; break;
        case 's': if (parse_num("--size", optarg, NMP_FRAME_HDR, NMP_FRAME_MAX, &v) < 0) return 2; spec.size = (uint32_t)v; break;
        case 'm': if (parse_num("--min-mbps", optarg, 0.1, 100000, &v) < 0) return 2; spec.min_mbps = v; break;
        case 'M': if (parse_num("--max-mbps", optarg, 0.1, 100000, &v) < 0) return 2; spec.max_mbps = v; break;
        case 'S': if (parse_num("--step-mbps", optarg, 0.01, 100000, &v) < 0) return 2; spec.step_mbps = v; break;
        case 'r': if (parse_num("--refine", optarg, 0, 20, &v) < 0) return 2; spec.refine = (uint32_t)v; break;
        case 'd': if (parse_num("--step-ms", optarg, 10, 10000, &v) < 0) return 2; spec.step_ns = (uint64_t)(v * 1e6); break;
        case 'P': if (parse_num("--pause-ms", optarg, 0, 10000, &v) < 0) return 2; spec.pause_ns = (uint64_t)(v * 1e6); break;
        case 'L': if (parse_num("--loss-percent", optarg, 0.001, 100, &v) < 0) return 2; spec.loss_percent = v; break;
        case 'R': if (parse_num("--rate-tolerance", optarg, 0.001, 0.5, &v) < 0) return 2; spec.rate_tolerance = v; break;
        case 'D': if (parse_num("--delay-ms", optarg, 0.001, 10000, &v) < 0) return 2; spec.delay_threshold_ns = (uint64_t)(v * 1e6); break;
        case 't': if (parse_num("--timeout-ms", optarg, 0, 60000, &v) < 0) return 2; spec.timeout_ns = (uint64_t)(v * 1e6); break;
        case 'T': if (parse_num("--ttl", optarg, 1, 255, &v) < 0) return 2; spec.ttl = (int)v; break;
        case 'j': json = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (spec.host == NULL || spec.max_mbps <= 0) {
        fprintf(stderr, "nmprobe: --host and --max-mbps are required\n");
        return 2;
    }
    nmp_control ctl = {.cancel = &cancel_flag};
    nmp_avail_result r;
    char err[NMP_ERRLEN];
    nmp_monotime_ns t0 = nmp_mono_now();
    int rc = nmp_avail_run(&spec, &ctl, &r, err, sizeof(err));
    double elapsed_ms = (double)(nmp_mono_now() - t0) / 1e6;
    if (rc < 0 && rc != -ECANCELED && r.nsteps == 0) {
        fprintf(stderr, "nmprobe avail: %s\n", err);
        return 1;
    }
    if (json) {
        printf("{\n  \"test\": \"avail\",\n  \"cancelled\": %s,\n", rc == -ECANCELED ? "true" : "false");
        printf("  \"localAddress\": \"%s\",\n  \"remoteAddress\": \"%s\",\n  \"remotePort\": %d,\n", r.local_addr,
               r.remote_addr, r.remote_port);
        printf("  \"packetSize\": %u,\n  \"wireOverheadBytes\": %u,\n  \"bracketed\": %s,\n", r.size,
               r.wire_overhead, r.bracketed ? "true" : "false");
        jnum("estimateMbps", r.estimate_mbps, 1);
        jnum("estimateWireMbps", r.estimate_wire_mbps, 1);
        jnum("lowerMbps", r.lower_mbps, 1);
        jnum("upperMbps", r.upper_mbps, 1);
        jnum("elapsedMs", elapsed_ms, 1);
        printf("  \"steps\": [\n");
        for (uint32_t i = 0; i < r.nsteps; i++) {
            const nmp_avail_step *s = &r.steps[i];
            printf("    {\"offeredMbps\": %s, \"sentMbps\": %s, \"receivedMbps\": %s, \"lossPercent\": %s, "
                   "\"owdMinMs\": %s, \"owdMedianMs\": %s, \"owdIncreaseMs\": %s, \"owdSlopeMsPerS\": %s, "
                   "\"framesSent\": %u, \"framesReceived\": %u, \"delay\": %s, \"rate\": %s, \"loss\": %s, "
                   "\"senderLimited\": %s, \"refine\": %s}%s\n",
                   jd(s->offered_mbps), jd(s->sent_mbps), jd(s->recv_mbps), jd(s->loss_percent), jd(s->owd_min_ms),
                   jd(s->owd_median_ms), jd(s->owd_increase_ms), jd(s->owd_slope_ms_per_s), s->frames_sent, s->frames_received,
                   s->flags & NMP_AVAIL_DELAY ? "true" : "false", s->flags & NMP_AVAIL_RATE ? "true" : "false",
                   s->flags & NMP_AVAIL_LOSS ? "true" : "false", s->flags & NMP_AVAIL_SENDER ? "true" : "false",
                   s->refine ? "true" : "false", i + 1 < r.nsteps ? "," : "");
        }
        printf("  ]\n}\n");
    } else {
        printf("available bandwidth to %s (%s): ", spec.host, r.remote_addr);
        if (r.bracketed)
            printf("%.2f Mbit/s user (%.2f wire), between %.2f and %.2f\n", r.estimate_mbps, r.estimate_wire_mbps,
                   r.lower_mbps, r.upper_mbps);
        else if (isnan(r.upper_mbps))
            printf("at least %.2f Mbit/s user (no step congested)\n", r.lower_mbps);
        else
            printf("below %.2f Mbit/s user (the first step congested)\n", r.upper_mbps);
        printf("  %-9s %9s %9s %7s %9s %10s  %s\n", "offered", "sent", "received", "loss%", "owd ms", "owd +ms",
               "verdict");
        for (uint32_t i = 0; i < r.nsteps; i++) {
            const nmp_avail_step *s = &r.steps[i];
            printf("  %9.2f %9.2f %9.2f %7.2f %9.3f %10.3f  %s%s%s%s%s\n", s->offered_mbps, s->sent_mbps, s->recv_mbps,
                   s->loss_percent, s->owd_median_ms, s->owd_increase_ms, s->flags & 7 ? "congested:" : "follows",
                   s->flags & NMP_AVAIL_DELAY ? " delay" : "", s->flags & NMP_AVAIL_RATE ? " rate" : "",
                   s->flags & NMP_AVAIL_LOSS ? " loss" : "", s->flags & NMP_AVAIL_SENDER ? " (sender short)" : "");
        }
        printf("  %u steps, %.0f ms\n", r.nsteps, elapsed_ms);
    }
    if (rc < 0 && rc != -ECANCELED) fprintf(stderr, "nmprobe avail: %s\n", err);
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
    if (strcmp(argv[1], "stream") == 0) return cmd_stream(argc - 1, argv + 1);
    if (strcmp(argv[1], "scan") == 0) return cmd_scan(argc - 1, argv + 1);
    if (strcmp(argv[1], "tcp") == 0) return cmd_tcp(argc - 1, argv + 1);
    if (strcmp(argv[1], "hops") == 0) return cmd_hops(argc - 1, argv + 1);
    if (strcmp(argv[1], "capacity") == 0) return cmd_capacity(argc - 1, argv + 1);
    if (strcmp(argv[1], "avail") == 0) return cmd_avail(argc - 1, argv + 1);
    if (strcmp(argv[1], "hopcap") == 0) return nmp_cli_hopcap(argc - 1, argv + 1, &cancel_flag);
    fprintf(stderr, "nmprobe: unknown command %s (want rr, stream, scan, tcp, hops, hopcap, capacity or avail)\n", argv[1]);
    return 2;
}
