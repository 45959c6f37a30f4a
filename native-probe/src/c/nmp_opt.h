/* nmp_opt.h -- command-line option values, shared by the nmprobe CLI and the
 * responder daemon. Internal to the engine (not installed). */
#ifndef NMP_OPT_H
#define NMP_OPT_H

/* Parses a decimal option value in [lo, hi] into *out; otherwise prints
 * "PROG: OPT VALUE: want a number in LO..HI" to stderr and returns -1. */
int nmp_opt_num(const char *prog, const char *opt, const char *s, double lo, double hi, double *out);

#endif /* NMP_OPT_H */
