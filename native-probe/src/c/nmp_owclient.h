/* nmp_owclient.h -- the client end of an OWAMP-Control or TWAMP-Control
 * connection: connect, Server-Greeting, Set-Up-Response (Token from the
 * shared secret), Server-Start, then whole protected messages each way.
 * Used by the "owamp" and "twamp" kinds. Internal to the engine. */
#ifndef NMP_OWCLIENT_H
#define NMP_OWCLIENT_H

#include <sys/socket.h>

#include "nmp_owctl.h"
#include "nmprobe.h"

typedef struct nmp_owc {
    int fd;                          /* control TCP socket (non-blocking), -1 when closed */
    int twamp;                       /* nonzero: TWAMP-Control */
    uint32_t mode;                   /* mode in use */
    nmp_ow_cipher c;                 /* this end's stream protection */
    nmp_ow_greeting g;               /* as the server sent it */
    uint64_t server_start;           /* Server-Start's Start-Time */
    uint32_t io_ms;                  /* longest wait for one message */
    const nmp_control *ctl;          /* cancel flag, may be NULL */
    struct sockaddr_storage peer;    /* server's control address */
    struct sockaddr_storage local;   /* this end's control address */
    char peer_str[64], local_str[64];
} nmp_owc;

/* Connects and runs the set-up. Mode "open" needs no key; the others read
 * key_id's key from key_file. A server that offers no such mode, or refuses
 * in Server-Start, fails with -EACCES and a message naming its Accept value.
 * On failure the connection is closed (nmp_owc_close is still safe). */
int nmp_owc_open(nmp_owc *o, const char *host, int port, int twamp, uint32_t mode, const char *key_id,
                 const char *key_file, uint32_t io_ms, const nmp_control *ctl, char *err, size_t errlen);
/* Seals (HMAC blocks at hmac_at, encryption) and writes a whole message. */
int nmp_owc_send(nmp_owc *o, uint8_t *msg, size_t len, const size_t *hmac_at, int nh, char *err, size_t errlen);
/* Reads exactly len bytes and decrypts them (HMACs are checked with nmp_owc_verify
 * once the message's parts are all read). -ETIMEDOUT, -ECONNRESET, -ECANCELED. */
int nmp_owc_recv(nmp_owc *o, uint8_t *buf, size_t len, char *err, size_t errlen);
int nmp_owc_verify(nmp_owc *o, const uint8_t *msg, size_t len, const size_t *hmac_at, int nh, const char *what,
                   char *err, size_t errlen);
void nmp_owc_close(nmp_owc *o);

/* The IP version (4/6) and address octets of a socket address, for Request-Session. */
int nmp_owc_addr(const struct sockaddr_storage *ss, uint8_t addr[16], uint16_t *port);

#endif
