/* nmp_avail.c -- path.bandwidth.available by a rate scan: UDP streams at
 * rising offered rates (UDPmon's throughput-versus-spacing curve), each step
 * judged congested when one-way delay grows, the received rate stops
 * following the sent rate, or frames are lost; a bisection then narrows the
 * bracket. See nmprobe.h for the definitions. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_avail.h"
#include "nmprobe.h"

#define DEFAULT_SIZE 1472
#define DEFAULT_STEP_NS 500000000ull
#define DEFAULT_PAUSE_NS 200000000ull
#define DEFAULT_TIMEOUT_NS 500000000ull
#define DEFAULT_LOSS 1.0
#define DEFAULT_TOL 0.03
#define DEFAULT_DELAY_NS 1000000ull
#define MIN_FRAMES 20u

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double loss_threshold(const nmp_avail_spec *s) { return s->loss_percent > 0 ? s->loss_percent : DEFAULT_LOSS; }
static double rate_tol(const nmp_avail_spec *s) { return s->rate_tolerance > 0 ? s->rate_tolerance : DEFAULT_TOL; }
static double delay_threshold_ms(const nmp_avail_spec *s) {
    return (double)(s->delay_threshold_ns ? s->delay_threshold_ns : DEFAULT_DELAY_NS) / 1e6;
}

void nmp_avail_classify(nmp_avail_step *st, const nmp_stream_result *sr, const nmp_avail_spec *spec) {
    st->sent_mbps = sr->send_user_mbps;
    st->recv_mbps = sr->recv_user_mbps;
    st->loss_percent = sr->loss_percent;
    st->owd_min_ms = sr->owd_min_ns / 1e6;
    st->owd_median_ms = sr->owd_median_ns / 1e6;
    st->frames_sent = sr->sent;
    st->frames_received = sr->received;
    st->owd_increase_ms = st->owd_slope_ms_per_s = NAN;
    st->flags = 0;
    /* one-way delays of the received frames in seq order, with their send times */
    uint32_t n = sr->requested, k = 0;
    double *owd = malloc((n ? n : 1) * sizeof(*owd));
    double *ts = malloc((n ? n : 1) * sizeof(*ts));
    double *tmp = malloc((n ? n : 1) * sizeof(*tmp));
    if (owd && ts && tmp && sr->owd_ns && sr->send_wall && sr->arrival_wall) {
        for (uint32_t i = 0; i < n; i++) {
            if (sr->arrival_wall[i] == 0) continue; /* lost; a negative delay (clock offset) is a delay */
            owd[k] = (double)sr->owd_ns[i] / 1e6;
            ts[k] = (double)(sr->send_wall[i] - sr->first_send_wall) / 1e9;
            k++;
        }
        if (k >= 8) {
            uint32_t q = k / 4;
            double first, last;
            memcpy(tmp, owd, q * sizeof(*tmp));
            qsort(tmp, q, sizeof(*tmp), cmp_double);
            nmp_stats_median(tmp, q, &first);
            memcpy(tmp, owd + (k - q), q * sizeof(*tmp));
            qsort(tmp, q, sizeof(*tmp), cmp_double);
            nmp_stats_median(tmp, q, &last);
            st->owd_increase_ms = last - first;
            nmp_linfit fit;
            if (nmp_stats_linfit(ts, owd, k, &fit) == 0) st->owd_slope_ms_per_s = fit.slope;
        }
    }
    free(owd);
    free(ts);
    free(tmp);
    if (!isnan(st->owd_increase_ms) && st->owd_increase_ms > delay_threshold_ms(spec)) st->flags |= NMP_AVAIL_DELAY;
    if (!(st->recv_mbps >= st->sent_mbps * (1.0 - rate_tol(spec)))) st->flags |= NMP_AVAIL_RATE;
    if (st->loss_percent > loss_threshold(spec)) st->flags |= NMP_AVAIL_LOSS;
    if (!(st->sent_mbps >= st->offered_mbps * (1.0 - rate_tol(spec)))) st->flags |= NMP_AVAIL_SENDER;
}

