/* nmp_owampd.h -- the OWAMP (RFC 4656) and TWAMP (RFC 5357) server of
 * nmprobe-owampd: one poll loop answering OWAMP-Control on one TCP port and
 * TWAMP-Control on another, receiving OWAMP test sessions (and answering
 * Fetch-Session with the receive records) and reflecting TWAMP ones, in the
 * open, authenticated and encrypted modes (TWAMP also mixed), within limits
 * like owampd's. Internal to the engine. */
#ifndef NMP_OWAMPD_H
#define NMP_OWAMPD_H

#include <stddef.h>
#include <stdint.h>

typedef struct nmp_owampd_cfg {
    const char *bind_addr;           /* numeric address; NULL = 0.0.0.0 */
    int owamp_port;                  /* OWAMP-Control TCP port, 0 = ephemeral, -1 = off */
    int twamp_port;                  /* TWAMP-Control TCP port, 0 = ephemeral, -1 = off */
    uint32_t modes;                  /* modes offered (NMP_OW_MODE_* bits) */
    const char *key_file;            /* pfs file ("keyid hexkey"), needed for any mode but open */
    uint32_t servwait_ms;            /* a control connection silent this long is closed */
    uint32_t max_conns;              /* control connections at once */
    uint32_t max_sessions;           /* test sessions at once, all clients */
    uint32_t max_per_client;         /* test sessions at once from one client address */
    uint32_t max_per_key;            /* test sessions at once under one key id */
    double max_pps;                  /* packets per second in one session */
    double max_mbps;                 /* Mbit/s (IP packets) in one session */
    uint32_t max_duration_ms;        /* longest test session */
    uint32_t max_packets;            /* most packets in one OWAMP session */
    int port_lo, port_hi;            /* test UDP ports; 0, 0 = ephemeral */
    int verbose;                     /* 1: a line per session, 2: per message */
    int quiet;                       /* errors only */
} nmp_owampd_cfg;

typedef struct nmp_owampd nmp_owampd;

/* Counters for logs and tests. */
typedef struct nmp_owampd_counts {
    uint32_t conns;                  /* control connections open */
    uint32_t sessions;               /* test sessions held (running or kept for Fetch) */
    uint64_t refused;                /* sessions and connections refused */
} nmp_owampd_counts;

void nmp_owampd_cfg_default(nmp_owampd_cfg *cfg);
/* Binds both listeners and checks the configuration (a key file for the
 * modes that need one). Returns 0 or -errno with err set. */
int nmp_owampd_open(const nmp_owampd_cfg *cfg, nmp_owampd **out, char *err, size_t errlen);
int nmp_owampd_port(const nmp_owampd *d, int twamp);
/* Runs until nmp_owampd_stop (safe from a signal handler). */
int nmp_owampd_run(nmp_owampd *d, char *err, size_t errlen);
void nmp_owampd_stop(nmp_owampd *d);
void nmp_owampd_counts_get(const nmp_owampd *d, nmp_owampd_counts *c);
void nmp_owampd_close(nmp_owampd *d);

#endif
