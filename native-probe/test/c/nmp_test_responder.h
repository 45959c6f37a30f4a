/* nmp_test_responder.h -- a responder running on a thread of the test
 * process, on a free loopback port, for the C tests that need a far end. */
#ifndef NMP_TEST_RESPONDER_H
#define NMP_TEST_RESPONDER_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "nmprobe.h"

typedef struct nmp_test_responder {
    nmp_responder *r;               /* the engine */
    pthread_t th;                   /* thread running nmp_responder_run */
    int port;                       /* its control port */
} nmp_test_responder;

/* The default configuration bound to 'bind' on a free port; quiet unless
 * NMP_TEST_VERBOSE is set. Tests change what they need before starting. */
static inline nmp_responder_cfg nmp_test_responder_cfg(const char *bind) {
    nmp_responder_cfg cfg;
    nmp_responder_cfg_default(&cfg);
    cfg.bind_addr = bind;
    cfg.port = 0;
    cfg.quiet = getenv("NMP_TEST_VERBOSE") == NULL;
    cfg.verbose = 1;
    return cfg;
}

static inline void *nmp_test_responder_run(void *arg) {
    char err[NMP_ERRLEN];
    nmp_responder_run(((nmp_test_responder *)arg)->r, err, sizeof(err));
    return NULL;
}

/* Opens the responder and runs it on a new thread. Returns its port, or -1. */
static inline int nmp_test_responder_start(nmp_test_responder *b, const nmp_responder_cfg *cfg) {
    char err[NMP_ERRLEN];
    if (nmp_responder_open(cfg, &b->r, err, sizeof(err)) < 0) {
        fprintf(stderr, "responder: %s\n", err);
        return -1;
    }
    b->port = nmp_responder_port(b->r);
    pthread_create(&b->th, NULL, nmp_test_responder_run, b);
    return b->port;
}

static inline void nmp_test_responder_stop(nmp_test_responder *b) {
    nmp_responder_stop(b->r);
    pthread_join(b->th, NULL);
    nmp_responder_close(b->r);
}

#endif /* NMP_TEST_RESPONDER_H */