static int check_spec(const nmp_avail_spec *s, char *err, size_t errlen) {
    if (s->host == NULL || s->host[0] == '\0' || s->port < 1 || s->port > 65535 ||
        (s->size != 0 && (s->size < NMP_FRAME_HDR || s->size > NMP_FRAME_MAX)) || !(s->max_mbps >= 0.1) ||
        !(s->max_mbps <= 100000) || !(s->min_mbps >= 0) || (s->min_mbps != 0 && s->min_mbps < 0.1) ||
        !(s->min_mbps <= s->max_mbps) || !(s->step_mbps >= 0) || !(s->step_mbps <= s->max_mbps) ||
        s->refine > 20 || (s->step_ns != 0 && s->step_ns < 10000000ull) || s->step_ns > 10000000000ull ||
        s->pause_ns > 10000000000ull || !(s->loss_percent >= 0 && s->loss_percent <= 100) ||
        !(s->rate_tolerance >= 0 && s->rate_tolerance <= 0.5) || s->delay_threshold_ns > 10000000000ull ||
        s->timeout_ns > 60000000000ull || s->ttl < 0 || s->ttl > 255) {
        nmp_seterr(err, errlen,
                   "avail: parameter out of range (host non-empty, port 1..65535, size %d..%d or 0, max_mbps "
                   "0.1..100000, min_mbps 0.1..max_mbps or 0, step_mbps 0..max_mbps, refine 0..20, step 10 ms..10 s "
                   "or 0, pause <= 10 s, loss 0..100 %%, rate tolerance 0..0.5, delay threshold <= 10 s, timeout "
                   "<= 60 s, ttl 0..255)",
                   NMP_FRAME_HDR, NMP_FRAME_MAX);
        return -EINVAL;
    }
    return 0;
}

/* Sleeps ns, waking every 20 ms to look at the cancel flag. */
static void pause_ns(uint64_t ns, const nmp_control *ctl) {
    nmp_monotime_ns until = nmp_mono_now() + ns;
    while (!nmp_control_cancelled(ctl)) {
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= until) break;
        nmp_monotime_ns step = now + 20000000ull;
        nmp_sleep_until(step < until ? step : until, 0);
    }
}

/* Runs one step at 'mbps' and appends it to res. Returns 0, -ECANCELED
 * (step kept if it sent any frame) or another negative code (step not
 * kept). */
static int run_step(const nmp_avail_spec *spec, const nmp_control *ctl, nmp_avail_result *res, double mbps,
                    int refine, char *err, size_t errlen) {
    uint32_t size = res->size;
    uint64_t step_ns = spec->step_ns ? spec->step_ns : DEFAULT_STEP_NS;
    double interval = size * 8e3 / mbps; /* ns */
    double frames = (double)step_ns / interval;
    uint32_t count = frames < MIN_FRAMES ? MIN_FRAMES : frames > 1000000 ? 1000000 : (uint32_t)frames;
    nmp_stream_spec ss = {.host = spec->host, .port = spec->port, .count = count, .size = size,
                          .interval_ns = (uint64_t)(interval + 0.5), .ttl = spec->ttl, .hist_bins = 1,
                          .timeout_ns = spec->timeout_ns ? spec->timeout_ns : DEFAULT_TIMEOUT_NS,
                          .connect_timeout_ms = spec->connect_timeout_ms, .key_file = spec->key_file};
    nmp_control sc = {.cancel = ctl ? ctl->cancel : NULL};
    nmp_stream_result sr;
    int rc = nmp_stream_run(&ss, &sc, &sr, err, errlen);
    if (rc < 0 && rc != -ECANCELED) return rc;
    if (rc == -ECANCELED && sr.sent == 0) {
        /* cancelled before this step's session started: no step to keep */
        nmp_stream_result_free(&sr);
        return rc;
    }
    nmp_avail_step *st = &res->steps[res->nsteps++];
    memset(st, 0, sizeof(*st));
    st->offered_mbps = mbps;
    st->refine = refine;
    nmp_avail_classify(st, &sr, spec);
    if (res->local_addr[0] == '\0') {
        memcpy(res->local_addr, sr.local_addr, sizeof(res->local_addr));
        memcpy(res->remote_addr, sr.remote_addr, sizeof(res->remote_addr));
        res->wire_overhead = sr.wire_overhead;
    }
    nmp_stream_result_free(&sr);
    return rc;
}

/* The bracket from all steps so far: the lowest sent rate that congested the
 * path, and the highest rate that crossed it without congestion, counted as
 * received (a sender that fell short, or a path that dropped a little within
 * the tolerance, did not show that the path carries what was asked). When a
 * congested step sent less than an uncongested one delivered, the two crossed
 * within the sender's own jitter: they still bound the estimate, from both
 * sides, and the bracket is taken the other way round. No path delivers
 * more than it has room for, so the estimate never exceeds the highest rate
 * any step received: a sender that cannot reach the upper end of the bracket
 * (steps flagged sender-limited, with no loss or delay growth) leaves the
 * bracket wide above the truth, and the midpoint alone would read high. */
