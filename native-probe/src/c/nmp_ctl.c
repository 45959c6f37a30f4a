/* nmp_ctl.c -- the control protocol: parsing, formatting and checking of
 * the text lines exchanged over the TCP control connection.
 *
 * Kept free of I/O so that it can be unit-tested and fuzzed: everything a
 * peer sends passes through nmp_ctl_parse (length, charset, structure) and
 * then a verb decoder (known keys only, numeric ranges, limits). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nmp_wire.h"
#include "nmprobe.h"

static const struct {
    nmp_ctl_verb verb;
    const char *name;
} verbs[] = {
    {NMP_CTL_SESSION, "SESSION"}, {NMP_CTL_END, "END"},   {NMP_CTL_OK, "OK"},
    {NMP_CTL_BUSY, "BUSY"},       {NMP_CTL_ERR, "ERR"},   {NMP_CTL_BYE, "BYE"},
    {NMP_CTL_RESULTS, "RESULTS"}, {NMP_CTL_DATA, "DATA"},     {NMP_CTL_CHALLENGE, "CHALLENGE"},
    {NMP_CTL_AUTH, "AUTH"},       {NMP_CTL_RESERVE, "RESERVE"}, {NMP_CTL_RELEASE, "RELEASE"},
};

const char *nmp_ctl_verb_name(nmp_ctl_verb v) {
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        if (verbs[i].verb == v) return verbs[i].name;
    return "?";
}

static int is_key_char(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }

static int is_val_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == ':' || c == '%' || c == '/' || c == '+' || c == '-' || c == '=' || c == ',' ||
           c == '(' || c == ')' || c == '*';
}

/* Copies printable bytes of s[0..n) for use in an error message. */
static void excerpt(char *dst, size_t dstlen, const char *s, size_t n) {
    size_t j = 0;
    for (size_t i = 0; i < n && j + 1 < dstlen; i++)
        dst[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    dst[j] = '\0';
}

/* On failure *out is left partially filled; the caller must not use it. */
int nmp_ctl_parse(const char *line, size_t len, nmp_ctl_msg *out, char *err, size_t errlen) {
    char ex[32];
    memset(out, 0, sizeof(*out));
    if (len > NMP_CTL_MAXLINE) {
        nmp_seterr(err, errlen, "control line of %zu bytes exceeds %d", len, NMP_CTL_MAXLINE);
        return -EMSGSIZE;
    }
    if (len > 0 && line[len - 1] == '\n') len--;
    if (len > 0 && line[len - 1] == '\r') len--;
    static const char prefix[] = "NMP/";
    if (len < sizeof(prefix) - 1 || memcmp(line, prefix, sizeof(prefix) - 1) != 0) {
        excerpt(ex, sizeof(ex), line, len);
        nmp_seterr(err, errlen, "control line does not start with NMP/: \"%s\"", ex);
        return -EPROTO;
    }
    size_t p = sizeof(prefix) - 1;
    if (p + 2 > len || line[p] != '0' + NMP_PROTO_VERSION || line[p + 1] != ' ') {
        nmp_seterr(err, errlen, "unsupported control protocol version (want NMP/%d)", NMP_PROTO_VERSION);
        return -EPROTO;
    }
    p += 2;
    size_t vstart = p;
    while (p < len && line[p] >= 'A' && line[p] <= 'Z') p++;
    size_t vlen = p - vstart;
    int found = 0;
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
        if (strlen(verbs[i].name) == vlen && memcmp(verbs[i].name, line + vstart, vlen) == 0) {
            out->verb = verbs[i].verb;
            found = 1;
        }
    }
    if (!found || (p < len && line[p] != ' ')) {
        excerpt(ex, sizeof(ex), line + vstart, len - vstart);
        nmp_seterr(err, errlen, "unknown control verb \"%s\"", ex);
        return -EPROTO;
    }
    while (p < len) {
        p++; /* the single space before each pair */
        size_t ks = p;
        while (p < len && is_key_char(line[p])) p++;
        size_t kl = p - ks;
        if (kl == 0 || kl > NMP_CTL_KEYMAX || p >= len || line[p] != '=') {
            excerpt(ex, sizeof(ex), line + ks, len - ks);
            nmp_seterr(err, errlen, "malformed key at \"%s\" (want key=value, key [a-z_]{1,%d})", ex,
                       NMP_CTL_KEYMAX);
            return -EPROTO;
        }
        p++;
        size_t vs = p;
        while (p < len && is_val_char(line[p])) p++;
        size_t vl = p - vs;
        if (vl == 0 || vl > NMP_CTL_VALMAX || (p < len && line[p] != ' ')) {
            nmp_seterr(err, errlen, "malformed value for key %.*s (1..%d bytes of [A-Za-z0-9._:%%/+=,()*-])",
                       (int)kl, line + ks, NMP_CTL_VALMAX);
            return -EPROTO;
        }
        if (out->nkv >= NMP_CTL_MAXKV) {
            nmp_seterr(err, errlen, "more than %d key=value pairs", NMP_CTL_MAXKV);
            return -EMSGSIZE;
        }
        memcpy(out->key[out->nkv], line + ks, kl);
        out->key[out->nkv][kl] = '\0';
        memcpy(out->val[out->nkv], line + vs, vl);
        out->val[out->nkv][vl] = '\0';
        for (int i = 0; i < out->nkv; i++) {
            if (strcmp(out->key[i], out->key[out->nkv]) == 0) {
                nmp_seterr(err, errlen, "duplicate key %s", out->key[i]);
                return -EPROTO;
            }
        }
        out->nkv++;
    }
    return 0;
}

