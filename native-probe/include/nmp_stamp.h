/* nmp_stamp.h -- STAMP (RFC 8762, with RFC 8972's SSID) and TWAMP-Light test
 * packets, unauthenticated and authenticated modes.
 *
 * The session-sender (kind "stamp") measures round trip and both one-way
 * directions to any host that runs a standard reflector (routers, other
 * tools, nmprobe-responder with --stamp-port), with no control session; the
 * session-reflector lets other tools measure to an nmws host. Both packet
 * forms are 44 bytes before any padding, and TWAMP-Light's are the same
 * layout with the SSID bytes zero, so one codec serves both. */
#ifndef NMP_STAMP_H
#define NMP_STAMP_H

#include <stddef.h>
#include <stdint.h>

#include "nmp_clock.h"

#define NMP_STAMP_PORT 862           /* IANA's STAMP / TWAMP-Test port */
#define NMP_STAMP_LEN 44             /* unauthenticated test packet without padding */
#define NMP_STAMP_MAX_LEN 9000       /* largest test packet either side handles */
#define NMP_STAMP_AUTH_LEN 112       /* authenticated test packet without padding (RFC 8762 4.2.2, 4.3.2) */
#define NMP_STAMP_HMAC_LEN 16        /* HMAC-SHA-256 truncated to 128 bits (RFC 8762 4.4) */
#define NMP_STAMP_HMAC_COVERS 96     /* the HMAC covers the first six 16-octet blocks; it sits right after */

/* Timestamp formats (the Z bit of the error estimate). */
typedef enum nmp_stamp_tsfmt {
    NMP_STAMP_NTP = 0,               /* 32-bit seconds since 1900, 32-bit fraction */
    NMP_STAMP_PTP = 1                /* 32-bit seconds since 1970, 32-bit nanoseconds */
} nmp_stamp_tsfmt;

/* A session-sender test packet. */
typedef struct nmp_stamp_sender_pkt {
    uint32_t seq;                    /* sequence number */
    uint64_t ts;                     /* transmit timestamp, in the format the error estimate names */
    uint16_t error;                  /* error estimate: S, Z, scale, multiplier */
    uint16_t ssid;                   /* session id (RFC 8972); 0 from TWAMP-Light senders */
} nmp_stamp_sender_pkt;

/* A session-reflector test packet. */
typedef struct nmp_stamp_reflector_pkt {
    uint32_t seq;                    /* reflector's sequence number (the sender's, when stateless) */
    uint64_t ts;                     /* reflector's transmit timestamp (T3) */
    uint16_t error;                  /* reflector's error estimate */
    uint16_t ssid;                   /* the sender's SSID, reflected */
    uint64_t rx_ts;                  /* reflector's receive timestamp (T2) */
    uint32_t sender_seq;             /* the sender's sequence number */
    uint64_t sender_ts;              /* the sender's timestamp (T1) */
    uint16_t sender_error;           /* the sender's error estimate */
    uint8_t sender_ttl;              /* TTL / hop limit the sender's packet arrived with */
} nmp_stamp_reflector_pkt;

/* Writes the 44 bytes of a test packet (MBZ fields zeroed) at buf. */
void nmp_stamp_sender_encode(uint8_t *buf, const nmp_stamp_sender_pkt *p);
void nmp_stamp_reflector_encode(uint8_t *buf, const nmp_stamp_reflector_pkt *p);
/* Reads a test packet of len bytes. Returns 0, or -EINVAL when it is shorter
 * than NMP_STAMP_LEN. MBZ fields are not checked (RFC 8762: ignored on receipt). */
int nmp_stamp_sender_decode(const uint8_t *buf, size_t len, nmp_stamp_sender_pkt *p);
int nmp_stamp_reflector_decode(const uint8_t *buf, size_t len, nmp_stamp_reflector_pkt *p);

/* Authenticated mode: the same fields at the offsets of RFC 8762's Figures 4
 * and 6 (with RFC 8972's SSID after the error estimate), 112 bytes, MBZ
 * zeroed; the HMAC (bytes 96..111) is left zero for nmp_stamp_sign. Decoding
 * needs NMP_STAMP_AUTH_LEN bytes (else -EINVAL) and does not check the HMAC:
 * verify first (nmp_stamp_verify). Sender: seq 0, timestamp 16, error 24,
 * SSID 26. Reflector: seq 0, timestamp 16, error 24, SSID 26, receive
 * timestamp 32, sender seq 48, sender timestamp 64, sender error 72, sender
 * TTL 80. */
void nmp_stamp_sender_encode_auth(uint8_t *buf, const nmp_stamp_sender_pkt *p);
void nmp_stamp_reflector_encode_auth(uint8_t *buf, const nmp_stamp_reflector_pkt *p);
int nmp_stamp_sender_decode_auth(const uint8_t *buf, size_t len, nmp_stamp_sender_pkt *p);
int nmp_stamp_reflector_decode_auth(const uint8_t *buf, size_t len, nmp_stamp_reflector_pkt *p);