static void bracket(nmp_avail_result *res) {
    double lo = 0, hi = NAN, max_recv = NAN;
    int have_lo = 0;
    for (uint32_t i = 0; i < res->nsteps; i++) {
        const nmp_avail_step *s = &res->steps[i];
        if (!isnan(s->recv_mbps) && (isnan(max_recv) || s->recv_mbps > max_recv)) max_recv = s->recv_mbps;
        double sent = isnan(s->sent_mbps) ? s->offered_mbps : s->sent_mbps;
        if (s->flags & (NMP_AVAIL_DELAY | NMP_AVAIL_RATE | NMP_AVAIL_LOSS)) {
            if (isnan(hi) || sent < hi) hi = sent;
        } else {
            double passed = !isnan(s->recv_mbps) && s->recv_mbps < sent ? s->recv_mbps : sent;
            if (passed > lo) {
                lo = passed;
                have_lo = 1;
            }
        }
    }
    res->bracketed = have_lo && !isnan(hi);
    if (res->bracketed && hi < lo) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    res->lower_mbps = lo;
    res->upper_mbps = hi;
    res->estimate_mbps = res->bracketed ? (lo + hi) / 2 : NAN;
    if (res->bracketed && !isnan(max_recv) && max_recv < res->estimate_mbps)
        res->estimate_mbps = max_recv > lo ? max_recv : lo;
    res->estimate_wire_mbps = res->estimate_mbps * (res->size + res->wire_overhead) / res->size;
}

int nmp_avail_run(const nmp_avail_spec *spec, const nmp_control *ctl, nmp_avail_result *res, char *err,
                  size_t errlen) {
    memset(res, 0, sizeof(*res));
    res->upper_mbps = res->estimate_mbps = res->estimate_wire_mbps = NAN;
    int rc = check_spec(spec, err, errlen);
    if (rc < 0) return rc;
    res->size = spec->size ? spec->size : DEFAULT_SIZE;
    res->remote_port = spec->port;
    res->start_wall = nmp_wall_now();
    double step = spec->step_mbps > 0 ? spec->step_mbps : spec->max_mbps / 10;
    double lo = spec->min_mbps > 0 ? spec->min_mbps : step;
    /* Counted as a double first: a tiny step would overflow the conversion to uint32_t. */
    double coarse_d = floor((spec->max_mbps - lo) / step + 1e-9) + 1;
    if (!(coarse_d + spec->refine <= NMP_AVAIL_MAX_STEPS)) {
        nmp_seterr(err, errlen, "avail: %.0f coarse steps + %u refinements exceed %d steps", coarse_d, spec->refine,
                   NMP_AVAIL_MAX_STEPS);
        return -EINVAL;
    }
    uint32_t coarse = (uint32_t)coarse_d;
    uint32_t planned = coarse + spec->refine;
    int congested = 0;
    for (uint32_t i = 0; i < coarse && !congested; i++) {
        if (i > 0) pause_ns(spec->pause_ns ? spec->pause_ns : DEFAULT_PAUSE_NS, ctl);
        if (nmp_control_cancelled(ctl)) break;
        rc = run_step(spec, ctl, res, lo + i * step, 0, err, errlen);
        if (rc < 0) goto end;
        congested = res->steps[res->nsteps - 1].flags & (NMP_AVAIL_DELAY | NMP_AVAIL_RATE | NMP_AVAIL_LOSS);
        if (ctl && ctl->progress) ctl->progress(ctl->progress_ctx, res->nsteps, planned);
    }
    bracket(res);
    for (uint32_t r = 0; r < spec->refine && res->bracketed && !nmp_control_cancelled(ctl); r++) {
        pause_ns(spec->pause_ns ? spec->pause_ns : DEFAULT_PAUSE_NS, ctl);
        if (nmp_control_cancelled(ctl)) break;
        rc = run_step(spec, ctl, res, (res->lower_mbps + res->upper_mbps) / 2, 1, err, errlen);
        if (rc < 0) goto end;
        bracket(res);
        if (ctl && ctl->progress) ctl->progress(ctl->progress_ctx, res->nsteps, planned);
    }
end:
    bracket(res);
    res->end_wall = nmp_wall_now();
    if (rc == 0 && nmp_control_cancelled(ctl)) rc = -ECANCELED;
    if (rc == -ECANCELED)
        nmp_seterr(err, errlen, "avail %s:%d: cancelled after %u steps", spec->host, spec->port, res->nsteps);
    return rc;
}

/* ---- the "avail" kind: spec table and packed result (nmp_kind.h) ---- */

#include "nmp_kind.h"

