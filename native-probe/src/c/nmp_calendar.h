/* nmp_calendar.h -- the responder's calendar of reserved slots: points agree a
 * run's time with the far end before it starts (RESERVE / RELEASE, see
 * nmp_wire.h), as pScheduler's participants do, so two points never meet at
 * one responder unplanned. Pure data: every call takes the wall-clock time
 * in ms, so tests drive it without sockets or sleeps. Internal to the engine. */
#ifndef NMP_CALENDAR_H
#define NMP_CALENDAR_H

#include <stddef.h>
#include <stdint.h>

#include "nmp_wire.h"

#define NMP_CAL_MAX 256                /* reservations held at once (all clients) */
#define NMP_CAL_PER_CLIENT 32          /* of those, by one client address */
#define NMP_CAL_HORIZON_MS 900000      /* a reservation starts at most 15 min ahead */
#define NMP_CAL_MAX_DURATION_MS 3600000 /* and lasts at most an hour */
#define NMP_CAL_NOSHOW_MS 3000         /* unused this long after its start, a reservation lapses */
#define NMP_CAL_EARLY_MS 1000          /* its holder's session is admitted this early */
#define NMP_CAL_HOLDER_MAX 63          /* holder label bytes */
#define NMP_CAL_CLIENT_MAX 63          /* client address text bytes */

typedef enum nmp_cal_class {
    NMP_CAL_EXCLUSIVE = 0,             /* overlaps nothing */
    NMP_CAL_NORMAL = 1,                /* shares the responder's sessions with other non-exclusive ones */
    NMP_CAL_BACKGROUND = 2             /* as normal: the class is what the holder's host runs it as */
} nmp_cal_class;

/* One reservation. */
typedef struct nmp_cal_entry {
    uint32_t id;                       /* 0 = free slot */
    int64_t start_ms, end_ms;          /* wall-clock ms, [start, end) */
    nmp_cal_class cls;                 /* its test class */
    int used;                          /* a session of its holder was admitted in it */
    int local;                         /* held for a test this host runs itself: no session comes, kept to its end */
    char holder[NMP_CAL_HOLDER_MAX + 1]; /* the label its client gave (shown to others that meet it) */
    char client[NMP_CAL_CLIENT_MAX + 1]; /* the client's address as the responder saw it */
} nmp_cal_entry;

typedef struct nmp_cal {
    nmp_cal_entry e[NMP_CAL_MAX];      /* unordered; id 0 = free */
    uint32_t next_id;                  /* ids are handed out in order (RELEASE is bound to the client) */
    int sessions;                      /* non-exclusive reservations that may overlap: sessions served at once */
} nmp_cal;

/* A RESERVE request, decoded. */
typedef struct nmp_cal_req {
    int64_t start_ms;                  /* earliest start wanted */
    int64_t latest_ms;                 /* latest start accepted (>= start_ms) */
    uint32_t duration_ms;              /* how long it holds the responder */
    nmp_cal_class cls;
    int local;                         /* a hold for a test this host runs itself (local=1) */
    char holder[NMP_CAL_HOLDER_MAX + 1];
} nmp_cal_req;

/* What a RESERVE got. */
typedef struct nmp_cal_grant {
    uint32_t id;                       /* granted: its id */
    int64_t start_ms, end_ms;          /* granted: the slot; refused: next_ms is the earliest free start */
    int64_t next_ms;                   /* refused (busy): earliest start that would be granted now */
    char holder[NMP_CAL_HOLDER_MAX + 1]; /* refused: who holds the wanted start */
} nmp_cal_grant;

/* Empties the calendar; 'sessions' (>= 1) is how many non-exclusive
 * sessions the responder serves at once (1 today). */
void nmp_cal_init(nmp_cal *c, int sessions);

/* Drops reservations that ended, and unused ones (not local) NMP_CAL_NOSHOW_MS
 * past their start. */
void nmp_cal_expire(nmp_cal *c, int64_t now_ms);

/* Reserves the earliest slot in [q->start_ms, q->latest_ms] that meets no
 * reservation it cannot share the responder with (an exclusive one meets
 * none; others meet at most sessions - 1 non-exclusive ones), for 'client'.
 * Returns 0 with g->id, start_ms, end_ms; -EBUSY when no such start is free
 * within the window (g->next_ms: the earliest free start after it, g->holder:
 * who holds the wanted start); -ERANGE for a start in the past (more than
 * 1 s) or beyond the horizon, or a window past it; -ENOSPC when the client
 * holds NMP_CAL_PER_CLIENT reservations or the calendar is full. err says
 * which. No start before busy_until_ms is free (a session in progress that
 * holds no reservation: an on-demand test), its holder "a session in
 * progress". */
int nmp_cal_reserve(nmp_cal *c, int64_t now_ms, int64_t busy_until_ms, const nmp_cal_req *q, const char *client, nmp_cal_grant *g,
                    char *err, size_t errlen);

/* Releases reservation 'id' of 'client'. Returns 0 or -ENOENT (no such
 * reservation of that client). */
int nmp_cal_release(nmp_cal *c, uint32_t id, const char *client);

/* Whether a session of 'client', expected to last expected_ms from now,
 * may be admitted: yes (1, and the client's reservation covering now that
 * no session has used yet is marked used and its id set in *id; a client
 * whose covering reservations are all in use is checked as one without, *id = 0) when the client holds a reservation (not local) covering now
 * (from NMP_CAL_EARLY_MS before its start), or when it would end before any
 * reservation starts (0); else -EBUSY with *retry_ms until that
 * reservation ends and its holder in holder (NMP_CAL_HOLDER_MAX + 1 bytes). */
int nmp_cal_admit(nmp_cal *c, int64_t now_ms, int64_t expected_ms, const char *client, int64_t *retry_ms,
                  char *holder, uint32_t *id);

/* A session of 'client' admitted in reservation 'id' (what admission set; 0:
 * none) ended: the rest of that reservation is given back, and no other. */
void nmp_cal_session_ended(nmp_cal *c, uint32_t id, const char *client);
/* As nmp_cal_admit, for a shared session (class normal or background) while
 * 'active' shared sessions run: its own reservation admits it (1); else it
 * may not overlap an exclusive reservation, and the unused shared ones
 * overlapping it, the sessions running and itself must not exceed the
 * calendar's sessions (-EBUSY with retry_ms and holder set; 0 admitted). */
int nmp_cal_admit_shared(nmp_cal *c, int64_t now_ms, int64_t expected_ms, const char *client, int active,
                         int64_t *retry_ms, char *holder, uint32_t *id);

/* Reservations held (for logs and tests). */
int nmp_cal_count(const nmp_cal *c);

/* Decodes "RESERVE start_ms=.. latest_ms=.. duration_ms=.. class=.. holder=..
 * [local=0|1]" (latest_ms optional: start_ms). Returns 0, -EPROTO (wrong verb, unknown or
 * missing key) or -EINVAL / -ERANGE (bad value) with err naming the key. */
int nmp_cal_decode_reserve(const nmp_ctl_msg *m, nmp_cal_req *out, char *err, size_t errlen);
/* Decodes "RELEASE reservation=<8 hex digits>". Same errors. */
int nmp_cal_decode_release(const nmp_ctl_msg *m, uint32_t *id, char *err, size_t errlen);

const char *nmp_cal_class_name(nmp_cal_class c);

#endif
