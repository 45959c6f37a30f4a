/* nmp_owctl.c -- OWAMP / TWAMP control messages, security modes and test
 * packets (see nmp_owctl.h). The cryptography is OpenSSL's (PBKDF2, AES,
 * HMAC-SHA1): nothing of it is written here; only the RFCs' framing is. */
#define _GNU_SOURCE
#include "nmp_owctl.h"
#include "nmp_pfs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "nmprobe.h"
#include "nmp_stamp.h"

#include "nmp_be.h"

static int zero(const uint8_t *b, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= b[i];
    return acc == 0;
}

static int short_msg(const char *what, size_t len, size_t want, char *err, size_t errlen) {
    nmp_seterr(err, errlen, "%s: %zu octets, want %zu", what, len, want);
    return -EINVAL;
}

/* ---- time ---- */

uint64_t nmp_ow_ts_from_wall(nmp_walltime_ns t) { return nmp_stamp_ts_from_wall(t, NMP_STAMP_NTP); }

nmp_walltime_ns nmp_ow_ts_to_wall(uint64_t ts, nmp_walltime_ns near) {
    return nmp_stamp_ts_to_wall(ts, NMP_STAMP_NTP, near);
}

uint64_t nmp_ow_dur_from_ns(uint64_t ns) {
    uint64_t s = ns / 1000000000ull, frac = ns % 1000000000ull;
    if (s >= 0xFFFFFFFFull) return UINT64_MAX;
    return s << 32 | (frac * 4294967296ull + 500000000ull) / 1000000000ull;
}

uint64_t nmp_ow_dur_to_ns(uint64_t v) {
    uint64_t s = v >> 32, frac = v & 0xFFFFFFFFull;
    return s * 1000000000ull + ((frac * 1000000000ull + 2147483648ull) >> 32);
}

uint16_t nmp_ow_error_encode(int synchronised, double error_s) {
    /* Z = 0: OWAMP and TWAMP timestamps are NTP */
    return nmp_stamp_error_encode(synchronised, NMP_STAMP_NTP, error_s);
}

double nmp_ow_error_decode(uint16_t e, int *synchronised) { return nmp_stamp_error_decode(e, synchronised, NULL); }

uint16_t nmp_ow_local_error(void) { return nmp_stamp_local_error(NMP_STAMP_NTP); }

/* ---- control messages ---- */

void nmp_ow_greeting_encode(uint8_t out[NMP_OW_GREETING_LEN], const nmp_ow_greeting *g) {
    memset(out, 0, NMP_OW_GREETING_LEN);
    put32(out + 12, g->modes);
    memcpy(out + 16, g->challenge, 16);
    memcpy(out + 32, g->salt, 16);
    put32(out + 48, g->count);
}

int nmp_ow_greeting_decode(const uint8_t *b, size_t len, nmp_ow_greeting *g, char *err, size_t errlen) {
    if (len != NMP_OW_GREETING_LEN) return short_msg("Server-Greeting", len, NMP_OW_GREETING_LEN, err, errlen);
    g->modes = get32(b + 12);
    memcpy(g->challenge, b + 16, 16);
    memcpy(g->salt, b + 32, 16);
    g->count = get32(b + 48);
    if ((g->modes & 0xF) == 0) {
        /* RFC 4656 3.1: Modes 0 means the server will not talk to this client */
        nmp_seterr(err, errlen, "Server-Greeting: the server offers no mode (Modes 0x%x): it refuses this client",
                   g->modes);
        return -EACCES;
    }
    if ((g->modes & (NMP_OW_MODE_AUTH | NMP_OW_MODE_ENCRYPTED | NMP_OW_MODE_MIXED)) &&
        (g->count < NMP_OW_COUNT_MIN || g->count > NMP_OW_COUNT_MAX)) {
        nmp_seterr(err, errlen, "Server-Greeting: Count %u is outside %u..%u", g->count, NMP_OW_COUNT_MIN,
                   NMP_OW_COUNT_MAX);
        return -EINVAL;
    }
    return 0;
}

void nmp_ow_setup_encode(uint8_t out[NMP_OW_SETUP_LEN], const nmp_ow_setup *s) {
    put32(out, s->mode);
    memcpy(out + 4, s->keyid, NMP_OW_KEYID_LEN);
    memcpy(out + 84, s->token, NMP_OW_TOKEN_LEN);
    memcpy(out + 148, s->client_iv, 16);
}

int nmp_ow_setup_decode(const uint8_t *b, size_t len, nmp_ow_setup *s, char *err, size_t errlen) {
    if (len != NMP_OW_SETUP_LEN) return short_msg("Set-Up-Response", len, NMP_OW_SETUP_LEN, err, errlen);
    s->mode = get32(b);
    memcpy(s->keyid, b + 4, NMP_OW_KEYID_LEN);
    memcpy(s->token, b + 84, NMP_OW_TOKEN_LEN);
    memcpy(s->client_iv, b + 148, 16);
    if (s->mode != NMP_OW_MODE_OPEN && s->mode != NMP_OW_MODE_AUTH && s->mode != NMP_OW_MODE_ENCRYPTED &&
        s->mode != NMP_OW_MODE_MIXED) {
        nmp_seterr(err, errlen, "Set-Up-Response: Mode 0x%x is not one mode", s->mode);
        return -EINVAL;
    }
    return 0;
}

