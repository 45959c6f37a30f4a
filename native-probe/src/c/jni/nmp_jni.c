/* nmp_jni.c -- the JNI facade of the engine for org.nmws.probe.Probe.
 *
 * One native call per test: Java passes primitive arrays sized for the
 * result, the test runs without holding any JNI critical section, and the
 * arrays are filled afterwards with Set<Type>ArrayRegion copies. The array
 * layouts are the constants of Probe.java, exported by javac -h into
 * org_nmws_probe_Probe.h. Natives are registered and classes cached in
 * JNI_OnLoad; global references are dropped in JNI_OnUnload. */
#include <errno.h>
#include <jni.h>
#include <stdlib.h>
#include <string.h>

#include "nmprobe.h"
#include "org_nmws_probe_Probe.h"

#define PROBE_CLASS "org/nmws/probe/Probe"
#define CONTROL_CLASS "org/nmws/probe/ProbeControl"
#define NMP_JNI_ABI 5

_Static_assert(sizeof(jint) == sizeof(int32_t), "jint is 32 bits");
_Static_assert(sizeof(jlong) == sizeof(int64_t), "jlong is 64 bits");
_Static_assert(sizeof(jdouble) == sizeof(double), "jdouble is a C double");
_Static_assert(org_nmws_probe_Probe_ERRLEN == NMP_ERRLEN, "error buffer sizes agree");
_Static_assert(org_nmws_probe_Probe_ABI == NMP_JNI_ABI, "Java and C ABI versions agree");

static jclass control_class;        /* global ref to ProbeControl */
static jmethodID control_progress;  /* ProbeControl.progress(int, int) */

/* Progress context: calls back into Java on the test's own thread. */
typedef struct jni_progress {
    JNIEnv *env;                    /* env of the calling thread */
    jobject control;                /* the ProbeControl (local ref) */
    int failed;                     /* nonzero after a Java exception: stop calling */
} jni_progress;

static void on_progress(void *ctx, uint32_t done, uint32_t total) {
    jni_progress *p = ctx;
    if (p->failed || p->control == NULL) return;
    (*p->env)->CallVoidMethod(p->env, p->control, control_progress, (jint)done, (jint)total);
    if ((*p->env)->ExceptionCheck(p->env)) {
        (*p->env)->ExceptionClear(p->env); /* listeners must not throw; ignore further */
        p->failed = 1;
    }
}

/* Copies msg into the Java error buffer (NUL-terminated if it fits). */
static void put_err(JNIEnv *env, jbyteArray errbuf, const char *msg) {
    if (errbuf == NULL) return;
    jsize cap = (*env)->GetArrayLength(env, errbuf);
    jsize n = (jsize)strlen(msg);
    if (n >= cap) n = cap - 1;
    if (n > 0) (*env)->SetByteArrayRegion(env, errbuf, 0, n, (const jbyte *)msg);
}

/* 0, or -ENOMEM when a Java exception is pending (an OutOfMemoryError from
 * a JNI allocation, say). With an exception pending only the exception-safe
 * JNI calls are allowed: every caller then goes straight to its cleanup
 * label, and Java throws the pending exception when the call returns. */
static int jni_pending(JNIEnv *env) { return (*env)->ExceptionCheck(env) ? -ENOMEM : 0; }

/* Stores a new Java string copied from s in arr[i]. Returns 0 or -ENOMEM
 * with an exception pending (see jni_pending). */
static int put_string(JNIEnv *env, jobjectArray arr, jsize i, const char *s) {
    jstring js = (*env)->NewStringUTF(env, s);
    if (js == NULL) return -ENOMEM;
    (*env)->SetObjectArrayElement(env, arr, i, js);
    (*env)->DeleteLocalRef(env, js);
    return jni_pending(env);
}

/* Stores the local and remote address strings in addrs[0] and addrs[1].
 * Returns 0 or -ENOMEM with an exception pending. */
static int put_addrs(JNIEnv *env, jobjectArray addrs, const char *local, const char *remote) {
    int rc = put_string(env, addrs, 0, local);
    return rc < 0 ? rc : put_string(env, addrs, 1, remote);
}

static jint JNICALL nAbi(JNIEnv *env, jclass cls) { return NMP_JNI_ABI; }

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nAbi(JNIEnv *env, jclass cls) { return nAbi(env, cls); }

JNIEXPORT jstring JNICALL Java_org_nmws_probe_Probe_nVersion(JNIEnv *env, jclass cls) {
    return (*env)->NewStringUTF(env, NMP_VERSION);
}

/* Checks that every output array exists and is long enough. */
static int arrays_ok(JNIEnv *env, jint count, jlongArray sumL, jdoubleArray sumD, jobjectArray addrs,
                     jintArray seq, jlongArray send, jlongArray rtt, jintArray bytes, jintArray ttl) {
    if (!sumL || !sumD || !addrs || !seq || !send || !rtt || !bytes || !ttl) return 0;
    return (*env)->GetArrayLength(env, sumL) >= org_nmws_probe_Probe_RR_LONGS &&
           (*env)->GetArrayLength(env, sumD) >= org_nmws_probe_Probe_RR_DOUBLES &&
           (*env)->GetArrayLength(env, addrs) >= 2 && (*env)->GetArrayLength(env, seq) >= count &&
           (*env)->GetArrayLength(env, send) >= count && (*env)->GetArrayLength(env, rtt) >= count &&
           (*env)->GetArrayLength(env, bytes) >= count && (*env)->GetArrayLength(env, ttl) >= count;
}

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nRoundTrip(
    JNIEnv *env, jclass cls, jbyteArray host, jint port, jint count, jint size, jlong interval_ns,
    jlong timeout_ns, jint ttl_out, jobject cancel_buf, jobject control, jlongArray sumL, jdoubleArray sumD,
    jobjectArray addrs, jintArray seq, jlongArray send, jlongArray rtt, jintArray bytes, jintArray ttl,
    jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    char *hostz = NULL;
    nmp_rr_result res;
    int rc;
    memset(&res, 0, sizeof(res));
    if (host == NULL || count < 1 || interval_ns < 0 || timeout_ns < 0 ||
        !arrays_ok(env, count, sumL, sumD, addrs, seq, send, rtt, bytes, ttl)) {
        put_err(env, errbuf, "roundTrip: invalid arguments to the native call");
        return -EINVAL;
    }
    jsize hl = (*env)->GetArrayLength(env, host);
    hostz = calloc((size_t)hl + 1, 1);
    if (hostz == NULL) {
        put_err(env, errbuf, "roundTrip: out of memory");
        return -ENOMEM;
    }
    (*env)->GetByteArrayRegion(env, host, 0, hl, (jbyte *)hostz);
    if (strlen(hostz) != (size_t)hl) {
        put_err(env, errbuf, "roundTrip: host contains a NUL byte");
        rc = -EINVAL;
        goto end;
    }
    volatile int32_t *flag = NULL;
    if (cancel_buf != NULL && (*env)->GetDirectBufferCapacity(env, cancel_buf) >= 4)
        flag = (volatile int32_t *)(*env)->GetDirectBufferAddress(env, cancel_buf);
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = flag, .progress = control ? on_progress : NULL, .progress_ctx = &prog};
    nmp_rr_spec spec = {.host = hostz, .port = port, .count = (uint32_t)count, .size = (uint32_t)size,
                        .interval_ns = (uint64_t)interval_ns, .timeout_ns = (uint64_t)timeout_ns, .ttl = ttl_out};

    rc = nmp_rr_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        put_err(env, errbuf, err);
        goto end;
    }

    jlong l[org_nmws_probe_Probe_RR_LONGS];
    jdouble d[org_nmws_probe_Probe_RR_DOUBLES];
    l[org_nmws_probe_Probe_RR_L_REQUESTED] = res.requested;
    l[org_nmws_probe_Probe_RR_L_SENT] = res.sent;
    l[org_nmws_probe_Probe_RR_L_RECEIVED] = res.received;
    l[org_nmws_probe_Probe_RR_L_LOST] = res.lost;
    l[org_nmws_probe_Probe_RR_L_DUPLICATES] = res.duplicates;
    l[org_nmws_probe_Probe_RR_L_OUT_OF_ORDER] = res.out_of_order;
    l[org_nmws_probe_Probe_RR_L_START_EPOCH] = res.start_wall;
    l[org_nmws_probe_Probe_RR_L_END_EPOCH] = res.end_wall;
    l[org_nmws_probe_Probe_RR_L_REMOTE_PORT] = res.remote_port;
    l[org_nmws_probe_Probe_RR_L_CANCELLED] = rc == -ECANCELED;
    d[org_nmws_probe_Probe_RR_D_LOSS_PERCENT] = res.loss_percent;
    d[org_nmws_probe_Probe_RR_D_MIN_RTT_MS] = res.rtt_min_ns / 1e6;
    d[org_nmws_probe_Probe_RR_D_MEAN_RTT_MS] = res.rtt_mean_ns / 1e6;
    d[org_nmws_probe_Probe_RR_D_MEDIAN_RTT_MS] = res.rtt_median_ns / 1e6;
    d[org_nmws_probe_Probe_RR_D_MAX_RTT_MS] = res.rtt_max_ns / 1e6;
    d[org_nmws_probe_Probe_RR_D_MIN_IPD_MS] = res.ipd_min_ns / 1e6;
    d[org_nmws_probe_Probe_RR_D_MEAN_IPD_MS] = res.ipd_mean_ns / 1e6;
    d[org_nmws_probe_Probe_RR_D_MAX_IPD_MS] = res.ipd_max_ns / 1e6;
    d[org_nmws_probe_Probe_RR_D_IQR_IPD_MS] = res.ipd_iqr_ns / 1e6;
    (*env)->SetLongArrayRegion(env, sumL, 0, org_nmws_probe_Probe_RR_LONGS, l);
    (*env)->SetDoubleArrayRegion(env, sumD, 0, org_nmws_probe_Probe_RR_DOUBLES, d);
    int was_rc = rc;
    if ((rc = jni_pending(env)) < 0) goto end;
    /* copy the per-frame arrays only when the engine has them for every
     * frame; Java pre-fills its arrays with the "not sent" values, which a
     * cancelled test without arrays keeps (review: JVM crash on cancel) */
    if (res.seq && res.send_wall && res.rtt_ns && res.bytes && res.ttl && res.requested == (uint32_t)count) {
        (*env)->SetIntArrayRegion(env, seq, 0, count, (const jint *)res.seq);
        (*env)->SetLongArrayRegion(env, send, 0, count, (const jlong *)res.send_wall);
        (*env)->SetLongArrayRegion(env, rtt, 0, count, (const jlong *)res.rtt_ns);
        (*env)->SetIntArrayRegion(env, bytes, 0, count, (const jint *)res.bytes);
        (*env)->SetIntArrayRegion(env, ttl, 0, count, (const jint *)res.ttl);
        if ((rc = jni_pending(env)) < 0) goto end;
    } else if (was_rc != -ECANCELED) {
        put_err(env, errbuf, "roundTrip: the engine returned no per-frame results");
        rc = -EFAULT;
        goto end;
    }
    rc = put_addrs(env, addrs, res.local_addr, res.remote_addr);
