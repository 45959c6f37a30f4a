/* test_clock.c -- the clock-state classification for every adjtimex
 * outcome, and a real read-only sample of this host's clock. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>

#include "nmp_test.h"
#include "nmprobe.h"

TEST(classification_follows_adjtimex_return_and_unsync_bit) {
    int sync;
    char st[24];
    nmp_clock_state_classify(TIME_OK, 0, &sync, st, sizeof(st));
    CHECK_EQ_INT(sync, 1);
    CHECK(strcmp(st, "ok") == 0);
    nmp_clock_state_classify(TIME_OK, STA_UNSYNC, &sync, st, sizeof(st));
    CHECK_EQ_INT(sync, 0);
    CHECK(strcmp(st, "unsynchronised") == 0);
    nmp_clock_state_classify(TIME_ERROR, 0, &sync, st, sizeof(st));
    CHECK_EQ_INT(sync, 0);
    CHECK(strcmp(st, "unsynchronised") == 0);
    nmp_clock_state_classify(TIME_INS, STA_PLL, &sync, st, sizeof(st));
    CHECK_EQ_INT(sync, 1);
    CHECK(strcmp(st, "leap-insert") == 0);
    nmp_clock_state_classify(TIME_DEL, 0, &sync, st, sizeof(st));
    CHECK(strcmp(st, "leap-delete") == 0);
    nmp_clock_state_classify(TIME_OOP, 0, &sync, st, sizeof(st));
    CHECK(strcmp(st, "leap-in-progress") == 0);
    nmp_clock_state_classify(TIME_WAIT, 0, &sync, st, sizeof(st));
    CHECK(strcmp(st, "leap-occurred") == 0);
    nmp_clock_state_classify(TIME_OK, STA_UNSYNC, &sync, st, 4); /* truncates, NUL-terminated */
    CHECK(strcmp(st, "uns") == 0);
}

/* The kernel-stamp conversion errs late by at most the bracket, never early:
 * an RTT is never shortened (issue 25). */
TEST(a_wall_stamp_moves_onto_the_monotonic_clock_late_never_early) {
    /* stamp 5 us before the wall read; the read lay between mono 1000 and 1300 */
    CHECK(nmp_mono_of_wall_read(1000000, 1005000, 1000000000, 1000000300, 7) == 1000000300 - 5000);
    /* the true arrival lies in [m1 - 5000, m2 - 5000]: the answer is its late end */
    CHECK(nmp_mono_of_wall_read(1000000, 1005000, 1000000000, 1000000300, 7) >= 1000000000 - 5000);
    /* a stamp from the future or older than a second: the fallback */
    CHECK(nmp_mono_of_wall_read(2000000, 1000000, 100, 200, 7) == 7);
    CHECK(nmp_mono_of_wall_read(0, 1000000000, 5000000000ull, 5000000001ull, 7) == 7);
    /* live: a stamp taken now converts to no earlier than a monotonic read before it */
    for (int i = 0; i < 100000; i++) {
        nmp_monotime_ns before = nmp_mono_now();
        nmp_walltime_ns stamp = nmp_wall_now();
        nmp_monotime_ns m = nmp_mono_of_wall(stamp, 0);
        CHECK(m >= before);
        CHECK(m <= nmp_mono_now());
        if (m < before) break;
    }
}

