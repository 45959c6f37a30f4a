/* nmp_clockstate.c -- the state of the host clock for the observation
 * environment: which clock source the kernel uses and whether NTP keeps it
 * synchronised, read with adjtimex(2) in read-only mode (modes = 0), and a
 * running ptp4l's measurement of it against its grandmaster (nmp_ptp.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
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
    /* a host without ptp4l answers at once (no socket); one that hangs costs 50 ms at most */
    if (nmp_ptp_read(&out->ptp, 50) < 0) memset(&out->ptp, 0, sizeof(out->ptp));
    nmp_clock_state_reference(out);
    return 0;
}

void nmp_clock_state_reference(nmp_clock_state *cs) {
    /* the kernel caps maxerror at 16 s once a clock has been left alone long enough */
    int64_t kernel_us = cs->synchronised ? (cs->est_error_us > 0 ? cs->est_error_us : 1) : cs->max_error_us;
    if (kernel_us <= 0) kernel_us = 16000000;
    int usable;
    int64_t ptp_ns;
    nmp_ptp_error(&cs->ptp, &usable, &ptp_ns);
    cs->utc_error_ns = kernel_us * 1000;
    if (usable) {
        snprintf(cs->reference, sizeof(cs->reference), "ptp:%s", cs->ptp.grandmaster);
        cs->error_ns = ptp_ns;
        if (cs->ptp.time_traceable && ptp_ns < cs->utc_error_ns) cs->utc_error_ns = ptp_ns;
    } else {
        snprintf(cs->reference, sizeof(cs->reference), "%s", cs->synchronised ? "utc" : "none");
        cs->error_ns = kernel_us * 1000;
    }
}

int64_t nmp_clock_uncertainty_ns(const char *ref_a, int64_t err_a, int64_t utc_a, const char *ref_b, int64_t err_b,
                                 int64_t utc_b) {
    if (ref_a != NULL && ref_b != NULL && strncmp(ref_a, "ptp:", 4) == 0 && strcmp(ref_a, ref_b) == 0)
        return err_a + err_b;
    return utc_a + utc_b;
}

/* ---- the "clock" kind: the clock state packed (nmp_kind.h) ---- */

typedef struct clock_kind_spec {
    char *ptp_socket;                /* ptp4l's management socket; becomes the process's */
} clock_kind_spec;

static const nmp_spec_field clock_fields[] = {
    {.name = "ptpSocket", .type = NMP_S_STR, .offset = offsetof(clock_kind_spec, ptp_socket), .hi = 107,
     .cli = "ptp-socket", .help = "ptp4l's management socket (its uds_address; default " NMP_PTP_DEFAULT_SOCKET ")"},
};

static int clock_kind_run(const void *spec, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    nmp_clock_state st;
    const char *sock = ((const clock_kind_spec *)spec)->ptp_socket;
    if (sock != NULL) nmp_ptp_set_socket(sock);
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
    nmp_pack_str(out, "reference", st.reference);
    nmp_pack_i64(out, "errorNs", st.error_ns);
    nmp_pack_i64(out, "utcErrorNs", st.utc_error_ns);
    nmp_pack_bool(out, "ptpPresent", st.ptp.present);
    nmp_pack_str(out, "ptpPortState", st.ptp.port_state);
    nmp_pack_str(out, "ptpGrandmaster", st.ptp.grandmaster);
    nmp_pack_str(out, "ptpClockIdentity", st.ptp.clock_identity);
    nmp_pack_bool(out, "ptpHardwareTimestamping", st.ptp.hardware_timestamping);
    nmp_pack_bool(out, "ptpTimeTraceable", st.ptp.time_traceable);
    nmp_pack_i64(out, "ptpOffsetNs", st.ptp.offset_ns);
    nmp_pack_i64(out, "ptpPathDelayNs", st.ptp.path_delay_ns);
    return 0;
}

const nmp_kind nmp_kind_clock = {
    .name = "clock",
    .summary = "this host's clock: source, NTP synchronisation (adjtimex, read-only) and ptp4l's PTP state",
    .fields = clock_fields,
    .nfields = sizeof(clock_fields) / sizeof(clock_fields[0]),
    .spec_size = sizeof(clock_kind_spec),
    .run = clock_kind_run,
};