end:
    nmp_rr_result_free(&res);
    free(hostz);
    return rc;
}

/* Reads a Java byte[] host name into a NUL-terminated heap string. */
static char *host_string(JNIEnv *env, jbyteArray host, jbyteArray errbuf) {
    if (host == NULL) {
        put_err(env, errbuf, "host is null");
        return NULL;
    }
    jsize hl = (*env)->GetArrayLength(env, host);
    char *h = calloc((size_t)hl + 1, 1);
    if (h == NULL) {
        put_err(env, errbuf, "out of memory");
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, host, 0, hl, (jbyte *)h);
    if (strlen(h) != (size_t)hl) {
        put_err(env, errbuf, "host contains a NUL byte");
        free(h);
        return NULL;
    }
    return h;
}

static volatile int32_t *cancel_flag(JNIEnv *env, jobject buf) {
    if (buf == NULL || (*env)->GetDirectBufferCapacity(env, buf) < 4) return NULL;
    return (volatile int32_t *)(*env)->GetDirectBufferAddress(env, buf);
}

static int len_at_least(JNIEnv *env, jarray a, jsize n) { return a != NULL && (*env)->GetArrayLength(env, a) >= n; }

#define SL(name) org_nmws_probe_Probe_ST_L_##name
#define SD(name) org_nmws_probe_Probe_ST_D_##name

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nUdpStream(
    JNIEnv *env, jclass cls, jbyteArray host, jint port, jint count, jint size, jlong interval_ns, jlong timeout_ns,
    jint ttl_out, jint bins, jlong bin_width_ns, jobject cancel_buf, jobject control, jlongArray sumL,
    jdoubleArray sumD, jobjectArray addrs, jlongArray hist, jintArray seq, jlongArray send, jlongArray arr,
    jlongArray owd, jintArray bytes, jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    nmp_stream_result res;
    memset(&res, 0, sizeof(res));
    if (count < 1 || bins < 1 || bins > NMP_HIST_MAX || interval_ns < 0 || timeout_ns < 0 || bin_width_ns < 0 ||
        !len_at_least(env, sumL, org_nmws_probe_Probe_ST_LONGS) ||
        !len_at_least(env, sumD, org_nmws_probe_Probe_ST_DOUBLES) || !len_at_least(env, addrs, 2) ||
        !len_at_least(env, hist, bins) || !len_at_least(env, seq, count) || !len_at_least(env, send, count) ||
        !len_at_least(env, arr, count) || !len_at_least(env, owd, count) || !len_at_least(env, bytes, count)) {
        put_err(env, errbuf, "udpStream: invalid arguments to the native call");
        return -EINVAL;
    }
    char *hostz = host_string(env, host, errbuf);
    if (hostz == NULL) return -EINVAL;
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = cancel_flag(env, cancel_buf), .progress = control ? on_progress : NULL,
                       .progress_ctx = &prog};
    nmp_stream_spec spec = {.host = hostz, .port = port, .count = (uint32_t)count, .size = (uint32_t)size,
                            .interval_ns = (uint64_t)interval_ns, .timeout_ns = (uint64_t)timeout_ns,
                            .ttl = ttl_out, .hist_bins = (uint32_t)bins, .hist_width_ns = (uint64_t)bin_width_ns};
    int rc = nmp_stream_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        put_err(env, errbuf, err);
        goto end;
    }
    jlong l[org_nmws_probe_Probe_ST_LONGS];
    jdouble d[org_nmws_probe_Probe_ST_DOUBLES];
    l[SL(REQUESTED)] = res.requested;
    l[SL(SENT)] = res.sent;
    l[SL(RECEIVED)] = res.received;
    l[SL(LOST)] = res.lost;
    l[SL(DUPLICATES)] = res.duplicates;
    l[SL(REORDERED)] = res.reordered;
    l[SL(MAX_EXTENT)] = res.reorder_max_extent;
    l[SL(FIRST_SEND)] = res.first_send_wall;
    l[SL(LAST_SEND)] = res.last_send_wall;
    l[SL(FIRST_ARRIVAL)] = res.first_arrival_wall;
    l[SL(LAST_ARRIVAL)] = res.last_arrival_wall;
    l[SL(WIRE_OVERHEAD)] = res.wire_overhead;
    l[SL(IPDV_PAIRS)] = res.ipdv_pairs;
    l[SL(HIST_UNDER)] = (jlong)res.hist_under;
    l[SL(HIST_OVER)] = (jlong)res.hist_over;
    l[SL(LOSS_INTERVALS)] = res.loss_intervals;
    l[SL(FIRST_LOSS_SEQ)] = res.first_loss_seq;
    l[SL(SND_INTR)] = (jlong)res.sender_interrupts;
    l[SL(RCV_INTR)] = (jlong)res.receiver_interrupts;
    l[SL(RCV_UDP_IN)] = (jlong)res.receiver_udp_in;
    l[SL(RCV_DROPS)] = (jlong)res.receiver_rcvbuf_drops;
    l[SL(NETWORK_LOST)] = res.network_lost;
    l[SL(INVALID)] = (jlong)res.invalid;
    l[SL(OVER)] = (jlong)res.records_over;
    l[SL(START_EPOCH)] = res.start_wall;
    l[SL(END_EPOCH)] = res.end_wall;
    l[SL(REMOTE_PORT)] = res.remote_port;
    l[SL(CANCELLED)] = rc == -ECANCELED;
    d[SD(LOSS_PERCENT)] = res.loss_percent;
    d[SD(SEND_SPACING_NS)] = res.send_spacing_ns;
    d[SD(SEND_USER_MBPS)] = res.send_user_mbps;
    d[SD(SEND_WIRE_MBPS)] = res.send_wire_mbps;
    d[SD(RECV_USER_MBPS)] = res.recv_user_mbps;
    d[SD(RECV_WIRE_MBPS)] = res.recv_wire_mbps;
    d[SD(REORDER_RATIO)] = res.reorder_ratio;
    d[SD(NREORDER1)] = res.n_reorder_ratio[0];
    d[SD(NREORDER2)] = res.n_reorder_ratio[1];
    d[SD(NREORDER3)] = res.n_reorder_ratio[2];
    d[SD(OWD_MIN_MS)] = res.owd_min_ns / 1e6;
    d[SD(OWD_MEDIAN_MS)] = res.owd_median_ns / 1e6;
    d[SD(OWD_MEAN_MS)] = res.owd_mean_ns / 1e6;
    d[SD(OWD_P95_MS)] = res.owd_p95_ns / 1e6;
    d[SD(OWD_P99_MS)] = res.owd_p99_ns / 1e6;
    d[SD(OWD_MAX_MS)] = res.owd_max_ns / 1e6;
    d[SD(JITTER_MS)] = res.jitter_ns / 1e6;
    d[SD(IPDV_MS)] = res.ipdv_mean_abs_ns / 1e6;
    d[SD(IAT_MIN_NS)] = res.iat_min_ns;
    d[SD(IAT_MEAN_NS)] = res.iat_mean_ns;
    d[SD(IAT_MAX_NS)] = res.iat_max_ns;
    d[SD(HIST_LO_NS)] = res.hist_lo_ns;
    d[SD(HIST_WIDTH_NS)] = res.hist_width_ns;
    d[SD(LOSS_MEAN)] = res.loss_interval_mean;
    d[SD(LOSS_RATE)] = res.loss_exp_rate;
    d[SD(LOSS_KS)] = res.loss_exp_ks_d;
    d[SD(RATE_BEFORE_MBPS)] = res.rate_before_loss_mbps;
    d[SD(RATE_AFTER_MBPS)] = res.rate_after_loss_mbps;
    d[SD(BUF_FRAMES)] = res.buffer_est_frames;
    d[SD(BUF_BYTES)] = res.buffer_est_bytes;
    d[SD(QDELAY_MS)] = res.queue_delay_at_loss_ns / 1e6;
    d[SD(BUF_DELAY_BYTES)] = res.buffer_est_delay_bytes;
    d[SD(SND_CPU)] = res.sender_cpu_percent;
    d[SD(RCV_CPU)] = res.receiver_cpu_percent;
    (*env)->SetLongArrayRegion(env, sumL, 0, org_nmws_probe_Probe_ST_LONGS, l);
    (*env)->SetDoubleArrayRegion(env, sumD, 0, org_nmws_probe_Probe_ST_DOUBLES, d);
    int was_rc = rc;
    if ((rc = jni_pending(env)) < 0) goto end;
    /* per-frame arrays and histogram only when the engine has all of them
     * (review: JVM crash on cancel); Java pre-fills the "not sent" values */
    _Static_assert(sizeof(jlong) == sizeof(uint64_t), "histogram counts fit jlong");
    if (res.seq && res.send_wall && res.arrival_wall && res.owd_ns && res.bytes && res.hist &&
        res.requested == (uint32_t)count && res.hist_bins == (uint32_t)bins) {
        (*env)->SetLongArrayRegion(env, hist, 0, bins, (const jlong *)res.hist);
        (*env)->SetIntArrayRegion(env, seq, 0, count, (const jint *)res.seq);
        (*env)->SetLongArrayRegion(env, send, 0, count, (const jlong *)res.send_wall);
        (*env)->SetLongArrayRegion(env, arr, 0, count, (const jlong *)res.arrival_wall);
        (*env)->SetLongArrayRegion(env, owd, 0, count, (const jlong *)res.owd_ns);
        (*env)->SetIntArrayRegion(env, bytes, 0, count, (const jint *)res.bytes);
        if ((rc = jni_pending(env)) < 0) goto end;
    } else if (was_rc != -ECANCELED) {
        put_err(env, errbuf, "udpStream: the engine returned no per-frame results");
        rc = -EFAULT;
        goto end;
    }
    rc = put_addrs(env, addrs, res.local_addr, res.remote_addr);
