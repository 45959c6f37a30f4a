/* nmp_test_proc.h -- a real nmprobe-responder process for the C tests that
 * must see the daemon as clients see it: its own process (so it can be
 * killed), its own event loop, reached only over sockets. The binary comes
 * from the test's command line (CMake passes $<TARGET_FILE:nmprobe-responder>).
 * Its log goes to a temporary file, read back for the bound port and shown
 * when a test fails. Also: small raw-socket helpers for speaking the control
 * protocol by hand. */
#ifndef NMP_TEST_PROC_H
#define NMP_TEST_PROC_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct nmp_test_proc {
    pid_t pid;                      /* the responder, 0 once reaped */
    int port;                       /* its control port */
    char log[64];                   /* path of its log file */
} nmp_test_proc;

static inline double nmp_test_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts 'bin -b 127.0.0.1 -p 0 extra...' (extra is NULL-terminated, may be
 * NULL) and waits up to 5 s for its "listening on ... port N" line. Returns
 * the port, or -1 (with the log printed). */
static inline int nmp_test_proc_start(nmp_test_proc *p, const char *bin, const char *const *extra) {
    const char *argv[32];
    int n = 0;
    argv[n++] = bin;
    argv[n++] = "-b";
    argv[n++] = "127.0.0.1";
    argv[n++] = "-p";
    argv[n++] = "0";
    for (int i = 0; extra && extra[i] && n < 31; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    memset(p, 0, sizeof(*p));
    snprintf(p->log, sizeof(p->log), "/tmp/nmp-responder-XXXXXX");
    int lfd = mkstemp(p->log);
    if (lfd < 0) return -1;
    p->pid = fork();
    if (p->pid < 0) return -1;
    if (p->pid == 0) {
        dup2(lfd, 2);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(lfd);
    for (double end = nmp_test_now() + 5; nmp_test_now() < end;) {
        char buf[8192];
        FILE *f = fopen(p->log, "r");
        size_t got = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
        if (f) fclose(f);
        buf[got] = '\0';
        const char *l = strstr(buf, "listening on ");
        const char *q = l ? strstr(l, " port ") : NULL;
        if (q && strchr(q, '\n')) {
            p->port = atoi(q + 6);
            return p->port;
        }
        int st;
        if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
            p->pid = 0;
            break;
        }
        usleep(10000);
    }
    fprintf(stderr, "responder did not start; its log:\n");
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "cat %s >&2", p->log);
    if (system(cmd) < 0) perror("system");
    return -1;
}

/* Prints the responder's log (for a failed check). */
static inline void nmp_test_proc_dump(const nmp_test_proc *p) {
    char cmd[128];
    fprintf(stderr, "---- responder log %s\n", p->log);
    snprintf(cmd, sizeof(cmd), "cat %s >&2", p->log);
    if (system(cmd) < 0) perror("system");
    fprintf(stderr, "----\n");
}

/* The number right after the first 'key' in the responder's log (waits up
 * to 2 s for it), or -1. */
static inline long nmp_test_proc_log_num(const nmp_test_proc *p, const char *key) {
    for (double end = nmp_test_now() + 2; nmp_test_now() < end; usleep(10000)) {
        char buf[16384];
        FILE *f = fopen(p->log, "r");
        size_t got = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
        if (f) fclose(f);
        buf[got] = '\0';
        const char *k = strstr(buf, key);
        if (k && strchr(k, '\n')) return atol(k + strlen(key));
    }
    return -1;
}

/* SIGKILL, as a crash or an OOM kill would end it; reaps it. */
static inline void nmp_test_proc_kill(nmp_test_proc *p) {
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, 0);
        p->pid = 0;
    }
}

/* SIGTERM and reap (SIGKILL after 5 s); dumps the log when 'show' and
 * removes it. Returns the exit status, or -1 if it had to be killed. */
static inline int nmp_test_proc_stop(nmp_test_proc *p, int show) {
    int rc = -1, st;
    if (p->pid > 0) {
        kill(p->pid, SIGTERM);
        for (double end = nmp_test_now() + 5; nmp_test_now() < end; usleep(10000)) {
            if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
                rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
                p->pid = 0;
                break;
            }
        }
        nmp_test_proc_kill(p);
    }
    if (show) nmp_test_proc_dump(p);
    unlink(p->log);
    return rc;
}

/* A blocking TCP connection to 127.0.0.1:port with TCP_NODELAY (what is
 * written in one send() leaves in one segment) and a 10 s receive timeout,
 * so that a broken responder fails a test instead of hanging it. */
static inline int nmp_test_connect(int port) {
    struct sockaddr_in d = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct timeval tv = {.tv_sec = 10};
    int one = 1;
    inet_pton(AF_INET, "127.0.0.1", &d.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, (struct sockaddr *)&d, sizeof(d)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads one line byte by byte (nothing after it is consumed). Returns its
 * length, 0 at EOF or on a timeout, -1 on a reset. */
static inline int nmp_test_line(int fd, char *line, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = recv(fd, line + n, 1, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno == ECONNRESET) {
            line[n] = '\0';
            return -1;
        }
        if (r <= 0) break;
        if (line[n++] == '\n') break;
    }
    line[n] = '\0';
    return (int)n;
}

/* Waits up to 'seconds' for the peer to close fd, discarding what it sends.
 * Returns the time it took, or -1 if fd stayed open. */
static inline double nmp_test_wait_closed(int fd, double seconds) {
    double t0 = nmp_test_now();
    char sink[65536];
    for (;;) {
        double left = t0 + seconds - nmp_test_now();
        if (left <= 0) return -1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)(left * 1000) + 1) <= 0) continue;
        ssize_t n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return nmp_test_now() - t0;
    }
}

#endif /* NMP_TEST_PROC_H */
