/* test_calendar.c -- the responder's calendar of reserved slots
 * (nmp_calendar.h, issue 24): grants, overlaps refused with the next free
 * start, expiry, the per-client bound, session admission around
 * reservations, and malformed RESERVE / RELEASE lines refused. Time is
 * passed in, so nothing here sleeps. */
#include <errno.h>
#include <string.h>

#include "nmp_calendar.h"
#include "nmp_test.h"
#include "nmprobe.h"

#define T0 1800000000000LL /* a wall-clock ms */

static nmp_cal cal;

static int reserve(int64_t now, int64_t start, int64_t latest, uint32_t dur, nmp_cal_class cls, const char *holder,
                   const char *client, nmp_cal_grant *g) {
    char err[NMP_ERRLEN];
    nmp_cal_req q = {.start_ms = start, .latest_ms = latest, .duration_ms = dur, .cls = cls};
    strcpy(q.holder, holder);
    return nmp_cal_reserve(&cal, now, 0, &q, client, g, err, sizeof(err));
}

static int decode(const char *line, nmp_cal_req *q) {
    char err[NMP_ERRLEN];
    nmp_ctl_msg m;
    int rc = nmp_ctl_parse(line, strlen(line), &m, err, sizeof(err));
    return rc < 0 ? rc : nmp_cal_decode_reserve(&m, q, err, sizeof(err));
}

TEST(a_free_slot_is_granted_as_asked) {
    nmp_cal_grant g;
    nmp_cal_init(&cal, 1);
    CHECK_EQ_INT(reserve(T0, T0 + 5000, T0 + 5000, 2000, NMP_CAL_EXCLUSIVE, "a/bw", "10.0.0.1", &g), 0);
    CHECK(g.id != 0);
    CHECK(g.start_ms == T0 + 5000 && g.end_ms == T0 + 7000);
    CHECK_EQ_INT(nmp_cal_count(&cal), 1);
}

TEST(an_overlap_is_refused_with_the_next_free_start_and_the_holder) {
    nmp_cal_grant g, h;
    nmp_cal_init(&cal, 1);
    CHECK_EQ_INT(reserve(T0, T0 + 5000, T0 + 5000, 2000, NMP_CAL_EXCLUSIVE, "a/bw", "10.0.0.1", &g), 0);
    /* b wants 6 s..8 s with no room to move: busy, free from 7 s, held by a/bw */
    CHECK_EQ_INT(reserve(T0, T0 + 6000, T0 + 6000, 2000, NMP_CAL_NORMAL, "b/owd", "10.0.0.2", &h), -EBUSY);
    CHECK(h.next_ms == T0 + 7000);
    CHECK(strcmp(h.holder, "a/bw") == 0);
    /* with a window reaching 7 s it is granted at 7 s, the earliest free start */
    CHECK_EQ_INT(reserve(T0, T0 + 6000, T0 + 9000, 2000, NMP_CAL_NORMAL, "b/owd", "10.0.0.2", &h), 0);
    CHECK(h.start_ms == T0 + 7000 && h.end_ms == T0 + 9000);
    /* a third fits before both when it is short enough, and is placed between when not */
    CHECK_EQ_INT(reserve(T0, T0 + 1000, T0 + 20000, 4000, NMP_CAL_BACKGROUND, "c/rtt", "10.0.0.3", &h), 0);
    CHECK(h.start_ms == T0 + 1000);
    CHECK_EQ_INT(reserve(T0, T0 + 4000, T0 + 20000, 1000, NMP_CAL_BACKGROUND, "c/rtt2", "10.0.0.3", &h), 0);
    CHECK(h.start_ms == T0 + 9000); /* 4..5 s is c/rtt's, 5..7 a/bw's, 7..9 b/owd's */
}