end:
    nmp_stream_result_free(&res);
    free(hostz);
    return rc;
}

#define PL(name) org_nmws_probe_Probe_SC_PL_##name
#define PD(name) org_nmws_probe_Probe_SC_PD_##name
_Static_assert(org_nmws_probe_Probe_SC_MAX_SIZES == NMP_SCAN_MAX_SIZES, "scan size limits agree");

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nLatencyScan(
    JNIEnv *env, jclass cls, jbyteArray host, jint port, jintArray sizes, jint count, jlong interval_ns,
    jlong timeout_ns, jint ttl_out, jint bins, jobject cancel_buf, jobject control, jlongArray pl, jdoubleArray pd,
    jlongArray hist, jdoubleArray fit, jlongArray info, jobjectArray addr, jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    nmp_scan_result res;
    uint32_t sz[NMP_SCAN_MAX_SIZES];
    memset(&res, 0, sizeof(res));
    jsize ns = sizes ? (*env)->GetArrayLength(env, sizes) : 0;
    if (ns < 2 || ns > NMP_SCAN_MAX_SIZES || count < 1 || bins < 1 || bins > NMP_HIST_MAX || interval_ns < 0 ||
        timeout_ns < 0 || !len_at_least(env, pl, ns * org_nmws_probe_Probe_SC_PL) ||
        !len_at_least(env, pd, ns * org_nmws_probe_Probe_SC_PD) || !len_at_least(env, hist, ns * bins) ||
        !len_at_least(env, fit, 3) || !len_at_least(env, info, 2) || !len_at_least(env, addr, 1)) {
        put_err(env, errbuf, "latencyScan: invalid arguments to the native call");
        return -EINVAL;
    }
    jint tmp[NMP_SCAN_MAX_SIZES];
    (*env)->GetIntArrayRegion(env, sizes, 0, ns, tmp);
    for (jsize i = 0; i < ns; i++) sz[i] = (uint32_t)tmp[i];
    char *hostz = host_string(env, host, errbuf);
    if (hostz == NULL) return -EINVAL;
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = cancel_flag(env, cancel_buf), .progress = control ? on_progress : NULL,
                       .progress_ctx = &prog};
    nmp_scan_spec spec = {.rr = {.host = hostz, .port = port, .count = (uint32_t)count,
                                 .interval_ns = (uint64_t)interval_ns, .timeout_ns = (uint64_t)timeout_ns,
                                 .ttl = ttl_out},
                          .sizes = sz, .nsizes = (uint32_t)ns, .hist_bins = (uint32_t)bins};
    int rc = nmp_scan_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        put_err(env, errbuf, err);
        goto end;
    }
    for (uint32_t i = 0; i < res.npoints && i < (uint32_t)ns; i++) {
        const nmp_scan_point *p = &res.points[i];
        jlong l[org_nmws_probe_Probe_SC_PL];
        jdouble d[org_nmws_probe_Probe_SC_PD];
        l[PL(SIZE)] = p->size;
        l[PL(SENT)] = p->sent;
        l[PL(RECEIVED)] = p->received;
        l[PL(UNDER)] = (jlong)p->hist_under;
        l[PL(OVER)] = (jlong)p->hist_over;
        d[PD(MIN_MS)] = p->min_ns / 1e6;
        d[PD(MEAN_MS)] = p->mean_ns / 1e6;
        d[PD(MEDIAN_MS)] = p->median_ns / 1e6;
        d[PD(MAX_MS)] = p->max_ns / 1e6;
        d[PD(HIST_LO_NS)] = p->hist_lo_ns;
        d[PD(HIST_WIDTH_NS)] = p->hist_width_ns;
        (*env)->SetLongArrayRegion(env, pl, (jsize)i * org_nmws_probe_Probe_SC_PL, org_nmws_probe_Probe_SC_PL, l);
        (*env)->SetDoubleArrayRegion(env, pd, (jsize)i * org_nmws_probe_Probe_SC_PD, org_nmws_probe_Probe_SC_PD, d);
        if (p->hist != NULL && res.hist_bins == (uint32_t)bins)
            (*env)->SetLongArrayRegion(env, hist, (jsize)i * bins, bins, (const jlong *)p->hist);
    }
    jdouble f[3] = {res.slope_us_per_byte, res.intercept_us, res.r2};
    jlong inf[2] = {res.npoints < (uint32_t)ns ? res.npoints : (uint32_t)ns, rc == -ECANCELED};
    (*env)->SetDoubleArrayRegion(env, fit, 0, 3, f);
    (*env)->SetLongArrayRegion(env, info, 0, 2, inf);
    if ((rc = jni_pending(env)) < 0) goto end;
    rc = put_string(env, addr, 0, res.remote_addr);
