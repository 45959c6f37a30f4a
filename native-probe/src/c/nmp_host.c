/* nmp_host.c -- host counters read around a test: CPU time and interrupts
 * from /proc/stat (whole host), UDP datagram and drop counters from
 * /proc/net/snmp and /proc/net/snmp6 (the calling network namespace), so
 * that loss in the receiving host (socket buffer overflow) can be told
 * apart from loss in the network. Parsers take text so tests can pin them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nmp_host.h"
#include "nmprobe.h"

int nmp_host_parse_stat(const char *text, nmp_host_counters *c) {
    const char *cpu = strstr(text, "cpu ");
    const char *intr = strstr(text, "\nintr ");
    unsigned long long v[10] = {0};
    if (cpu != text && (cpu == NULL || cpu[-1] != '\n')) cpu = NULL;
    if (cpu == NULL || intr == NULL) return -EPROTO;
    int n = sscanf(cpu + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    if (n < 4) return -EPROTO;
    c->cpu_total = 0;
    /* user nice system idle iowait irq softirq steal; guest time is already in user */
    for (int i = 0; i < n && i < 8; i++) c->cpu_total += v[i];
    c->cpu_idle = v[3] + (n > 4 ? v[4] : 0);
    unsigned long long in;
    if (sscanf(intr + 6, "%llu", &in) != 1) return -EPROTO;
    c->interrupts = in;
    return 0;
}

/* Finds the value of column 'name' in the "Udp:" header/value line pair. */
static int snmp_column(const char *text, const char *name, unsigned long long *out) {
    const char *hdr = strstr(text, "Udp: ");
    if (hdr == NULL) return -EPROTO;
    const char *vals = strstr(hdr + 5, "Udp: ");
    const char *eol = strchr(hdr, '\n');
    if (vals == NULL || eol == NULL || vals < eol) return -EPROTO;
    int col = -1, i = 0;
    const char *p = hdr + 5;
    size_t nl = strlen(name);
    while (p < eol) {
        while (*p == ' ') p++;
        const char *e = p;
        while (e < eol && *e != ' ') e++;
        if ((size_t)(e - p) == nl && strncmp(p, name, nl) == 0) col = i;
        i++;
        p = e;
    }
    if (col < 0) return -ENOENT;
    p = vals + 5;
    for (i = 0; i <= col; i++) {
        char *end;
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p) return -EPROTO;
        if (i == col) *out = x;
        p = end;
    }
    return 0;
}

int nmp_host_parse_snmp(const char *snmp, const char *snmp6, nmp_host_counters *c) {
    unsigned long long in = 0, rcvbuf = 0, inerr = 0;
    if (snmp_column(snmp, "InDatagrams", &in) < 0 || snmp_column(snmp, "RcvbufErrors", &rcvbuf) < 0 ||
        snmp_column(snmp, "InErrors", &inerr) < 0)
        return -EPROTO;
    c->udp_in = in;
    c->udp_rcvbuf_errors = rcvbuf;
    c->udp_in_errors = inerr;
    if (snmp6 != NULL) {
        static const char *const keys[] = {"Udp6InDatagrams", "Udp6RcvbufErrors", "Udp6InErrors"};
        uint64_t *dst[] = {&c->udp_in, &c->udp_rcvbuf_errors, &c->udp_in_errors};
        for (int k = 0; k < 3; k++) {
            const char *p = strstr(snmp6, keys[k]);
            unsigned long long x;
            if (p != NULL && sscanf(p + strlen(keys[k]), "%llu", &x) == 1) *dst[k] += x;
        }
    }
    return 0;
}

/* Reads a small /proc file into buf (NUL-terminated). */
static int read_file(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    return 0;
}

int nmp_host_sample(nmp_host_counters *c, char *err, size_t errlen) {
    /* /proc/stat grows with CPUs and interrupt lines: the intr line can be long */
    size_t cap = 1 << 20;
    char *buf = malloc(cap), *buf6 = NULL;
    int rc;
    memset(c, 0, sizeof(*c));
    if (buf == NULL) return -ENOMEM;
    if ((rc = read_file("/proc/stat", buf, cap)) < 0 || (rc = nmp_host_parse_stat(buf, c)) < 0) {
        nmp_seterr(err, errlen, "/proc/stat: %s", strerror(-rc));
        goto end;
    }
    buf6 = malloc(64 * 1024);
    if (buf6 == NULL) {
        rc = -ENOMEM;
        goto end;
    }
    int have6 = read_file("/proc/net/snmp6", buf6, 64 * 1024) == 0;
    if ((rc = read_file("/proc/net/snmp", buf, cap)) < 0 ||
        (rc = nmp_host_parse_snmp(buf, have6 ? buf6 : NULL, c)) < 0) {
        nmp_seterr(err, errlen, "/proc/net/snmp: %s", strerror(-rc));
        goto end;
    }
    c->valid = 1;
end:
    free(buf);
    free(buf6);
    return rc;
}

double nmp_host_cpu_busy_percent(const nmp_host_counters *before, const nmp_host_counters *after) {
    if (!before->valid || !after->valid || after->cpu_total <= before->cpu_total) return 0;
    double total = (double)(after->cpu_total - before->cpu_total);
    double idle = (double)(after->cpu_idle - before->cpu_idle);
    return 100.0 * (total - idle) / total;
}
