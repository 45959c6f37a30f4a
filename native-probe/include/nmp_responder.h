/* nmp_responder.h -- the responder daemon's engine: admission limits,
 * configuration and its event loop. */
#ifndef NMP_RESPONDER_H
#define NMP_RESPONDER_H

#include "nmp_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Admission limits of the responder (what a session may ask for). */
typedef struct nmp_limits {
    uint32_t max_frames;             /* most frames per session */
    uint32_t max_size;               /* largest frame (<= NMP_FRAME_MAX) */
    double max_rate_mbps;            /* highest offered rate size*8/interval, Mbit/s */
    uint32_t max_duration_ms;        /* longest session: frames*interval + timeout */
} nmp_limits;

void nmp_limits_default(nmp_limits *l);

/* ----------------------------------------------------------- responder */

typedef struct nmp_responder nmp_responder;

typedef struct nmp_responder_cfg {
    const char *bind_addr;           /* numeric address or NULL for "0.0.0.0" */
    int port;                        /* control port, 0 = ephemeral */
    nmp_limits limits;               /* admission limits */
    uint32_t idle_timeout_ms;        /* session ends after this much silence past when it was due */
    int verbose;                     /* 0 quiet, 1 sessions, 2 debug */
    int quiet;                       /* nonzero: log nothing but errors */
    int stamp_port;                  /* STAMP / TWAMP-Light reflector UDP port, 0 = ephemeral, -1 = none */
    int stamp_stateful;              /* the reflector numbers its reflections per session */
    uint32_t stamp_max_pps;          /* reflections per second at most */
    uint32_t stamp_source_pps;       /* reflections per second to one source address, 0 = a quarter of max */
    const char *stamp_key_file;      /* pfs key file: the reflector answers authenticated STAMP only, NULL = open */
    const char *key_file;            /* shared key: sessions must authenticate (nmp_auth.h), NULL = open */
    const char *auth_addresses;      /* keyed: other ADDR:PORT clients dial us at (port-forwarding NAT),
                                      * comma-separated, at most 4; NULL = none */
    int max_sessions;                /* shared sessions (SESSION class=normal|background) served at once,
                                      * 1..NMP_RESPONDER_SESSIONS_MAX; an exclusive one always runs alone.
                                      * 0 or 1: one session at a time */
} nmp_responder_cfg;

#define NMP_RESPONDER_SESSIONS_MAX 16

void nmp_responder_cfg_default(nmp_responder_cfg *c);
/* Binds and listens. On success *out owns the sockets; free with
 * nmp_responder_close. Logs go to stderr with timestamps. */
int nmp_responder_open(const nmp_responder_cfg *cfg, nmp_responder **out, char *err, size_t errlen);
/* The control port actually bound (useful with port 0). */
int nmp_responder_port(const nmp_responder *r);
/* The STAMP reflector's UDP port, or -1 when it has none. */
int nmp_responder_stamp_port(const nmp_responder *r);
/* Serves until nmp_responder_stop is called (from a signal handler or
 * another thread: it only writes to a pipe). Returns 0 after stop. */
int nmp_responder_run(nmp_responder *r, char *err, size_t errlen);
void nmp_responder_stop(nmp_responder *r);
void nmp_responder_close(nmp_responder *r);

#ifdef __cplusplus
}
#endif

#endif /* NMP_RESPONDER_H */