end:
    nmp_scan_result_free(&res);
    free(hostz);
    return rc;
}

#define CK(name) org_nmws_probe_Probe_CK_L_##name

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nClockState(JNIEnv *env, jclass cls, jlongArray longs,
                                                              jobjectArray strings, jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    nmp_clock_state st;
    if (!len_at_least(env, longs, org_nmws_probe_Probe_CK_LONGS) || !len_at_least(env, strings, 2)) {
        put_err(env, errbuf, "clockState: invalid arguments to the native call");
        return -EINVAL;
    }
    int rc = nmp_clock_state_read(&st, err, sizeof(err));
    if (rc < 0) {
        put_err(env, errbuf, err);
        return rc;
    }
    jlong l[org_nmws_probe_Probe_CK_LONGS];
    l[CK(SYNCHRONISED)] = st.synchronised;
    l[CK(MAX_ERROR_US)] = st.max_error_us;
    l[CK(EST_ERROR_US)] = st.est_error_us;
    l[CK(STATUS)] = st.status;
    (*env)->SetLongArrayRegion(env, longs, 0, org_nmws_probe_Probe_CK_LONGS, l);
    if ((rc = jni_pending(env)) < 0) return rc;
    if ((rc = put_string(env, strings, 0, st.source)) < 0) return rc;
    return put_string(env, strings, 1, st.state);
}

#define TL(name) org_nmws_probe_Probe_TS_L_##name
#define TD(name) org_nmws_probe_Probe_TS_D_##name
#define TPL(name) org_nmws_probe_Probe_TS_PL_##name
#define TPD(name) org_nmws_probe_Probe_TS_PD_##name
#define TSS(name) org_nmws_probe_Probe_TS_S_##name
#define TSM(name) org_nmws_probe_Probe_TS_M_##name
_Static_assert(org_nmws_probe_Probe_TS_MAX_STREAMS == NMP_TCP_MAX_STREAMS, "stream limits agree");

/* Creates a long[] of rows * stride entries copied from data and stores it
 * in slot 'slot' of out. Returns 0 or -ENOMEM (an exception is pending). */
static int put_long_rows(JNIEnv *env, jobjectArray out, jsize slot, jsize rows, jsize stride, const jlong *data) {
    jlongArray a = (*env)->NewLongArray(env, rows * stride);
    if (a == NULL) return -ENOMEM;
    if (rows > 0 && data != NULL) (*env)->SetLongArrayRegion(env, a, 0, rows * stride, data);
    if (!(*env)->ExceptionCheck(env)) (*env)->SetObjectArrayElement(env, out, slot, a);
    (*env)->DeleteLocalRef(env, a);
    return jni_pending(env);
}

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nTcpStream(
    JNIEnv *env, jclass cls, jbyteArray host, jint port, jint streams, jint msg_size, jlong interval_ns, jint cbr,
    jint window, jlong duration_ns, jlong bytes, jlong sample_ns, jlong timeout_ns, jobject cancel_buf,
    jobject control, jlongArray sumL, jdoubleArray sumD, jlongArray perL, jdoubleArray perD, jobjectArray arrays,
    jobjectArray addrs, jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    nmp_tcp_result res;
    memset(&res, 0, sizeof(res));
    if (streams < 1 || streams > NMP_TCP_MAX_STREAMS || msg_size < 0 || window < 0 || interval_ns < 0 ||
        duration_ns < 0 || bytes < 0 || sample_ns < 0 || timeout_ns < 0 ||
        !len_at_least(env, sumL, org_nmws_probe_Probe_TS_LONGS) ||
        !len_at_least(env, sumD, org_nmws_probe_Probe_TS_DOUBLES) ||
        !len_at_least(env, perL, streams * org_nmws_probe_Probe_TS_PL) ||
        !len_at_least(env, perD, streams * org_nmws_probe_Probe_TS_PD) ||
        !len_at_least(env, arrays, org_nmws_probe_Probe_TS_ARRAYS) || !len_at_least(env, addrs, 2)) {
        put_err(env, errbuf, "tcpStream: invalid arguments to the native call");
        return -EINVAL;
    }
    char *hostz = host_string(env, host, errbuf);
    if (hostz == NULL) return -EINVAL;
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = cancel_flag(env, cancel_buf), .progress = control ? on_progress : NULL,
                       .progress_ctx = &prog};
    nmp_tcp_spec spec = {.host = hostz, .port = port, .streams = (uint32_t)streams, .msg_size = (uint32_t)msg_size,
                         .interval_ns = (uint64_t)interval_ns, .cbr = cbr != 0, .window = (uint32_t)window,
                         .duration_ns = (uint64_t)duration_ns, .bytes = (uint64_t)bytes,
                         .sample_ns = (uint64_t)sample_ns, .timeout_ns = (uint64_t)timeout_ns};
    int rc = nmp_tcp_run(&spec, &ctl, &res, err, sizeof(err));
    jlong *rows = NULL;
    if (rc < 0 && rc != -ECANCELED) {
        put_err(env, errbuf, err);
        goto end;
    }
    /* only what the engine holds: a series only when allocated, samples and
     * messages only when their arrays exist (review: JVM crash on cancel) */
    uint32_t nstreams = res.streams < (uint32_t)streams ? res.streams : (uint32_t)streams;
    uint32_t nbins = res.series != NULL ? res.bins : 0;
    uint32_t nsamples = res.samples != NULL ? res.nsamples : 0;
    uint32_t nmsgs = res.msg_stream && res.msg_seq && res.msg_sched_wall && res.msg_arrival_wall && res.msg_late_ns
                         ? res.nmsgs
                         : 0;
    jlong l[org_nmws_probe_Probe_TS_LONGS];
    jdouble d[org_nmws_probe_Probe_TS_DOUBLES];
    l[TL(STREAMS)] = nstreams;
    l[TL(MSG_SIZE)] = res.msg_size;
    l[TL(BYTES_SENT)] = (jlong)res.bytes_sent;
    l[TL(BYTES_RECEIVED)] = (jlong)res.bytes_received;
    l[TL(RETRANS)] = res.total_retrans;
    l[TL(BINS)] = nbins;
    l[TL(BIN_NS)] = (jlong)res.bin_ns;
    l[TL(SERIES_START)] = res.series_start_wall;
    l[TL(RECORDS_OVER)] = (jlong)res.records_over;
    l[TL(REFUSED)] = res.refused;
    l[TL(START_EPOCH)] = res.start_wall;
    l[TL(END_EPOCH)] = res.end_wall;
    l[TL(REMOTE_PORT)] = res.remote_port;
    l[TL(CANCELLED)] = rc == -ECANCELED;
    d[TD(SENDER_S)] = res.sender_seconds;
    d[TD(RECEIVER_S)] = res.receiver_seconds;
    d[TD(SEND_MBPS)] = res.send_mbps;
    d[TD(RECV_MBPS)] = res.recv_mbps;
    d[TD(LATE_MIN_MS)] = res.late_min_ns / 1e6;
    d[TD(LATE_MEDIAN_MS)] = res.late_median_ns / 1e6;
    d[TD(LATE_P99_MS)] = res.late_p99_ns / 1e6;
    d[TD(LATE_MAX_MS)] = res.late_max_ns / 1e6;
    (*env)->SetLongArrayRegion(env, sumL, 0, org_nmws_probe_Probe_TS_LONGS, l);
    (*env)->SetDoubleArrayRegion(env, sumD, 0, org_nmws_probe_Probe_TS_DOUBLES, d);
    if ((rc = jni_pending(env)) < 0) goto end;
    for (uint32_t i = 0; i < nstreams; i++) {
        const nmp_tcp_stream_result *p = &res.per[i];
        jlong pl[org_nmws_probe_Probe_TS_PL];
        jdouble pd[org_nmws_probe_Probe_TS_PD];
        pl[TPL(BYTES_SENT)] = (jlong)p->bytes_sent;
        pl[TPL(BYTES_RECEIVED)] = (jlong)p->bytes_received;
        pl[TPL(MSGS_SENT)] = (jlong)p->messages_sent;
        pl[TPL(MSGS_RECEIVED)] = (jlong)p->messages_received;
        pl[TPL(FIRST_ARRIVAL)] = p->first_arrival_wall;
        pl[TPL(LAST_ARRIVAL)] = p->last_arrival_wall;
        pl[TPL(RETRANS)] = p->total_retrans;
        pl[TPL(SRTT_US)] = p->final_srtt_us;
        pd[TPD(SEND_MBPS)] = p->send_mbps;
        pd[TPD(RECV_MBPS)] = p->recv_mbps;
        (*env)->SetLongArrayRegion(env, perL, (jsize)i * org_nmws_probe_Probe_TS_PL, org_nmws_probe_Probe_TS_PL, pl);
        (*env)->SetDoubleArrayRegion(env, perD, (jsize)i * org_nmws_probe_Probe_TS_PD, org_nmws_probe_Probe_TS_PD, pd);
    }
    _Static_assert(sizeof(jlong) == sizeof(uint64_t), "series counts fit jlong");
    if ((rc = jni_pending(env)) < 0 ||
        (rc = put_long_rows(env, arrays, org_nmws_probe_Probe_TS_A_SERIES, (jsize)(nstreams * nbins), 1,
                            (const jlong *)res.series)) < 0)
        goto end;
    size_t nrows = nsamples > nmsgs ? nsamples : nmsgs;
    size_t stride = org_nmws_probe_Probe_TS_S > org_nmws_probe_Probe_TS_M ? org_nmws_probe_Probe_TS_S
                                                                          : org_nmws_probe_Probe_TS_M;
    rows = malloc((nrows ? nrows : 1) * stride * sizeof(jlong));
    if (rows == NULL) {
        put_err(env, errbuf, "tcpStream: out of memory");
        rc = -ENOMEM;
        goto end;
    }
    for (uint32_t i = 0; i < nsamples; i++) {
        const nmp_tcp_info_sample *s = &res.samples[i];
        jlong *r = rows + (size_t)i * org_nmws_probe_Probe_TS_S;
        r[TSS(T_NS)] = (jlong)s->t_ns;
        r[TSS(STREAM)] = s->stream;
        r[TSS(CWND)] = s->cwnd;
        r[TSS(MSS)] = s->mss;
        r[TSS(SRTT_US)] = s->srtt_us;
        r[TSS(RTTVAR_US)] = s->rttvar_us;
        r[TSS(RETRANSMITS)] = s->retransmits;
        r[TSS(TOTAL_RETRANS)] = s->total_retrans;
        r[TSS(PACING)] = (jlong)s->pacing_rate;
        r[TSS(DELIVERY)] = (jlong)s->delivery_rate;
        r[TSS(ACKED)] = (jlong)s->bytes_acked;
    }
    if ((rc = put_long_rows(env, arrays, org_nmws_probe_Probe_TS_A_SAMPLES, (jsize)nsamples,
                            org_nmws_probe_Probe_TS_S, rows)) < 0)
        goto end;
    for (uint32_t i = 0; i < nmsgs; i++) {
        jlong *r = rows + (size_t)i * org_nmws_probe_Probe_TS_M;
        r[TSM(STREAM)] = res.msg_stream[i];
        r[TSM(SEQ)] = res.msg_seq[i];
        r[TSM(SCHED)] = res.msg_sched_wall[i];
        r[TSM(ARRIVAL)] = res.msg_arrival_wall[i];
        r[TSM(LATE)] = res.msg_late_ns[i];
    }
    if ((rc = put_long_rows(env, arrays, org_nmws_probe_Probe_TS_A_MESSAGES, (jsize)nmsgs,
                            org_nmws_probe_Probe_TS_M, rows)) < 0)
        goto end;
    rc = put_addrs(env, addrs, res.local_addr, res.remote_addr);
