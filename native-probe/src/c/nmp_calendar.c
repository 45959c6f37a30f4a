/* nmp_calendar.c -- the responder's calendar of reserved slots (see
 * nmp_calendar.h): bounded in entries, per client and in time, so no client
 * can book it full or far ahead; every search is over at most NMP_CAL_MAX
 * entries, so a linear scan is both simplest and fast enough (256 x 257
 * comparisons at worst per RESERVE). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_calendar.h"
#include "nmprobe.h"

static const char *const class_names[] = {[NMP_CAL_EXCLUSIVE] = "exclusive", [NMP_CAL_NORMAL] = "normal",
                                          [NMP_CAL_BACKGROUND] = "background"};

const char *nmp_cal_class_name(nmp_cal_class c) {
    return c <= NMP_CAL_BACKGROUND ? class_names[c] : "?";
}

void nmp_cal_init(nmp_cal *c, int sessions) {
    memset(c, 0, sizeof(*c));
    c->next_id = 1;
    c->sessions = sessions < 1 ? 1 : sessions;
}

void nmp_cal_expire(nmp_cal *c, int64_t now_ms) {
    for (int i = 0; i < NMP_CAL_MAX; i++) {
        nmp_cal_entry *e = &c->e[i];
        if (e->id != 0 && (e->end_ms <= now_ms || (!e->used && !e->local && now_ms > e->start_ms + NMP_CAL_NOSHOW_MS)))
            e->id = 0;
    }
}

int nmp_cal_count(const nmp_cal *c) {
    int n = 0;
    for (int i = 0; i < NMP_CAL_MAX; i++) n += c->e[i].id != 0;
    return n;
}

static int overlaps(const nmp_cal_entry *e, int64_t from, int64_t to) {
    return e->id != 0 && e->start_ms < to && from < e->end_ms;
}

/* The entry that keeps a reservation of class 'cls' out of [t, t + d), or
 * NULL when it fits: an exclusive one (or any, for an exclusive request),
 * else the sessions-th non-exclusive one overlapping the window (counted
 * over the whole window, which errs on the side of refusing). */
