/* nmp_auth.h -- authenticated sessions: a key shared by a responder and its
 * clients, and the HMAC-SHA256 challenge-response that proves a SESSION
 * request was written by a holder of that key, for this responder and this
 * client (see nmp_wire.h for the exchange). Internal.
 *
 * Version 2 (issue 21, finding 3). Version 1 MACed only the nonce and the
 * SESSION line, so a fake responder could relay a client's SESSION to a
 * keyed responder, pass its CHALLENGE back, and have the client's answer
 * open a session for the fake. A v2 MAC covers, as text lines:
 *     nmp-auth/2
 *     nonce=<the challenge's 32 hex digits, lowercase>
 *     responder=<address> <port>   the responder as the client dialled it
 *     client=<address>             the client as the responder sees it
 *     <the SESSION line as sent, without its final "\n" or "\r\n">
 * joined by "\n" (none after the last). Addresses are numeric: IPv4 dotted
 * (an IPv4-mapped IPv6 address written as IPv4), IPv6 as inet_ntop writes
 * it, no scope. The SESSION line carries the session's terms (kind, frames,
 * sizes, intervals, durations, streams...), so none can be changed either.
 * A relay has another address or port than the responder it relays to, so
 * the answer it obtains is refused there. The client cannot know its own
 * address behind a NAT, so it MACs the one the responder names in the
 * CHALLENGE (peer=): a relay cannot change it without changing the MAC. A
 * responder behind a port-forwarding NAT is dialled at another address than
 * its own: it is told those (--auth-address) and accepts a MAC for any. */
#ifndef NMP_AUTH_H
#define NMP_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NMP_AUTH_KEY_MIN 16          /* bytes: 128 bits at least */
#define NMP_AUTH_KEY_MAX 1024
#define NMP_AUTH_NONCE 16            /* responder's random challenge, bytes */
#define NMP_AUTH_MAC 32              /* HMAC-SHA256 output, bytes */
#define NMP_AUTH_VERSION 2           /* what the MAC covers (above); CHALLENGE says auth=2 */
#define NMP_AUTH_ADDRLEN 64          /* an address as text, with room */

/* The two ends a MAC binds. */
typedef struct nmp_auth_ends {
    char responder[NMP_AUTH_ADDRLEN]; /* the responder's address as the client dialled it */
    int responder_port;               /* its control port as dialled */
    char client[NMP_AUTH_ADDRLEN];    /* the client's address as the responder sees it */
} nmp_auth_ends;

typedef struct nmp_auth_key {
    size_t len;                      /* bytes used in k */
    uint8_t k[NMP_AUTH_KEY_MAX];     /* the key */
} nmp_auth_key;

/* Reads a key file: its bytes, less one final "\n" (or "\r\n"), must be
 * NMP_AUTH_KEY_MIN..NMP_AUTH_KEY_MAX long. The file must be a regular file
 * that neither group nor others may read or write (chmod 600): a key others
 * can read is no secret. Returns 0, or -errno / -EINVAL / -EPERM with err
 * naming the file and the problem. */
int nmp_auth_key_load(const char *path, nmp_auth_key *key, char *err, size_t errlen);
/* Overwrites a key in memory. */
void nmp_auth_key_wipe(nmp_auth_key *key);
/* The v2 MAC (above) of nonce, ends and line, a SESSION request of len
 * bytes (a final "\n" and a "\r" before it are left out): the bytes as the
 * client sent them. */
void nmp_auth_mac(const nmp_auth_key *key, const uint8_t nonce[NMP_AUTH_NONCE], const nmp_auth_ends *ends,
                  const char *line, size_t len, uint8_t mac[NMP_AUTH_MAC]);
/* Writes sa's address in the form a MAC covers (numeric, IPv4-mapped as
 * IPv4, no port) into buf. Returns 0 or -EINVAL (not an IP address). */
int nmp_auth_addr(const struct sockaddr *sa, char *buf, size_t buflen);
/* The same form of a numeric address given as text ("::ffff:10.0.0.1"
 * becomes "10.0.0.1"). Returns 0 or -EINVAL (not a numeric address). */
int nmp_auth_addr_text(const char *text, char *buf, size_t buflen);
/* Compares a MAC with the expected one in constant time. Returns 1 if equal. */
int nmp_auth_mac_equal(const uint8_t a[NMP_AUTH_MAC], const uint8_t b[NMP_AUTH_MAC]);
/* The length of a control line without its final "\n" and a "\r" before it. */
size_t nmp_auth_line_len(const char *line, size_t len);
/* Writes n bytes as 2n lowercase hex digits and a NUL into dst. */
void nmp_hex_encode(char *dst, const uint8_t *src, size_t n);
/* Reads exactly 2n hex digits (either case) into dst. Returns 0 or -EINVAL. */
int nmp_hex_decode(uint8_t *dst, size_t n, const char *src);

#endif
