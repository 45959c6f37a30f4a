/* nmp_base.h -- what every part of the engine API shares: versions, limits,
 * error text, test control (cancel flag and progress). */
#ifndef NMP_BASE_H
#define NMP_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NMP_VERSION "0.1.0"
#define NMP_PROTO_VERSION 1          /* control protocol and frame version */
#define NMP_DEFAULT_PORT 8700        /* responder control port */
#define NMP_ERRLEN 256               /* suggested size of error buffers */

/* What the engine accepts, whichever way a test is asked for. */
#define NMP_FRAME_HDR 32
#define NMP_FRAME_MAX 9000
#define NMP_TCP_MAX_STREAMS 16
#define NMP_TCP_MSG_MAX (1u << 20)   /* largest TCP message, bytes */
#define NMP_TCP_WINDOW_MAX (256u << 20) /* largest socket buffer a session may ask for */
#define NMP_TCP_MAX_BINS 100000      /* time-series bins per stream */
#define NMP_TCP_MAX_CELLS 400000     /* streams * bins */

/* -------------------------------------------------- test control (client) */

typedef void (*nmp_progress_fn)(void *ctx, uint32_t done, uint32_t total);

/* Shared between the thread that runs a test and the threads that watch or
 * cancel it. The runner reads 'cancel' in each loop iteration and calls
 * 'progress' (if set) at most every ~100 ms and once at the end. */
typedef struct nmp_control {
    volatile int32_t *cancel;        /* points at a flag; nonzero = stop; may be NULL */
    nmp_progress_fn progress;        /* may be NULL */
    void *progress_ctx;              /* passed to progress */
} nmp_control;

/* Nonzero once the caller asked the test to stop; ctl may be NULL. */
static inline int nmp_control_cancelled(const nmp_control *ctl) {
    return ctl != NULL && ctl->cancel != NULL && *ctl->cancel != 0;
}

/* ------------------------------------------------------------- errors */

/* snprintf-style helper: writes "fmt..." into err (if errlen > 0). */
void nmp_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif /* NMP_BASE_H */
