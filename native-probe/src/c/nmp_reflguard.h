/* nmp_reflguard.h -- what every reflecting path of the responder checks
 * before it answers a datagram (issue 21, finding 6: one spoofed packet from
 * the STAMP reflector's own address and port made it answer itself 10,675
 * times a second; two reflectors pointed at each other, 30,219).
 *
 * A datagram is refused, silently and counted, when it comes from
 *  - the reflecting socket itself: the source address is the address the
 *    datagram arrived on (IP_PKTINFO / IPV6_PKTINFO) and the source port the
 *    socket's bound port, so an answer would come straight back;
 *  - a well-known reflector, echo or amplifier port (the table in
 *    nmp_reflguard.c): an answer would start a ping-pong with that service;
 * and what is left is answered within a budget per source address (a fixed
 * table of token buckets), so one source -- spoofed or not -- spending its
 * budget cannot starve the others. Internal to the engine. */
#ifndef NMP_REFLGUARD_H
#define NMP_REFLGUARD_H

#include <stdint.h>
#include <sys/socket.h>

#include "nmp_clock.h"

/* 1 when a datagram from this source port must not be answered (see the
 * table in nmp_reflguard.c), else 0. Port 0 is refused too: nothing can be
 * sent back to it. */
int nmp_reflguard_port_refused(int port);

/* Asks the kernel for each datagram's destination address on fd (a socket
 * of 'family'; an AF_INET6 socket also for its v4-mapped traffic). Returns 0
 * or -errno. */
int nmp_reflguard_pktinfo_enable(int fd, int family);

/* The destination address of a received datagram, from the control
 * messages nmp_reflguard_pktinfo_enable asked for, into *dst (port 0; an
 * IPv4 destination as AF_INET). Returns 0, or -ENOENT when msg has none. */
int nmp_reflguard_cmsg_dst(struct msghdr *msg, struct sockaddr_storage *dst);

/* 1 when 'from' is the receiving socket itself: its address is 'arrived'
 * (the address the datagram arrived on, or the socket's bound address) and
 * its port 'bound_port'. v4-mapped addresses equal their IPv4 form. */
int nmp_reflguard_from_self(const struct sockaddr *from, const struct sockaddr *arrived, int bound_port);

/* ---- per-source budget ---- */

#define NMP_REFLGUARD_SETS 64        /* sets of the source table */
#define NMP_REFLGUARD_WAYS 4         /* sources per set: 256 sources tracked at once */

/* One source address's token bucket. */
typedef struct nmp_reflguard_src {
    uint8_t ip[16];                  /* source address, IPv4 v4-mapped */
    double tokens;                   /* answers it may still get now */
    nmp_monotime_ns at;              /* last refill, also its age for replacement */
    int used;                        /* slot holds a source */
} nmp_reflguard_src;

/* A budget per source address in bounded memory: a set-associative table
 * indexed by a keyed hash of the address (the key is random, so a sender
 * cannot choose addresses that share one set). A source not in the table
 * replaces, in its set, a free slot, else one whose bucket has refilled
 * (nothing is lost: it would start full anyway), else the least recently
 * refilled. A replaced source starts again with a full bucket, which only
 * ever errs towards answering it; what all sources together get is bounded
 * by the caller's own overall cap. */
typedef struct nmp_reflguard_budget {
    double rate;                     /* answers a second per source, 0 = no budget */
    double burst;                    /* most answers a source holds */
    uint64_t key;                    /* hash key, random */
    nmp_reflguard_src src[NMP_REFLGUARD_SETS][NMP_REFLGUARD_WAYS];
} nmp_reflguard_budget;

/* Sets rate and burst (answers) and draws the hash key. Returns 0 or
 * -errno (no random numbers). */
int nmp_reflguard_budget_init(nmp_reflguard_budget *b, double rate, double burst);

/* Takes one answer from the budget of from's address at 'now'. Returns 1
 * when it may be answered, 0 when that source has spent its budget. */
int nmp_reflguard_budget_take(nmp_reflguard_budget *b, const struct sockaddr *from, nmp_monotime_ns now);

#endif /* NMP_REFLGUARD_H */