void nmp_ow_server_start_encode(uint8_t out[NMP_OW_SERVER_START_LEN], const nmp_ow_server_start *s) {
    memset(out, 0, NMP_OW_SERVER_START_LEN);
    out[15] = s->accept;
    memcpy(out + 16, s->server_iv, 16);
    put64(out + 32, s->start_time);
}

int nmp_ow_server_start_decode(const uint8_t *b, size_t len, nmp_ow_server_start *s, char *err, size_t errlen) {
    if (len != NMP_OW_SERVER_START_LEN) return short_msg("Server-Start", len, NMP_OW_SERVER_START_LEN, err, errlen);
    s->accept = b[15];
    memcpy(s->server_iv, b + 16, 16);
    s->start_time = get64(b + 32);
    if (s->accept > NMP_OW_ACCEPT_TEMPORARY) {
        nmp_seterr(err, errlen, "Server-Start: Accept %u is not a defined value", s->accept);
        return -EINVAL;
    }
    return 0;
}

void nmp_ow_request_encode(uint8_t out[NMP_OW_REQUEST_LEN], const nmp_ow_request *r) {
    memset(out, 0, NMP_OW_REQUEST_LEN);
    out[0] = r->cmd;
    out[1] = r->ipvn & 0x0F;
    out[2] = r->conf_sender;
    out[3] = r->conf_receiver;
    put32(out + 4, r->nslots);
    put32(out + 8, r->npackets);
    put16(out + 12, r->sender_port);
    put16(out + 14, r->receiver_port);
    memcpy(out + 16, r->sender_addr, r->ipvn == 6 ? 16 : 4);
    memcpy(out + 32, r->receiver_addr, r->ipvn == 6 ? 16 : 4);
    memcpy(out + 48, r->sid, 16);
    put32(out + 64, r->padding);
    put64(out + 68, r->start_time);
    put64(out + 76, r->timeout);
    put32(out + 84, r->type_p);
}

int nmp_ow_request_decode(const uint8_t *b, size_t len, nmp_ow_request *r, char *err, size_t errlen) {
    if (len < NMP_OW_REQUEST_LEN) return short_msg("Request-Session", len, NMP_OW_REQUEST_LEN, err, errlen);
    memset(r, 0, sizeof(*r));
    r->cmd = b[0];
    r->ipvn = b[1] & 0x0F;
    r->conf_sender = b[2];
    r->conf_receiver = b[3];
    r->nslots = get32(b + 4);
    r->npackets = get32(b + 8);
    r->sender_port = get16(b + 12);
    r->receiver_port = get16(b + 14);
    memcpy(r->sender_addr, b + 16, 16);
    memcpy(r->receiver_addr, b + 32, 16);
    memcpy(r->sid, b + 48, 16);
    r->padding = get32(b + 64);
    r->start_time = get64(b + 68);
    r->timeout = get64(b + 76);
    r->type_p = get32(b + 84);
    if (r->cmd != NMP_OW_CMD_REQUEST_SESSION && r->cmd != NMP_OW_CMD_REQUEST_TW_SESSION) {
        nmp_seterr(err, errlen, "Request-Session: command %u", r->cmd);
        return -EINVAL;
    }
    if (r->ipvn != 4 && r->ipvn != 6) {
        nmp_seterr(err, errlen, "Request-Session: IP version %u", r->ipvn);
        return -EPROTONOSUPPORT;
    }
    if (r->cmd == NMP_OW_CMD_REQUEST_TW_SESSION) {
        if (r->conf_sender || r->conf_receiver || r->nslots || r->npackets) {
            nmp_seterr(err, errlen, "Request-TW-Session: Conf-Sender, Conf-Receiver, slots and packets must be zero");
            return -EINVAL;
        }
        return 0;
    }
    if ((r->conf_sender != 0) == (r->conf_receiver != 0) || r->conf_sender > 1 || r->conf_receiver > 1) {
        nmp_seterr(err, errlen, "Request-Session: the server must be exactly one of sender and receiver");
        return -EINVAL;
    }
    if (r->nslots < 1 || r->nslots > NMP_OW_MAX_SLOTS || r->npackets < 1) {
        nmp_seterr(err, errlen, "Request-Session: %u slots (1..%d) and %u packets (at least 1)", r->nslots,
                   NMP_OW_MAX_SLOTS, r->npackets);
        return -EINVAL;
    }
    return 0;
}

void nmp_ow_slot_encode(uint8_t out[NMP_OW_BLOCK], const nmp_ow_slot *s) {
    memset(out, 0, NMP_OW_BLOCK);
    out[0] = s->type;
    put64(out + 8, s->param);
}

int nmp_ow_slot_decode(const uint8_t *b, size_t len, nmp_ow_slot *s, char *err, size_t errlen) {
    if (len < NMP_OW_BLOCK) return short_msg("schedule slot", len, NMP_OW_BLOCK, err, errlen);
    s->type = b[0];
    s->param = get64(b + 8);
    if (s->type > 1) {
        nmp_seterr(err, errlen, "schedule slot type %u (0 exponential, 1 fixed)", s->type);
        return -EINVAL;
    }
    return 0;
}

void nmp_ow_accept_encode(uint8_t out[NMP_OW_ACCEPT_LEN], const nmp_ow_accept *a) {
    memset(out, 0, NMP_OW_ACCEPT_LEN);
    out[0] = a->accept;
    put16(out + 2, a->port);
    memcpy(out + 4, a->sid, 16);
}

