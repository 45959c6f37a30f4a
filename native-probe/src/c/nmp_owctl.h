/* nmp_owctl.h -- OWAMP-Control (RFC 4656 section 3) and TWAMP-Control
 * (RFC 5357 section 3) messages, their security modes and the OWAMP-Test /
 * TWAMP-Test packets, shared by the client kinds ("owamp", "twamp") and the
 * server daemon (nmprobe-owampd).
 *
 * Every decoder is a pure function of a byte buffer and its length (a
 * libFuzzer target drives them): lengths and fields are checked before use,
 * and nothing is allocated. The byte layouts are the RFCs' and were checked
 * against owamp's protocol.c and Wireshark's TWAMP dissector. Internal to the
 * engine (not installed). */
#ifndef NMP_OWCTL_H
#define NMP_OWCTL_H

#include <stddef.h>
#include <stdint.h>

#include "nmp_clock.h"

#define NMP_OW_OWAMP_PORT 861        /* IANA: owamp-control */
#define NMP_OW_TWAMP_PORT 862        /* IANA: twamp-control */

/* Modes (Server-Greeting's Modes bit field, Set-Up-Response's Mode). */
#define NMP_OW_MODE_OPEN 1u          /* unauthenticated */
#define NMP_OW_MODE_AUTH 2u          /* authenticated: control encrypted, test packets' first block */
#define NMP_OW_MODE_ENCRYPTED 4u     /* encrypted: control and test packets */
#define NMP_OW_MODE_MIXED 8u         /* TWAMP only (RFC 5618): control encrypted, test packets open */

/* Accept values (RFC 4656 3.3). */
#define NMP_OW_ACCEPT_OK 0
#define NMP_OW_ACCEPT_FAILURE 1      /* failure, reason unspecified */
#define NMP_OW_ACCEPT_INTERNAL 2     /* internal error */
#define NMP_OW_ACCEPT_UNSUPPORTED 3  /* some aspect of the request is not supported */
#define NMP_OW_ACCEPT_PERMANENT 4    /* cannot perform: permanent resource limitations */
#define NMP_OW_ACCEPT_TEMPORARY 5    /* cannot perform: temporary resource limitations */

/* Control commands (first octet of a client's message). */
#define NMP_OW_CMD_REQUEST_SESSION 1
#define NMP_OW_CMD_START_SESSIONS 2
#define NMP_OW_CMD_STOP_SESSIONS 3
#define NMP_OW_CMD_FETCH_SESSION 4
#define NMP_OW_CMD_REQUEST_TW_SESSION 5

#define NMP_OW_BLOCK 16              /* AES block; every control message is whole blocks */
#define NMP_OW_GREETING_LEN 64
#define NMP_OW_SETUP_LEN 164
#define NMP_OW_SERVER_START_LEN 48
#define NMP_OW_REQUEST_LEN 112       /* Request-Session without slots / Request-TW-Session */
#define NMP_OW_ACCEPT_LEN 48
#define NMP_OW_START_LEN 32          /* Start-Sessions, Start-Ack, TWAMP Stop-Sessions */
#define NMP_OW_FETCH_LEN 48
#define NMP_OW_FETCH_ACK_LEN 32
#define NMP_OW_RECORD_LEN 25         /* Fetch-Session data record */
#define NMP_OW_KEYID_LEN 80
#define NMP_OW_TOKEN_LEN 64
#define NMP_OW_SID_LEN 16
#define NMP_OW_HMAC_LEN 16
#define NMP_OW_COUNT_MIN 1024        /* RFC 4656 3.1: Count MUST be at least 1024 */
#define NMP_OW_COUNT_MAX (1u << 20)  /* larger counts are refused: PBKDF2 cost is a denial of service */
#define NMP_OW_MAX_SLOTS 1024        /* schedule slots accepted in one Request-Session */
#define NMP_OW_MAX_SKIPS 4096        /* skip ranges accepted in one Stop-Sessions session */
#define NMP_OW_MAX_STOP_SESSIONS 16  /* session descriptions accepted in one Stop-Sessions */
#define NMP_OW_MAX_MSG (NMP_OW_REQUEST_LEN + NMP_OW_BLOCK * (NMP_OW_MAX_SLOTS + 1)) /* largest client message */