static const nmp_cal_entry *blocker(const nmp_cal *c, nmp_cal_class cls, int64_t t, int64_t d) {
    const nmp_cal_entry *first = NULL;
    int shared = 0;
    for (int i = 0; i < NMP_CAL_MAX; i++) {
        const nmp_cal_entry *e = &c->e[i];
        if (!overlaps(e, t, t + d)) continue;
        if (cls == NMP_CAL_EXCLUSIVE || e->cls == NMP_CAL_EXCLUSIVE) return e;
        if (first == NULL) first = e;
        if (++shared >= c->sessions) return first;
    }
    return NULL;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int nmp_cal_reserve(nmp_cal *c, int64_t now_ms, int64_t busy_until_ms, const nmp_cal_req *q, const char *client,
                    nmp_cal_grant *g, char *err, size_t errlen) {
    int64_t cand[NMP_CAL_MAX + 1];
    int n = 0, mine = 0, free_slot = -1;
    memset(g, 0, sizeof(*g));
    nmp_cal_expire(c, now_ms);
    if (q->start_ms < now_ms - 1000 || q->start_ms > now_ms + NMP_CAL_HORIZON_MS || q->latest_ms < q->start_ms ||
        q->latest_ms > now_ms + NMP_CAL_HORIZON_MS) {
        nmp_seterr(err, errlen, "reserve: start %+lld ms and latest %+lld ms from now must lie in -1000..%d ms, "
                   "latest not before start", (long long)(q->start_ms - now_ms), (long long)(q->latest_ms - now_ms),
                   NMP_CAL_HORIZON_MS);
        return -ERANGE;
    }
    if (q->duration_ms < 1 || q->duration_ms > NMP_CAL_MAX_DURATION_MS) {
        nmp_seterr(err, errlen, "reserve: duration_ms %u is outside 1..%d", q->duration_ms, NMP_CAL_MAX_DURATION_MS);
        return -ERANGE;
    }
    for (int i = 0; i < NMP_CAL_MAX; i++) {
        if (c->e[i].id == 0) {
            if (free_slot < 0) free_slot = i;
        } else if (strcmp(c->e[i].client, client) == 0) {
            mine++;
        }
    }
    if (mine >= NMP_CAL_PER_CLIENT || free_slot < 0) {
        if (free_slot < 0)
            nmp_seterr(err, errlen, "reserve: the calendar is full (%d reservations)", NMP_CAL_MAX);
        else
            nmp_seterr(err, errlen, "reserve: this client holds the most reservations one client may (%d)",
                       NMP_CAL_PER_CLIENT);
        return -ENOSPC;
    }
    /* The earliest fit starts at the wanted start or where something ends. */
    int64_t from = q->start_ms > busy_until_ms ? q->start_ms : busy_until_ms;
    cand[n++] = from;
    for (int i = 0; i < NMP_CAL_MAX; i++)
        if (c->e[i].id != 0 && c->e[i].end_ms > from) cand[n++] = c->e[i].end_ms;
    qsort(cand, (size_t)n, sizeof(cand[0]), cmp_i64);
    int64_t t = cand[n - 1]; /* after the last end nothing overlaps */
    for (int i = 0; i < n; i++) {
        if (blocker(c, q->cls, cand[i], q->duration_ms) == NULL) {
            t = cand[i];
            break;
        }
    }
    if (t > q->latest_ms) {
        const nmp_cal_entry *b = blocker(c, q->cls, from, q->duration_ms);
        g->next_ms = t;
        snprintf(g->holder, sizeof(g->holder), "%s",
                 b != NULL ? b->holder : busy_until_ms > q->start_ms ? "a session in progress" : "?");
        nmp_seterr(err, errlen, "reserve: no %u ms free between %lld and %lld: held by %s, free from %lld",
                   q->duration_ms, (long long)q->start_ms, (long long)q->latest_ms, g->holder, (long long)t);
        return -EBUSY;
    }
    nmp_cal_entry *e = &c->e[free_slot];
    memset(e, 0, sizeof(*e));
    e->id = c->next_id++;
    if (c->next_id == 0) c->next_id = 1; /* 0 marks a free slot */
    e->start_ms = t;
    e->end_ms = t + q->duration_ms;
    e->cls = q->cls;
    e->local = q->local != 0;
    snprintf(e->holder, sizeof(e->holder), "%s", q->holder);
    snprintf(e->client, sizeof(e->client), "%s", client);
    g->id = e->id;
    g->start_ms = e->start_ms;
    g->end_ms = e->end_ms;
    return 0;
}

int nmp_cal_release(nmp_cal *c, uint32_t id, const char *client) {
    for (int i = 0; id != 0 && i < NMP_CAL_MAX; i++) {
        if (c->e[i].id == id && strcmp(c->e[i].client, client) == 0) {
            c->e[i].id = 0;
            return 0;
        }
    }
    return -ENOENT;
}

/* The client's reservation covering now (from NMP_CAL_EARLY_MS before its
 * start) that no session has used yet: each session takes its own, so two
 * sessions of one client never share one, nor give back the other's (issue
 * 24: two shared tests from one point). A client whose reservations are all
 * in use is admitted as anyone without one. */
static nmp_cal_entry *covering(nmp_cal *c, int64_t now_ms, const char *client) {
    for (int i = 0; i < NMP_CAL_MAX; i++) {
        nmp_cal_entry *e = &c->e[i];
        if (e->id != 0 && !e->local && !e->used && e->start_ms - NMP_CAL_EARLY_MS <= now_ms && now_ms < e->end_ms &&
            strcmp(e->client, client) == 0)
            return e;
    }
    return NULL;
}

int nmp_cal_admit(nmp_cal *c, int64_t now_ms, int64_t expected_ms, const char *client, int64_t *retry_ms,
                  char *holder, uint32_t *id) {
    nmp_cal_expire(c, now_ms);
    nmp_cal_entry *own = covering(c, now_ms, client);
    *id = 0;
    if (own != NULL) {
        own->used = 1;
        *id = own->id;
        return 1;
    }
    for (int i = 0; i < NMP_CAL_MAX; i++) {
        const nmp_cal_entry *e = &c->e[i];
        if (overlaps(e, now_ms, now_ms + (expected_ms > 0 ? expected_ms : 1))) {
            *retry_ms = e->end_ms - now_ms;
            snprintf(holder, NMP_CAL_HOLDER_MAX + 1, "%s", e->holder);
            return -EBUSY;
        }
    }
    return 0;
}

int nmp_cal_admit_shared(nmp_cal *c, int64_t now_ms, int64_t expected_ms, const char *client, int active,
                         int64_t *retry_ms, char *holder, uint32_t *id) {
    nmp_cal_expire(c, now_ms);
    nmp_cal_entry *own = covering(c, now_ms, client);
    *id = 0;
    if (own != NULL) {
        own->used = 1;
        *id = own->id;
        return 1;
    }
    const nmp_cal_entry *block = NULL, *soonest = NULL;
    int n = active + 1;
    for (int i = 0; i < NMP_CAL_MAX && block == NULL; i++) {
        const nmp_cal_entry *e = &c->e[i];
        if (!overlaps(e, now_ms, now_ms + (expected_ms > 0 ? expected_ms : 1))) continue;
        if (e->cls == NMP_CAL_EXCLUSIVE) {
            block = e;
        } else if (!e->used) { /* a used one's session is among the active already */
            n++;
            if (soonest == NULL || e->end_ms < soonest->end_ms) soonest = e;
        }
    }
    if (block == NULL && n > c->sessions) block = soonest;
    if (block == NULL) return 0;
    *retry_ms = block->end_ms - now_ms;
    snprintf(holder, NMP_CAL_HOLDER_MAX + 1, "%s", block->holder);
    return -EBUSY;
}

void nmp_cal_session_ended(nmp_cal *c, uint32_t id, const char *client) {
    if (id == 0) return; /* it ran in no reservation: none of the client's others is touched */
    for (int i = 0; i < NMP_CAL_MAX; i++) {
        nmp_cal_entry *e = &c->e[i];
        if (e->id == id && e->used && strcmp(e->client, client) == 0) e->id = 0;
    }
}

/* Reads key as a u64 in [lo, hi] into *out; 'required' 0 leaves *out when absent. */
static int get_ms(const nmp_ctl_msg *m, const char *key, uint64_t hi, int required, int64_t *out, char *err,
                  size_t errlen) {
    uint64_t v;
    if (nmp_ctl_get(m, key) == NULL) {
        if (!required) return 0;
        nmp_seterr(err, errlen, "RESERVE needs %s", key);
        return -EPROTO;
    }
    int rc = nmp_ctl_get_u64(m, key, 0, hi, &v, err, errlen);
    if (rc == 0) *out = (int64_t)v;
    return rc;
}

int nmp_cal_decode_reserve(const nmp_ctl_msg *m, nmp_cal_req *out, char *err, size_t errlen) {
    static const char *const keys[] = {"start_ms", "latest_ms", "duration_ms", "class", "holder", "local"};
    int64_t d = 0;
    int rc;
    memset(out, 0, sizeof(*out));
    if (m->verb != NMP_CTL_RESERVE) {
        nmp_seterr(err, errlen, "expected RESERVE, got %s", nmp_ctl_verb_name(m->verb));
        return -EPROTO;
    }
    for (int i = 0; i < m->nkv; i++) {
        size_t k = 0;
        while (k < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[k], m->key[i]) != 0) k++;
        if (k == sizeof(keys) / sizeof(keys[0])) {
            nmp_seterr(err, errlen, "RESERVE: unknown key %s", m->key[i]);
            return -EPROTO;
        }
    }
    /* wall-clock ms up to the year 2500: bounded so that start + duration cannot overflow */
    if ((rc = get_ms(m, "start_ms", 16725225600000ull, 1, &out->start_ms, err, errlen)) < 0) return rc;
    out->latest_ms = out->start_ms;
    if ((rc = get_ms(m, "latest_ms", 16725225600000ull, 0, &out->latest_ms, err, errlen)) < 0) return rc;
    if ((rc = get_ms(m, "duration_ms", NMP_CAL_MAX_DURATION_MS, 1, &d, err, errlen)) < 0) return rc;
    if (d < 1) {
        nmp_seterr(err, errlen, "RESERVE: duration_ms must be 1..%d", NMP_CAL_MAX_DURATION_MS);
        return -ERANGE;
    }
    out->duration_ms = (uint32_t)d;
    const char *cls = nmp_ctl_get(m, "class"), *holder = nmp_ctl_get(m, "holder");
    if (cls == NULL || holder == NULL) {
        nmp_seterr(err, errlen, "RESERVE needs class and holder");
        return -EPROTO;
    }
    int found = 0;
    for (int i = NMP_CAL_EXCLUSIVE; i <= NMP_CAL_BACKGROUND; i++) {
        if (strcmp(cls, class_names[i]) == 0) {
            out->cls = (nmp_cal_class)i;
            found = 1;
        }
    }
    if (!found) {
        nmp_seterr(err, errlen, "RESERVE: class must be exclusive, normal or background");
        return -EINVAL;
    }
    if (strlen(holder) > NMP_CAL_HOLDER_MAX) {
        nmp_seterr(err, errlen, "RESERVE: holder is at most %d bytes", NMP_CAL_HOLDER_MAX);
        return -ERANGE;
    }
    snprintf(out->holder, sizeof(out->holder), "%s", holder);
    int64_t local = 0;
    if ((rc = get_ms(m, "local", 1, 0, &local, err, errlen)) < 0) return rc;
    out->local = (int)local;
    return 0;
}

int nmp_cal_decode_release(const nmp_ctl_msg *m, uint32_t *id, char *err, size_t errlen) {
    const char *v = nmp_ctl_get(m, "reservation");
    char *end = NULL;
    if (m->verb != NMP_CTL_RELEASE || m->nkv != 1 || v == NULL) {
        nmp_seterr(err, errlen, "expected RELEASE reservation=<8 hex digits>");
        return -EPROTO;
    }
    int hex = strlen(v) == 8;
    for (size_t i = 0; hex && i < 8; i++) hex = isxdigit((unsigned char)v[i]) != 0;
    unsigned long x = hex ? strtoul(v, &end, 16) : 0;
    if (x == 0) {
        nmp_seterr(err, errlen, "RELEASE: reservation must be 8 hex digits, not 0");
        return -EINVAL;
    }
    *id = (uint32_t)x;
    return 0;
}
