/* nmp_client.h -- the client side of a test session (control connection
 * plus connected UDP socket), shared by every client test kind. Internal. */
#ifndef NMP_CLIENT_H
#define NMP_CLIENT_H

#include "nmp_net.h"

/* How often nmp_client_watch looks at the control connection: a responder
 * that goes away mid-test is noticed within about this (and well within 2 s). */
#define NMP_CLIENT_WATCH_NS 50000000ull

typedef struct nmp_client {
    const char *host;               /* responder as the caller named it (not owned) */
    int port;                       /* responder control port */
    int ctl;                        /* control connection, -1 when closed */
    nmp_linebuf lb;                 /* control bytes received */
    struct sockaddr_storage peer;   /* responder control address */
    int udp;                        /* UDP socket connected to the session port */
    int udp_port;                   /* responder's session UDP port */
    uint64_t cookie;                /* session cookie from OK */
    uint32_t id;                    /* session id from OK */
    uint32_t timeout_ms;            /* control I/O timeout */
    const volatile int32_t *cancel; /* caller's cancel flag, may be NULL */
    nmp_monotime_ns opened;         /* when OK came */
    nmp_monotime_ns next_watch;     /* nmp_client_watch looks again from then */
} nmp_client;

/* Connects, sends 'request' (a full control line) and reads the answer;
 * a CHALLENGE (an authenticating responder) is answered with the key read
 * from key_file (NULL: none, and such a responder cannot be used). On OK
 * opens the UDP socket (ttl > 0 sets its TTL) connected to the session
 * port. Errors: -EBUSY (BUSY; err says when to retry), -EPERM (ERR, or a
 * challenge without a key; err carries the reason), -EPROTO, key file,
 * connect and socket errors. On failure everything is closed. */
int nmp_client_open(nmp_client *c, const char *host, int port, uint32_t timeout_ms,
                    const volatile int32_t *cancel, const char *request, int ttl, const char *key_file, char *err,
                    size_t errlen);
/* Connects, sends 'request', answers a CHALLENGE as nmp_client_open does,
 * and stores the answer (any verb) in *answer, the connection left open.
 * Errors: key file, connect, I/O, -EPROTO; on failure everything is closed. */
int nmp_client_ask(nmp_client *c, const char *host, int port, uint32_t timeout_ms, const volatile int32_t *cancel,
                   const char *request, const char *key_file, nmp_ctl_msg *answer, char *err, size_t errlen);
/* The control part of nmp_client_open only (no UDP socket; c->udp_port
 * holds the port the responder named). Same errors. */
int nmp_client_open_ctl(nmp_client *c, const char *host, int port, uint32_t timeout_ms,
                        const volatile int32_t *cancel, const char *request, const char *key_file, char *err,
                        size_t errlen);
/* Sends END and reads BYE (whose rx/tx are stored if the pointers are not
 * NULL). Returns 0 or a negative code; the connection stays open. */
int nmp_client_end(nmp_client *c, uint64_t *rx, uint64_t *tx, char *err, size_t errlen);
/* Sends RESULTS and reads the DATA line into *hdr and its binary payload
 * into a heap buffer *blob of *bloblen bytes (caller frees). Refuses more
 * than max_records records or a byte count other than records *
 * NMP_REC_SIZE (-EPROTO). */
int nmp_client_results(nmp_client *c, uint32_t max_records, nmp_ctl_msg *hdr, uint8_t **blob, size_t *bloblen,
                       char *err, size_t errlen);
/* Sends RESULTS and reads the DATA line and its payload of 'bytes=' bytes
 * (at most max_bytes, else -EPROTO) into a heap buffer (caller frees);
 * the caller checks the payload's layout. */
int nmp_client_results_raw(nmp_client *c, uint64_t max_bytes, nmp_ctl_msg *hdr, uint8_t **blob, size_t *bloblen,
                           char *err, size_t errlen);
/* Sends test frame 'seq' of 'total' (type NMP_FRAME_*) of 'size' bytes from
 * buf (its header is written here) on the session's UDP socket, stamping
 * the wall clock into the frame just before the send. A full socket buffer
 * is waited out (polling for POLLOUT, watching the cancel flag); a refused
 * send (an ICMP error from an earlier frame) is retried. On success stores
 * the send times in *mono and *wall. Returns 0 or -errno with err set. */
int nmp_client_send_frame(nmp_client *c, uint8_t type, uint32_t seq, uint32_t total, uint8_t *buf, size_t size,
                          nmp_monotime_ns *mono, nmp_walltime_ns *wall, char *err, size_t errlen);
/* Watches the control connection while the test's frames flow, where
 * nothing is expected on it: a responder killed or restarted closes it (EOF
 * or reset), one that ends the session says why (ERR) first. Costs a clock
 * read; looks (a poll) at most every NMP_CLIENT_WATCH_NS, or now if 'now'.
 * Returns 0, -ECONNRESET (gone), -ETIMEDOUT or -EPERM (the responder ended
 * the session: timeout, or another reason) or -EPROTO, with err saying so. */
int nmp_client_watch(nmp_client *c, int now, char *err, size_t errlen);
/* Closes both sockets; safe to call twice. */
void nmp_client_close(nmp_client *c);

/* How late a paced frame may leave before its test's schedule moves to it. Late by less than
 * half an interval, the next frame is not due yet: keeping the schedule sends no burst and keeps
 * the asked rate (a 10 frames/s stream woken 50 us late at each frame drifted 29 ms off its grid
 * in a minute; bench/continuous.sh). Later than that, moving the schedule turns the lost time
 * into one longer gap instead of catch-up frames at the sender's full rate. */
static inline uint64_t nmp_pace_rebase_ns(uint64_t interval_ns) {
    return interval_ns / 2 > 1000u ? interval_ns / 2 : 1000u;
}

#endif
