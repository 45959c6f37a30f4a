/* nmp_jni.c -- the JNI facade of the engine for org.nmws.probe.Probe.
 *
 * One generic native call runs any kind of test (nmp_kind.h): Java passes
 * the kind's name and its spec packed as named fields (nmp_pack.h), the test
 * runs without holding any JNI critical section, and the packed result comes
 * back as one byte[]. Layouts are therefore stated once per language, by
 * name, and a mismatch is a clear "no field X" error in Java instead of a
 * shifted array index. Natives are registered and classes cached in
 * JNI_OnLoad; global references are dropped in JNI_OnUnload. */
#include <errno.h>
#include <jni.h>
#include <stdlib.h>
#include <string.h>

#include "nmp_kind.h"
#include "nmprobe.h"
#include "org_nmws_probe_Probe.h"

#define PROBE_CLASS "org/nmws/probe/Probe"
#define CONTROL_CLASS "org/nmws/probe/ProbeControl"
#define NMP_JNI_ABI 6
#define KIND_NAME_MAX 32            /* longest kind name accepted from Java */

_Static_assert(sizeof(jint) == sizeof(int32_t), "jint is 32 bits");
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

/* The cancel flag inside a direct buffer of at least 4 bytes, or NULL. */
static volatile int32_t *cancel_flag(JNIEnv *env, jobject buf) {
    if (buf == NULL || (*env)->GetDirectBufferCapacity(env, buf) < 4) return NULL;
    return (volatile int32_t *)(*env)->GetDirectBufferAddress(env, buf);
}

JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nAbi(JNIEnv *env, jclass cls) { return NMP_JNI_ABI; }

JNIEXPORT jstring JNICALL Java_org_nmws_probe_Probe_nVersion(JNIEnv *env, jclass cls) {
    return (*env)->NewStringUTF(env, NMP_VERSION);
}

/* Looks the kind up by its Java name. Returns NULL (err set) for a null,
 * over-long or unknown name. */
static const nmp_kind *kind_of(JNIEnv *env, jstring jkind, char *err, size_t errlen) {
    char name[KIND_NAME_MAX + 1];
    if (jkind == NULL) {
        nmp_seterr(err, errlen, "run: kind is null");
        return NULL;
    }
    jsize n = (*env)->GetStringLength(env, jkind);
    jsize un = (*env)->GetStringUTFLength(env, jkind);
    if (n < 1 || un > KIND_NAME_MAX) {
        nmp_seterr(err, errlen, "run: kind name of %d bytes is not 1..%d", (int)un, KIND_NAME_MAX);
        return NULL;
    }
    (*env)->GetStringUTFRegion(env, jkind, 0, n, name);
    name[un] = '\0';
    const nmp_kind *k = nmp_kind_find(name);
    if (k == NULL) nmp_seterr(err, errlen, "run: unknown kind '%s'", name);
    return k;
}

/* Runs one test of 'kind' from its packed spec. On success and on a cancel
 * that kept a result, result[0] receives a new byte[] holding the packed
 * result; the return is 0, -ECANCELED (with a result) or -errno with the
 * message in errorMessage (and result[0] untouched). With a Java exception
 * pending (out of memory in a JNI allocation) the return is -ENOMEM and Java
 * throws the pending exception. */
JNIEXPORT jint JNICALL Java_org_nmws_probe_Probe_nRun(JNIEnv *env, jclass cls, jstring jkind, jbyteArray jspec,
                                                      jobject cancel_buf, jobject control, jobjectArray result,
                                                      jbyteArray errbuf) {
    char err[NMP_ERRLEN] = "";
    uint8_t *spec = NULL, *out = NULL;
    size_t outlen = 0;
    int rc;
    const nmp_kind *k = kind_of(env, jkind, err, sizeof(err));
    if (k == NULL) {
        rc = -EINVAL;
        goto end;
    }
    if (jspec == NULL || result == NULL || (*env)->GetArrayLength(env, result) < 1) {
        nmp_seterr(err, sizeof(err), "%s: invalid arguments to the native call (spec or result array missing)",
                   k->name);
        rc = -EINVAL;
        goto end;
    }
    jsize speclen = (*env)->GetArrayLength(env, jspec);
    if ((size_t)speclen > NMP_PACK_MAX_BYTES) {
        nmp_seterr(err, sizeof(err), "%s: spec of %d bytes is too large", k->name, (int)speclen);
        rc = -EINVAL;
        goto end;
    }
    spec = malloc((size_t)speclen + 1);
    if (spec == NULL) {
        nmp_seterr(err, sizeof(err), "%s: out of memory", k->name);
        rc = -ENOMEM;
        goto end;
    }
    (*env)->GetByteArrayRegion(env, jspec, 0, speclen, (jbyte *)spec);
    jni_progress prog = {.env = env, .control = control, .failed = 0};
    nmp_control ctl = {.cancel = cancel_flag(env, cancel_buf), .progress = control ? on_progress : NULL,
                       .progress_ctx = &prog};
    rc = nmp_kind_run_packed(k, spec, (size_t)speclen, &ctl, &out, &outlen, err, sizeof(err));
    if (out == NULL) goto end;
    if (outlen > 0x7fffffff) {
        nmp_seterr(err, sizeof(err), "%s: result of %zu bytes does not fit a Java array", k->name, outlen);
        rc = -EOVERFLOW;
        goto end;
    }
    jbyteArray arr = (*env)->NewByteArray(env, (jsize)outlen);
    if (arr == NULL) {
        rc = -ENOMEM; /* OutOfMemoryError pending */
        goto end;
    }
    (*env)->SetByteArrayRegion(env, arr, 0, (jsize)outlen, (const jbyte *)out);
    if (!(*env)->ExceptionCheck(env)) (*env)->SetObjectArrayElement(env, result, 0, arr);
    (*env)->DeleteLocalRef(env, arr);
    if ((*env)->ExceptionCheck(env)) rc = -ENOMEM;
end:
    if (rc < 0 && !(*env)->ExceptionCheck(env)) put_err(env, errbuf, err);
    free(out);
    free(spec);
    return rc;
}

static const JNINativeMethod probe_methods[] = {
    {"nAbi", "()I", (void *)Java_org_nmws_probe_Probe_nAbi},
    {"nVersion", "()Ljava/lang/String;", (void *)Java_org_nmws_probe_Probe_nVersion},
    {"nRun", "(Ljava/lang/String;[BLjava/nio/ByteBuffer;L" CONTROL_CLASS ";[[B[B)I",
     (void *)Java_org_nmws_probe_Probe_nRun},
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