/* Defaults are the engine's (its 0 = default values spelled out), refine 4 the CLI's. */
static const nmp_spec_field avail_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_avail_spec, host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "responder name or address (IPv4 or IPv6)"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_avail_spec, port), .lo = 1, .hi = 65535,
     .def = NMP_DEFAULT_PORT, .cli = "port", .cli_short = 'p', .help = "responder control port"},
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(nmp_avail_spec, key_file), .hi = 4095, .cli = "key-file",
     .help = "file with the responder's shared key (mode 600), for a responder started with --key-file"},
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(nmp_avail_spec, size), .lo = NMP_FRAME_HDR,
     .hi = NMP_FRAME_MAX, .def = DEFAULT_SIZE, .cli = "size", .cli_short = 's', .help = "UDP payload bytes per frame"},
    /* 0 = stepMbps; else 0.1..maxMbps (avail_check) */
    {.name = "minMbps", .type = NMP_S_F64, .offset = offsetof(nmp_avail_spec, min_mbps), .hi = 100000,
     .cli = "min-mbps", .cli_short = 'm', .help = "first offered rate, Mbit/s (0 = step-mbps)"},
    {.name = "maxMbps", .type = NMP_S_F64, .offset = offsetof(nmp_avail_spec, max_mbps), .lo = 0.1, .hi = 100000,
     .required = 1, .cli = "max-mbps", .cli_short = 'M', .help = "highest offered rate, Mbit/s"},
    /* 0 = maxMbps / 10; at most maxMbps (avail_check) */
    {.name = "stepMbps", .type = NMP_S_F64, .offset = offsetof(nmp_avail_spec, step_mbps), .hi = 100000,
     .cli = "step-mbps", .cli_short = 'S', .help = "coarse step, Mbit/s (0 = max-mbps / 10)"},
    {.name = "refine", .type = NMP_S_U32, .offset = offsetof(nmp_avail_spec, refine), .hi = 20, .def = 4,
     .cli = "refine", .cli_short = 'r', .help = "bisection steps after the coarse scan"},
    {.name = "stepNs", .type = NMP_S_U64, .offset = offsetof(nmp_avail_spec, step_ns), .lo = 10e6, .hi = 10e9,
     .def = DEFAULT_STEP_NS, .cli = "step-ms", .cli_short = 'd', .cli_scale = 1e6, .help = "sending time per step"},
    {.name = "pauseNs", .type = NMP_S_U64, .offset = offsetof(nmp_avail_spec, pause_ns), .hi = 10e9,
     .def = DEFAULT_PAUSE_NS, .cli = "pause-ms", .cli_scale = 1e6, .help = "pause between steps (0 = 200 ms)"},
    {.name = "lossPercent", .type = NMP_S_F64, .offset = offsetof(nmp_avail_spec, loss_percent), .hi = 100,
     .def = DEFAULT_LOSS, .cli = "loss-percent", .help = "a step losing more is congested (0 = 1 %)"},
    {.name = "rateTolerance", .type = NMP_S_F64, .offset = offsetof(nmp_avail_spec, rate_tolerance), .hi = 0.5,
     .def = DEFAULT_TOL, .cli = "rate-tolerance", .help = "received-rate shortfall that is congestion (0 = 0.03)"},
    {.name = "delayThresholdNs", .type = NMP_S_U64, .offset = offsetof(nmp_avail_spec, delay_threshold_ns),
     .hi = 10e9, .def = DEFAULT_DELAY_NS, .cli = "delay-ms", .cli_scale = 1e6,
     .help = "one-way delay growth that marks congestion (0 = 1 ms)"},
    {.name = "timeoutNs", .type = NMP_S_U64, .offset = offsetof(nmp_avail_spec, timeout_ns), .hi = 60e9,
     .def = DEFAULT_TIMEOUT_NS, .cli = "timeout-ms", .cli_short = 't', .cli_scale = 1e6,
     .help = "wait after each step's last frame (0 = 500 ms)"},
    {.name = "ttl", .type = NMP_S_INT, .offset = offsetof(nmp_avail_spec, ttl), .hi = 255, .cli = "ttl",
     .help = "outgoing TTL / hop limit (0 = system default)"},
};

static int avail_check(void *sp, char *err, size_t errlen) {
    const nmp_avail_spec *s = sp;
    if (s->min_mbps != 0 && !(s->min_mbps >= 0.1 && s->min_mbps <= s->max_mbps)) {
        nmp_seterr(err, errlen, "avail: minMbps %g is outside 0 or 0.1..%g (maxMbps)", s->min_mbps, s->max_mbps);
        return -EINVAL;
    }
    if (!(s->step_mbps <= s->max_mbps)) {
        nmp_seterr(err, errlen, "avail: stepMbps %g is above maxMbps %g", s->step_mbps, s->max_mbps);
        return -EINVAL;
    }
    return 0;
}

