/* nmp_tcpsink.h -- the receiving side of a tcp session, used by the
 * responder: a TCP listener on the session's data port, the data
 * connections that proved the session cookie, and what they delivered.
 * Internal to the engine. */
#ifndef NMP_TCPSINK_H
#define NMP_TCPSINK_H

#include <poll.h>
#include <sys/socket.h>

#include "nmp_wire.h"

typedef struct nmp_tcpsink nmp_tcpsink;

/* Most file descriptors nmp_tcpsink_pollfds fills in. */
#define NMP_TCPSINK_MAX_FDS (2 * NMP_TCP_MAX_STREAMS + 1)

/* Creates the sink for an admitted tcp request: a listener bound to 'local'
 * (the control connection's local address; port chosen by the kernel) with
 * SO_RCVBUF = req->window when non-zero. Only connections from 'peer''s IP
 * whose hello carries 'cookie' become streams. On success *out owns
 * everything and *port is the data port. Returns 0, -ENOMEM or -errno. */
int nmp_tcpsink_open(const nmp_session_req *req, uint64_t cookie, const struct sockaddr_storage *local,
                     const struct sockaddr_storage *peer, nmp_tcpsink **out, int *port, char *err, size_t errlen);
/* Fills up to max pollfds (listener, connections awaiting their hello, and
 * streams); returns how many. */
int nmp_tcpsink_pollfds(nmp_tcpsink *t, struct pollfd *p, int max);
/* Handles the events of the fds from the last nmp_tcpsink_pollfds call.
 * Returns the number of payload bytes read (0 if none). */
uint64_t nmp_tcpsink_ready(nmp_tcpsink *t, const struct pollfd *p, int n);
/* Streams still open (not yet at their end of file, error or framing
 * fault); a finished test has none once the kernel delivered the rest. */
int nmp_tcpsink_open_streams(const nmp_tcpsink *t);
/* Formats the DATA line (into line, NMP_CTL_MAXLINE + 1 bytes; returns its
 * length or a negative code) and the payload (heap, caller frees):
 * streams * NMP_TCP_STREAM_REC totals, streams * bins u64 bin counts (row
 * per stream), records * NMP_REC_SIZE tcp records. */
int nmp_tcpsink_results(nmp_tcpsink *t, char *line, uint8_t **blob, size_t *bloblen);
/* Bytes received over all streams. */
uint64_t nmp_tcpsink_bytes(const nmp_tcpsink *t);
/* Closes every socket and frees t (NULL is fine). */
void nmp_tcpsink_close(nmp_tcpsink *t);

#endif
