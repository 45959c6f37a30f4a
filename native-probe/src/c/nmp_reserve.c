/* nmp_reserve.c -- the "reserve" kind: asks a responder for a slot in its
 * calendar (RESERVE), or gives one back (RELEASE), so that a point agrees a
 * run's time with the far end before the run starts (nmp_calendar.h). A
 * slot refused as busy is an answer, not an error: the result says when the
 * far end is free next and who holds the wanted start. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmprobe.h"
#include "nmp_kind.h"
#include "nmp_client.h"
#include "nmp_calendar.h"

typedef struct reserve_spec {
    char *host;                      /* responder */
    int port;                        /* its control port */
    char *key_file;                  /* its shared key, or NULL */
    int64_t start_ms;                /* earliest start wanted, wall-clock ms */
    int64_t latest_ms;               /* latest start accepted (0: start_ms) */
    uint32_t duration_ms;            /* how long the run holds the responder */
    char *test_class;                /* exclusive | normal | background */
    char *holder;                    /* label others see when they meet this reservation */
    uint32_t release;                /* nonzero: RELEASE this reservation instead */
    int local;                       /* a hold for a test this host runs (responder on this host) */
    uint32_t timeout_ms;             /* control I/O timeout */
} reserve_spec;

static const nmp_spec_field reserve_fields[] = {
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(reserve_spec, host), .hi = 255, .required = 1,
     .cli = "host", .cli_short = 'H', .help = "responder name or address"},
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(reserve_spec, port), .lo = 1, .hi = 65535,
     .def = NMP_DEFAULT_PORT, .cli = "port", .cli_short = 'p', .help = "responder control port"},
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(reserve_spec, key_file), .hi = 4095, .cli = "key-file",
     .help = "file with the responder's shared key (mode 600)"},
    {.name = "startMs", .type = NMP_S_I64, .offset = offsetof(reserve_spec, start_ms), .hi = 16725225600000.0,
     .cli = "start-ms", .help = "earliest start, wall-clock ms since 1970 (0 = now)"},
    {.name = "latestMs", .type = NMP_S_I64, .offset = offsetof(reserve_spec, latest_ms), .hi = 16725225600000.0,
     .cli = "latest-ms", .help = "latest start accepted, wall-clock ms (0 = the start)"},
    {.name = "durationMs", .type = NMP_S_U32, .offset = offsetof(reserve_spec, duration_ms), .lo = 1,
     .hi = NMP_CAL_MAX_DURATION_MS, .def = 10000, .cli = "duration-ms", .help = "how long the run holds the responder"},
    {.name = "testClass", .type = NMP_S_STR, .offset = offsetof(reserve_spec, test_class), .hi = 10,
     .cli = "class", .help = "exclusive, normal or background (default normal)"},
    {.name = "holder", .type = NMP_S_STR, .offset = offsetof(reserve_spec, holder), .hi = NMP_CAL_HOLDER_MAX,
     .cli = "holder", .help = "label others see when this reservation is in their way"},
    {.name = "release", .type = NMP_S_U32, .offset = offsetof(reserve_spec, release), .hi = 4294967295.0,
     .cli = "release", .help = "give back this reservation id instead of reserving"},
    {.name = "local", .type = NMP_S_BOOL, .offset = offsetof(reserve_spec, local), .hi = 1, .cli = "local",
     .help = "hold this host's own responder for a test this host runs (no session comes; loopback only)"},
    {.name = "timeoutMs", .type = NMP_S_U32, .offset = offsetof(reserve_spec, timeout_ms), .lo = 100, .hi = 60000,
     .def = 3000, .cli = "timeout-ms", .help = "control I/O timeout"},
};

static int reserve_check(void *spec, char *err, size_t errlen) {
    const reserve_spec *s = spec;
    const char *c = s->test_class;
    if (c != NULL && strcmp(c, "exclusive") != 0 && strcmp(c, "normal") != 0 && strcmp(c, "background") != 0) {
        nmp_seterr(err, errlen, "reserve: class must be exclusive, normal or background");
        return -EINVAL;
    }
    if (s->latest_ms != 0 && s->latest_ms < s->start_ms) {
        nmp_seterr(err, errlen, "reserve: latestMs is before startMs");
        return -EINVAL;
    }
    return 0;
}

/* Reads an 8-hex-digit reservation id. Returns 0 or -EPROTO. */
static int hex_id(const char *v, uint64_t *id) {
    char *end = NULL;
    if (v == NULL || strlen(v) != 8 || v[0] == '+' || v[0] == '-') return -EPROTO;
    *id = strtoull(v, &end, 16);
    return *end == '\0' && *id != 0 ? 0 : -EPROTO;
}