int nmp_ow_accept_decode(const uint8_t *b, size_t len, nmp_ow_accept *a, char *err, size_t errlen) {
    if (len != NMP_OW_ACCEPT_LEN) return short_msg("Accept-Session", len, NMP_OW_ACCEPT_LEN, err, errlen);
    a->accept = b[0];
    a->port = get16(b + 2);
    memcpy(a->sid, b + 4, 16);
    if (a->accept > NMP_OW_ACCEPT_TEMPORARY) {
        nmp_seterr(err, errlen, "Accept-Session: Accept %u is not a defined value", a->accept);
        return -EINVAL;
    }
    return 0;
}

void nmp_ow_start_encode(uint8_t out[NMP_OW_START_LEN]) {
    memset(out, 0, NMP_OW_START_LEN);
    out[0] = NMP_OW_CMD_START_SESSIONS;
}

void nmp_ow_start_ack_encode(uint8_t out[NMP_OW_START_LEN], uint8_t accept) {
    memset(out, 0, NMP_OW_START_LEN);
    out[0] = accept;
}

int nmp_ow_start_ack_decode(const uint8_t *b, size_t len, uint8_t *accept, char *err, size_t errlen) {
    if (len != NMP_OW_START_LEN) return short_msg("Start-Ack", len, NMP_OW_START_LEN, err, errlen);
    *accept = b[0];
    if (*accept > NMP_OW_ACCEPT_TEMPORARY) {
        nmp_seterr(err, errlen, "Start-Ack: Accept %u is not a defined value", *accept);
        return -EINVAL;
    }
    return 0;
}

void nmp_ow_stop_header_encode(uint8_t out[NMP_OW_BLOCK], uint8_t accept, uint32_t nsessions) {
    memset(out, 0, NMP_OW_BLOCK);
    out[0] = NMP_OW_CMD_STOP_SESSIONS;
    out[1] = accept;
    put32(out + 4, nsessions);
}

int nmp_ow_stop_header_decode(const uint8_t *b, size_t len, uint8_t *accept, uint32_t *nsessions, char *err,
                              size_t errlen) {
    if (len < NMP_OW_BLOCK) return short_msg("Stop-Sessions", len, NMP_OW_BLOCK, err, errlen);
    if (b[0] != NMP_OW_CMD_STOP_SESSIONS) {
        nmp_seterr(err, errlen, "Stop-Sessions: command %u", b[0]);
        return -EINVAL;
    }
    *accept = b[1];
    *nsessions = get32(b + 4);
    if (*accept > NMP_OW_ACCEPT_TEMPORARY || *nsessions > NMP_OW_MAX_STOP_SESSIONS) {
        nmp_seterr(err, errlen, "Stop-Sessions: Accept %u (0..5), %u sessions (at most %d)", *accept, *nsessions,
                   NMP_OW_MAX_STOP_SESSIONS);
        return -EINVAL;
    }
    return 0;
}

/* Bytes of a session description with n skip ranges. */
static size_t stop_desc_len(uint32_t nskips) { return 16 + ((8 + 8 * (size_t)nskips + 15) / 16) * 16; }

long nmp_ow_stop_session_encode(uint8_t *out, size_t cap, const uint8_t sid[16], uint32_t next_seqno,
                                const uint32_t *skips, uint32_t nskips) {
    size_t n = stop_desc_len(nskips);
    if (n > cap || nskips > NMP_OW_MAX_SKIPS) return -EMSGSIZE;
    memset(out, 0, n);
    memcpy(out, sid, 16);
    put32(out + 16, next_seqno);
    put32(out + 20, nskips);
    for (uint32_t i = 0; i < nskips; i++) put32(out + 24 + 8 * i, skips[2 * i]), put32(out + 28 + 8 * i, skips[2 * i + 1]);
    return (long)n;
}

int nmp_ow_stop_session_at(const uint8_t *b, size_t len, uint32_t idx, nmp_ow_stop_session *s, char *err,
                           size_t errlen) {
    uint8_t accept;
    uint32_t ns;
    int rc = nmp_ow_stop_header_decode(b, len, &accept, &ns, err, errlen);
    if (rc < 0) return rc;
    if (idx >= ns) {
        nmp_seterr(err, errlen, "Stop-Sessions: no session %u of %u", idx, ns);
        return -ENOENT;
    }
    size_t off = NMP_OW_BLOCK;
    for (uint32_t i = 0;; i++) {
        if (len < off + 32) return short_msg("Stop-Sessions session description", len - off, 32, err, errlen);
        uint32_t nskips = get32(b + off + 20);
        if (nskips > NMP_OW_MAX_SKIPS) {
            nmp_seterr(err, errlen, "Stop-Sessions: %u skip ranges (at most %d)", nskips, NMP_OW_MAX_SKIPS);
            return -EMSGSIZE;
        }
        size_t dl = stop_desc_len(nskips);
        if (len < off + dl) return short_msg("Stop-Sessions skip ranges", len - off, dl, err, errlen);
        if (i == idx) {
            memcpy(s->sid, b + off, 16);
            s->next_seqno = get32(b + off + 16);
            s->nskips = nskips;
            s->skips = b + off + 24;
            uint32_t prev_last = 0;
            for (uint32_t k = 0; k < nskips; k++) {
                uint32_t first = get32(s->skips + 8 * k), last = get32(s->skips + 8 * k + 4);
                if (last < first || (k > 0 && first <= prev_last) || last >= s->next_seqno) {
                    nmp_seterr(err, errlen, "Stop-Sessions: skip range %u (%u..%u) out of order or past Next Seqno %u",
                               k, first, last, s->next_seqno);
                    return -EINVAL;
                }
                prev_last = last;
            }
            size_t used = 24 + 8 * (size_t)nskips;
            if (!zero(b + off + used, dl - used)) {
                nmp_seterr(err, errlen, "Stop-Sessions: padding after the skip ranges is not zero");
                return -EINVAL;
            }
            return 0;
        }
        off += dl;
    }
}

