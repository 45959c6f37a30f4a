/* nmp_cli_print.h -- prints a packed result (nmp_pack.h) as JSON or as text,
 * for any kind: the CLI holds no per-test printing code. Internal to the CLI. */
#ifndef NMP_CLI_PRINT_H
#define NMP_CLI_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Which tables of rows to print: per-frame tables ("frames") are printed only
 * when asked, as are the detail tables some kinds keep ("tcpInfo", "messages"). */
typedef struct nmp_print_opts {
    int frames;                      /* print the "frames" table */
    int detail;                      /* print detail tables */
} nmp_print_opts;

/* Writes the result of test 'kind' to f. Scalars print as "name": value
 * (NaN and infinities as null); columns named "table.key" are put back
 * together as "table": [{"key": v, ...}, ...]; a column as long as a whole
 * number of rows gives each row a list, and "table.sub.key" columns give
 * each row a list of objects "sub". Returns 0, or -EINVAL when the buffer
 * is malformed (nothing then is printed). */
int nmp_print_json(FILE *f, const char *kind, const uint8_t *buf, size_t len, const nmp_print_opts *o);
/* The same as aligned text: one "name  value" line per scalar, then each
 * table as columns (lists inside rows are summarised by their length). */
int nmp_print_text(FILE *f, const char *kind, const uint8_t *buf, size_t len, const nmp_print_opts *o);

#endif
