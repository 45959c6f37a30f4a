/* test_clock.c -- the clock-state classification for every adjtimex
 * outcome, and a real read-only sample of this host's clock. */
#define _GNU_SOURCE
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

int main(void) {
    RUN(classification_follows_adjtimex_return_and_unsync_bit);
    RUN(reading_this_hosts_clock_matches_adjtimex_and_changes_nothing);
    return nmp_test_failures != 0;
}