void nmp_ow_fetch_encode(uint8_t out[NMP_OW_FETCH_LEN], const nmp_ow_fetch *f) {
    memset(out, 0, NMP_OW_FETCH_LEN);
    out[0] = NMP_OW_CMD_FETCH_SESSION;
    put32(out + 8, f->begin);
    put32(out + 12, f->end);
    memcpy(out + 16, f->sid, 16);
}

int nmp_ow_fetch_decode(const uint8_t *b, size_t len, nmp_ow_fetch *f, char *err, size_t errlen) {
    if (len != NMP_OW_FETCH_LEN) return short_msg("Fetch-Session", len, NMP_OW_FETCH_LEN, err, errlen);
    if (b[0] != NMP_OW_CMD_FETCH_SESSION) {
        nmp_seterr(err, errlen, "Fetch-Session: command %u", b[0]);
        return -EINVAL;
    }
    f->begin = get32(b + 8);
    f->end = get32(b + 12);
    memcpy(f->sid, b + 16, 16);
    if (f->end < f->begin) {
        nmp_seterr(err, errlen, "Fetch-Session: End Seq %u before Begin Seq %u", f->end, f->begin);
        return -EINVAL;
    }
    return 0;
}

void nmp_ow_fetch_ack_encode(uint8_t out[NMP_OW_FETCH_ACK_LEN], const nmp_ow_fetch_ack *a) {
    memset(out, 0, NMP_OW_FETCH_ACK_LEN);
    out[0] = a->accept;
    out[1] = a->finished;
    put32(out + 4, a->next_seqno);
    put32(out + 8, a->nskips);
    put32(out + 12, a->nrecords);
}

int nmp_ow_fetch_ack_decode(const uint8_t *b, size_t len, nmp_ow_fetch_ack *a, char *err, size_t errlen) {
    if (len != NMP_OW_FETCH_ACK_LEN) return short_msg("Fetch-Ack", len, NMP_OW_FETCH_ACK_LEN, err, errlen);
    a->accept = b[0];
    a->finished = b[1];
    a->next_seqno = get32(b + 4);
    a->nskips = get32(b + 8);
    a->nrecords = get32(b + 12);
    if (a->accept > NMP_OW_ACCEPT_TEMPORARY || a->nskips > NMP_OW_MAX_SKIPS) {
        nmp_seterr(err, errlen, "Fetch-Ack: Accept %u (0..5), %u skip ranges (at most %d)", a->accept, a->nskips,
                   NMP_OW_MAX_SKIPS);
        return -EINVAL;
    }
    return 0;
}

/* Record layout (owamp's version 3): seq 0, send error 4, receive error 6,
 * send timestamp 8, receive timestamp 16, TTL 24. */
void nmp_ow_record_encode(uint8_t out[NMP_OW_RECORD_LEN], const nmp_ow_record *r) {
    put32(out, r->seq);
    put16(out + 4, r->send_error);
    put16(out + 6, r->recv_error);
    put64(out + 8, r->send_ts);
    put64(out + 16, r->recv_ts);
    out[24] = r->ttl;
}

int nmp_ow_record_decode(const uint8_t *b, size_t len, nmp_ow_record *r) {
    if (len < NMP_OW_RECORD_LEN) return -EINVAL;
    r->seq = get32(b);
    r->send_error = get16(b + 4);
    r->recv_error = get16(b + 6);
    r->send_ts = get64(b + 8);
    r->recv_ts = get64(b + 16);
    r->ttl = b[24];
    return 0;
}

long nmp_ow_client_msg_len(int twamp, const uint8_t *b, size_t have) {
    if (have < 1) return 0;
    switch (b[0]) {
    case NMP_OW_CMD_REQUEST_SESSION:
        if (twamp) return -EINVAL; /* RFC 5357 3.5: command 1 is forbidden in TWAMP */
        if (have < 8) return 0;
        {
            uint32_t ns = get32(b + 4);
            if (ns > NMP_OW_MAX_SLOTS) return -EMSGSIZE;
            return (long)(NMP_OW_REQUEST_LEN + NMP_OW_BLOCK * ((size_t)ns + 1));
        }
    case NMP_OW_CMD_REQUEST_TW_SESSION:
        return twamp ? NMP_OW_REQUEST_LEN : -EINVAL;
    case NMP_OW_CMD_START_SESSIONS: return NMP_OW_START_LEN;
    case NMP_OW_CMD_FETCH_SESSION: return twamp ? -EINVAL : NMP_OW_FETCH_LEN;
    case NMP_OW_CMD_STOP_SESSIONS:
        if (twamp) return NMP_OW_START_LEN;
        if (have < 8) return 0;
        {
            uint32_t ns = get32(b + 4);
            if (ns > NMP_OW_MAX_STOP_SESSIONS) return -EMSGSIZE;
            size_t off = NMP_OW_BLOCK;
            for (uint32_t i = 0; i < ns; i++) {
                if (have < off + 24) return 0;
                uint32_t nskips = get32(b + off + 20);
                if (nskips > NMP_OW_MAX_SKIPS) return -EMSGSIZE;
                off += stop_desc_len(nskips);
            }
            return (long)(off + NMP_OW_HMAC_LEN);
        }
    default: return -EINVAL;
    }
}