/* An HMAC-SHA-256 key made ready once (OpenSSL's EVP_MAC), so that each
 * packet costs one HMAC and no allocation. One user at a time. */
typedef struct nmp_stamp_mac nmp_stamp_mac;
/* Returns 0 or -ENOMEM / -EINVAL (OpenSSL refused the key). */
int nmp_stamp_mac_new(const uint8_t *key, size_t len, nmp_stamp_mac **out);
void nmp_stamp_mac_free(nmp_stamp_mac *m);
/* Writes the HMAC of pkt's first NMP_STAMP_HMAC_COVERS bytes at pkt + 96.
 * Returns 0, or -EIO when OpenSSL fails (the HMAC is then zeroed). */
int nmp_stamp_sign(nmp_stamp_mac *m, uint8_t *pkt);
/* 1 when pkt (len bytes) is at least NMP_STAMP_AUTH_LEN long and carries
 * the HMAC of its first 96 bytes under this key, compared in constant time;
 * else 0. */
int nmp_stamp_verify(nmp_stamp_mac *m, const uint8_t *pkt, size_t len);

/* 1 when a packet that arrived as a sender's test packet is a reflector's
 * answer: a sender leaves bytes 16..23 zero (MBZ in an unauthenticated test
 * packet), a reflector writes its receive timestamp there, within a second
 * of its transmit timestamp at bytes 4..11 (NTP and PTP timestamps both
 * keep seconds in their upper 32 bits). Answering it would start a loop
 * between two reflectors. A TWAMP-Light sender's random padding matches by
 * chance about 3 times in 2^32. Packets shorter than NMP_STAMP_LEN: 0. */
int nmp_stamp_is_reflection(const uint8_t *buf, size_t len);
/* The same test for authenticated packets: a sender leaves bytes 32..39
 * zero (MBZ), a reflector writes its receive timestamp there, within a
 * second of its transmit timestamp at bytes 16..23. Two authenticated
 * reflectors sharing a key would otherwise loop: the HMAC of a reflection
 * verifies as a test packet's. Packets shorter than NMP_STAMP_AUTH_LEN: 0. */
int nmp_stamp_is_reflection_auth(const uint8_t *buf, size_t len);

/* A wall-clock time as a STAMP timestamp. */
uint64_t nmp_stamp_ts_from_wall(nmp_walltime_ns t, nmp_stamp_tsfmt fmt);
/* A STAMP timestamp as wall-clock time; an NTP timestamp is placed in the NTP
 * era nearest to 'near' (so it stays right past 2036). */
nmp_walltime_ns nmp_stamp_ts_to_wall(uint64_t ts, nmp_stamp_tsfmt fmt, nmp_walltime_ns near);

/* The error estimate field (RFC 4656 4.1.2): S set when the clock is
 * synchronised to UTC by an external source, Z the timestamp format, and
 * error = multiplier * 2^(scale - 32) seconds, rounded up to the smallest
 * representable value not below error_s (multiplier never 0). */
uint16_t nmp_stamp_error_encode(int synchronised, nmp_stamp_tsfmt fmt, double error_s);
/* Seconds of an error estimate; *synchronised and *fmt may be NULL. */
double nmp_stamp_error_decode(uint16_t e, int *synchronised, nmp_stamp_tsfmt *fmt);
/* This host's clock as an error estimate: the kernel's estimated error when
 * it is synchronised, its maximum error when not (adjtimex). */
uint16_t nmp_stamp_local_error(nmp_stamp_tsfmt fmt);

/* ---- session-sender (kind "stamp") ---- */

typedef struct nmp_stamp_spec {
    const char *host;                /* reflector name or literal (v4/v6) */
    int port;                        /* reflector UDP port */
    uint32_t count;                  /* test packets */
    uint32_t size;                   /* UDP payload bytes, NMP_STAMP_LEN..NMP_STAMP_MAX_LEN */
    uint64_t interval_ns;            /* spacing between sends */
    uint64_t timeout_ns;             /* wait for reflections after the last send */
    uint32_t ssid;                   /* session id sent, 0..65535 */
    int ptp;                         /* nonzero: PTPv2 timestamps, else NTP */
    int ttl;                         /* outgoing TTL, 0 = system default */
    uint64_t agree_ns;               /* how long the first packet waits for its reflection */
    int auth;                        /* nonzero: authenticated mode (RFC 8762 4.2.2); size 44 then means 112 */
    const char *key_id;              /* authenticated: the key's id in key_file */
    const char *key_file;            /* authenticated: owampd pfs key file (nmp_pfs.h), never the key itself */
} nmp_stamp_spec;