/* Test packet sizes before padding (owamp's OWPTestPayloadSize / OWPTestTWPayloadSize). */
#define NMP_OW_TEST_OPEN_LEN 14      /* OWAMP test, TWAMP sender: seq, timestamp, error estimate */
#define NMP_OW_TEST_AUTH_LEN 48      /* the same with MBZ and HMAC, authenticated and encrypted */
#define NMP_OW_TW_REFL_OPEN_LEN 41   /* TWAMP reflector, unauthenticated */
#define NMP_OW_TW_REFL_AUTH_LEN 112  /* TWAMP reflector, authenticated and encrypted */
#define NMP_OW_TEST_MAX_LEN 9000     /* largest test packet either end handles */

/* ---- NTP timestamps and error estimates ---- */

/* Wall time as a 64-bit NTP timestamp, and back (nearest era to 'near'). */
uint64_t nmp_ow_ts_from_wall(nmp_walltime_ns t);
nmp_walltime_ns nmp_ow_ts_to_wall(uint64_t ts, nmp_walltime_ns near);
/* A duration as a 64-bit fixed-point seconds value (Timeout, slot parameters) and back. */
uint64_t nmp_ow_dur_from_ns(uint64_t ns);
uint64_t nmp_ow_dur_to_ns(uint64_t v);
/* The error estimate (RFC 4656 4.1.2): S bit, Z = 0 (NTP), Scale, Multiplier.
 * Encoding rounds up; decoding gives seconds. */
uint16_t nmp_ow_error_encode(int synchronised, double error_s);
double nmp_ow_error_decode(uint16_t e, int *synchronised);
/* This host's clock as an error estimate (adjtimex, as the rest of nmws reads it). */
uint16_t nmp_ow_local_error(void);

/* ---- control messages (plaintext; HMAC fields are filled by nmp_ow_seal) ---- */

typedef struct nmp_ow_greeting {
    uint32_t modes;                  /* modes the server offers */
    uint8_t challenge[16];           /* random, echoed inside the Token */
    uint8_t salt[16];                /* PBKDF2 salt */
    uint32_t count;                  /* PBKDF2 iteration count */
} nmp_ow_greeting;

typedef struct nmp_ow_setup {
    uint32_t mode;                   /* the one mode chosen */
    uint8_t keyid[NMP_OW_KEYID_LEN]; /* UTF-8 key id, zero padded (zero in open mode) */
    uint8_t token[NMP_OW_TOKEN_LEN]; /* AES-CBC(PBKDF2 key): challenge, AES session key, HMAC session key */
    uint8_t client_iv[16];
} nmp_ow_setup;

typedef struct nmp_ow_server_start {
    uint8_t accept;
    uint8_t server_iv[16];
    uint64_t start_time;             /* NTP timestamp: when the server started (owampd: its uptime) */
} nmp_ow_server_start;

/* Request-Session (OWAMP, command 1) and Request-TW-Session (TWAMP, command 5). */
typedef struct nmp_ow_request {
    uint8_t cmd;                     /* NMP_OW_CMD_REQUEST_SESSION or _TW_SESSION */
    uint8_t ipvn;                    /* 4 or 6 */
    uint8_t conf_sender, conf_receiver; /* OWAMP: is the server the sender / receiver; TWAMP: 0 */
    uint32_t nslots;                 /* OWAMP schedule slots that follow; TWAMP: 0 */
    uint32_t npackets;               /* OWAMP packets; TWAMP: 0 */
    uint16_t sender_port, receiver_port;
    uint8_t sender_addr[16], receiver_addr[16]; /* IPv4 in the first 4 octets */
    uint8_t sid[NMP_OW_SID_LEN];
    uint32_t padding;                /* padding octets in each test packet */
    uint64_t start_time;             /* NTP timestamp */
    uint64_t timeout;                /* fixed-point seconds */
    uint32_t type_p;                 /* Type-P descriptor (DSCP in bits 24..29) */
} nmp_ow_request;

/* A schedule slot (16 octets): type 0 = exponential with this mean, 1 = fixed gap. */
typedef struct nmp_ow_slot {
    uint8_t type;
    uint64_t param;                  /* fixed-point seconds */
} nmp_ow_slot;

typedef struct nmp_ow_accept {
    uint8_t accept;
    uint16_t port;
    uint8_t sid[NMP_OW_SID_LEN];
} nmp_ow_accept;

/* One session description of an OWAMP Stop-Sessions message; skips points
 * into the decoded buffer (nskips pairs of big-endian first, last). */
typedef struct nmp_ow_stop_session {
    uint8_t sid[NMP_OW_SID_LEN];
    uint32_t next_seqno;
    uint32_t nskips;
    const uint8_t *skips;
} nmp_ow_stop_session;

