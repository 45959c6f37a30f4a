/* nmp_error.c -- the one helper that writes "call: reason" error text into
 * caller-supplied buffers, so no error state ever lives in globals. */
#include <stdarg.h>
#include <stdio.h>

#include "nmprobe.h"

void nmp_seterr(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    if (err == NULL || errlen == 0) return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
