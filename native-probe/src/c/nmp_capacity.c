/* nmp_capacity.c -- path.bandwidth.capacity by packet-train dispersion:
 * trains of back-to-back frames in a UDP stream session, the receiver's
 * kernel timestamps giving each train's dispersion at the bottleneck. The
 * head of every train is left out (token-bucket bursts, filling queues), and
 * trains spoilt by loss, reordering or a slow sender are discarded before the
 * median is taken. See nmprobe.h for the definitions. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_capacity.h"
#include "nmp_kind.h"
#include "nmprobe.h"

#define DEFAULT_TRAINS 40
#define DEFAULT_TRAIN_LEN 100
#define DEFAULT_SIZE 1472
#define DEFAULT_TIMEOUT_NS 500000000ull
#define PILOT_GAP_NS 100000000ull    /* the pilot session's declared train period */
#define GAP_MIN_NS 1000000ull        /* automatic gap clamp */
#define GAP_MAX_NS 1000000000ull
#define SENDER_LIMIT 0.8             /* tail send span / arrival span above this: sender-limited */

void nmp_capacity_result_free(nmp_capacity_result *res) {
    free(res->train_user_mbps);
    free(res->train_status);
    free(res->train_received);
    res->train_user_mbps = NULL;
    res->train_status = NULL;
    res->train_received = NULL;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Dispersion rate (payload Mbit/s) of frames [from, to) of one train, over
 * those received; *k gets their count, *ordered whether their arrivals rise
 * with seq, *send_span_ns the sender's span over the same frames. NaN when
 * fewer than two arrived or the span is not positive. */
static double dispersion(const nmp_walltime_ns *send_wall, const nmp_walltime_ns *arrival_wall, uint32_t from,
                         uint32_t to, uint32_t size, uint32_t *k, int *ordered, double *send_span_ns) {
    nmp_walltime_ns lo = 0, hi = 0, prev = 0, s_lo = 0, s_hi = 0;
    uint32_t n = 0;
    *ordered = 1;
    for (uint32_t s = from; s < to; s++) {
        nmp_walltime_ns a = arrival_wall[s];
        if (a == 0) continue;
        if (n == 0) {
            lo = hi = a;
            s_lo = send_wall[s];
        } else {
            if (a < prev) *ordered = 0;
            if (a < lo) lo = a;
            if (a > hi) hi = a;
        }
        s_hi = send_wall[s];
        prev = a;
        n++;
    }
    *k = n;
    *send_span_ns = n >= 2 ? (double)(s_hi - s_lo) : NAN;
    if (n < 2 || hi <= lo) return NAN;
    return (double)(n - 1) * size * 8.0 / (double)(hi - lo) * 1e3;
}

int nmp_capacity_analyze(nmp_capacity_result *res, const nmp_walltime_ns *send_wall,
                         const nmp_walltime_ns *arrival_wall, uint32_t trains, uint32_t trains_sent,
                         uint32_t train_len, uint32_t skip, uint32_t size, int ipv6) {
    if (trains < 1 || trains > NMP_CAP_MAX_TRAINS || trains_sent > trains || train_len < 4 ||
        train_len > NMP_TRAIN_MAX || skip < 1 || skip + 3 > train_len || size < NMP_FRAME_HDR ||
        size > NMP_FRAME_MAX || send_wall == NULL || arrival_wall == NULL)
        return -EINVAL;
    nmp_capacity_result_free(res);
    res->train_user_mbps = malloc(trains * sizeof(*res->train_user_mbps));
    res->train_status = malloc(trains * sizeof(*res->train_status));
    res->train_received = calloc(trains, sizeof(*res->train_received));
    double *used = malloc(trains * sizeof(*used));
    double *heads = malloc(trains * sizeof(*heads));
    if (!res->train_user_mbps || !res->train_status || !res->train_received || !used || !heads) {
        free(used);
        free(heads);
        nmp_capacity_result_free(res);
        return -ENOMEM;
    }
    res->trains = trains;
    res->trains_sent = trains_sent;
    res->train_len = train_len;
    res->skip = skip;
    res->size = size;
    res->frame_overhead = 8 + (ipv6 ? 40 : 20) + 14;
    res->wire_overhead = res->frame_overhead + 4 + 8 + 12;
    res->trains_used = res->discarded_loss = res->discarded_reorder = res->discarded_sender = 0;
    res->frames_sent = trains_sent * train_len;
    res->frames_received = 0;
    uint32_t tail = train_len - skip, nh = 0;
    for (uint32_t t = 0; t < trains; t++) {
        res->train_user_mbps[t] = NAN;
        if (t >= trains_sent) {
            res->train_status[t] = NMP_TRAIN_NOT_SENT;
            continue;
        }
        uint32_t base = t * train_len, k, kh;
        int ordered, ordered_head;
        double send_span, head_send_span;
        for (uint32_t i = 0; i < train_len; i++)
            if (arrival_wall[base + i] != 0) res->train_received[t]++;
        res->frames_received += res->train_received[t];
        double head = dispersion(send_wall, arrival_wall, base, base + skip + 1, size, &kh, &ordered_head,
                                 &head_send_span);
        if (!isnan(head)) heads[nh++] = head;
        double est = dispersion(send_wall, arrival_wall, base + skip, base + train_len, size, &k, &ordered,
                                &send_span);
        res->train_user_mbps[t] = est;
        if (k < 2 || 2 * k < tail || isnan(est)) {
            res->train_status[t] = NMP_TRAIN_LOSS;
            res->discarded_loss++;
        } else if (!ordered) {
            res->train_status[t] = NMP_TRAIN_REORDER;
            res->discarded_reorder++;
        } else if (send_span >= SENDER_LIMIT * ((double)(k - 1) * size * 8.0 / est * 1e3)) {
            res->train_status[t] = NMP_TRAIN_SENDER;
            res->discarded_sender++;
        } else {
            res->train_status[t] = NMP_TRAIN_USED;
            used[res->trains_used++] = est;
        }
    }
    res->user_mbps = res->frame_mbps = res->wire_mbps = NAN;
    res->p10_mbps = res->p25_mbps = res->p75_mbps = res->p90_mbps = res->iqr_mbps = NAN;
    res->head_user_mbps = NAN;
    size_t m = res->trains_used;
    if (m > 0) {
        qsort(used, m, sizeof(*used), cmp_double);
        nmp_stats_median(used, m, &res->user_mbps);
        nmp_stats_quantile(used, m, 0.10, &res->p10_mbps);
        nmp_stats_quantile(used, m, 0.25, &res->p25_mbps);
        nmp_stats_quantile(used, m, 0.75, &res->p75_mbps);
        nmp_stats_quantile(used, m, 0.90, &res->p90_mbps);
        res->iqr_mbps = res->p75_mbps - res->p25_mbps;
        res->frame_mbps = res->user_mbps * (size + res->frame_overhead) / size;
        res->wire_mbps = res->user_mbps * (size + res->wire_overhead) / size;
    }
    if (nh > 0) nmp_stats_median(heads, nh, &res->head_user_mbps);
    free(used);
    free(heads);
    return 0;
}

static int check_spec(const nmp_capacity_spec *s, uint32_t trains, uint32_t len, uint32_t size, uint32_t skip,
                      char *err, size_t errlen) {
    if (s->host == NULL || s->host[0] == '\0' || s->port < 1 || s->port > 65535 || trains < 1 ||
        trains > NMP_CAP_MAX_TRAINS || len < 4 || len > NMP_TRAIN_MAX || size < NMP_FRAME_HDR ||
        size > NMP_FRAME_MAX || skip < 1 || skip + 3 > len || (s->gap_ns != 0 && s->gap_ns < 100000ull) ||
        s->gap_ns > 10000000000ull || s->timeout_ns > 60000000000ull || s->ttl < 0 || s->ttl > 255 ||
        (uint64_t)trains * len > 1000000ull) {
        nmp_seterr(err, errlen,
                   "capacity: parameter out of range (host non-empty, port 1..65535, trains 1..%d, train_len 4..%d, "
                   "trains*train_len <= 1000000, size %d..%d, skip 1..train_len-3, gap 100 us..10 s or 0, "
                   "timeout <= 60 s, ttl 0..255)",
                   NMP_CAP_MAX_TRAINS, NMP_TRAIN_MAX, NMP_FRAME_HDR, NMP_FRAME_MAX);
        return -EINVAL;
    }
    return 0;
}

int nmp_capacity_run(const nmp_capacity_spec *spec, const nmp_control *ctl, nmp_capacity_result *res, char *err,
                     size_t errlen) {
    memset(res, 0, sizeof(*res));
    uint32_t trains = spec->trains ? spec->trains : DEFAULT_TRAINS;
    uint32_t len = spec->train_len ? spec->train_len : DEFAULT_TRAIN_LEN;
    uint32_t size = spec->size ? spec->size : DEFAULT_SIZE;
    uint32_t skip = spec->skip ? spec->skip : len / 2;
    int rc = check_spec(spec, trains, len, size, skip, err, errlen);
    if (rc < 0) return rc;
    nmp_stream_spec ss = {.host = spec->host, .port = spec->port, .size = size, .ttl = spec->ttl,
                          .timeout_ns = spec->timeout_ns ? spec->timeout_ns : DEFAULT_TIMEOUT_NS,
                          .connect_timeout_ms = spec->connect_timeout_ms, .key_file = spec->key_file,
                          .hist_bins = 1, .train_len = len};
    nmp_stream_result sr;
    memset(&sr, 0, sizeof(sr));
    res->start_wall = nmp_wall_now();
    res->pilot_span_ns = NAN;
    uint64_t gap = spec->gap_ns;
    if (gap == 0) {
        /* pilot: one train in a session of its own; its arrival span is a train's drain time */
        ss.count = len;
        ss.interval_ns = PILOT_GAP_NS;
        nmp_control pc = {.cancel = ctl ? ctl->cancel : NULL};
        rc = nmp_stream_run(&ss, &pc, &sr, err, errlen);
        if (rc < 0) {
            nmp_stream_result_free(&sr);
            if (rc == -ECANCELED) {
                /* nothing of the trains was sent: an empty, well-formed result */
                static const nmp_walltime_ns none[1];
                int arc = nmp_capacity_analyze(res, none, none, trains, 0, len, skip, size, 0);
                if (arc < 0) rc = arc;
                res->end_wall = nmp_wall_now();
                res->remote_port = spec->port;
                nmp_seterr(err, errlen, "capacity %s:%d: cancelled during the pilot train", spec->host, spec->port);
            }
            return rc;
        }
        double span = sr.received >= 2 ? (double)(sr.last_arrival_wall - sr.first_arrival_wall) : NAN;
        double send_span = sr.sent >= 2 ? (double)(sr.last_send_wall - sr.first_send_wall) : 0;
        nmp_stream_result_free(&sr);
        res->pilot_span_ns = span;
        double g = isnan(span) ? (double)GAP_MAX_NS : 4.0 * (span > send_span ? span : send_span);
        gap = g < GAP_MIN_NS ? GAP_MIN_NS : g > GAP_MAX_NS ? GAP_MAX_NS : (uint64_t)g;
    }
    res->gap_ns = gap;
    ss.count = trains * len;
    ss.interval_ns = gap;
    rc = nmp_stream_run(&ss, ctl, &sr, err, errlen);
    if (rc < 0 && rc != -ECANCELED) goto end;
    int ipv6 = strchr(sr.remote_addr, ':') != NULL;
    int arc = nmp_capacity_analyze(res, sr.send_wall, sr.arrival_wall, trains, sr.sent / len, len, skip, size, ipv6);
    if (arc < 0) {
        rc = arc;
        nmp_seterr(err, errlen, "capacity: analysis: %s", strerror(-arc));
        goto end;
    }
    res->end_wall = nmp_wall_now();
    memcpy(res->local_addr, sr.local_addr, sizeof(res->local_addr));
    memcpy(res->remote_addr, sr.remote_addr, sizeof(res->remote_addr));
    res->remote_port = spec->port;
    if (rc == -ECANCELED)
        nmp_seterr(err, errlen, "capacity %s:%d: cancelled after %u of %u trains", spec->host, spec->port,
                   res->trains_sent, trains);
end:
    nmp_stream_result_free(&sr);
    if (rc < 0 && rc != -ECANCELED) nmp_capacity_result_free(res);
    return rc;
}

/* ---- the "capacity" kind: spec table and packed result (nmp_kind.h) ---- */

static const nmp_spec_field capacity_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_capacity_spec, host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "responder name or address (IPv4 or IPv6)"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_capacity_spec, port), .lo = 1, .hi = 65535,
     .def = NMP_DEFAULT_PORT, .cli = "port", .cli_short = 'p', .help = "responder control port"},
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(nmp_capacity_spec, key_file), .hi = 4095, .cli = "key-file",
     .help = "file with the responder's shared key (mode 600), for a responder started with --key-file"},
    {.name = "trains", .type = NMP_S_U32, .offset = offsetof(nmp_capacity_spec, trains), .lo = 1,
     .hi = NMP_CAP_MAX_TRAINS, .def = 40, .cli = "trains", .cli_short = 'n', .help = "trains to send"},
    {.name = "trainLen", .type = NMP_S_U32, .offset = offsetof(nmp_capacity_spec, train_len), .lo = 4,
     .hi = NMP_TRAIN_MAX, .def = 100, .cli = "train-len", .cli_short = 'l', .help = "frames per train"},
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(nmp_capacity_spec, size), .lo = NMP_FRAME_HDR,
     .hi = NMP_FRAME_MAX, .def = 1472, .cli = "size", .cli_short = 's', .help = "UDP payload bytes per frame"},
    /* 0 = train-len / 2; else 1..train-len - 3 (capacity_check) */
    {.name = "skip", .type = NMP_S_U32, .offset = offsetof(nmp_capacity_spec, skip), .hi = NMP_TRAIN_MAX,
     .cli = "skip", .cli_short = 'k', .help = "head frames left out per train (0 = train-len / 2)"},
    /* 0 = 4x a pilot train's arrival span; else 100 us..10 s (capacity_check) */
    {.name = "gapNs", .type = NMP_S_U64, .offset = offsetof(nmp_capacity_spec, gap_ns), .hi = 10e9, .cli = "gap-us",
     .cli_short = 'g', .cli_scale = 1000, .help = "train start to train start (0 = automatic from a pilot train)"},
    /* 0 is the engine's 500 ms */
    {.name = "timeoutNs", .type = NMP_S_U64, .offset = offsetof(nmp_capacity_spec, timeout_ns), .hi = 60e9,
     .def = 500e6, .cli = "timeout-ms", .cli_short = 't', .cli_scale = 1e6,
     .help = "wait after the last frame before fetching the receiver's records"},
    {.name = "ttl", .type = NMP_S_INT, .offset = offsetof(nmp_capacity_spec, ttl), .hi = 255, .cli = "ttl",
     .help = "outgoing TTL / hop limit (0 = system default)"},
};