end:
    free(rows);
    nmp_tcp_result_free(&res);
    free(hostz);
    return rc;
}

#define HL(name) org_nmws_probe_Probe_HL_##name
_Static_assert(org_nmws_probe_Probe_HL_MAX_TTL == NMP_HOPS_MAX_TTL, "hop limits agree");
_Static_assert(org_nmws_probe_Probe_HL_MAX_PROBES == NMP_HOPS_MAX_PROBES, "probe limits agree");

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nHopList(JNIEnv *env, jclass cls, jbyteArray host, jint max_ttl,
                                                           jint probes, jint wait_ms, jint port, jint size,
                                                           jint parallel, jint resolve, jint resolve_ms,
                                                           jobject cancel_buf, jobject control, jlongArray hopL,
                                                           jdoubleArray rtt, jobjectArray strs, jlongArray info,
                                                           jdoubleArray elapsed, jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    nmp_hops_result *res = NULL;
    if (max_ttl < 1 || max_ttl > NMP_HOPS_MAX_TTL || probes < 1 || probes > NMP_HOPS_MAX_PROBES || wait_ms < 1 ||
        port < 1 || port > 65535 || size < 0 || parallel < 1 || resolve_ms < 0 ||
        !len_at_least(env, hopL, NMP_HOPS_MAX_TTL * org_nmws_probe_Probe_HL) ||
        !len_at_least(env, rtt, NMP_HOPS_MAX_TTL * NMP_HOPS_MAX_PROBES) ||
        !len_at_least(env, strs, 1 + 2 * NMP_HOPS_MAX_TTL) || !len_at_least(env, info, 4) ||
        !len_at_least(env, elapsed, 1)) {
        put_err(env, errbuf, "hopList: invalid arguments to the native call");
        return -EINVAL;
    }
    char *hostz = host_string(env, host, errbuf);
    if (hostz == NULL) return -EINVAL;
    res = malloc(sizeof(*res));
    if (res == NULL) {
        free(hostz);
        put_err(env, errbuf, "hopList: out of memory");
        return -ENOMEM;
    }
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = cancel_flag(env, cancel_buf), .progress = control ? on_progress : NULL,
                       .progress_ctx = &prog};
    nmp_hops_spec spec = {.host = hostz, .max_ttl = max_ttl, .probes = (uint32_t)probes, .wait_ms = (uint32_t)wait_ms,
                          .port = port, .size = (uint32_t)size, .parallel = (uint32_t)parallel, .resolve = resolve,
                          .resolve_timeout_ms = (uint32_t)resolve_ms};
    int rc = nmp_hops_run(&spec, &ctl, res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        put_err(env, errbuf, err);
        goto end;
    }
    int nhops = res->nhops < 0 ? 0 : res->nhops > NMP_HOPS_MAX_TTL ? NMP_HOPS_MAX_TTL : res->nhops;
    jlong inf[4] = {nhops, res->reached, res->hop_count, rc == -ECANCELED};
    for (int t = 0; t < nhops; t++) {
        const nmp_hop *h = &res->hops[t];
        jlong l[org_nmws_probe_Probe_HL];
        jdouble r[NMP_HOPS_MAX_PROBES];
        l[HL(TTL)] = h->ttl;
        l[HL(ANSWERED)] = h->answered;
        l[HL(OTHER_ADDRS)] = h->other_addrs;
        l[HL(ICMP_TYPE)] = h->icmp_type;
        l[HL(ICMP_CODE)] = h->icmp_code;
        l[HL(DESTINATION)] = h->destination;
        l[HL(UNREACHABLE)] = h->unreachable;
        for (int k = 0; k < NMP_HOPS_MAX_PROBES; k++) r[k] = h->rtt_ns[k] < 0 ? -1.0 : h->rtt_ns[k] / 1e6;
        (*env)->SetLongArrayRegion(env, hopL, t * org_nmws_probe_Probe_HL, org_nmws_probe_Probe_HL, l);
        (*env)->SetDoubleArrayRegion(env, rtt, t * NMP_HOPS_MAX_PROBES, NMP_HOPS_MAX_PROBES, r);
        if ((rc = jni_pending(env)) < 0 || (rc = put_string(env, strs, 1 + 2 * t, h->addr)) < 0 ||
            (rc = put_string(env, strs, 2 + 2 * t, h->name)) < 0)
            goto end;
    }
    if ((rc = put_string(env, strs, 0, res->dest_addr)) < 0) goto end;
    (*env)->SetLongArrayRegion(env, info, 0, 4, inf);
    jdouble el = res->elapsed_ms;
    (*env)->SetDoubleArrayRegion(env, elapsed, 0, 1, &el);
    rc = jni_pending(env);
