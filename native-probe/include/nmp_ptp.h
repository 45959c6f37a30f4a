/* nmp_ptp.h -- the state of a running ptp4l (linuxptp), read over its
 * management socket: whether a grandmaster is known, this port's state,
 * the measured offset from the master and the mean path delay. */
#ifndef NMP_PTP_H
#define NMP_PTP_H

#include "nmp_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NMP_PTP_DEFAULT_SOCKET "/var/run/ptp4l"

typedef struct nmp_ptp_state {
    int present;                     /* ptp4l answered every GET */
    int gm_present;                  /* it knows a grandmaster */
    int is_grandmaster;              /* ... and that is this clock */
    char clock_identity[24];         /* this clock, "xxxxxx.xxxx.xxxxxx" */
    char grandmaster[24];            /* the grandmaster's clock identity */
    char port_state[16];             /* "SLAVE", "UNCALIBRATED", "MASTER", ... */
    char interface[32];              /* the port's network interface */
    int hardware_timestamping;       /* ptp4l disciplines a PHC, not the system clock */
    int time_traceable;              /* the grandmaster's time is traceable to UTC */
    int ptp_timescale;               /* the domain runs on TAI (PTP) rather than an arbitrary one */
    int current_utc_offset;          /* TAI - UTC, s (currentUtcOffset; 37 since 2017) */
    int steps_removed;               /* boundary clocks between here and the grandmaster + 1 */
    int64_t offset_ns;               /* offsetFromMaster */
    int64_t path_delay_ns;           /* meanPathDelay */
    int phc_read;                    /* hardware timestamping: the PHC was read */
    int64_t phc_offset_ns;           /* system clock minus PHC (PTP_SYS_OFFSET) */
    int64_t phc_window_ns;           /* the system-clock window of that reading */
} nmp_ptp_state;

/* The management socket to ask (process-wide; NULL or "" for the default).
 * Until set, $NMP_PTP_SOCKET or the default. */
void nmp_ptp_set_socket(const char *path);
const char *nmp_ptp_socket(void);
/* Asks ptp4l; 0 with *st filled, or -errno (-ENOENT/-ECONNREFUSED: no
 * ptp4l; -ETIMEDOUT; -EPROTO: an answer that does not parse). */
int nmp_ptp_read(nmp_ptp_state *st, int timeout_ms);
/* This clock's error bound against the grandmaster, when one can be given:
 * |offsetFromMaster| + meanPathDelay for a slave (a path asymmetry moves
 * the measured offset by up to the path delay), 0 for the grandmaster,
 * plus the system clock's offset from the PHC under hardware timestamping
 * (on the PTP timescale the PHC keeps TAI and phc2sys sets the system
 * clock to UTC, currentUtcOffset behind: that part is not an error). */
void nmp_ptp_error(const nmp_ptp_state *st, int *usable, int64_t *error_ns);

/* Wire helpers, exposed for tests: a management GET for dataset 'id', and
 * the decoding of its answer into *st (0, -EPROTO, -EOPNOTSUPP). */
size_t nmp_ptp_get_encode(uint8_t *buf, size_t buflen, uint16_t id, uint16_t seq);
int nmp_ptp_response_decode(const uint8_t *buf, size_t len, uint16_t id, nmp_ptp_state *st);

#ifdef __cplusplus
}
#endif

#endif /* NMP_PTP_H */