/* ---- security modes ---- */

/* AES-128 over len bytes (a multiple of 16) with iv (NULL: ECB), updating iv
 * to the last ciphertext block. OpenSSL's EVP, padding off. */
static int aes(int enc, const uint8_t key[16], uint8_t *iv, uint8_t *buf, size_t len) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = 0, outl = 0, fin = 0;
    uint8_t last[16];
    if (ctx == NULL || len % 16 != 0) goto end;
    if (!enc && iv && len) memcpy(last, buf + len - 16, 16); /* decryption: next IV is this ciphertext */
    if (EVP_CipherInit_ex(ctx, iv ? EVP_aes_128_cbc() : EVP_aes_128_ecb(), NULL, key, iv, enc) != 1) goto end;
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    if (len && EVP_CipherUpdate(ctx, buf, &outl, buf, (int)len) != 1) goto end;
    if (EVP_CipherFinal_ex(ctx, buf + outl, &fin) != 1) goto end;
    if (iv && len) memcpy(iv, enc ? buf + len - 16 : last, 16);
    ok = 1;
end:
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -EIO;
}

/* PBKDF2-HMAC-SHA1 of the shared secret into the 16-octet Token key. */
static int token_key(const uint8_t *secret, size_t secretlen, const nmp_ow_greeting *g, uint8_t dk[16]) {
    if (g->count < 1 || g->count > NMP_OW_COUNT_MAX) return -EINVAL;
    return PKCS5_PBKDF2_HMAC_SHA1((const char *)secret, (int)secretlen, g->salt, 16, (int)g->count, 16, dk) == 1
               ? 0 : -EIO;
}

int nmp_ow_token_make(const uint8_t *secret, size_t secretlen, const nmp_ow_greeting *g, const nmp_ow_keys *k,
                      uint8_t token[NMP_OW_TOKEN_LEN]) {
    uint8_t dk[16], iv[16] = {0};
    int rc = token_key(secret, secretlen, g, dk);
    if (rc == 0) {
        memcpy(token, g->challenge, 16);
        memcpy(token + 16, k->aes, 16);
        memcpy(token + 32, k->hmac, 32);
        rc = aes(1, dk, iv, token, NMP_OW_TOKEN_LEN);
    }
    OPENSSL_cleanse(dk, sizeof(dk));
    return rc;
}

int nmp_ow_token_open(const uint8_t *secret, size_t secretlen, const nmp_ow_greeting *g,
                      const uint8_t token[NMP_OW_TOKEN_LEN], nmp_ow_keys *k) {
    uint8_t dk[16], iv[16] = {0}, plain[NMP_OW_TOKEN_LEN];
    int rc = token_key(secret, secretlen, g, dk);
    if (rc == 0) {
        memcpy(plain, token, sizeof(plain));
        rc = aes(0, dk, iv, plain, sizeof(plain));
    }
    if (rc == 0 && CRYPTO_memcmp(plain, g->challenge, 16) != 0) rc = -EACCES;
    if (rc == 0) memcpy(k->aes, plain + 16, 16), memcpy(k->hmac, plain + 32, 32);
    OPENSSL_cleanse(dk, sizeof(dk));
    OPENSSL_cleanse(plain, sizeof(plain));
    return rc;
}

int nmp_ow_encrypt(nmp_ow_cipher *c, uint8_t *buf, size_t len) {
    return c->on ? aes(1, c->keys.aes, c->send_iv, buf, len) : 0;
}

int nmp_ow_decrypt(nmp_ow_cipher *c, uint8_t *buf, size_t len) {
    return c->on ? aes(0, c->keys.aes, c->recv_iv, buf, len) : 0;
}

/* HMAC-SHA1 of carry || data, truncated to 16 octets. */
static int hmac16(const uint8_t *key, size_t keylen, const uint8_t *carry, size_t carrylen, const uint8_t *data,
                  size_t len, uint8_t out[16]) {
    uint8_t md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    uint8_t *joined = NULL;
    const uint8_t *p = data;
    size_t n = len;
    if (carrylen) {
        /* one-shot HMAC over the carried block and this segment; a control message is small */
        if ((joined = malloc(carrylen + len)) == NULL) return -ENOMEM;
        memcpy(joined, carry, carrylen);
        memcpy(joined + carrylen, data, len);
        p = joined, n = carrylen + len;
    }
    int ok = HMAC(EVP_sha1(), key, (int)keylen, p, n, md, &mdlen) != NULL && mdlen >= 16;
    free(joined);
    if (!ok) return -EIO;
    memcpy(out, md, 16);
    return 0;
}

int nmp_ow_seal(nmp_ow_cipher *c, uint8_t *msg, size_t len, const size_t *hmac_at, int nh) {
    size_t from = 0;
    if (len % NMP_OW_BLOCK) return -EINVAL;
    for (int i = 0; i < nh; i++) {
        size_t at = hmac_at[i];
        if (at < from || at + NMP_OW_HMAC_LEN > len) return -EINVAL;
        if (!c->on) memset(msg + at, 0, NMP_OW_HMAC_LEN);
        else {
            int rc = hmac16(c->keys.hmac, 32, c->send_carry, c->send_carry_len, msg + from, at - from, msg + at);
            if (rc < 0) return rc;
            c->send_carry_len = 0;
        }
        from = at + NMP_OW_HMAC_LEN;
    }
    return nmp_ow_encrypt(c, msg, len);
}