const char *nmp_ctl_get(const nmp_ctl_msg *m, const char *key) {
    for (int i = 0; i < m->nkv; i++)
        if (strcmp(m->key[i], key) == 0) return m->val[i];
    return NULL;
}

int nmp_ctl_get_u64(const nmp_ctl_msg *m, const char *key, uint64_t lo, uint64_t hi, uint64_t *out,
                    char *err, size_t errlen) {
    const char *v = nmp_ctl_get(m, key);
    if (v == NULL) {
        nmp_seterr(err, errlen, "missing key %s", key);
        return -EPROTO;
    }
    uint64_t x = 0;
    for (const char *c = v; *c; c++) {
        if (*c < '0' || *c > '9' || c - v >= 19) {
            nmp_seterr(err, errlen, "%s=%s is not a decimal number below 10^19", key, v);
            return -EINVAL;
        }
        x = x * 10 + (uint64_t)(*c - '0');
    }
    if (x < lo || x > hi) {
        nmp_seterr(err, errlen, "%s=%s out of range %llu..%llu", key, v, (unsigned long long)lo,
                   (unsigned long long)hi);
        return -ERANGE;
    }
    *out = x;
    return 0;
}

int nmp_ctl_format(char *buf, size_t buflen, nmp_ctl_verb verb, const char *kvfmt, ...) {
    size_t cap = buflen < NMP_CTL_MAXLINE + 1 ? buflen : NMP_CTL_MAXLINE + 1;
    int n = snprintf(buf, cap, "NMP/%d %s", NMP_PROTO_VERSION, nmp_ctl_verb_name(verb));
    if (n < 0 || (size_t)n >= cap) return -EMSGSIZE;
    if (kvfmt != NULL && kvfmt[0] != '\0') {
        va_list ap;
        buf[n++] = ' ';
        if ((size_t)n >= cap) return -EMSGSIZE;
        va_start(ap, kvfmt);
        int m = vsnprintf(buf + n, cap - (size_t)n, kvfmt, ap);
        va_end(ap);
        if (m < 0 || (size_t)(n + m) >= cap) return -EMSGSIZE;
        n += m;
    }
    if ((size_t)n + 1 >= cap) return -EMSGSIZE;
    buf[n++] = '\n';
    buf[n] = '\0';
    return n;
}

void nmp_limits_default(nmp_limits *l) {
    l->max_frames = 1000000;
    l->max_size = NMP_FRAME_MAX;
    l->max_rate_mbps = 0; /* unlimited */
    l->max_duration_ms = 120000;
}

/* Checks that every key of m is in the NULL-terminated list 'allowed'. */
static int only_keys(const nmp_ctl_msg *m, const char *const *allowed, char *err, size_t errlen) {
    for (int i = 0; i < m->nkv; i++) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, m->key[i]) == 0) ok = 1;
        if (!ok) {
            nmp_seterr(err, errlen, "unknown key %s", m->key[i]);
            return -EPROTO;
        }
    }
    return 0;
}

/* Decodes kind=tcp (see nmprobe.h): streams, message size, spacing,
 * duration, window, time-series bins and CBR recording. */
