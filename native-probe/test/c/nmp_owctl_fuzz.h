/* nmp_owctl_fuzz.h -- one OWAMP/TWAMP control input through the parsers, for
 * the libFuzzer target (fuzz_owctl.c) and for the seed corpus check in
 * test_owamp. An input is a selector octet then the bytes of one message;
 * the selector names the parser, and every input also goes through the
 * length reader, the Stop-Sessions walk and an HMAC check of the stream. */
#ifndef NMP_OWCTL_FUZZ_H
#define NMP_OWCTL_FUZZ_H

#include <string.h>

#include "nmp_owctl.h"

enum {
    SEL_GREETING, SEL_SETUP, SEL_SERVER_START, SEL_REQUEST, SEL_SLOT, SEL_ACCEPT, SEL_START_ACK, SEL_STOP,
    SEL_FETCH, SEL_FETCH_ACK, SEL_RECORD, SEL_TEST, SEL_REFL, SEL_PFS, SEL_N
};

/* Runs data through the parser its first octet selects (and the others that
 * read any message). Returns that parser's result: 0 when it accepted. */
static inline int nmp_owctl_fuzz_one(const uint8_t *data, size_t size) {
    char err[256];
    if (size < 1) return -1;
    const uint8_t *b = data + 1;
    size_t n = size - 1;
    int rc = -1;
    union {
        nmp_ow_greeting g;
        nmp_ow_setup s;
        nmp_ow_server_start ss;
        nmp_ow_request r;
        nmp_ow_slot sl;
        nmp_ow_accept a;
        nmp_ow_fetch f;
        nmp_ow_fetch_ack fa;
        nmp_ow_record rec;
        nmp_ow_test_pkt t;
        nmp_ow_refl_pkt rp;
        nmp_ow_stop_session st;
        uint8_t key[1024];
    } u;
    static const nmp_ow_test_keys tk = {.aes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
    uint8_t acc;
    uint32_t ns;
    switch (data[0] % SEL_N) {
    case SEL_GREETING: rc = nmp_ow_greeting_decode(b, n, &u.g, err, sizeof(err)); break;
    case SEL_SETUP: rc = nmp_ow_setup_decode(b, n, &u.s, err, sizeof(err)); break;
    case SEL_SERVER_START: rc = nmp_ow_server_start_decode(b, n, &u.ss, err, sizeof(err)); break;
    case SEL_REQUEST:
        rc = nmp_ow_request_decode(b, n, &u.r, err, sizeof(err));
        if (rc == 0 && u.r.cmd == NMP_OW_CMD_REQUEST_SESSION)
            for (uint32_t i = 0; i < u.r.nslots && NMP_OW_REQUEST_LEN + 16 * (size_t)(i + 1) <= n && rc == 0; i++)
                rc = nmp_ow_slot_decode(b + NMP_OW_REQUEST_LEN + 16 * (size_t)i, 16, &u.sl, err, sizeof(err));
        break;
    case SEL_SLOT: rc = nmp_ow_slot_decode(b, n, &u.sl, err, sizeof(err)); break;
    case SEL_ACCEPT: rc = nmp_ow_accept_decode(b, n, &u.a, err, sizeof(err)); break;
    case SEL_START_ACK: rc = nmp_ow_start_ack_decode(b, n, &acc, err, sizeof(err)); break;
    case SEL_STOP:
        rc = nmp_ow_stop_header_decode(b, n, &acc, &ns, err, sizeof(err));
        for (uint32_t i = 0; rc == 0 && i < ns; i++) rc = nmp_ow_stop_session_at(b, n, i, &u.st, err, sizeof(err));
        break;
    case SEL_FETCH: rc = nmp_ow_fetch_decode(b, n, &u.f, err, sizeof(err)); break;
    case SEL_FETCH_ACK: rc = nmp_ow_fetch_ack_decode(b, n, &u.fa, err, sizeof(err)); break;
    case SEL_RECORD: rc = nmp_ow_record_decode(b, n, &u.rec); break;
    case SEL_TEST:
        rc = nmp_ow_test_decode(b, n, &u.t, NMP_OW_MODE_OPEN, &tk);
        nmp_ow_test_decode(b, n, &u.t, NMP_OW_MODE_AUTH, &tk);
        nmp_ow_test_decode(b, n, &u.t, NMP_OW_MODE_ENCRYPTED, &tk);
        break;
    case SEL_REFL:
        rc = nmp_ow_refl_decode(b, n, &u.rp, NMP_OW_MODE_OPEN, &tk);
        nmp_ow_refl_decode(b, n, &u.rp, NMP_OW_MODE_ENCRYPTED, &tk);
        break;
    case SEL_PFS: rc = nmp_ow_pfs_lookup((const char *)b, n, "alice", u.key, sizeof(u.key), err, sizeof(err)) > 0 ? 0 : -1;
        break;
    }
    /* whatever it is, as the start of a client's message to either server */
    nmp_ow_client_msg_len(0, b, n);
    nmp_ow_client_msg_len(1, b, n);
    /* and as a protected stream: decrypt whole blocks, check an HMAC at its end */
    uint8_t buf[4096];
    size_t m = n / 16 * 16;
    if (m > sizeof(buf)) m = sizeof(buf);
    if (m >= 32) {
        nmp_ow_cipher c;
        memset(&c, 0, sizeof(c));
        c.on = 1;
        memcpy(buf, b, m);
        size_t at = m - 16;
        nmp_ow_decrypt(&c, buf, m);
        nmp_ow_verify(&c, buf, m, &at, 1);
    }
    return rc;
}

#endif