TEST(reading_this_hosts_clock_matches_adjtimex_and_changes_nothing) {
    nmp_clock_state a;
    char err[NMP_ERRLEN];
    struct timex before = {0}, after = {0};
    int rb = adjtimex(&before);
    CHECK_EQ_INT(nmp_clock_state_read(&a, err, sizeof(err)), 0);
    int ra = adjtimex(&after);
    CHECK_EQ_INT(a.adjtimex_rc, rb);
    CHECK_EQ_INT(ra, rb);
    CHECK_EQ_INT(a.status, before.status);
    CHECK_EQ_INT(after.status, before.status);
    CHECK_EQ_INT(after.freq, before.freq);
    CHECK_EQ_INT(a.synchronised, rb != TIME_ERROR && !(before.status & STA_UNSYNC));
    CHECK(a.max_error_us >= 0 && a.est_error_us >= 0);
    CHECK(strcmp(a.state, a.synchronised ? "ok" : "unsynchronised") == 0 || a.synchronised);
    /* the clock source is what sysfs says, when sysfs has it */
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        char line[64] = "";
        if (fgets(line, sizeof(line), f)) line[strcspn(line, "\n")] = '\0';
        fclose(f);
        CHECK(strcmp(a.source, line) == 0);
        CHECK(a.source[0] != '\0');
    }
    fprintf(stderr, "clock: source %s synchronised %d state %s status 0x%x maxerror %lld esterror %lld\n", a.source,
            a.synchronised, a.state, a.status, (long long)a.max_error_us, (long long)a.est_error_us);
}

/* A management RESPONSE as ptp4l sends it: header, target port, TLV(id, data). */
static size_t response(uint8_t *buf, uint16_t id, const uint8_t *data, size_t n) {
    size_t len = nmp_ptp_get_encode(buf, 512, id, 7);
    buf[46] = 2; /* RESPONSE */
    buf[50] = (uint8_t)((n + 2) >> 8), buf[51] = (uint8_t)(n + 2);
    memcpy(buf + len, data, n);
    len += n;
    buf[2] = (uint8_t)(len >> 8), buf[3] = (uint8_t)len;
    return len;
}

static void put64(uint8_t *p, int64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
}

TEST(ptp_get_is_a_management_get_for_every_port) {
    uint8_t b[64];
    CHECK_EQ_INT((int)nmp_ptp_get_encode(b, sizeof(b), 0x2001, 3), 54);
    CHECK_EQ_INT(b[0], 0x0d);        /* management */
    CHECK_EQ_INT(b[1], 2);           /* version 2 */
    CHECK_EQ_INT(b[3], 54);          /* length */
    CHECK_EQ_INT(b[31], 3);          /* sequence */
    CHECK_EQ_INT(b[34], 0xff);       /* wildcard target */
    CHECK_EQ_INT(b[43], 0xff);
    CHECK_EQ_INT(b[46], 0);          /* GET */
    CHECK_EQ_INT(b[49], 1);          /* TLV MANAGEMENT */
    CHECK_EQ_INT(b[51], 2);
    CHECK_EQ_INT(b[52], 0x20);
    CHECK_EQ_INT(b[53], 0x01);
    CHECK_EQ_INT((int)nmp_ptp_get_encode(b, 53, 0x2001, 3), 0); /* too small a buffer */
}

