/* nmp_clockstate.c -- the state of the host clock for the observation
 * environment: which clock source the kernel uses and whether NTP keeps it
 * synchronised, read with adjtimex(2) in read-only mode (modes = 0). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>

#include "nmprobe.h"

#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"

void nmp_clock_state_classify(int adjtimex_rc, int status, int *synchronised, char *state, size_t statelen) {
    const char *s;
    int sync = adjtimex_rc != TIME_ERROR && !(status & STA_UNSYNC);
    if (!sync)
        s = "unsynchronised";
    else if (adjtimex_rc == TIME_INS)
        s = "leap-insert";
    else if (adjtimex_rc == TIME_DEL)
        s = "leap-delete";
    else if (adjtimex_rc == TIME_OOP)
        s = "leap-in-progress";
    else if (adjtimex_rc == TIME_WAIT)
        s = "leap-occurred";
    else
        s = "ok";
    *synchronised = sync;
    if (statelen > 0) snprintf(state, statelen, "%s", s);
}

/* Reads the first line of the clock source file into buf ("" on failure). */
static void read_source(char *buf, size_t buflen) {
    buf[0] = '\0';
    FILE *f = fopen(CLOCKSOURCE_PATH, "re");
    if (f == NULL) return;
    if (fgets(buf, (int)buflen, f) == NULL) buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) *p = '_';
}

int nmp_clock_state_read(nmp_clock_state *out, char *err, size_t errlen) {
    struct timex tx;
    memset(out, 0, sizeof(*out));
    memset(&tx, 0, sizeof(tx));
    tx.modes = 0; /* read only */
    read_source(out->source, sizeof(out->source));
    int rc = adjtimex(&tx);
    if (rc < 0) {
        int e = errno;
        nmp_seterr(err, errlen, "adjtimex: %s", strerror(e));
        return -e;
    }
    out->adjtimex_rc = rc;
    out->status = tx.status;
    out->max_error_us = tx.maxerror;
    out->est_error_us = tx.esterror;
    out->offset_ns = (tx.status & STA_NANO) ? (int64_t)tx.offset : (int64_t)tx.offset * 1000;
    nmp_clock_state_classify(rc, tx.status, &out->synchronised, out->state, sizeof(out->state));
    return 0;
}
