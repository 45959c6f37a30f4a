/* fuzz_owctl.c -- libFuzzer target for what a peer's OWAMP / TWAMP control
 * messages and test packets go through (nmp_owctl_fuzz.h). Built with
 * -DNMP_FUZZ=ON and clang; run e.g.
 *   ./fuzz_owctl -max_total_time=60 -max_len=2048 ../test/fuzz-corpus/fuzz_owctl */
#include <stdint.h>

#include "nmp_owctl_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    nmp_owctl_fuzz_one(data, size);
    return 0;
}