static int tcp_session_decode(const nmp_ctl_msg *m, const nmp_limits *lim, nmp_session_req *out, char *err,
                              size_t errlen) {
    static const char *const allowed[] = {"kind", "streams", "size", "interval_ns", "duration_ms", "window",
                                          "bins", "bin_ns", "cbr", "timeout_ms", NULL};
    uint64_t streams, size, interval, duration, window = 0, bins = 1, bin_ns = 0, cbr = 0, timeout = 1000;
    int rc;
    if ((rc = only_keys(m, allowed, err, errlen)) < 0) return rc;
    if ((rc = nmp_ctl_get_u64(m, "streams", 1, NMP_TCP_MAX_STREAMS, &streams, err, errlen)) < 0) return rc;
    if ((rc = nmp_ctl_get_u64(m, "size", NMP_TCP_MSG_HDR, NMP_TCP_MSG_MAX, &size, err, errlen)) < 0) return rc;
    if ((rc = nmp_ctl_get_u64(m, "interval_ns", 0, 60000000000ull, &interval, err, errlen)) < 0) return rc;
    if ((rc = nmp_ctl_get_u64(m, "duration_ms", 1, 3600000, &duration, err, errlen)) < 0) return rc;
    if (nmp_ctl_get(m, "window") != NULL &&
        (rc = nmp_ctl_get_u64(m, "window", 0, NMP_TCP_WINDOW_MAX, &window, err, errlen)) < 0)
        return rc;
    if (nmp_ctl_get(m, "bins") != NULL &&
        (rc = nmp_ctl_get_u64(m, "bins", 1, NMP_TCP_MAX_BINS, &bins, err, errlen)) < 0)
        return rc;
    if (nmp_ctl_get(m, "bin_ns") != NULL &&
        (rc = nmp_ctl_get_u64(m, "bin_ns", 1000000, 60000000000ull, &bin_ns, err, errlen)) < 0)
        return rc;
    if (nmp_ctl_get(m, "cbr") != NULL && (rc = nmp_ctl_get_u64(m, "cbr", 0, 1, &cbr, err, errlen)) < 0) return rc;
    if (nmp_ctl_get(m, "timeout_ms") != NULL &&
        (rc = nmp_ctl_get_u64(m, "timeout_ms", 0, 60000, &timeout, err, errlen)) < 0)
        return rc;
    if (streams * bins > NMP_TCP_MAX_CELLS) {
        nmp_seterr(err, errlen, "streams*bins %llu exceeds %d", (unsigned long long)(streams * bins),
                   NMP_TCP_MAX_CELLS);
        return -ERANGE;
    }
    if (bins > 1 && bin_ns == 0) {
        nmp_seterr(err, errlen, "bins=%llu needs bin_ns", (unsigned long long)bins);
        return -EPROTO;
    }
    uint64_t records = 0;
    if (cbr) {
        if (interval == 0) {
            nmp_seterr(err, errlen, "cbr=1 needs interval_ns > 0");
            return -EINVAL;
        }
        records = streams * (duration * 1000000ull / interval + 1);
        if (records > lim->max_frames) {
            nmp_seterr(err, errlen, "cbr messages %llu (streams*duration/interval) exceed %u",
                       (unsigned long long)records, lim->max_frames);
            return -ERANGE;
        }
    }
    if (lim->max_rate_mbps > 0) {
        double mbps = interval ? (double)streams * (double)size * 8e3 / (double)interval : 1e300;
        if (mbps > lim->max_rate_mbps) {
            nmp_seterr(err, errlen, "offered rate %.1f Mbit/s (streams=%llu size=%llu interval_ns=%llu) exceeds %.1f",
                       interval ? mbps : -1.0, (unsigned long long)streams, (unsigned long long)size,
                       (unsigned long long)interval, lim->max_rate_mbps);
            return -ERANGE;
        }
    }
    if ((double)duration + (double)timeout > (double)lim->max_duration_ms) {
        nmp_seterr(err, errlen, "duration %llu ms plus timeout_ms exceeds %u ms", (unsigned long long)duration,
                   lim->max_duration_ms);
        return -ERANGE;
    }
    memset(out, 0, sizeof(*out));
    out->kind = NMP_KIND_TCP;
    out->frames = (uint32_t)records;
    out->size = (uint32_t)size;
    out->interval_ns = interval;
    out->timeout_ms = (uint32_t)timeout;
    out->streams = (uint32_t)streams;
    out->duration_ms = (uint32_t)duration;
    out->window = (uint32_t)window;
    out->bins = (uint32_t)bins;
    out->bin_ns = bin_ns;
    out->cbr = (int)cbr;
    return 0;
}