int nmp_ow_verify(nmp_ow_cipher *c, const uint8_t *msg, size_t len, const size_t *hmac_at, int nh) {
    size_t from = 0;
    if (!c->on) return 0; /* unauthenticated mode: nothing to check */
    for (int i = 0; i < nh; i++) {
        size_t at = hmac_at[i];
        uint8_t want[16];
        if (at < from || at + NMP_OW_HMAC_LEN > len) return -EINVAL;
        int rc = hmac16(c->keys.hmac, 32, c->recv_carry, c->recv_carry_len, msg + from, at - from, want);
        if (rc < 0) return rc;
        c->recv_carry_len = 0;
        if (CRYPTO_memcmp(want, msg + at, 16) != 0) return -EBADMSG;
        from = at + NMP_OW_HMAC_LEN;
    }
    return 0;
}

/* ---- test packets ---- */

int nmp_ow_test_keys_make(const nmp_ow_keys *k, const uint8_t sid[16], nmp_ow_test_keys *tk) {
    memcpy(tk->aes, sid, 16);
    memcpy(tk->hmac, k->hmac, 32);
    return aes(1, k->aes, NULL, tk->aes, 16);
}

uint32_t nmp_ow_test_mode(uint32_t control_mode) {
    return control_mode == NMP_OW_MODE_MIXED ? NMP_OW_MODE_OPEN : control_mode;
}

size_t nmp_ow_test_hdr_len(uint32_t test_mode) {
    return test_mode == NMP_OW_MODE_OPEN ? NMP_OW_TEST_OPEN_LEN : NMP_OW_TEST_AUTH_LEN;
}

size_t nmp_ow_refl_hdr_len(uint32_t test_mode) {
    return test_mode == NMP_OW_MODE_OPEN ? NMP_OW_TW_REFL_OPEN_LEN : NMP_OW_TW_REFL_AUTH_LEN;
}

/* Protects the first 'blocks' blocks of an authenticated-layout packet: the
 * HMAC (at hmac_off) over the plaintext blocks it covers, then AES: the first
 * block alone (ECB) in authenticated mode, all of them in CBC with a zero IV
 * in encrypted mode. owamp's endpoint.c MACs one block in authenticated mode. */
static int protect(uint8_t *buf, size_t blocks, size_t hmac_off, uint32_t mode, const nmp_ow_test_keys *tk) {
    size_t covered = mode == NMP_OW_MODE_AUTH ? 16 : blocks * 16;
    int rc = hmac16(tk->hmac, 32, NULL, 0, buf, covered, buf + hmac_off);
    if (rc < 0) return rc;
    uint8_t iv[16] = {0};
    return mode == NMP_OW_MODE_AUTH ? aes(1, tk->aes, NULL, buf, 16) : aes(1, tk->aes, iv, buf, blocks * 16);
}

/* Undoes protect() on a copy of the header: -EBADMSG when the HMAC does not match. */
static int unprotect(uint8_t *hdr, size_t blocks, size_t hmac_off, uint32_t mode, const nmp_ow_test_keys *tk) {
    uint8_t iv[16] = {0}, want[16];
    int rc = mode == NMP_OW_MODE_AUTH ? aes(0, tk->aes, NULL, hdr, 16) : aes(0, tk->aes, iv, hdr, blocks * 16);
    if (rc < 0) return rc;
    size_t covered = mode == NMP_OW_MODE_AUTH ? 16 : blocks * 16;
    if ((rc = hmac16(tk->hmac, 32, NULL, 0, hdr, covered, want)) < 0) return rc;
    return CRYPTO_memcmp(want, hdr + hmac_off, 16) == 0 ? 0 : -EBADMSG;
}

int nmp_ow_test_encode(uint8_t *buf, size_t len, const nmp_ow_test_pkt *p, uint32_t mode, const nmp_ow_test_keys *tk) {
    if (len < nmp_ow_test_hdr_len(mode)) return -EINVAL;
    if (mode == NMP_OW_MODE_OPEN) {
        put32(buf, p->seq);
        put64(buf + 4, p->ts);
        put16(buf + 12, p->error);
        return 0;
    }
    memset(buf, 0, NMP_OW_TEST_AUTH_LEN);
    put32(buf, p->seq);
    put64(buf + 16, p->ts);
    put16(buf + 24, p->error);
    return protect(buf, 2, 32, mode, tk);
}

int nmp_ow_test_decode(const uint8_t *buf, size_t len, nmp_ow_test_pkt *p, uint32_t mode, const nmp_ow_test_keys *tk) {
    if (len < nmp_ow_test_hdr_len(mode)) return -EINVAL;
    if (mode == NMP_OW_MODE_OPEN) {
        p->seq = get32(buf);
        p->ts = get64(buf + 4);
        p->error = get16(buf + 12);
        return 0;
    }
    uint8_t h[NMP_OW_TEST_AUTH_LEN];
    memcpy(h, buf, sizeof(h));
    int rc = unprotect(h, 2, 32, mode, tk);
    if (rc < 0) return rc;
    p->seq = get32(h);
    p->ts = get64(h + 16);
    p->error = get16(h + 24);
    return 0;
}

/* Reflector layouts. Open (RFC 5357 4.2.1): seq 0, ts 4, error 12, MBZ 14,
 * rx ts 16, sender seq 24, sender ts 28, sender error 36, MBZ 38, TTL 40.
 * Authenticated / encrypted: seq 0, ts 16, error 24, rx ts 32, sender seq 48,
 * sender ts 64, sender error 72, TTL 80, HMAC 96 (six blocks covered). */