TEST(ptp_answers_decode_and_malformed_ones_are_refused) {
    uint8_t b[512], d[64];
    nmp_ptp_state st;
    memset(&st, 0, sizeof(st));
    /* CURRENT_DATA_SET: stepsRemoved 1, offsetFromMaster -237 ns, meanPathDelay 2050 ns (scaled 2^16) */
    memset(d, 0, sizeof(d));
    d[1] = 1;
    put64(d + 2, -237 * 65536LL);
    put64(d + 10, 2050 * 65536LL);
    size_t n = response(b, 0x2001, d, 18);
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0x2001, &st), 0);
    CHECK_EQ_INT(st.steps_removed, 1);
    CHECK_EQ_INT((int)st.offset_ns, -237);
    CHECK_EQ_INT((int)st.path_delay_ns, 2050);
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0x2003, &st), -EPROTO);   /* answer to another GET */
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n - 1, 0x2001, &st), -EPROTO); /* shorter than it says */
    n = response(b, 0x2001, d, 10);
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0x2001, &st), -EPROTO);   /* dataset cut short */
    /* TIME_PROPERTIES_DATA_SET: currentUtcOffset 37, flags valid | PTP timescale | traceable */
    memset(d, 0, sizeof(d));
    d[1] = 37;
    d[2] = 0x04 | 0x08 | 0x10;
    n = response(b, 0x2003, d, 4);
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0x2003, &st), 0);
    CHECK_EQ_INT(st.current_utc_offset, 37);
    CHECK_EQ_INT(st.ptp_timescale, 1);
    CHECK_EQ_INT(st.time_traceable, 1);
    /* TIME_STATUS_NP: gmPresent at 38, gmIdentity at 42 */
    memset(d, 0, sizeof(d));
    d[41] = 1;
    static const uint8_t gm[8] = {0x52, 0x25, 0x59, 0xff, 0xfe, 0x7a, 0xe8, 0x8b};
    memcpy(d + 42, gm, 8);
    n = response(b, 0xc000, d, 50);
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0xc000, &st), 0);
    CHECK_EQ_INT(st.gm_present, 1);
    CHECK(strcmp(st.grandmaster, "522559.fffe.7ae88b") == 0);
    /* PORT_PROPERTIES_NP: identity, state 9 (SLAVE), software stamps, interface "vb" */
    memset(d, 0, sizeof(d));
    memcpy(d, gm, 8);
    d[7] = 0x8c;
    d[10] = 9;
    d[11] = 0;
    d[12] = 2;
    d[13] = 'v', d[14] = 'b';
    n = response(b, 0xc004, d, 15);
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0xc004, &st), 0);
    CHECK(strcmp(st.port_state, "SLAVE") == 0);
    CHECK(strcmp(st.interface, "vb") == 0);
    CHECK(strcmp(st.clock_identity, "522559.fffe.7ae88c") == 0);
    d[12] = 40; /* an interface name longer than the dataset */
    n = response(b, 0xc004, d, 15);
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0xc004, &st), -EPROTO);
    /* MANAGEMENT_ERROR_STATUS: not supported */
    n = response(b, 0x2001, d, 18);
    b[49] = 2;
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0x2001, &st), -EOPNOTSUPP);
    /* a GET echoed back is not an answer */
    n = nmp_ptp_get_encode(b, sizeof(b), 0x2001, 1);
    CHECK_EQ_INT(nmp_ptp_response_decode(b, n, 0x2001, &st), -EPROTO);
}

TEST(the_reference_and_error_follow_ptp_then_the_kernel) {
    nmp_clock_state cs;
    memset(&cs, 0, sizeof(cs));
    cs.synchronised = 0;
    cs.max_error_us = 16000000;
    nmp_clock_state_reference(&cs);
    CHECK(strcmp(cs.reference, "none") == 0);
    CHECK(cs.error_ns == 16000000000LL && cs.utc_error_ns == 16000000000LL);
    cs.synchronised = 1;
    cs.est_error_us = 250;
    nmp_clock_state_reference(&cs);
    CHECK(strcmp(cs.reference, "utc") == 0);
    CHECK(cs.error_ns == 250000 && cs.utc_error_ns == 250000);
    /* a PTP slave: |offset| + path delay, against its grandmaster */
    cs.ptp.present = cs.ptp.gm_present = 1;
    snprintf(cs.ptp.grandmaster, sizeof(cs.ptp.grandmaster), "522559.fffe.7ae88b");
    snprintf(cs.ptp.clock_identity, sizeof(cs.ptp.clock_identity), "6e25f7.fffe.e7bf55");
    snprintf(cs.ptp.port_state, sizeof(cs.ptp.port_state), "SLAVE");
    cs.ptp.offset_ns = -237;
    cs.ptp.path_delay_ns = 2050;
    nmp_clock_state_reference(&cs);
    CHECK(strcmp(cs.reference, "ptp:522559.fffe.7ae88b") == 0);
    CHECK(cs.error_ns == 2287);
    CHECK(cs.utc_error_ns == 250000); /* not traceable: UTC still rests on the kernel */
    cs.ptp.time_traceable = 1;
    nmp_clock_state_reference(&cs);
    CHECK(cs.utc_error_ns == 2287);
    /* a listening port has no measurement */
    snprintf(cs.ptp.port_state, sizeof(cs.ptp.port_state), "LISTENING");
    nmp_clock_state_reference(&cs);
    CHECK(strcmp(cs.reference, "utc") == 0);
    /* the grandmaster itself: no error against itself */
    snprintf(cs.ptp.port_state, sizeof(cs.ptp.port_state), "MASTER");
    snprintf(cs.ptp.clock_identity, sizeof(cs.ptp.clock_identity), "%s", cs.ptp.grandmaster);
    cs.ptp.is_grandmaster = 1;
    cs.ptp.gm_present = 0;
    nmp_clock_state_reference(&cs);
    CHECK(strcmp(cs.reference, "ptp:522559.fffe.7ae88b") == 0 && cs.error_ns == 0);
    /* hardware timestamping without the PHC read: the system clock's error is unknown */
    cs.ptp.hardware_timestamping = 1;
    nmp_clock_state_reference(&cs);
    CHECK(strcmp(cs.reference, "utc") == 0);
    cs.ptp.phc_read = 1;
    cs.ptp.phc_offset_ns = -40;
    cs.ptp.phc_window_ns = 600;
    nmp_clock_state_reference(&cs);
    CHECK(strcmp(cs.reference, "ptp:522559.fffe.7ae88b") == 0 && cs.error_ns == 340);
    /* on the PTP timescale the PHC keeps TAI, 37 s ahead of the system clock's UTC: not an error */
    cs.ptp.ptp_timescale = 1;
    cs.ptp.current_utc_offset = 37;
    cs.ptp.phc_offset_ns = -37000000000LL + 25;
    nmp_clock_state_reference(&cs);
    CHECK(cs.error_ns == 25 + 300);
}