int nmp_ctl_session_decode(const nmp_ctl_msg *m, const nmp_limits *lim, nmp_session_req *out,
                           char *err, size_t errlen) {
    static const char *const allowed[] = {"kind", "frames", "size", "interval_ns", "timeout_ms", "class", NULL};
    uint64_t frames, size, interval, timeout = 1000;
    int rc;
    if (m->verb != NMP_CTL_SESSION) {
        nmp_seterr(err, errlen, "expected SESSION, got %s", nmp_ctl_verb_name(m->verb));
        return -EPROTO;
    }
    const char *kind = nmp_ctl_get(m, "kind");
    if (kind == NULL) {
        nmp_seterr(err, errlen, "missing key kind");
        return -EPROTO;
    }
    nmp_test_kind k;
    if (strcmp(kind, "tcp") == 0) return tcp_session_decode(m, lim, out, err, errlen);
    if ((rc = only_keys(m, allowed, err, errlen)) < 0) return rc;
    if (strcmp(kind, "rr") == 0) {
        k = NMP_KIND_RR;
    } else if (strcmp(kind, "stream") == 0) {
        k = NMP_KIND_STREAM;
    } else {
        nmp_seterr(err, errlen, "kind=%s unsupported (want rr, stream or tcp)", kind);
        return -EINVAL;
    }
    uint32_t maxsize = lim->max_size < NMP_FRAME_MAX ? lim->max_size : NMP_FRAME_MAX;
    if ((rc = nmp_ctl_get_u64(m, "frames", 1, lim->max_frames, &frames, err, errlen)) < 0) return rc;
    if ((rc = nmp_ctl_get_u64(m, "size", NMP_FRAME_HDR, maxsize, &size, err, errlen)) < 0) return rc;
    if ((rc = nmp_ctl_get_u64(m, "interval_ns", 0, 60000000000ull, &interval, err, errlen)) < 0)
        return rc;
    if (nmp_ctl_get(m, "timeout_ms") != NULL &&
        (rc = nmp_ctl_get_u64(m, "timeout_ms", 0, 60000, &timeout, err, errlen)) < 0)
        return rc;
    if (lim->max_rate_mbps > 0) {
        double mbps = interval ? (double)size * 8e3 / (double)interval : 1e300;
        if (mbps > lim->max_rate_mbps) {
            nmp_seterr(err, errlen, "offered rate %.1f Mbit/s (size=%llu interval_ns=%llu) exceeds %.1f",
                       interval ? mbps : -1.0, (unsigned long long)size, (unsigned long long)interval,
                       lim->max_rate_mbps);
            return -ERANGE;
        }
    }
    double dur_ms = (double)frames * (double)interval / 1e6 + (double)timeout;
    if (dur_ms > (double)lim->max_duration_ms) {
        nmp_seterr(err, errlen, "duration %.0f ms (frames*interval_ns plus timeout_ms) exceeds %u ms", dur_ms,
                   lim->max_duration_ms);
        return -ERANGE;
    }
    const char *cls = nmp_ctl_get(m, "class");
    int shared = cls != NULL && (strcmp(cls, "normal") == 0 || strcmp(cls, "background") == 0);
    if (cls != NULL && !shared && strcmp(cls, "exclusive") != 0) {
        nmp_seterr(err, errlen, "class=%s unsupported (want exclusive, normal or background)", cls);
        return -EINVAL;
    }
    memset(out, 0, sizeof(*out));
    out->shared = shared;
    out->kind = k;
    out->frames = (uint32_t)frames;
    out->size = (uint32_t)size;
    out->interval_ns = interval;
    out->timeout_ms = (uint32_t)timeout;
    return 0;
}

void nmp_ctl_text_encode(char *dst, const char *src) {
    size_t j = 0;
    for (; *src && j < NMP_CTL_VALMAX; src++) {
        char c = *src;
        dst[j++] = c == ' ' ? '+' : (is_val_char(c) && c != '+') ? c : '_';
    }
    if (j == 0) dst[j++] = '-';
    dst[j] = '\0';
}

void nmp_ctl_text_decode(char *dst, size_t dstlen, const char *src) {
    size_t j = 0;
    if (dstlen == 0) return;
    for (; *src && j + 1 < dstlen; src++) dst[j++] = *src == '+' ? ' ' : *src;
    dst[j] = '\0';
}