TEST(non_exclusive_reservations_share_only_as_many_sessions_as_the_responder_serves) {
    nmp_cal_grant g;
    nmp_cal_init(&cal, 2);
    CHECK_EQ_INT(reserve(T0, T0 + 1000, T0 + 1000, 5000, NMP_CAL_BACKGROUND, "a", "10.0.0.1", &g), 0);
    CHECK_EQ_INT(reserve(T0, T0 + 1000, T0 + 1000, 5000, NMP_CAL_NORMAL, "b", "10.0.0.2", &g), 0);
    CHECK_EQ_INT(reserve(T0, T0 + 1000, T0 + 1000, 5000, NMP_CAL_BACKGROUND, "c", "10.0.0.3", &g), -EBUSY);
    /* exclusive meets nothing, whatever the sessions */
    CHECK_EQ_INT(reserve(T0, T0 + 2000, T0 + 2000, 1000, NMP_CAL_EXCLUSIVE, "d", "10.0.0.4", &g), -EBUSY);
    CHECK(g.next_ms == T0 + 6000);
}

TEST(unused_reservations_lapse_and_ended_ones_are_dropped) {
    nmp_cal_grant g;
    nmp_cal_init(&cal, 1);
    CHECK_EQ_INT(reserve(T0, T0 + 1000, T0 + 1000, 60000, NMP_CAL_EXCLUSIVE, "a", "10.0.0.1", &g), 0);
    nmp_cal_expire(&cal, T0 + 1000 + NMP_CAL_NOSHOW_MS);
    CHECK_EQ_INT(nmp_cal_count(&cal), 1);
    nmp_cal_expire(&cal, T0 + 1001 + NMP_CAL_NOSHOW_MS); /* nobody came */
    CHECK_EQ_INT(nmp_cal_count(&cal), 0);
    /* used, it lasts to its end */
    CHECK_EQ_INT(reserve(T0, T0 + 1000, T0 + 1000, 60000, NMP_CAL_EXCLUSIVE, "a", "10.0.0.1", &g), 0);
    int64_t retry = 0;
    uint32_t id = 0;
    char holder[NMP_CAL_HOLDER_MAX + 1];
    CHECK_EQ_INT(nmp_cal_admit(&cal, T0 + 1000, 500, "10.0.0.1", &retry, holder, &id), 1);
    CHECK_EQ_INT(id, g.id);
    nmp_cal_expire(&cal, T0 + 60999);
    CHECK_EQ_INT(nmp_cal_count(&cal), 1);
    nmp_cal_expire(&cal, T0 + 61000);
    CHECK_EQ_INT(nmp_cal_count(&cal), 0);
}

TEST(one_client_cannot_book_the_calendar_full) {
    nmp_cal_grant g;
    nmp_cal_init(&cal, 1);
    for (int i = 0; i < NMP_CAL_PER_CLIENT; i++)
        CHECK_EQ_INT(reserve(T0, T0 + 1000 + i * 100, T0 + 1000 + i * 100, 100, NMP_CAL_NORMAL, "a", "10.0.0.1", &g), 0);
    CHECK_EQ_INT(reserve(T0, T0 + 100000, T0 + 100000, 100, NMP_CAL_NORMAL, "a", "10.0.0.1", &g), -ENOSPC);
    /* another client still gets its slot */
    CHECK_EQ_INT(reserve(T0, T0 + 100000, T0 + 100000, 100, NMP_CAL_NORMAL, "b", "10.0.0.2", &g), 0);
    /* releasing is bound to the client that reserved */
    CHECK_EQ_INT(nmp_cal_release(&cal, g.id, "10.0.0.1"), -ENOENT);
    CHECK_EQ_INT(nmp_cal_release(&cal, g.id, "10.0.0.2"), 0);
    CHECK_EQ_INT(nmp_cal_release(&cal, g.id, "10.0.0.2"), -ENOENT);
}

