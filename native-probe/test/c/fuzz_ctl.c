/* fuzz_ctl.c -- libFuzzer target for everything a peer's control line goes
 * through: nmp_ctl_parse, the SESSION, RESERVE and RELEASE decoders (and
 * a reservation in a calendar), the text codec and the line
 * buffer. Built with -DNMP_FUZZ=ON and clang; run e.g.
 *   ./fuzz_ctl -max_total_time=60 -max_len=600 */
#include <stdint.h>
#include <string.h>

#include "nmp_calendar.h"
#include "nmp_net.h"
#include "nmprobe.h"

static nmp_cal cal; /* static: too big for the stack of every run */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[NMP_ERRLEN], dec[NMP_CTL_VALMAX + 1], line[NMP_CTL_MAXLINE + 1];
    nmp_ctl_msg m;
    nmp_session_req req;
    nmp_limits lim;
    nmp_limits_default(&lim);
    if (nmp_ctl_parse((const char *)data, size, &m, err, sizeof(err)) == 0) {
        nmp_ctl_session_decode(&m, &lim, &req, err, sizeof(err));
        nmp_cal_req q;
        nmp_cal_grant g;
        uint32_t id;
        if (nmp_cal_decode_reserve(&m, &q, err, sizeof(err)) == 0) {
            nmp_cal_init(&cal, 1);
            nmp_cal_reserve(&cal, q.start_ms, 0, &q, "fuzz", &g, err, sizeof(err));
        }
        nmp_cal_decode_release(&m, &id, err, sizeof(err));
        for (int i = 0; i < m.nkv; i++) {
            uint64_t v;
            nmp_ctl_get_u64(&m, m.key[i], 0, UINT64_MAX, &v, err, sizeof(err));
            nmp_ctl_text_decode(dec, sizeof(dec), m.val[i]);
        }
    }
    /* the same bytes through the line buffer, in two pieces */
    nmp_linebuf lb = {.len = 0};
    size_t half = size / 2, fed = 0;
    while (fed < size) {
        size_t n = fed == 0 ? half : size - fed;
        if (n > sizeof(lb.buf) - 1 - lb.len) n = sizeof(lb.buf) - 1 - lb.len;
        if (n == 0) break;
        memcpy(lb.buf + lb.len, data + fed, n);
        lb.len += n;
        fed += n;
        size_t len;
        while (nmp_linebuf_take(&lb, line, &len) == 1) nmp_ctl_parse(line, len, &m, err, sizeof(err));
    }
    char text[256];
    size_t tn = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
    memcpy(text, data, tn);
    text[tn] = '\0';
    nmp_ctl_text_encode(dec, text);
    return 0;
}
