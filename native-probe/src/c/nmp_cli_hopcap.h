/* nmp_cli_hopcap.h -- the "nmprobe hopcap" subcommand (per-hop capacity),
 * kept apart from nmp_cli_main.c, which dispatches to it. */
#ifndef NMP_CLI_HOPCAP_H
#define NMP_CLI_HOPCAP_H

#include <stdint.h>

/* Parses the options after "hopcap", runs the test (cancelled when *cancel
 * becomes nonzero) and prints a summary or JSON. Returns the exit status:
 * 0, 1 (test failed) or 2 (usage). */
int nmp_cli_hopcap(int argc, char **argv, volatile int32_t *cancel);

#endif