TEST(starts_in_the_past_beyond_the_horizon_or_too_long_are_refused) {
    nmp_cal_grant g;
    nmp_cal_init(&cal, 1);
    CHECK_EQ_INT(reserve(T0, T0 - 1001, T0, 100, NMP_CAL_NORMAL, "a", "x", &g), -ERANGE);
    CHECK_EQ_INT(reserve(T0, T0 + NMP_CAL_HORIZON_MS + 1, T0 + NMP_CAL_HORIZON_MS + 1, 100, NMP_CAL_NORMAL, "a", "x", &g),
                 -ERANGE);
    CHECK_EQ_INT(reserve(T0, T0 + 5000, T0 + 4000, 100, NMP_CAL_NORMAL, "a", "x", &g), -ERANGE);
    CHECK_EQ_INT(reserve(T0, T0, T0, NMP_CAL_MAX_DURATION_MS + 1, NMP_CAL_NORMAL, "a", "x", &g), -ERANGE);
    CHECK_EQ_INT(nmp_cal_count(&cal), 0);
}

TEST(sessions_are_admitted_around_reservations) {
    nmp_cal_grant g;
    int64_t retry = 0;
    uint32_t id = 0;
    char holder[NMP_CAL_HOLDER_MAX + 1];
    nmp_cal_init(&cal, 1);
    CHECK_EQ_INT(reserve(T0, T0 + 10000, T0 + 10000, 5000, NMP_CAL_EXCLUSIVE, "a/bw", "10.0.0.1", &g), 0);
    /* an on-demand session that ends before the reservation: admitted */
    CHECK_EQ_INT(nmp_cal_admit(&cal, T0, 9000, "10.0.0.2", &retry, holder, &id), 0);
    /* one that would run into it: busy until the reservation ends */
    CHECK_EQ_INT(nmp_cal_admit(&cal, T0 + 2000, 9000, "10.0.0.2", &retry, holder, &id), -EBUSY);
    CHECK(retry == 13000 && strcmp(holder, "a/bw") == 0);
    /* the holder, from 1 s before its start */
    CHECK_EQ_INT(nmp_cal_admit(&cal, T0 + 8999, 4000, "10.0.0.1", &retry, holder, &id), -EBUSY);
    CHECK_EQ_INT(nmp_cal_admit(&cal, T0 + 9000, 4000, "10.0.0.1", &retry, holder, &id), 1);
    CHECK_EQ_INT(id, g.id);
    /* its session ends early: the rest of the slot is free again */
    nmp_cal_session_ended(&cal, id, "10.0.0.1");
    CHECK_EQ_INT(nmp_cal_count(&cal), 0);
    CHECK_EQ_INT(nmp_cal_admit(&cal, T0 + 12000, 1000, "10.0.0.2", &retry, holder, &id), 0);
}

TEST(two_shared_sessions_of_one_client_each_give_back_only_their_own_reservation) {
    nmp_cal_grant a, b;
    int64_t retry = 0;
    uint32_t ida = 0, idb = 0, idc = 0;
    char holder[NMP_CAL_HOLDER_MAX + 1];
    nmp_cal_init(&cal, 4);
    /* one point's two light tests, each in a reservation of its own over the same seconds */
    CHECK_EQ_INT(reserve(T0, T0 + 1000, T0 + 1000, 10000, NMP_CAL_BACKGROUND, "p/rtt", "10.0.0.1", &a), 0);
    CHECK_EQ_INT(reserve(T0, T0 + 1000, T0 + 1000, 10000, NMP_CAL_NORMAL, "p/owd", "10.0.0.1", &b), 0);
    CHECK_EQ_INT(nmp_cal_admit_shared(&cal, T0 + 1000, 500, "10.0.0.1", 0, &retry, holder, &ida), 1);
    CHECK_EQ_INT(nmp_cal_admit_shared(&cal, T0 + 1000, 9000, "10.0.0.1", 1, &retry, holder, &idb), 1);
    CHECK(ida != 0 && idb != 0 && ida != idb); /* each session took a reservation of its own */
    /* a third of its sessions finds no reservation of its own left: admitted as anyone's (room for 4),
     * and its end gives back nothing */
    CHECK_EQ_INT(nmp_cal_admit_shared(&cal, T0 + 1000, 100, "10.0.0.1", 2, &retry, holder, &idc), 0);
    CHECK_EQ_INT(idc, 0);
    nmp_cal_session_ended(&cal, idc, "10.0.0.1");
    CHECK_EQ_INT(nmp_cal_count(&cal), 2);
    /* the short one ends: its reservation goes, the long one's stays to its end */
    nmp_cal_session_ended(&cal, ida, "10.0.0.1");
    CHECK_EQ_INT(nmp_cal_count(&cal), 1);
    nmp_cal_expire(&cal, T0 + 1000 + NMP_CAL_NOSHOW_MS + 1); /* used: it does not lapse */
    CHECK_EQ_INT(nmp_cal_count(&cal), 1);
    /* another client cannot give it back */
    nmp_cal_session_ended(&cal, idb, "10.0.0.2");
    CHECK_EQ_INT(nmp_cal_count(&cal), 1);
    nmp_cal_session_ended(&cal, idb, "10.0.0.1");
    CHECK_EQ_INT(nmp_cal_count(&cal), 0);
}