typedef struct nmp_ow_fetch {
    uint32_t begin, end;             /* sequence numbers, end 0xFFFFFFFF = all */
    uint8_t sid[NMP_OW_SID_LEN];
} nmp_ow_fetch;

typedef struct nmp_ow_fetch_ack {
    uint8_t accept, finished;
    uint32_t next_seqno, nskips, nrecords;
} nmp_ow_fetch_ack;

/* A Fetch-Session data record (RFC 4656 3.8 / owamp's version 3 record). */
typedef struct nmp_ow_record {
    uint32_t seq;
    uint16_t send_error, recv_error;
    uint64_t send_ts, recv_ts;       /* NTP timestamps; recv_ts 0 = lost */
    uint8_t ttl;                     /* 255 when unknown */
} nmp_ow_record;

void nmp_ow_greeting_encode(uint8_t out[NMP_OW_GREETING_LEN], const nmp_ow_greeting *g);
/* Checks length, Count in NMP_OW_COUNT_MIN..NMP_OW_COUNT_MAX and that some mode is offered. */
int nmp_ow_greeting_decode(const uint8_t *b, size_t len, nmp_ow_greeting *g, char *err, size_t errlen);
void nmp_ow_setup_encode(uint8_t out[NMP_OW_SETUP_LEN], const nmp_ow_setup *s);
int nmp_ow_setup_decode(const uint8_t *b, size_t len, nmp_ow_setup *s, char *err, size_t errlen);
void nmp_ow_server_start_encode(uint8_t out[NMP_OW_SERVER_START_LEN], const nmp_ow_server_start *s);
int nmp_ow_server_start_decode(const uint8_t *b, size_t len, nmp_ow_server_start *s, char *err, size_t errlen);
/* 112 octets, HMAC zero; slots are encoded one block each after it. */
void nmp_ow_request_encode(uint8_t out[NMP_OW_REQUEST_LEN], const nmp_ow_request *r);
/* Checks command, IP version, roles (OWAMP: exactly one of conf-sender /
 * conf-receiver; TWAMP: none, no slots, no packets) and slot count. */
int nmp_ow_request_decode(const uint8_t *b, size_t len, nmp_ow_request *r, char *err, size_t errlen);
void nmp_ow_slot_encode(uint8_t out[NMP_OW_BLOCK], const nmp_ow_slot *s);
int nmp_ow_slot_decode(const uint8_t *b, size_t len, nmp_ow_slot *s, char *err, size_t errlen);
void nmp_ow_accept_encode(uint8_t out[NMP_OW_ACCEPT_LEN], const nmp_ow_accept *a);
int nmp_ow_accept_decode(const uint8_t *b, size_t len, nmp_ow_accept *a, char *err, size_t errlen);
/* Start-Sessions (cmd 2) / Start-Ack (accept) / TWAMP Stop-Sessions (cmd 3 with accept, 1 session). */
void nmp_ow_start_encode(uint8_t out[NMP_OW_START_LEN]);
void nmp_ow_start_ack_encode(uint8_t out[NMP_OW_START_LEN], uint8_t accept);
int nmp_ow_start_ack_decode(const uint8_t *b, size_t len, uint8_t *accept, char *err, size_t errlen);
/* Stop-Sessions header (16 octets): command 3, accept, number of sessions. */
void nmp_ow_stop_header_encode(uint8_t out[NMP_OW_BLOCK], uint8_t accept, uint32_t nsessions);
int nmp_ow_stop_header_decode(const uint8_t *b, size_t len, uint8_t *accept, uint32_t *nsessions, char *err,
                              size_t errlen);
/* An OWAMP session description: SID block, then next seqno, skip count and
 * skip ranges padded to a block. Returns bytes written (a multiple of 16),
 * or -EMSGSIZE when cap is too small. skips holds nskips (first, last) pairs. */
long nmp_ow_stop_session_encode(uint8_t *out, size_t cap, const uint8_t sid[16], uint32_t next_seqno,
                                const uint32_t *skips, uint32_t nskips);
/* Session description idx (0-based) of a whole OWAMP Stop-Sessions message
 * (header, descriptions, HMAC) of len bytes. Checks skip ranges are ordered
 * and within next_seqno, and zero padding. */
int nmp_ow_stop_session_at(const uint8_t *b, size_t len, uint32_t idx, nmp_ow_stop_session *s, char *err,
                           size_t errlen);
