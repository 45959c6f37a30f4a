/* nmp_owamp.h -- the OWAMP (RFC 4656) and TWAMP (RFC 5357) clients, kinds
 * "owamp" and "twamp": one control session to an owampd / twampd (or
 * nmprobe-owampd), one test session, in open, authenticated or encrypted
 * mode (TWAMP also mixed), with the shared secret read from an owampd-style
 * pfs key file, never passed in the spec. */
#ifndef NMP_OWAMP_H
#define NMP_OWAMP_H

#include <stddef.h>
#include <stdint.h>

#include "nmp_base.h"
#include "nmp_clock.h"

/* Spec of both kinds (the "twamp" kind's port defaults to 862). */
typedef struct nmp_owamp_spec {
    const char *host;                /* server name or literal (v4/v6) */
    int port;                        /* control port */
    uint32_t count;                  /* test packets */
    uint32_t size;                   /* padding octets in each test packet */
    uint64_t interval_ns;            /* spacing between sends (a fixed schedule slot) */
    uint64_t timeout_ns;             /* loss timeout: how long after its send a packet may still arrive */
    const char *mode;                /* "open" (NULL too), "authenticated", "encrypted", "mixed" (TWAMP) */
    const char *key_id;              /* KeyID (at most 80 octets), required unless open */
    const char *key_file;            /* owampd pfs file holding key_id's hex key, required unless open */
    int ttl;                         /* outgoing TTL, 0 = 255 as owping sends */
    const char *direction;           /* owamp: "to" (NULL too: this end sends) or "from" (the server sends) */
} nmp_owamp_spec;

#endif
