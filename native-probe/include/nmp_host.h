/* nmp_host.h -- host counters (CPU, interrupts, UDP) sampled around a test. */
#ifndef NMP_HOST_H
#define NMP_HOST_H

#include "nmp_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------- host counters */

typedef struct nmp_host_counters {
    int valid;                       /* nonzero when sampled successfully */
    uint64_t cpu_total;              /* /proc/stat "cpu" jiffies: user..steal */
    uint64_t cpu_idle;               /* idle + iowait jiffies */
    uint64_t interrupts;             /* /proc/stat "intr" total since boot */
    uint64_t udp_in;                 /* UDP InDatagrams (+ Udp6InDatagrams) of this netns */
    uint64_t udp_rcvbuf_errors;      /* RcvbufErrors (+ Udp6RcvbufErrors): drops at full socket buffers */
    uint64_t udp_in_errors;          /* InErrors (+ Udp6InErrors) */
} nmp_host_counters;

/* Samples all counters. Returns 0 or -errno (err names the file). */
int nmp_host_sample(nmp_host_counters *c, char *err, size_t errlen);
/* Parsers of /proc/stat and /proc/net/snmp (+ optional snmp6) text, for tests.
 * Return 0 or -EPROTO; they fill only their own fields. */
int nmp_host_parse_stat(const char *text, nmp_host_counters *c);
int nmp_host_parse_snmp(const char *snmp, const char *snmp6, nmp_host_counters *c);
/* Percentage of non-idle CPU time (all CPUs) between two samples; 0 if unknown. */
double nmp_host_cpu_busy_percent(const nmp_host_counters *before, const nmp_host_counters *after);

#ifdef __cplusplus
}
#endif

#endif /* NMP_HOST_H */