end:
    free(res);
    free(hostz);
    return rc;
}

#define CPL(name) org_nmws_probe_Probe_CP_L_##name
#define CPD(name) org_nmws_probe_Probe_CP_D_##name

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nCapacity(
    JNIEnv *env, jclass cls, jbyteArray host, jint port, jint trains, jint train_len, jint size, jint skip,
    jlong gap_ns, jlong timeout_ns, jint ttl_out, jobject cancel_buf, jobject control, jlongArray sumL,
    jdoubleArray sumD, jobjectArray addrs, jdoubleArray mbps, jintArray status, jintArray received,
    jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    nmp_capacity_result res;
    memset(&res, 0, sizeof(res));
    if (trains < 1 || trains > NMP_CAP_MAX_TRAINS || train_len < 4 || train_len > NMP_TRAIN_MAX || size < 0 ||
        skip < 0 || gap_ns < 0 || timeout_ns < 0 || ttl_out < 0 || !len_at_least(env, sumL, org_nmws_probe_Probe_CP_LONGS) ||
        !len_at_least(env, sumD, org_nmws_probe_Probe_CP_DOUBLES) || !len_at_least(env, addrs, 2) ||
        !len_at_least(env, mbps, trains) || !len_at_least(env, status, trains) ||
        !len_at_least(env, received, trains)) {
        put_err(env, errbuf, "capacity: invalid arguments to the native call");
        return -EINVAL;
    }
    char *hostz = host_string(env, host, errbuf);
    if (hostz == NULL) return -EINVAL;
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = cancel_flag(env, cancel_buf), .progress = control ? on_progress : NULL,
                       .progress_ctx = &prog};
    nmp_capacity_spec spec = {.host = hostz, .port = port, .trains = (uint32_t)trains, .train_len = (uint32_t)train_len,
                              .size = (uint32_t)size, .skip = (uint32_t)skip, .gap_ns = (uint64_t)gap_ns,
                              .timeout_ns = (uint64_t)timeout_ns, .ttl = ttl_out};
    int rc = nmp_capacity_run(&spec, &ctl, &res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        put_err(env, errbuf, err);
        goto end;
    }
    jlong l[org_nmws_probe_Probe_CP_LONGS];
    jdouble d[org_nmws_probe_Probe_CP_DOUBLES];
    l[CPL(TRAINS)] = res.trains;
    l[CPL(TRAINS_SENT)] = res.trains_sent;
    l[CPL(TRAINS_USED)] = res.trains_used;
    l[CPL(DISCARDED_LOSS)] = res.discarded_loss;
    l[CPL(DISCARDED_REORDER)] = res.discarded_reorder;
    l[CPL(DISCARDED_SENDER)] = res.discarded_sender;
    l[CPL(TRAIN_LENGTH)] = res.train_len;
    l[CPL(SIZE)] = res.size;
    l[CPL(SKIP)] = res.skip;
    l[CPL(GAP_NS)] = (jlong)res.gap_ns;
    l[CPL(FRAMES_SENT)] = res.frames_sent;
    l[CPL(FRAMES_RECEIVED)] = res.frames_received;
    l[CPL(FRAME_OVERHEAD)] = res.frame_overhead;
    l[CPL(WIRE_OVERHEAD)] = res.wire_overhead;
    l[CPL(START_EPOCH)] = res.start_wall;
    l[CPL(END_EPOCH)] = res.end_wall;
    l[CPL(REMOTE_PORT)] = res.remote_port;
    l[CPL(CANCELLED)] = rc == -ECANCELED;
    d[CPD(USER_MBPS)] = res.user_mbps;
    d[CPD(FRAME_MBPS)] = res.frame_mbps;
    d[CPD(WIRE_MBPS)] = res.wire_mbps;
    d[CPD(P10)] = res.p10_mbps;
    d[CPD(P25)] = res.p25_mbps;
    d[CPD(P75)] = res.p75_mbps;
    d[CPD(P90)] = res.p90_mbps;
    d[CPD(IQR)] = res.iqr_mbps;
    d[CPD(HEAD_MBPS)] = res.head_user_mbps;
    d[CPD(PILOT_SPAN_MS)] = res.pilot_span_ns / 1e6;
    (*env)->SetLongArrayRegion(env, sumL, 0, org_nmws_probe_Probe_CP_LONGS, l);
    (*env)->SetDoubleArrayRegion(env, sumD, 0, org_nmws_probe_Probe_CP_DOUBLES, d);
    int was_rc = rc;
    if ((rc = jni_pending(env)) < 0) goto end;
    if (res.train_user_mbps && res.train_status && res.train_received && res.trains == (uint32_t)trains) {
        (*env)->SetDoubleArrayRegion(env, mbps, 0, trains, res.train_user_mbps);
        (*env)->SetIntArrayRegion(env, status, 0, trains, (const jint *)res.train_status);
        (*env)->SetIntArrayRegion(env, received, 0, trains, (const jint *)res.train_received);
        if ((rc = jni_pending(env)) < 0) goto end;
    } else if (was_rc != -ECANCELED) {
        put_err(env, errbuf, "capacity: the engine returned no per-train results");
        rc = -EFAULT;
        goto end;
    }
    rc = put_addrs(env, addrs, res.local_addr, res.remote_addr);
end:
    nmp_capacity_result_free(&res);
    free(hostz);
    return rc;
}

#define ABL(name) org_nmws_probe_Probe_AB_L_##name
#define ABD(name) org_nmws_probe_Probe_AB_D_##name
#define ABSD(name) org_nmws_probe_Probe_AB_SD_##name
#define ABSL(name) org_nmws_probe_Probe_AB_SL_##name

_Static_assert(org_nmws_probe_Probe_AB_MAX_STEPS == NMP_AVAIL_MAX_STEPS, "step limits agree");
_Static_assert(org_nmws_probe_Probe_AB_F_DELAY == NMP_AVAIL_DELAY && org_nmws_probe_Probe_AB_F_RATE == NMP_AVAIL_RATE &&
                   org_nmws_probe_Probe_AB_F_LOSS == NMP_AVAIL_LOSS && org_nmws_probe_Probe_AB_F_SENDER == NMP_AVAIL_SENDER,
               "congestion flags agree");