int nmp_ow_refl_encode(uint8_t *buf, size_t len, const nmp_ow_refl_pkt *p, uint32_t mode, const nmp_ow_test_keys *tk) {
    if (len < nmp_ow_refl_hdr_len(mode)) return -EINVAL;
    if (mode == NMP_OW_MODE_OPEN) {
        memset(buf, 0, NMP_OW_TW_REFL_OPEN_LEN);
        put32(buf, p->seq);
        put64(buf + 4, p->ts);
        put16(buf + 12, p->error);
        put64(buf + 16, p->rx_ts);
        put32(buf + 24, p->sender_seq);
        put64(buf + 28, p->sender_ts);
        put16(buf + 36, p->sender_error);
        buf[40] = p->sender_ttl;
        return 0;
    }
    memset(buf, 0, NMP_OW_TW_REFL_AUTH_LEN);
    put32(buf, p->seq);
    put64(buf + 16, p->ts);
    put16(buf + 24, p->error);
    put64(buf + 32, p->rx_ts);
    put32(buf + 48, p->sender_seq);
    put64(buf + 64, p->sender_ts);
    put16(buf + 72, p->sender_error);
    buf[80] = p->sender_ttl;
    return protect(buf, 6, 96, mode, tk);
}

int nmp_ow_refl_decode(const uint8_t *buf, size_t len, nmp_ow_refl_pkt *p, uint32_t mode, const nmp_ow_test_keys *tk) {
    if (len < nmp_ow_refl_hdr_len(mode)) return -EINVAL;
    if (mode == NMP_OW_MODE_OPEN) {
        p->seq = get32(buf);
        p->ts = get64(buf + 4);
        p->error = get16(buf + 12);
        p->rx_ts = get64(buf + 16);
        p->sender_seq = get32(buf + 24);
        p->sender_ts = get64(buf + 28);
        p->sender_error = get16(buf + 36);
        p->sender_ttl = buf[40];
        return 0;
    }
    uint8_t h[NMP_OW_TW_REFL_AUTH_LEN];
    memcpy(h, buf, sizeof(h));
    int rc = unprotect(h, 6, 96, mode, tk);
    if (rc < 0) return rc;
    p->seq = get32(h);
    p->ts = get64(h + 16);
    p->error = get16(h + 24);
    p->rx_ts = get64(h + 32);
    p->sender_seq = get32(h + 48);
    p->sender_ts = get64(h + 64);
    p->sender_error = get16(h + 72);
    p->sender_ttl = h[80];
    return 0;
}

/* ---- send schedules ---- */

/* RFC 4656 Appendix A's constants of Knuth's algorithm S: Q[k] = sum over
 * i = 1..k of ln2^i / i!, times 2^32 (the last one held below 2^32). Q[1] is
 * ln 2. Hand-written rather than a library call: the RFC fixes these exact
 * integers so that every implementation draws the same schedule. */
static const uint64_t sched_q[12] = {0,          0xB17217F8, 0xEEF193F7, 0xFD271862, 0xFF9D6DD0, 0xFFF4CFD0,
                                     0xFFFEE819, 0xFFFFE7FF, 0xFFFFFE2B, 0xFFFFFFE0, 0xFFFFFFFE, 0xFFFFFFFF};

/* 32.32 fixed-point product, truncated (as the RFC's 64-bit arithmetic). */
static uint64_t fx_mul(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 32); }

/* The next 32-bit uniform: a fresh AES block every fourth draw, its
 * quarter (counter mod 4) taken; the counter counts draws. */
static uint64_t sched_unif(nmp_ow_sched *s) {
    unsigned q = s->counter[15] & 3u;
    if (q == 0) {
        int outl = 0;
        if (EVP_EncryptUpdate((EVP_CIPHER_CTX *)s->aes, s->out, &outl, s->counter, 16) != 1 || outl != 16)
            memset(s->out, 0, 16); /* cannot happen with a live ECB context; a zero draw keeps the schedule finite */
    }
    for (int j = 15; j >= 0 && ++s->counter[j] == 0; j--) {}
    const uint8_t *b = s->out + 4 * q;
    return (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
}

uint64_t nmp_ow_sched_exp(nmp_ow_sched *s) {
    /* S1: count the leading one bits of U, drop them and the first zero */
    uint64_t u = sched_unif(s), v;
    uint32_t j = 0;
    while ((u & 0x80000000u) && j < 32) u <<= 1, j++;
    u = (u << 1) & 0xFFFFFFFFu;
    /* S2: immediate acceptance */
    if (u < sched_q[1]) return (uint64_t)j * sched_q[1] + u;
    /* S3: the least k >= 2 with U < Q[k]; V the least of k fresh uniforms */
    uint32_t k = 2;
    while (k < 12 && u >= sched_q[k]) k++;
    v = sched_unif(s);
    for (uint32_t i = 2; i <= k; i++) {
        uint64_t w = sched_unif(s);
        if (w < v) v = w;
    }
    /* S4: (j + V) ln 2 */
    return fx_mul(((uint64_t)j << 32) + v, sched_q[1]);
}

int nmp_ow_sched_init(nmp_ow_sched *s, const uint8_t sid[16], const nmp_ow_slot *slots, uint32_t nslots) {
    memset(s, 0, sizeof(*s));
    if (nslots == 0) return -EINVAL;
    for (uint32_t i = 0; i < nslots; i++)
        if (slots[i].type > 1) return -EINVAL;
    if ((s->slots = malloc(nslots * sizeof(*slots))) == NULL) return -ENOMEM;
    memcpy(s->slots, slots, nslots * sizeof(*slots));
    s->nslots = nslots;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (c == NULL || EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), NULL, sid, NULL) != 1) {
        EVP_CIPHER_CTX_free(c);
        free(s->slots);
        memset(s, 0, sizeof(*s));
        return -EIO;
    }
    EVP_CIPHER_CTX_set_padding(c, 0);
    s->aes = c;
    return 0;
}