typedef struct nmp_stamp_result {
    uint32_t requested, sent, received, lost, duplicates, invalid;
    double loss_percent;             /* 100 * lost / sent */
    /* round trip without the reflector's residence time: (T4 - T1) - (T3 - T2) */
    double rtt_min_ns, rtt_median_ns, rtt_mean_ns, rtt_p99_ns, rtt_max_ns;
    /* one-way, between the two wall clocks: forward T2 - T1, backward T4 - T3 */
    double fwd_min_ns, fwd_median_ns, fwd_max_ns;
    double bwd_min_ns, bwd_median_ns, bwd_max_ns;
    double sender_error_ns;          /* this host's clock error estimate */
    double reflector_error_ns;       /* the reflector's, as it stated it (largest seen) */
    int reflector_synchronised;      /* S bit of the reflector's error estimate */
    int reflector_ptp;               /* Z bit of the reflector's error estimate */
    /* Lost on the way there, from a stateful reflector's own count (RFC 8762 4.2.2: it
     * numbers what it received): the highest sender sequence number reflected minus the
     * reflector's; 0 from a stateless reflector, which echoes the sender's numbers. */
    uint32_t forward_lost;
    uint32_t max_sender_seq, max_reflector_seq; /* highest of each seen */
    int authenticated;               /* the run was in authenticated mode */
    uint32_t auth_failed;            /* authenticated: answers whose HMAC did not verify (not counted as received) */
    uint32_t unauth_answers;         /* authenticated: answers in the unauthenticated layout (an open reflector) */
    nmp_walltime_ns start_wall, end_wall;
    char local_addr[64], remote_addr[64];
    /* per packet, 'requested' entries owned by the result */
    int64_t *send_wall;              /* T1, 0 if never sent */
    int64_t *rtt_ns;                 /* -1 if lost */
    int64_t *fwd_ns, *bwd_ns;        /* one-way delays (may be negative between unsynchronised clocks) */
    int32_t *sender_ttl;             /* TTL the reflector saw, -1 if lost or unknown */
    int32_t *reply_ttl;              /* TTL of the reflection here, -1 if lost or unknown */
} nmp_stamp_result;

/* Sends the first packet alone and waits agree_ns for its reflection (up to
 * three tries): a host with no reflector gets no more than three packets and
 * the call fails with -ETIMEDOUT (-ECONNREFUSED when an ICMP error says no
 * one listens), saying whether the silence may be a reflector that wants the
 * other mode. In authenticated mode an answer in the unauthenticated layout
 * fails it with -EPROTO ("the reflector answered in unauthenticated mode"),
 * and answers whose HMAC fails with -EPERM. Then sends the rest paced
 * interval_ns apart. Returns 0, -ECANCELED (result kept) or -errno with err
 * set; the result is freed with nmp_stamp_result_free in every case. */
int nmp_stamp_run(const nmp_stamp_spec *spec, const nmp_control *ctl, nmp_stamp_result *res, char *err,
                  size_t errlen);
void nmp_stamp_result_free(nmp_stamp_result *res);

/* ---- session-reflector ---- */

typedef struct nmp_stamp_reflector nmp_stamp_reflector;

typedef struct nmp_stamp_reflector_cfg {
    const char *bind_addr;           /* numeric address, NULL = all (IPv6 and IPv4) */
    int port;                        /* UDP port, 0 = ephemeral */
    int stateful;                    /* nonzero: number reflections per session (sender address, port, SSID) */
    uint32_t max_pps;                /* reflections per second at most (a reflector answers anyone) */
    uint32_t source_pps;             /* reflections per second to one source address, 0 = max_pps / 4
                                      * (no budget per source when max_pps is 0 too) */
    const char *key_file;            /* owampd pfs key file (nmp_pfs.h): authenticated mode only, answering a
                                      * packet whose HMAC one of its keys verifies; NULL = unauthenticated */
} nmp_stamp_reflector_cfg;

/* What the reflector did with the packets it read. */
typedef struct nmp_stamp_reflector_counters {
    uint64_t reflected;              /* answered */
    uint64_t dropped;                /* not a test packet (short, truncated, from port 0), over max_pps,
                                      * or the answer could not be sent */
    uint64_t refused_self;           /* from the reflector's own address and port */
    uint64_t refused_port;           /* from a well-known reflector, echo or amplifier port */
    uint64_t refused_reflection;     /* a reflector's answer, not a test packet: answering loops */
    uint64_t over_source;            /* over its source address's budget (source_pps) */
    uint64_t auth_failed;            /* authenticated mode: no key verified its HMAC, or too short to carry one */
} nmp_stamp_reflector_counters;

/* Opens the reflector's socket. Returns 0 or -errno with err set. */
int nmp_stamp_reflector_open(const nmp_stamp_reflector_cfg *cfg, nmp_stamp_reflector **out, char *err,
                             size_t errlen);
/* The socket to poll for POLLIN, and its port. */
int nmp_stamp_reflector_fd(const nmp_stamp_reflector *r);
int nmp_stamp_reflector_port(const nmp_stamp_reflector *r);
/* Answers the test packets waiting on the socket (at most a batch; never blocks).
 * Returns the number reflected. */
int nmp_stamp_reflector_drain(nmp_stamp_reflector *r);
/* Counters for logs and tests. */
void nmp_stamp_reflector_counts(const nmp_stamp_reflector *r, nmp_stamp_reflector_counters *out);
void nmp_stamp_reflector_close(nmp_stamp_reflector *r);

#endif