_Static_assert(NMP_TRAIN_USED == 0 && NMP_TRAIN_LOSS == 1 && NMP_TRAIN_REORDER == 2 && NMP_TRAIN_SENDER == 3 &&
                   NMP_TRAIN_NOT_SENT == 4,
               "train status codes match CapacityResult.TrainStatus ordinals");

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nAvailableBandwidth(
    JNIEnv *env, jclass cls, jbyteArray host, jint port, jint size, jdouble min_mbps, jdouble max_mbps,
    jdouble step_mbps, jint refine, jlong step_ns, jlong pause_ns, jdouble loss_percent, jdouble rate_tolerance,
    jlong delay_ns, jlong timeout_ns, jint ttl_out, jobject cancel_buf, jobject control, jlongArray sumL,
    jdoubleArray sumD, jobjectArray addrs, jdoubleArray stepD, jlongArray stepL, jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    if (size < 0 || refine < 0 || step_ns < 0 || pause_ns < 0 || delay_ns < 0 || timeout_ns < 0 || ttl_out < 0 ||
        !len_at_least(env, sumL, org_nmws_probe_Probe_AB_LONGS) ||
        !len_at_least(env, sumD, org_nmws_probe_Probe_AB_DOUBLES) || !len_at_least(env, addrs, 2) ||
        !len_at_least(env, stepD, NMP_AVAIL_MAX_STEPS * org_nmws_probe_Probe_AB_SD) ||
        !len_at_least(env, stepL, NMP_AVAIL_MAX_STEPS * org_nmws_probe_Probe_AB_SL)) {
        put_err(env, errbuf, "availableBandwidth: invalid arguments to the native call");
        return -EINVAL;
    }
    char *hostz = host_string(env, host, errbuf);
    if (hostz == NULL) return -EINVAL;
    nmp_avail_result *res = malloc(sizeof(*res));
    if (res == NULL) {
        free(hostz);
        put_err(env, errbuf, "availableBandwidth: out of memory");
        return -ENOMEM;
    }
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = cancel_flag(env, cancel_buf), .progress = control ? on_progress : NULL,
                       .progress_ctx = &prog};
    nmp_avail_spec spec = {.host = hostz, .port = port, .size = (uint32_t)size, .min_mbps = min_mbps,
                           .max_mbps = max_mbps, .step_mbps = step_mbps, .refine = (uint32_t)refine,
                           .step_ns = (uint64_t)step_ns, .pause_ns = (uint64_t)pause_ns,
                           .loss_percent = loss_percent, .rate_tolerance = rate_tolerance,
                           .delay_threshold_ns = (uint64_t)delay_ns, .timeout_ns = (uint64_t)timeout_ns,
                           .ttl = ttl_out};
    int rc = nmp_avail_run(&spec, &ctl, res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        put_err(env, errbuf, err);
        goto end;
    }
    jlong l[org_nmws_probe_Probe_AB_LONGS];
    jdouble d[org_nmws_probe_Probe_AB_DOUBLES];
    l[ABL(NSTEPS)] = res->nsteps;
    l[ABL(BRACKETED)] = res->bracketed;
    l[ABL(SIZE)] = res->size;
    l[ABL(WIRE_OVERHEAD)] = res->wire_overhead;
    l[ABL(START_EPOCH)] = res->start_wall;
    l[ABL(END_EPOCH)] = res->end_wall;
    l[ABL(REMOTE_PORT)] = res->remote_port;
    l[ABL(CANCELLED)] = rc == -ECANCELED;
    d[ABD(ESTIMATE_MBPS)] = res->estimate_mbps;
    d[ABD(ESTIMATE_WIRE_MBPS)] = res->estimate_wire_mbps;
    d[ABD(LOWER_MBPS)] = res->lower_mbps;
    d[ABD(UPPER_MBPS)] = res->upper_mbps;
    (*env)->SetLongArrayRegion(env, sumL, 0, org_nmws_probe_Probe_AB_LONGS, l);
    (*env)->SetDoubleArrayRegion(env, sumD, 0, org_nmws_probe_Probe_AB_DOUBLES, d);
    if ((rc = jni_pending(env)) < 0) goto end;
    for (uint32_t i = 0; i < res->nsteps && i < NMP_AVAIL_MAX_STEPS; i++) {
        const nmp_avail_step *st = &res->steps[i];
        jdouble sd[org_nmws_probe_Probe_AB_SD];
        jlong sl[org_nmws_probe_Probe_AB_SL];
        sd[ABSD(OFFERED)] = st->offered_mbps;
        sd[ABSD(SENT)] = st->sent_mbps;
        sd[ABSD(RECEIVED)] = st->recv_mbps;
        sd[ABSD(LOSS)] = st->loss_percent;
        sd[ABSD(OWD_MIN_MS)] = st->owd_min_ms;
        sd[ABSD(OWD_MEDIAN_MS)] = st->owd_median_ms;
        sd[ABSD(OWD_INCREASE_MS)] = st->owd_increase_ms;
        sd[ABSD(OWD_SLOPE)] = st->owd_slope_ms_per_s;
        sl[ABSL(FRAMES_SENT)] = st->frames_sent;
        sl[ABSL(FRAMES_RECEIVED)] = st->frames_received;
        sl[ABSL(FLAGS)] = st->flags;
        sl[ABSL(REFINE)] = st->refine;
        (*env)->SetDoubleArrayRegion(env, stepD, (jsize)i * org_nmws_probe_Probe_AB_SD, org_nmws_probe_Probe_AB_SD, sd);
        (*env)->SetLongArrayRegion(env, stepL, (jsize)i * org_nmws_probe_Probe_AB_SL, org_nmws_probe_Probe_AB_SL, sl);
    }
    if ((rc = jni_pending(env)) < 0) goto end;
    rc = put_addrs(env, addrs, res->local_addr, res->remote_addr);
end:
    free(res);
    free(hostz);
    return rc;
}

#define HCI(name) org_nmws_probe_Probe_HC_I_##name
#define HCL(name) org_nmws_probe_Probe_HC_L_##name
#define HCD(name) org_nmws_probe_Probe_HC_D_##name
_Static_assert(org_nmws_probe_Probe_HC_MAX_HOPS == NMP_HOPS_MAX_TTL &&
                   org_nmws_probe_Probe_HC_MAX_TRAINS == NMP_HOPCAP_MAX_TRAINS &&
                   org_nmws_probe_Probe_HC_MAX_TRAIN_LENGTH == NMP_HOPCAP_MAX_LEN,
               "hop capacity limits agree");