static int reserve_run(const void *spec, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    const reserve_spec *s = spec;
    char line[NMP_CTL_MAXLINE + 1], holder[NMP_CTL_VALMAX + 1], e[NMP_ERRLEN];
    nmp_client c;
    nmp_ctl_msg m;
    uint64_t id = 0, start = 0, end = 0, next = 0;
    int len, rc;
    int64_t now = (int64_t)(nmp_wall_now() / 1000000);
    int64_t from = s->start_ms ? s->start_ms : now;
    nmp_ctl_text_encode(holder, s->holder && *s->holder ? s->holder : "-");
    if (s->release)
        len = nmp_ctl_format(line, sizeof(line), NMP_CTL_RELEASE, "reservation=%08x", s->release);
    else
        len = nmp_ctl_format(line, sizeof(line), NMP_CTL_RESERVE,
                             "start_ms=%lld latest_ms=%lld duration_ms=%u class=%s holder=%s%s", (long long)from,
                             (long long)(s->latest_ms ? s->latest_ms : from), s->duration_ms,
                             s->test_class ? s->test_class : "normal", holder, s->local ? " local=1" : "");
    if (len < 0) {
        nmp_seterr(err, errlen, "reserve: request too long");
        return -EMSGSIZE;
    }
    rc = nmp_client_ask(&c, s->host, s->port, s->timeout_ms, ctl ? ctl->cancel : NULL, line, s->key_file, &m, err,
                        errlen);
    if (rc < 0) return rc;
    if (m.verb == NMP_CTL_ERR) {
        const char *t = nmp_ctl_get(&m, "text");
        nmp_ctl_text_decode(e, sizeof(e), t ? t : "no reason given");
        nmp_seterr(err, errlen, "responder %s:%d refused the %s: %s", s->host, s->port,
                   s->release ? "release" : "reservation", e);
        rc = -EPERM;
        goto end;
    }
    const char *h = nmp_ctl_get(&m, "holder");
    if (!s->release && m.verb == NMP_CTL_BUSY &&
        nmp_ctl_get_u64(&m, "next_ms", 0, 16725225600000ull, &next, e, sizeof(e)) == 0 && h != NULL) {
        nmp_ctl_text_decode(holder, sizeof(holder), h);
        nmp_pack_bool(out, "granted", 0);
        nmp_pack_i64(out, "nextMs", (int64_t)next);
        nmp_pack_str(out, "heldBy", holder);
    } else if (m.verb == NMP_CTL_OK && nmp_ctl_get(&m, "reservation") != NULL &&
               hex_id(nmp_ctl_get(&m, "reservation"), &id) == 0 &&
               (s->release || (nmp_ctl_get_u64(&m, "start_ms", 0, 16725225600000ull, &start, e, sizeof(e)) == 0 &&
                               nmp_ctl_get_u64(&m, "end_ms", 0, 16725225600000ull, &end, e, sizeof(e)) == 0))) {
        nmp_pack_bool(out, "granted", !s->release);
        nmp_pack_i64(out, "reservation", (int64_t)id);
        nmp_pack_i64(out, "startMs", (int64_t)start);
        nmp_pack_i64(out, "endMs", (int64_t)end);
    } else {
        nmp_seterr(err, errlen, "responder %s:%d: unexpected answer %s to %s (a responder without reserved slots?)",
                   s->host, s->port, nmp_ctl_verb_name(m.verb), s->release ? "RELEASE" : "RESERVE");
        rc = -EPROTO;
        goto end;
    }
    /* how many sessions the responder serves at once (--sessions), so the fit check counts its
     * light tests' shares against the far end's own number; an older responder does not say */
    uint64_t sessions = 0;
    if (nmp_ctl_get(&m, "sessions") != NULL &&
        nmp_ctl_get_u64(&m, "sessions", 1, NMP_RESPONDER_SESSIONS_MAX, &sessions, e, sizeof(e)) == 0)
        nmp_pack_i64(out, "sessions", (int64_t)sessions);
    nmp_pack_bool(out, "cancelled", 0);
end:
    nmp_client_close(&c);
    return rc;
}

const nmp_kind nmp_kind_reserve = {
    .name = "reserve",
    .summary = "reserve a slot in a responder's calendar (or release one): agree a run's time before it starts",
    .fields = reserve_fields,
    .nfields = sizeof(reserve_fields) / sizeof(reserve_fields[0]),
    .spec_size = sizeof(reserve_spec),
    .check = reserve_check,
    .run = reserve_run,
};
