/* nmp_opt.c -- command-line option values (see nmp_opt.h). */
#include "nmprobe.h"
#include "nmp_opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int nmp_opt_num(const char *prog, const char *opt, const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) { /* !(...) also refuses NaN */
        fprintf(stderr, "%s: %s %s: want a number in %g..%g\n", prog, opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}
