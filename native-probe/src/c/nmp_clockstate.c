/* nmp_clockstate.c -- the state of the host clock for the observation
 * environment: which clock source the kernel uses and whether NTP keeps it
 * synchronised, read with adjtimex(2) in read-only mode (modes = 0). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>

#include "nmp_kind.h"
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

/* ---- the "clock" kind: no spec fields; the clock state packed (nmp_kind.h) ---- */

static int clock_kind_run(const void *spec, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    nmp_clock_state st;
    int rc = nmp_clock_state_read(&st, err, errlen);
    if (rc < 0) return rc;
    nmp_pack_bool(out, "cancelled", 0);
    nmp_pack_str(out, "source", st.source);
    nmp_pack_bool(out, "synchronised", st.synchronised);
    nmp_pack_i64(out, "adjtimexRc", st.adjtimex_rc);
    nmp_pack_i64(out, "status", st.status);
    nmp_pack_i64(out, "maxErrorUs", st.max_error_us);
    nmp_pack_i64(out, "estErrorUs", st.est_error_us);
    nmp_pack_i64(out, "offsetNs", st.offset_ns);
    nmp_pack_str(out, "state", st.state);
    return 0;
}

/* A spec struct must have a size; the clock has no fields. */
typedef struct clock_kind_spec {
    int unused;                      /* no fields */
} clock_kind_spec;

const nmp_kind nmp_kind_clock = {
    .name = "clock",
    .summary = "this host's clock source and NTP synchronisation (adjtimex, read-only)",
    .fields = NULL,
    .nfields = 0,
    .spec_size = sizeof(clock_kind_spec),
    .run = clock_kind_run,
};
