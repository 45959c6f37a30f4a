/* nmp_hops.h -- the hop list by TTL-limited UDP probes (kind "hops"). */
#ifndef NMP_HOPS_H
#define NMP_HOPS_H

#include "nmp_clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ hop list
 *
 * TTL-limited UDP probes to a high port of the destination, traceroute
 * style and unprivileged: the socket has IP_RECVERR / IPV6_RECVERR, so the
 * ICMP time-exceeded of each router and the port-unreachable of the
 * destination's kernel arrive on its error queue with the offender's
 * address. Each probe goes to its own destination port (port + index), so
 * answers are matched by the port quoted back. At most 'parallel' probes
 * are outstanding; TTLs beyond the destination are no longer sent once it
 * answered. No responder is needed. */

#define NMP_HOPS_MAX_TTL 64
#define NMP_HOPS_MAX_PROBES 10

typedef struct nmp_hops_spec {
    const char *host;                /* destination name or literal */
    int max_ttl;                     /* 1..NMP_HOPS_MAX_TTL, 0 = 30 */
    uint32_t probes;                 /* probes per hop, 1..NMP_HOPS_MAX_PROBES, 0 = 3 */
    uint32_t wait_ms;                /* wait for each probe's answer, 1..60000, 0 = 1000 */
    int port;                        /* first destination port, 1..65535 (index added), 0 = 33434 */
    uint32_t size;                   /* UDP payload bytes, 0..1472 */
    uint32_t parallel;               /* probes in flight, 1..64, 0 = 16 */
    int resolve;                     /* nonzero: reverse-resolve hop addresses */
    uint32_t resolve_timeout_ms;     /* per address, 0 = 500 */
} nmp_hops_spec;

typedef struct nmp_hop {
    int ttl;                         /* TTL / hop limit of the probes */
    int answered;                    /* probes answered */
    char addr[64];                   /* address that answered first ("" if none) */
    char name[256];                  /* its reverse name ("" if not asked or unresolved) */
    int other_addrs;                 /* answers from a different address (load balancing) */
    int64_t rtt_ns[NMP_HOPS_MAX_PROBES]; /* per probe, -1 when unanswered */
    int icmp_type, icmp_code;        /* of the first answer, -1 if none */
    int destination;                 /* nonzero: the destination answered (port unreachable) */
    int unreachable;                 /* nonzero: another destination-unreachable ended the path */
} nmp_hop;

typedef struct nmp_hops_result {
    int nhops;                       /* hops listed: TTL 1..nhops */
    nmp_hop hops[NMP_HOPS_MAX_TTL];  /* by TTL - 1 */
    int reached;                     /* the destination answered */
    int hop_count;                   /* TTL at which it answered (0 if not reached) */
    uint32_t probes_sent;            /* probes sent in all */
    char dest_addr[64];              /* resolved destination */
    double elapsed_ms;               /* time of the whole test */
} nmp_hops_result;

/* Runs one hop list; the result needs no freeing. Errors: -EINVAL (spec),
 * -ENOENT (name), socket errors as -errno; -ECANCELED keeps the hops so far. */
int nmp_hops_run(const nmp_hops_spec *spec, const nmp_control *ctl, nmp_hops_result *res, char *err,
                 size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* NMP_HOPS_H */