TEST(a_session_in_progress_without_a_reservation_keeps_the_slots_until_its_end) {
    char err[NMP_ERRLEN];
    nmp_cal_grant g;
    nmp_cal_req q = {.start_ms = T0 + 1000, .latest_ms = T0 + 2000, .duration_ms = 500, .cls = NMP_CAL_NORMAL};
    strcpy(q.holder, "b");
    nmp_cal_init(&cal, 1);
    CHECK_EQ_INT(nmp_cal_reserve(&cal, T0, T0 + 3000, &q, "10.0.0.2", &g, err, sizeof(err)), -EBUSY);
    CHECK(g.next_ms == T0 + 3000 && strcmp(g.holder, "a session in progress") == 0);
    q.latest_ms = T0 + 3000;
    CHECK_EQ_INT(nmp_cal_reserve(&cal, T0, T0 + 3000, &q, "10.0.0.2", &g, err, sizeof(err)), 0);
    CHECK(g.start_ms == T0 + 3000);
}

TEST(a_local_hold_keeps_every_session_out_and_lasts_to_its_end) {
    char err[NMP_ERRLEN], holder[NMP_CAL_HOLDER_MAX + 1];
    nmp_cal_grant g;
    int64_t retry = 0;
    uint32_t id = 0;
    nmp_cal_req q = {.start_ms = T0 + 1000, .latest_ms = T0 + 1000, .duration_ms = 10000, .cls = NMP_CAL_EXCLUSIVE,
                     .local = 1};
    strcpy(q.holder, "b/bw:b:c");
    nmp_cal_init(&cal, 1);
    CHECK_EQ_INT(nmp_cal_reserve(&cal, T0, 0, &q, "127.0.0.1", &g, err, sizeof(err)), 0);
    /* nobody redeems it, and it does not lapse */
    nmp_cal_expire(&cal, T0 + 1000 + NMP_CAL_NOSHOW_MS + 1);
    CHECK_EQ_INT(nmp_cal_count(&cal), 1);
    /* no session is admitted in it, not even its holder's address */
    CHECK_EQ_INT(nmp_cal_admit(&cal, T0 + 5000, 100, "10.0.0.1", &retry, holder, &id), -EBUSY);
    CHECK(strcmp(holder, "b/bw:b:c") == 0 && retry == 6000);
    CHECK_EQ_INT(nmp_cal_admit(&cal, T0 + 5000, 100, "127.0.0.1", &retry, holder, &id), -EBUSY);
    CHECK_EQ_INT(id, 0);
    nmp_cal_session_ended(&cal, id, "127.0.0.1");
    CHECK_EQ_INT(nmp_cal_count(&cal), 1);
    nmp_cal_expire(&cal, T0 + 11000);
    CHECK_EQ_INT(nmp_cal_count(&cal), 0);
}