TEST(one_way_uncertainty_sums_errors_against_a_shared_reference) {
    /* both follow one grandmaster: their errors against it */
    CHECK(nmp_clock_uncertainty_ns("ptp:a", 0, 16000000000LL, "ptp:a", 2287, 16000000000LL) == 2287);
    /* different grandmasters, or NTP: against UTC */
    CHECK(nmp_clock_uncertainty_ns("ptp:a", 0, 1000, "ptp:b", 2287, 3000) == 4000);
    CHECK(nmp_clock_uncertainty_ns("utc", 500, 500, "utc", 700, 700) == 1200);
    CHECK(nmp_clock_uncertainty_ns("none", 16000000000LL, 16000000000LL, "utc", 700, 700) == 16000000700LL);
}

TEST(the_responders_clock_value_is_read_strictly) {
    char ref[32];
    int64_t e = -1, u = -1;
    CHECK_EQ_INT(nmp_stream_clock_decode("ptp:522559.fffe.7ae88b,2287,16000000000", ref, sizeof(ref), &e, &u), 0);
    CHECK(strcmp(ref, "ptp:522559.fffe.7ae88b") == 0 && e == 2287 && u == 16000000000LL);
    CHECK_EQ_INT(nmp_stream_clock_decode("utc,5,5", ref, sizeof(ref), &e, &u), 0);
    static const char *const bad[] = {"", "utc", "utc,5", ",5,5", "utc,-5,5", "utc,5,-5", "utc,5,5,5", "utc,x,5",
                                      "utc,5,", "utc,,5", "utc,99999999999999999999,5", "utc,1000000000000001,5",
                                      "utc,5,9223372036854775807",
                                      "a-reference-longer-than-the-buffer-holds,1,1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_EQ_INT(nmp_stream_clock_decode(bad[i], ref, sizeof(ref), &e, &u), -EPROTO);
    CHECK_EQ_INT(nmp_stream_clock_decode(NULL, ref, sizeof(ref), &e, &u), -EPROTO);
}

int main(void) {
    RUN(classification_follows_adjtimex_return_and_unsync_bit);
    RUN(a_wall_stamp_moves_onto_the_monotonic_clock_late_never_early);
    RUN(reading_this_hosts_clock_matches_adjtimex_and_changes_nothing);
    RUN(ptp_get_is_a_management_get_for_every_port);
    RUN(ptp_answers_decode_and_malformed_ones_are_refused);
    RUN(the_reference_and_error_follow_ptp_then_the_kernel);
    RUN(one_way_uncertainty_sums_errors_against_a_shared_reference);
    RUN(the_responders_clock_value_is_read_strictly);
    return nmp_test_failures != 0;
}