void nmp_ow_fetch_encode(uint8_t out[NMP_OW_FETCH_LEN], const nmp_ow_fetch *f);
int nmp_ow_fetch_decode(const uint8_t *b, size_t len, nmp_ow_fetch *f, char *err, size_t errlen);
void nmp_ow_fetch_ack_encode(uint8_t out[NMP_OW_FETCH_ACK_LEN], const nmp_ow_fetch_ack *a);
int nmp_ow_fetch_ack_decode(const uint8_t *b, size_t len, nmp_ow_fetch_ack *a, char *err, size_t errlen);
void nmp_ow_record_encode(uint8_t out[NMP_OW_RECORD_LEN], const nmp_ow_record *r);
int nmp_ow_record_decode(const uint8_t *b, size_t len, nmp_ow_record *r);

/* The length of the client's control message that starts with 'have' bytes
 * of plaintext b (a server reads by this): > 0 its total length (wait while
 * it exceeds have), 0 when more bytes are needed to tell, -EINVAL for a
 * command not valid in this protocol (twamp nonzero: TWAMP), -EMSGSIZE
 * beyond the limits above. */
long nmp_ow_client_msg_len(int twamp, const uint8_t *b, size_t have);

/* ---- the security modes: keys, Token, control stream cipher and HMAC ---- */

typedef struct nmp_ow_keys {
    uint8_t aes[16];                 /* AES Session Key */
    uint8_t hmac[32];                /* HMAC Session Key */
} nmp_ow_keys;

/* Token = AES-128-CBC(IV 0, key PBKDF2-HMAC-SHA1(secret, salt, count, 16 octets))
 * of challenge || AES session key || HMAC session key. */
int nmp_ow_token_make(const uint8_t *secret, size_t secretlen, const nmp_ow_greeting *g, const nmp_ow_keys *k,
                      uint8_t token[NMP_OW_TOKEN_LEN]);
/* Opens a Token: -EACCES when its challenge is not the greeting's (wrong key
 * or a replayed Set-Up-Response). */
int nmp_ow_token_open(const uint8_t *secret, size_t secretlen, const nmp_ow_greeting *g,
                      const uint8_t token[NMP_OW_TOKEN_LEN], nmp_ow_keys *k);

/* One end of a control connection's protection (all modes but open): CBC
 * over the whole stream in each direction (each message's IV is the last
 * ciphertext block sent before it), HMAC-SHA1 truncated to 16 octets over
 * the plaintext since the previous HMAC (owamp's io.c). */
typedef struct nmp_ow_cipher {
    int on;                          /* 0: open mode (no encryption, HMAC fields zero) */
    nmp_ow_keys keys;
    uint8_t send_iv[16], recv_iv[16];
    uint8_t send_carry[16], recv_carry[16]; /* Server-Start's last block, covered by the next HMAC */
    size_t send_carry_len, recv_carry_len;
} nmp_ow_cipher;

/* AES-CBC in place over len bytes (a multiple of 16), chaining the IV. */
int nmp_ow_encrypt(nmp_ow_cipher *c, uint8_t *buf, size_t len);
int nmp_ow_decrypt(nmp_ow_cipher *c, uint8_t *buf, size_t len);
/* Fills each HMAC block of a plaintext message (at the offsets given, each
 * covering the bytes since the previous one) then encrypts it; open mode:
 * HMAC blocks zeroed, nothing encrypted. */
int nmp_ow_seal(nmp_ow_cipher *c, uint8_t *msg, size_t len, const size_t *hmac_at, int nh);
/* Checks each HMAC block of a decrypted message; -EBADMSG on a mismatch. */
int nmp_ow_verify(nmp_ow_cipher *c, const uint8_t *msg, size_t len, const size_t *hmac_at, int nh);

/* ---- test packets ---- */

/* The per-session test keys: AES key = AES-ECB(AES session key, SID) (RFC 4656 4.1.2);
 * HMAC key = the control connection's HMAC session key. */
typedef struct nmp_ow_test_keys {
    uint8_t aes[16];
    uint8_t hmac[32];
} nmp_ow_test_keys;
int nmp_ow_test_keys_make(const nmp_ow_keys *k, const uint8_t sid[16], nmp_ow_test_keys *tk);

/* A sender's test packet (OWAMP test, TWAMP session-sender). */
typedef struct nmp_ow_test_pkt {
    uint32_t seq;
    uint64_t ts;
    uint16_t error;
} nmp_ow_test_pkt;

