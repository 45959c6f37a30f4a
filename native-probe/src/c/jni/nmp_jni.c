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
#define NMP_JNI_ABI 1

_Static_assert(sizeof(jint) == sizeof(int32_t), "jint is 32 bits");
_Static_assert(sizeof(jlong) == sizeof(int64_t), "jlong is 64 bits");
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
    (*env)->SetIntArrayRegion(env, seq, 0, count, (const jint *)res.seq);
    (*env)->SetLongArrayRegion(env, send, 0, count, (const jlong *)res.send_wall);
    (*env)->SetLongArrayRegion(env, rtt, 0, count, (const jlong *)res.rtt_ns);
    (*env)->SetIntArrayRegion(env, bytes, 0, count, (const jint *)res.bytes);
    (*env)->SetIntArrayRegion(env, ttl, 0, count, (const jint *)res.ttl);
    jstring s = (*env)->NewStringUTF(env, res.local_addr);
    if (s) (*env)->SetObjectArrayElement(env, addrs, 0, s);
    s = (*env)->NewStringUTF(env, res.remote_addr);
    if (s) (*env)->SetObjectArrayElement(env, addrs, 1, s);
    if ((*env)->ExceptionCheck(env)) rc = -ENOMEM; /* OutOfMemoryError pending: Java sees it */
    else rc = 0;
end:
    nmp_rr_result_free(&res);
    free(hostz);
    return rc;
}

static const JNINativeMethod probe_methods[] = {
    {"nAbi", "()I", (void *)Java_org_nmws_probe_Probe_nAbi},
    {"nVersion", "()Ljava/lang/String;", (void *)Java_org_nmws_probe_Probe_nVersion},
    {"nRoundTrip",
     "([BIIIJJILjava/nio/ByteBuffer;L" CONTROL_CLASS ";[J[D[Ljava/lang/String;[I[J[J[I[I[B)I",
     (void *)Java_org_nmws_probe_Probe_nRoundTrip},
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
