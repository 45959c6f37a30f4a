/* fuzz_spec.c -- libFuzzer target for what a packed spec from Java goes
 * through: nmp_unpack_next over the whole buffer and nmp_spec_unpack (range
 * checks, the kind's check, ownership of strings and lists) for every kind.
 * Built with -DNMP_FUZZ=ON and clang; run e.g.
 *   ./fuzz_spec -max_total_time=60 -max_len=4096 */
#include <stdint.h>
#include <string.h>

#include "nmprobe.h"
#include "nmp_kind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[NMP_ERRLEN];
    nmp_field f;
    size_t off = 0;
    while (nmp_unpack_next(data, size, &off, &f, err, sizeof(err)) == 1) {
        if (f.type == NMP_F_STRS) {
            size_t pos = 0;
            const uint8_t *s;
            uint32_t sl;
            while (nmp_field_strs_next(&f, &pos, &s, &sl) == 1) {
            }
        }
    }
    for (const nmp_kind *const *k = nmp_kinds; *k; k++) {
        _Alignas(max_align_t) unsigned char spec[1024];
        if ((*k)->spec_size > sizeof(spec)) continue;
        nmp_spec_unpack(*k, data, size, spec, err, sizeof(err));
        nmp_spec_free(*k, spec);
    }
    return 0;
}