uint64_t nmp_ow_sched_next(nmp_ow_sched *s) {
    const nmp_ow_slot *sl = &s->slots[s->i++ % s->nslots];
    return sl->type == 1 ? sl->param : fx_mul(nmp_ow_sched_exp(s), sl->param);
}

void nmp_ow_sched_free(nmp_ow_sched *s) {
    EVP_CIPHER_CTX_free((EVP_CIPHER_CTX *)s->aes);
    free(s->slots);
    memset(s, 0, sizeof(*s));
}

/* ---- key file ---- */

/* owampd's pfs files are read by nmp_pfs.c's one reader (line split, hex,
 * file checks); OWAMP's own bounds are kept here: a passphrase of any even
 * number of hex digits up to 2048 (pfstore's), the file up to 1 MiB. */
long nmp_ow_pfs_lookup(const char *text, size_t len, const char *key_id, uint8_t *key, size_t cap, char *err,
                       size_t errlen) {
    size_t idlen = strlen(key_id), pos = 0;
    int lineno = 0;
    long found = -ENOENT;
    if (idlen == 0 || idlen > NMP_OW_KEYID_LEN) {
        nmp_seterr(err, errlen, "key id of %zu octets (1..%d)", idlen, NMP_OW_KEYID_LEN);
        return -EINVAL;
    }
    while (pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *id, *hex;
        size_t ll = nl ? (size_t)(nl - line) : len - pos, idl, hl;
        pos += ll + (nl != NULL);
        lineno++;
        int kind = nmp_pfs_line(line, ll, &id, &idl, &hex, &hl);
        if (kind == 0) continue;
        uint8_t probe[1];
        /* every line is checked, so a typo anywhere in the file is found at once */
        int bad = kind < 0 || hl % 2 || hl > 2048 || idl > NMP_OW_KEYID_LEN;
        for (size_t k = 0; !bad && k + 2 <= hl; k += 2) bad = nmp_pfs_hex(hex + k, 2, probe) < 0;
        if (bad) {
            nmp_seterr(err, errlen, "key file line %d: want \"keyid hexkey\" (an even number of hex digits, at most "
                                    "2048; a key id of at most %d octets)", lineno, NMP_OW_KEYID_LEN);
            return -EINVAL;
        }
        if (found >= 0 || idl != idlen || memcmp(id, key_id, idlen) != 0) continue;
        if (hl / 2 > cap) {
            nmp_seterr(err, errlen, "key file line %d: key of %zu octets is longer than %zu", lineno, hl / 2, cap);
            return -EINVAL;
        }
        nmp_pfs_hex(hex, hl, key);
        found = (long)(hl / 2);
    }
    if (found == -ENOENT) nmp_seterr(err, errlen, "no key for key id \"%s\"", key_id);
    return found;
}

long nmp_ow_pfs_load(const char *path, const char *key_id, uint8_t *key, size_t cap, char *err, size_t errlen) {
    char *text, sub[NMP_ERRLEN];
    size_t n;
    long rc = nmp_pfs_read(path, 1 << 20, &text, &n, err, errlen);
    if (rc < 0) return rc;
    rc = nmp_ow_pfs_lookup(text, n, key_id, key, cap, sub, sizeof(sub));
    if (rc < 0) nmp_seterr(err, errlen, "key file %s: %s", path, sub);
    nmp_pfs_free_text(text, n);
    return rc;
}

const char *nmp_ow_mode_name(uint32_t mode) {
    switch (mode) {
    case NMP_OW_MODE_OPEN: return "open";
    case NMP_OW_MODE_AUTH: return "authenticated";
    case NMP_OW_MODE_ENCRYPTED: return "encrypted";
    case NMP_OW_MODE_MIXED: return "mixed";
    default: return "unknown";
    }
}

uint32_t nmp_ow_mode_parse(const char *name) {
    if (name == NULL) return 0;
    if (strcmp(name, "open") == 0 || strcmp(name, "unauthenticated") == 0) return NMP_OW_MODE_OPEN;
    if (strcmp(name, "authenticated") == 0) return NMP_OW_MODE_AUTH;
    if (strcmp(name, "encrypted") == 0) return NMP_OW_MODE_ENCRYPTED;
    if (strcmp(name, "mixed") == 0) return NMP_OW_MODE_MIXED;
    return 0;
}

const char *nmp_ow_accept_name(int accept) {
    switch (accept) {
    case NMP_OW_ACCEPT_OK: return "OK";
    case NMP_OW_ACCEPT_FAILURE: return "failure, reason unspecified";
    case NMP_OW_ACCEPT_INTERNAL: return "internal error";
    case NMP_OW_ACCEPT_UNSUPPORTED: return "some aspect of the request is not supported";
    case NMP_OW_ACCEPT_PERMANENT: return "cannot perform the request due to permanent resource limitations";
    case NMP_OW_ACCEPT_TEMPORARY: return "cannot perform the request due to temporary resource limitations";
    default: return "undefined Accept value";
    }
}