/* A session-reflector's TWAMP-Test packet. */
typedef struct nmp_ow_refl_pkt {
    uint32_t seq;
    uint64_t ts;                     /* reflector transmit (T3) */
    uint16_t error;
    uint64_t rx_ts;                  /* reflector receive (T2) */
    uint32_t sender_seq;
    uint64_t sender_ts;              /* T1 */
    uint16_t sender_error;
    uint8_t sender_ttl;
} nmp_ow_refl_pkt;

/* Header length of a sender packet in a test mode (open and TWAMP mixed: 14, else 48). */
size_t nmp_ow_test_hdr_len(uint32_t test_mode);
size_t nmp_ow_refl_hdr_len(uint32_t test_mode);
/* The mode test packets use: TWAMP mixed mode sends them open. */
uint32_t nmp_ow_test_mode(uint32_t control_mode);
/* Writes a sender packet into buf (len >= header; padding bytes left as
 * they are) in test_mode, encrypting and MACing as the mode says. */
int nmp_ow_test_encode(uint8_t *buf, size_t len, const nmp_ow_test_pkt *p, uint32_t test_mode,
                       const nmp_ow_test_keys *tk);
/* Reads a sender packet: -EINVAL short, -EBADMSG bad HMAC. */
int nmp_ow_test_decode(const uint8_t *buf, size_t len, nmp_ow_test_pkt *p, uint32_t test_mode,
                       const nmp_ow_test_keys *tk);
int nmp_ow_refl_encode(uint8_t *buf, size_t len, const nmp_ow_refl_pkt *p, uint32_t test_mode,
                       const nmp_ow_test_keys *tk);
int nmp_ow_refl_decode(const uint8_t *buf, size_t len, nmp_ow_refl_pkt *p, uint32_t test_mode,
                       const nmp_ow_test_keys *tk);

/* ---- send schedules (RFC 4656 3.5 and 4.1, Appendix A) ---- */

/* The schedule of a session: packet i leaves at Start Time plus the sum of
 * the slot gaps 0..i (slot i mod nslots), as owamp's senders and receivers
 * both compute it. An exponential slot's gap is its mean times a deviate of
 * Knuth's algorithm S (TAOCP 3.4.1) drawn from AES-128 in counter mode keyed
 * by the SID, so sender and receiver derive the same schedule. The slots
 * are copied; nmp_ow_sched_free releases the cipher. */
typedef struct nmp_ow_sched {
    void *aes;                       /* OpenSSL EVP_CIPHER_CTX (ECB, key = SID) */
    uint8_t counter[16];             /* 128-bit big-endian counter, from 0 */
    uint8_t out[16];                 /* AES(counter): four 32-bit uniforms */
    nmp_ow_slot *slots;
    uint32_t nslots;
    uint64_t i;                      /* gaps handed out so far */
} nmp_ow_sched;

/* 0, -EINVAL (no slots, a slot type other than 0 / 1), -ENOMEM or -EIO. */
int nmp_ow_sched_init(nmp_ow_sched *s, const uint8_t sid[16], const nmp_ow_slot *slots, uint32_t nslots);
/* The next gap (64-bit fixed-point seconds, 32.32). */
uint64_t nmp_ow_sched_next(nmp_ow_sched *s);
void nmp_ow_sched_free(nmp_ow_sched *s);
/* One exponential deviate of mean 1 (32.32) from the generator (for tests). */
uint64_t nmp_ow_sched_exp(nmp_ow_sched *s);

/* ---- key file (owampd's pfs format) ---- */

/* Looks key_id up in a pfs file's text: lines "keyid hexkey", '#' comments,
 * blank lines ignored. The hex key (2..1024 hex digits, even) is decoded into
 * key (cap bytes). Returns the key length, -ENOENT when key_id has no line,
 * -EINVAL (with the line number) for a malformed line. */
long nmp_ow_pfs_lookup(const char *text, size_t len, const char *key_id, uint8_t *key, size_t cap, char *err,
                       size_t errlen);
/* Reads a pfs file (regular, not readable by group or others, at most 1 MiB)
 * and looks key_id up in it. Same returns, plus -errno for the file. */
long nmp_ow_pfs_load(const char *path, const char *key_id, uint8_t *key, size_t cap, char *err, size_t errlen);

/* Mode names ("open", "authenticated", "encrypted", "mixed") and back (0 if unknown). */
const char *nmp_ow_mode_name(uint32_t mode);
uint32_t nmp_ow_mode_parse(const char *name);
/* The text of an Accept value. */
const char *nmp_ow_accept_name(int accept);

#endif
