/* nmp_tcp.h -- TCP throughput, memory to memory (kind "tcp"). */
#ifndef NMP_TCP_H
#define NMP_TCP_H

#include "nmp_clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ TCP throughput
 *
 * Memory-to-memory TCP (TCPstream's lineage): 'streams' connections carry
 * messages of 'msg_size' bytes to a responder that sinks them (kind=tcp).
 * Modes: back to back (interval 0); spaced (each stream waits interval_ns
 * after a message is handed to the kernel before the next); constant bit
 * rate (cbr: message i of every stream is due at start + i * interval_ns;
 * a late message goes as soon as the socket takes it, and the receiver
 * records when each message's last byte arrived, so lateness = arrival -
 * schedule shows TCP falling behind after loss; needs a shared clock).
 * Sending stops at duration_ns or once 'bytes' (if non-zero) are handed
 * over, whichever is first, always at a message boundary (CBR: once every
 * message due before duration_ns is sent, late ones too, for at most the
 * lesser of 1 s and half the timeout past it); then each stream
 * is shut down for writing and the sender waits (up to timeout_ns, for CBR
 * from the end of the duration) until every byte is acknowledged.
 *
 * Throughput: per stream and in total, receiver bytes * 8 / (last byte -
 * first byte arrival) and sender bytes * 8 / (first send .. all acked).
 * Time series: bytes the receiver read per bin of sample_ns per stream
 * (bins from the receiver's first byte). TCP_INFO of every sender socket is
 * sampled every sample_ns (and once at the end). */

#define NMP_TCP_CC_MAX 16            /* the kernel's TCP_CA_NAME_MAX */

typedef struct nmp_tcp_spec {
    const char *host;                /* responder name or literal */
    int port;                        /* responder control port */
    uint32_t streams;                /* 1..NMP_TCP_MAX_STREAMS */
    uint32_t msg_size;               /* message bytes, NMP_TCP_MSG_HDR..NMP_TCP_MSG_MAX */
    uint64_t interval_ns;            /* spacing or CBR period per stream, 0 = back to back (<= 60 s) */
    int cbr;                         /* nonzero: constant bit rate with per-message lateness (interval > 0) */
    uint32_t window;                 /* SO_SNDBUF here and SO_RCVBUF at the responder, 0 = autotuning;
                                        else 2048..NMP_TCP_WINDOW_MAX */
    uint64_t duration_ns;            /* sending time, 1 ms..3600 s */
    uint64_t bytes;                  /* stop after this many bytes (all streams), 0 = no limit */
    uint64_t sample_ns;              /* time-series bin and TCP_INFO interval, >= 1 ms; 0 = 100 ms */
    uint64_t timeout_ns;             /* wait for acknowledgement and receiver results, 0 = 5 s */
    uint32_t connect_timeout_ms;     /* control and data connect timeout, 0 = 5000 */
    const char *key_file;            /* shared key file of an authenticating responder, NULL = none */
    const char *congestion;          /* TCP_CONGESTION of every stream ("cubic", "bbr", ...; at most
                                        NMP_TCP_CC_MAX - 1 of [a-z0-9_-]), NULL = the system's default */
} nmp_tcp_spec;

/* One TCP_INFO sample of one sender socket. */
typedef struct nmp_tcp_info_sample {
    uint64_t t_ns;                   /* since the start of sending (monotonic) */
    uint32_t stream;                 /* stream index */
    uint32_t cwnd;                   /* tcpi_snd_cwnd, segments */
    uint32_t mss;                    /* tcpi_snd_mss, bytes */
    uint32_t srtt_us;                /* tcpi_rtt: smoothed RTT, us */
    uint32_t rttvar_us;              /* tcpi_rttvar, us */
    uint32_t retransmits;            /* tcpi_retransmits: current unrecovered RTOs */
    uint32_t total_retrans;          /* tcpi_total_retrans: segments retransmitted so far */
    uint64_t pacing_rate;            /* tcpi_pacing_rate, bytes/s */
    uint64_t delivery_rate;          /* tcpi_delivery_rate, bytes/s */
    uint64_t bytes_acked;            /* tcpi_bytes_acked */
} nmp_tcp_info_sample;

typedef struct nmp_tcp_stream_result {
    uint64_t bytes_sent;             /* bytes handed to the kernel */
    uint64_t bytes_received;         /* bytes the receiver read */
    uint64_t messages_sent;          /* whole messages sent */
    uint64_t messages_received;      /* whole messages the receiver read */
    double send_mbps;                /* bytes_sent * 8 / sender time (first send .. acked) */
    double recv_mbps;                /* bytes_received * 8 / (last - first byte arrival) */
    nmp_walltime_ns first_arrival_wall, last_arrival_wall; /* receiver's first and last byte */
    uint32_t total_retrans;          /* segments retransmitted (last TCP_INFO) */
    uint32_t final_srtt_us;          /* smoothed RTT at the end */
    /* what limited the sender, from the last TCP_INFO (Linux 4.10+; 0 before):
     * time with data in flight, and of it the time the receive window or the
     * send buffer was the limit (the rest: the congestion window) */
    uint64_t busy_us;                /* tcpi_busy_time */
    uint64_t rwnd_limited_us;        /* tcpi_rwnd_limited */
    uint64_t sndbuf_limited_us;      /* tcpi_sndbuf_limited */
} nmp_tcp_stream_result;

typedef struct nmp_tcp_result {
    uint32_t streams;                /* streams used */
    uint32_t msg_size;               /* message bytes */
    uint64_t bytes_sent, bytes_received; /* all streams */
    double sender_seconds;           /* first send .. everything acknowledged */
    double receiver_seconds;         /* receiver's first .. last byte, all streams */
    double send_mbps;                /* bytes_sent * 8 / sender_seconds */
    double recv_mbps;                /* bytes_received * 8 / receiver_seconds: the throughput */
    uint32_t total_retrans;          /* sum over streams */
    nmp_tcp_stream_result per[NMP_TCP_MAX_STREAMS]; /* per stream, 'streams' used */
    /* receiver time series */
    uint32_t bins;                   /* bins per stream */
    uint64_t bin_ns;                 /* bin width (= sample_ns) */
    nmp_walltime_ns series_start_wall; /* receiver's first byte; bin 0 starts here */
    uint64_t *series;                /* streams * bins bytes, row per stream (owned) */
    /* sender TCP_INFO samples, in time order (owned) */
    uint32_t nsamples;
    nmp_tcp_info_sample *samples;
    /* constant bit rate: one entry per message received (owned; 0 otherwise) */
    uint32_t nmsgs;
    uint32_t *msg_stream, *msg_seq;  /* stream and message number */
    nmp_walltime_ns *msg_sched_wall; /* scheduled send time */
    nmp_walltime_ns *msg_arrival_wall; /* receiver's time at the last byte */
    int64_t *msg_late_ns;            /* arrival - schedule */
    double late_min_ns, late_median_ns, late_p99_ns, late_max_ns; /* NaN without CBR records */
    uint64_t records_over;           /* CBR arrivals the receiver could not keep */
    uint32_t refused;                /* data connections the responder refused */
    nmp_walltime_ns start_wall, end_wall; /* test start and end */
    char local_addr[64];             /* sender address */
    char remote_addr[64];            /* responder address */
    int remote_port;                 /* responder control port */
    char congestion[NMP_TCP_CC_MAX]; /* the congestion control the streams used */
} nmp_tcp_result;

/* Runs one TCP throughput test. Result ownership and errors as nmp_rr_run
 * (on -ECANCELED sending stops early and the result holds what the
 * receiver got; cancelled before the session started, it holds nothing
 * sent, an all-zero series and NaN rates). */
int nmp_tcp_run(const nmp_tcp_spec *spec, const nmp_control *ctl, nmp_tcp_result *res, char *err, size_t errlen);
void nmp_tcp_result_free(nmp_tcp_result *res);

#ifdef __cplusplus
}
#endif

#endif /* NMP_TCP_H */
