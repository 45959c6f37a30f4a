/* nmp_auth.h -- authenticated sessions: a key shared by a responder and its
 * clients, and the HMAC-SHA256 challenge-response that proves a SESSION
 * request was written by a holder of that key (see nmp_wire.h). Internal. */
#ifndef NMP_AUTH_H
#define NMP_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define NMP_AUTH_KEY_MIN 16          /* bytes: 128 bits at least */
#define NMP_AUTH_KEY_MAX 1024
#define NMP_AUTH_NONCE 16            /* responder's random challenge, bytes */
#define NMP_AUTH_MAC 32              /* HMAC-SHA256 output, bytes */

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
/* HMAC-SHA256(key, nonce || line), line being a SESSION request of len
 * bytes without its final "\n" (and a "\r" before it): the bytes as the
 * client sent them. */
void nmp_auth_mac(const nmp_auth_key *key, const uint8_t nonce[NMP_AUTH_NONCE], const char *line, size_t len,
                  uint8_t mac[NMP_AUTH_MAC]);
/* Compares a MAC with the expected one in constant time. Returns 1 if equal. */
int nmp_auth_mac_equal(const uint8_t a[NMP_AUTH_MAC], const uint8_t b[NMP_AUTH_MAC]);
/* The length of a control line without its final "\n" and a "\r" before it. */
size_t nmp_auth_line_len(const char *line, size_t len);
/* Writes n bytes as 2n lowercase hex digits and a NUL into dst. */
void nmp_hex_encode(char *dst, const uint8_t *src, size_t n);
/* Reads exactly 2n hex digits (either case) into dst. Returns 0 or -EINVAL. */
int nmp_hex_decode(uint8_t *dst, size_t n, const char *src);

#endif