static int avail_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    nmp_avail_result *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        nmp_seterr(err, errlen, "avail: out of memory");
        return -ENOMEM;
    }
    nmp_monotime_ns t0 = nmp_mono_now();
    int rc = nmp_avail_run(sp, ctl, r, err, errlen);
    double elapsed_ms = (double)(nmp_mono_now() - t0) / 1e6;
    if (rc < 0 && rc != -ECANCELED) goto end;
    uint32_t n = r->nsteps < NMP_AVAIL_MAX_STEPS ? r->nsteps : NMP_AVAIL_MAX_STEPS;
    nmp_pack_bool(out, "cancelled", rc == -ECANCELED);
    nmp_pack_str(out, "localAddress", r->local_addr);
    nmp_pack_str(out, "remoteAddress", r->remote_addr);
    nmp_pack_i64(out, "remotePort", r->remote_port);
    nmp_pack_i64(out, "packetSize", r->size);
    nmp_pack_i64(out, "wireOverheadBytes", r->wire_overhead);
    nmp_pack_bool(out, "bracketed", r->bracketed);
    nmp_pack_f64(out, "estimateMbps", r->estimate_mbps);
    nmp_pack_f64(out, "estimateWireMbps", r->estimate_wire_mbps);
    nmp_pack_f64(out, "lowerMbps", r->lower_mbps);
    nmp_pack_f64(out, "upperMbps", r->upper_mbps);
    nmp_pack_f64(out, "elapsedMs", elapsed_ms);
    nmp_pack_i64(out, "startEpochNanos", r->start_wall);
    nmp_pack_i64(out, "endEpochNanos", r->end_wall);
    const nmp_avail_step *s = r->steps;
    const size_t st = sizeof(*s);
    nmp_pack_col_f64(out, "steps.offeredMbps", s, n, st, offsetof(nmp_avail_step, offered_mbps), 1);
    nmp_pack_col_f64(out, "steps.sentMbps", s, n, st, offsetof(nmp_avail_step, sent_mbps), 1);
    nmp_pack_col_f64(out, "steps.receivedMbps", s, n, st, offsetof(nmp_avail_step, recv_mbps), 1);
    nmp_pack_col_f64(out, "steps.lossPercent", s, n, st, offsetof(nmp_avail_step, loss_percent), 1);
    nmp_pack_col_f64(out, "steps.owdMinMs", s, n, st, offsetof(nmp_avail_step, owd_min_ms), 1);
    nmp_pack_col_f64(out, "steps.owdMedianMs", s, n, st, offsetof(nmp_avail_step, owd_median_ms), 1);
    nmp_pack_col_f64(out, "steps.owdIncreaseMs", s, n, st, offsetof(nmp_avail_step, owd_increase_ms), 1);
    nmp_pack_col_f64(out, "steps.owdSlopeMsPerS", s, n, st, offsetof(nmp_avail_step, owd_slope_ms_per_s), 1);
    nmp_pack_col_i64(out, "steps.framesSent", s, n, st, offsetof(nmp_avail_step, frames_sent), NMP_C_U32);
    nmp_pack_col_i64(out, "steps.framesReceived", s, n, st, offsetof(nmp_avail_step, frames_received), NMP_C_U32);
    int64_t flags[5][NMP_AVAIL_MAX_STEPS];
    for (uint32_t i = 0; i < n; i++) {
        flags[0][i] = (s[i].flags & NMP_AVAIL_DELAY) != 0;
        flags[1][i] = (s[i].flags & NMP_AVAIL_RATE) != 0;
        flags[2][i] = (s[i].flags & NMP_AVAIL_LOSS) != 0;
        flags[3][i] = (s[i].flags & NMP_AVAIL_SENDER) != 0;
        flags[4][i] = s[i].refine != 0;
    }
    nmp_pack_i64s(out, "steps.delay", flags[0], n);
    nmp_pack_i64s(out, "steps.rate", flags[1], n);
    nmp_pack_i64s(out, "steps.loss", flags[2], n);
    nmp_pack_i64s(out, "steps.senderLimited", flags[3], n);
    nmp_pack_i64s(out, "steps.refine", flags[4], n);
end:
    free(r);
    return rc;
}

const nmp_kind nmp_kind_avail = {
    .name = "avail",
    .summary = "available bandwidth by a rate scan (UDP payload Mbit/s)",
    .fields = avail_fields,
    .nfields = sizeof(avail_fields) / sizeof(avail_fields[0]),
    .spec_size = sizeof(nmp_avail_spec),
    .check = avail_check,
    .run = avail_kind_run,
};