_Static_assert(NMP_HC_USED == 0 && NMP_HC_SENDER == 1 && NMP_HC_MISSING == 2 && NMP_HC_REORDERED == 3 &&
                   NMP_HC_NOT_SENT == 4 && org_nmws_probe_Probe_HC_NOT_SENT == NMP_HC_NOT_SENT,
               "hop capacity train status codes match HopCapacityResult.TrainStatus ordinals");

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nHopCapacity(
    JNIEnv *env, jclass cls, jbyteArray host, jint hops, jint max_ttl, jint trains, jint train_len, jint skip,
    jint size, jlong gap_ns, jint wait_ms, jint port, jobject cancel_buf, jobject control, jlongArray info,
    jlongArray hopL, jdoubleArray hopD, jobjectArray addrs, jdoubleArray mbps, jintArray status, jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    nmp_hopcap_result *res = NULL;
    /* every input bounded here too: the engine's own checks are the second line */
    jint rows = hops > 0 ? hops : max_ttl;
    if (hops < 0 || hops > NMP_HOPS_MAX_TTL || max_ttl < 1 || max_ttl > NMP_HOPS_MAX_TTL || trains < 1 ||
        trains > NMP_HOPCAP_MAX_TRAINS || train_len < 2 || train_len > NMP_HOPCAP_MAX_LEN || skip < -1 ||
        skip > train_len - 2 || size < NMP_FRAME_HDR || size > NMP_FRAME_MAX || gap_ns < 0 ||
        gap_ns > 10000000000LL || wait_ms < 1 || wait_ms > 60000 || port < 1 || port > 65535 ||
        (int64_t)rows * trains * train_len > (int64_t)NMP_HOPCAP_MAX_FRAMES ||
        !len_at_least(env, info, org_nmws_probe_Probe_HC_INFO) ||
        !len_at_least(env, hopL, NMP_HOPS_MAX_TTL * org_nmws_probe_Probe_HC_L) ||
        !len_at_least(env, hopD, NMP_HOPS_MAX_TTL * org_nmws_probe_Probe_HC_D) ||
        !len_at_least(env, addrs, 1 + NMP_HOPS_MAX_TTL) || !len_at_least(env, mbps, rows * trains) ||
        !len_at_least(env, status, rows * trains)) {
        put_err(env, errbuf, "hopCapacity: invalid arguments to the native call");
        return -EINVAL;
    }
    char *hostz = host_string(env, host, errbuf);
    if (hostz == NULL) return -EINVAL;
    res = calloc(1, sizeof(*res));
    if (res == NULL) {
        free(hostz);
        put_err(env, errbuf, "hopCapacity: out of memory");
        return -ENOMEM;
    }
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = cancel_flag(env, cancel_buf), .progress = control ? on_progress : NULL,
                       .progress_ctx = &prog};
    nmp_hopcap_spec spec = {.host = hostz, .hops = hops, .max_ttl = max_ttl, .trains = (uint32_t)trains,
                            .train_len = (uint32_t)train_len, .skip = skip, .size = (uint32_t)size,
                            .gap_ns = (uint64_t)gap_ns, .wait_ms = (uint32_t)wait_ms, .port = port};
    int rc = nmp_hopcap_run(&spec, &ctl, res, err, sizeof(err));
    if (rc < 0 && rc != -ECANCELED) {
        put_err(env, errbuf, err);
        goto end;
    }
    int was_rc = rc;
    /* hops are listed only with their per-train rows present (review: no
     * copies from NULL arrays on cancel); Java pre-fills NaN / NOT_SENT */
    int nhops = res->nhops < 0 ? 0 : res->nhops > NMP_HOPS_MAX_TTL ? NMP_HOPS_MAX_TTL : res->nhops;
    if (nhops > rows) nhops = rows;
    int have_rows = res->train_frame_mbps != NULL && res->train_status != NULL && res->trains == (uint32_t)trains &&
                    res->rows >= (uint32_t)nhops;
    if (!have_rows && nhops > 0) {
        if (was_rc != -ECANCELED) {
            put_err(env, errbuf, "hopCapacity: the engine returned no per-train results");
            rc = -EFAULT;
            goto end;
        }
        nhops = 0;
    }
    jlong inf[org_nmws_probe_Probe_HC_INFO];
    inf[HCI(NHOPS)] = nhops;
    inf[HCI(DISCOVERED)] = res->discovered;
    inf[HCI(REACHED)] = res->reached;
    inf[HCI(HOP_COUNT)] = res->hop_count;
    inf[HCI(TRAINS)] = res->trains;
    inf[HCI(TRAIN_LENGTH)] = res->train_len;
    inf[HCI(SKIP)] = res->skip;
    inf[HCI(SIZE)] = res->size;
    inf[HCI(FRAME_OVERHEAD)] = res->frame_overhead;
    inf[HCI(WIRE_OVERHEAD)] = res->wire_overhead;
    inf[HCI(START_EPOCH)] = res->start_wall;
    inf[HCI(END_EPOCH)] = res->end_wall;
    inf[HCI(CANCELLED)] = was_rc == -ECANCELED;
    for (int t = 0; t < nhops; t++) {
        const nmp_hopcap_hop *h = &res->hops[t];
        jlong l[org_nmws_probe_Probe_HC_L];
        jdouble d[org_nmws_probe_Probe_HC_D];
        l[HCL(TTL)] = h->ttl;
        l[HCL(DESTINATION)] = h->destination;
        l[HCL(OTHER_ADDRS)] = h->other_addrs;
        l[HCL(LOWER_BOUND)] = h->lower_bound;
        l[HCL(TRAINS_SENT)] = h->trains_sent;
        l[HCL(TRAINS_USED)] = h->trains_used;
        l[HCL(MISSING)] = h->missing;
        l[HCL(REORDERED)] = h->reordered;
        l[HCL(SENDER_LIMITED)] = h->sender_limited;
        l[HCL(PROBES_SENT)] = h->probes_sent;
        l[HCL(REPLIES)] = h->replies;
        l[HCL(KERNEL_STAMPED)] = h->kernel_stamped;
        l[HCL(USER_STAMPED)] = h->trains_user_stamped;
        l[HCL(ENDS_ONLY)] = h->ends_only;
        d[HCD(USER_MBPS)] = h->user_mbps;
        d[HCD(FRAME_MBPS)] = h->frame_mbps;
        d[HCD(WIRE_MBPS)] = h->wire_mbps;
        d[HCD(MODE_MBPS)] = h->mode_frame_mbps;
        d[HCD(P10)] = h->p10_mbps;
        d[HCD(P25)] = h->p25_mbps;
        d[HCD(P75)] = h->p75_mbps;
        d[HCD(P90)] = h->p90_mbps;
        d[HCD(IQR)] = h->iqr_mbps;
        d[HCD(HEAD_MBPS)] = h->head_frame_mbps;
        (*env)->SetLongArrayRegion(env, hopL, t * org_nmws_probe_Probe_HC_L, org_nmws_probe_Probe_HC_L, l);
        (*env)->SetDoubleArrayRegion(env, hopD, t * org_nmws_probe_Probe_HC_D, org_nmws_probe_Probe_HC_D, d);
        (*env)->SetDoubleArrayRegion(env, mbps, t * trains, trains, res->train_frame_mbps + (size_t)t * trains);
        (*env)->SetIntArrayRegion(env, status, t * trains, trains, (const jint *)res->train_status + (size_t)t * trains);
        if ((rc = jni_pending(env)) < 0 || (rc = put_string(env, addrs, 1 + t, h->addr)) < 0) goto end;
    }
    if ((rc = put_string(env, addrs, 0, res->dest_addr)) < 0) goto end;
    (*env)->SetLongArrayRegion(env, info, 0, org_nmws_probe_Probe_HC_INFO, inf);
    rc = jni_pending(env);
end:
    nmp_hopcap_result_free(res);
    free(res);
    free(hostz);
    return rc;
}

static const JNINativeMethod probe_methods[] = {
    {"nHopCapacity", "([BIIIIIIJIILjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[J[D[Ljava/lang/String;[D[I[B)I",
     (void *)Java_org_nmws_probe_Probe_nHopCapacity},
    {"nCapacity", "([BIIIIIJJILjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[D[Ljava/lang/String;[D[I[I[B)I",
     (void *)Java_org_nmws_probe_Probe_nCapacity},
    {"nAvailableBandwidth",
     "([BIIDDDIJJDDJJILjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[D[Ljava/lang/String;[D[J[B)I",
     (void *)Java_org_nmws_probe_Probe_nAvailableBandwidth},
    {"nHopList", "([BIIIIIIIILjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[D[Ljava/lang/String;[J[D[B)I",
     (void *)Java_org_nmws_probe_Probe_nHopList},
    {"nTcpStream",
     "([BIIIJIIJJJJLjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[D[J[D[Ljava/lang/Object;[Ljava/lang/String;[B)I",
     (void *)Java_org_nmws_probe_Probe_nTcpStream},
    {"nClockState", "([J[Ljava/lang/String;[B)I", (void *)Java_org_nmws_probe_Probe_nClockState},
    {"nAbi", "()I", (void *)Java_org_nmws_probe_Probe_nAbi},
    {"nVersion", "()Ljava/lang/String;", (void *)Java_org_nmws_probe_Probe_nVersion},
    {"nRoundTrip",
     "([BIIIJJILjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[D[Ljava/lang/String;[I[J[J[I[I[B)I",
     (void *)Java_org_nmws_probe_Probe_nRoundTrip},
    {"nUdpStream",
     "([BIIIJJIIJLjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[D[Ljava/lang/String;[J[I[J[J[J[I[B)I",
     (void *)Java_org_nmws_probe_Probe_nUdpStream},
    {"nLatencyScan",
     "([BI[IIJJIILjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[D[J[D[J[Ljava/lang/String;[B)I",
     (void *)Java_org_nmws_probe_Probe_nLatencyScan},
};

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass probe = (*env)->FindClass(env, PROBE_CLASS);
    if (probe == NULL) return JNI_ERR;
    if ((*env)->RegisterNatives(env, probe, probe_methods,
                                (jint)(sizeof(probe_methods) / sizeof(probe_methods[0]))) != 0)
        return JNI_ERR;
    jclass ctl = (*env)->FindClass(env, CONTROL_CLASS);
    if (ctl == NULL) return JNI_ERR;
    control_progress = (*env)->GetMethodID(env, ctl, "progress", "(II)V");
    if (control_progress == NULL) return JNI_ERR;
    control_class = (*env)->NewGlobalRef(env, ctl);
    (*env)->DeleteLocalRef(env, ctl);
    (*env)->DeleteLocalRef(env, probe);
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return;
    if (control_class) (*env)->DeleteGlobalRef(env, control_class);
    control_class = NULL;
    control_progress = NULL;
}