TEST(malformed_reserve_and_release_lines_are_refused) {
    nmp_cal_req q;
    char err[NMP_ERRLEN];
    nmp_ctl_msg m;
    uint32_t id;
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=1800000000000 latest_ms=1800000005000 duration_ms=2000 class=exclusive "
                        "holder=a/bw\n", &q), 0);
    CHECK(q.start_ms == 1800000000000LL && q.latest_ms == 1800000005000LL && q.duration_ms == 2000);
    CHECK_EQ_INT(q.cls, NMP_CAL_EXCLUSIVE);
    CHECK(strcmp(q.holder, "a/bw") == 0);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=2 class=normal holder=h\n", &q), 0);
    CHECK(q.latest_ms == 5); /* latest defaults to start */
    CHECK_EQ_INT(decode("NMP/1 RESERVE duration_ms=2000 class=normal holder=h\n", &q), -EPROTO);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=2000 class=normal\n", &q), -EPROTO);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=2000 class=normal holder=h color=red\n", &q), -EPROTO);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=2000 class=urgent holder=h\n", &q), -EINVAL);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=-5 duration_ms=2000 class=normal holder=h\n", &q), -EINVAL);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=0 class=normal holder=h\n", &q), -ERANGE);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=3600001 class=normal holder=h\n", &q), -ERANGE);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=99999999999999999999 duration_ms=1 class=normal holder=h\n", &q) < 0, 1);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=1 class=normal "
                        "holder=0123456789012345678901234567890123456789012345678901234567890123\n", &q), -ERANGE);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=1 class=normal holder=h local=1\n", &q), 0);
    CHECK_EQ_INT(q.local, 1);
    CHECK_EQ_INT(decode("NMP/1 RESERVE start_ms=5 duration_ms=1 class=normal holder=h local=2\n", &q), -ERANGE);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=1 size=64 interval_ns=1 timeout_ms=1\n", &q), -EPROTO);
    const char *good = "NMP/1 RELEASE reservation=0000002a\n";
    CHECK_EQ_INT(nmp_ctl_parse(good, strlen(good), &m, err, sizeof(err)), 0);
    CHECK_EQ_INT(nmp_cal_decode_release(&m, &id, err, sizeof(err)), 0);
    CHECK_EQ_INT(id, 42);
    const char *bad[] = {"NMP/1 RELEASE reservation=2a\n", "NMP/1 RELEASE reservation=+000002a\n",
                         "NMP/1 RELEASE reservation=00000000\n", "NMP/1 RELEASE\n",
                         "NMP/1 RELEASE reservation=0000002a x=1\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_EQ_INT(nmp_ctl_parse(bad[i], strlen(bad[i]), &m, err, sizeof(err)), 0);
        CHECK(nmp_cal_decode_release(&m, &id, err, sizeof(err)) < 0);
    }
}

int main(void) {
    RUN(a_free_slot_is_granted_as_asked);
    RUN(an_overlap_is_refused_with_the_next_free_start_and_the_holder);
    RUN(non_exclusive_reservations_share_only_as_many_sessions_as_the_responder_serves);
    RUN(unused_reservations_lapse_and_ended_ones_are_dropped);
    RUN(one_client_cannot_book_the_calendar_full);
    RUN(starts_in_the_past_beyond_the_horizon_or_too_long_are_refused);
    RUN(sessions_are_admitted_around_reservations);
    RUN(two_shared_sessions_of_one_client_each_give_back_only_their_own_reservation);
    RUN(a_session_in_progress_without_a_reservation_keeps_the_slots_until_its_end);
    RUN(a_local_hold_keeps_every_session_out_and_lasts_to_its_end);
    RUN(malformed_reserve_and_release_lines_are_refused);
    return nmp_test_failures != 0;
}