static int capacity_check(void *sp, char *err, size_t errlen) {
    const nmp_capacity_spec *s = sp;
    if (s->skip != 0 && s->skip + 3 > s->train_len) {
        nmp_seterr(err, errlen, "capacity: skip %u is outside 1..%u (train length - 3)", s->skip, s->train_len - 3);
        return -EINVAL;
    }
    if (s->gap_ns != 0 && s->gap_ns < 100000) {
        nmp_seterr(err, errlen, "capacity: gapNs %llu is outside 0 or 100000..1e10", (unsigned long long)s->gap_ns);
        return -EINVAL;
    }
    if ((uint64_t)s->trains * s->train_len > 1000000) {
        nmp_seterr(err, errlen, "capacity: trains * trainLen %llu is above 1000000",
                   (unsigned long long)s->trains * s->train_len);
        return -EINVAL;
    }
    return 0;
}

static const char *capacity_status_name(int st) {
    switch (st) {
    case NMP_TRAIN_USED: return "used";
    case NMP_TRAIN_LOSS: return "loss";
    case NMP_TRAIN_REORDER: return "reordered";
    case NMP_TRAIN_SENDER: return "sender-limited";
    default: return "not-sent";
    }
}

static int capacity_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    nmp_capacity_result r;
    const char **status = NULL;
    double *nan_rows = NULL;
    memset(&r, 0, sizeof(r));
    nmp_monotime_ns t0 = nmp_mono_now();
    int rc = nmp_capacity_run(sp, ctl, &r, err, errlen);
    double elapsed_ms = (double)(nmp_mono_now() - t0) / 1e6;
    if (rc < 0 && rc != -ECANCELED) goto end;
    /* per-train rows: the engine's, or (a cancel it did not foresee) 'trains' rows not sent */
    uint32_t n = r.trains;
    int have = r.train_user_mbps && r.train_status && r.train_received;
    if (!have && n > 0 && rc != -ECANCELED) {
        nmp_seterr(err, errlen, "capacity: the engine returned no per-train results");
        rc = -EFAULT;
        goto end;
    }
    nmp_pack_bool(out, "cancelled", rc == -ECANCELED);
    nmp_pack_str(out, "localAddress", r.local_addr);
    nmp_pack_str(out, "remoteAddress", r.remote_addr);
    nmp_pack_i64(out, "remotePort", r.remote_port);
    nmp_pack_i64(out, "trains", r.trains);
    nmp_pack_i64(out, "trainsSent", r.trains_sent);
    nmp_pack_i64(out, "trainsUsed", r.trains_used);
    nmp_pack_i64(out, "discardedLoss", r.discarded_loss);
    nmp_pack_i64(out, "discardedReordered", r.discarded_reorder);
    nmp_pack_i64(out, "discardedSenderLimited", r.discarded_sender);
    nmp_pack_i64(out, "trainLength", r.train_len);
    nmp_pack_i64(out, "packetSize", r.size);
    nmp_pack_i64(out, "skip", r.skip);
    nmp_pack_i64(out, "gapNanos", (int64_t)r.gap_ns);
    nmp_pack_i64(out, "framesSent", r.frames_sent);
    nmp_pack_i64(out, "framesReceived", r.frames_received);
    nmp_pack_i64(out, "frameOverheadBytes", r.frame_overhead);
    nmp_pack_i64(out, "wireOverheadBytes", r.wire_overhead);
    nmp_pack_f64(out, "pilotSpanMs", r.pilot_span_ns / 1e6);
    nmp_pack_f64(out, "userMbps", r.user_mbps);
    nmp_pack_f64(out, "frameMbps", r.frame_mbps);
    nmp_pack_f64(out, "wireMbps", r.wire_mbps);
    nmp_pack_f64(out, "p10Mbps", r.p10_mbps);
    nmp_pack_f64(out, "p25Mbps", r.p25_mbps);
    nmp_pack_f64(out, "p75Mbps", r.p75_mbps);
    nmp_pack_f64(out, "p90Mbps", r.p90_mbps);
    nmp_pack_f64(out, "iqrMbps", r.iqr_mbps);
    nmp_pack_f64(out, "headUserMbps", r.head_user_mbps);
    nmp_pack_f64(out, "elapsedMs", elapsed_ms);
    nmp_pack_i64(out, "startEpochNanos", r.start_wall);
    nmp_pack_i64(out, "endEpochNanos", r.end_wall);
    status = malloc((n ? n : 1) * sizeof(*status));
    nan_rows = have ? NULL : malloc((n ? n : 1) * sizeof(*nan_rows));
    if (status == NULL || (!have && nan_rows == NULL)) {
        nmp_seterr(err, errlen, "capacity: out of memory");
        rc = -ENOMEM;
        goto end;
    }
    for (uint32_t i = 0; i < n; i++) {
        status[i] = capacity_status_name(have ? r.train_status[i] : NMP_TRAIN_NOT_SENT);
        if (!have) nan_rows[i] = NAN;
    }
    nmp_pack_f64s(out, "perTrain.userMbps", have ? r.train_user_mbps : nan_rows, n);
    if (have) {
        nmp_pack_col_i64(out, "perTrain.received", r.train_received, n, sizeof(uint32_t), 0, NMP_C_U32);
    } else {
        int64_t *zeros = calloc(n ? n : 1, sizeof(*zeros));
        if (zeros == NULL && out->failed == 0) out->failed = -ENOMEM;
        if (zeros != NULL) nmp_pack_i64s(out, "perTrain.received", zeros, n);
        free(zeros);
    }
    nmp_pack_strs(out, "perTrain.status", status, n);
end:
    free(nan_rows);
    free(status);
    nmp_capacity_result_free(&r);
    return rc;
}

const nmp_kind nmp_kind_capacity = {
    .name = "capacity",
    .summary = "path capacity by packet-train dispersion (Mbit/s user, frame and wire level)",
    .fields = capacity_fields,
    .nfields = sizeof(capacity_fields) / sizeof(capacity_fields[0]),
    .spec_size = sizeof(nmp_capacity_spec),
    .check = capacity_check,
    .run = capacity_kind_run,
};
