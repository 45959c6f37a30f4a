/* test_owamp.c -- OWAMP (RFC 4656) and TWAMP (RFC 5357) in nmws (issue 22):
 *  - the control codec's octet layouts, the Token, the control stream's CBC and
 *    HMAC, the test packets of each mode and owampd's pfs key file;
 *  - the "owamp" and "twamp" kinds (through the kind table, as JNI and the CLI
 *    run them) against a real nmprobe-owampd process over loopback in every
 *    mode, checking the figures they return;
 *  - bad input to the daemon: truncated and oversized control messages, a wrong
 *    HMAC, an unknown mode, a replayed Set-Up-Response, a replayed session, a
 *    client that never speaks, sessions beyond each limit: each refused with the
 *    RFC's Accept value, and the daemon holds nothing afterwards (its sessions
 *    and connections back to zero, its descriptors back to what they were).
 *  - the libFuzzer seed corpus of fuzz_owctl is real input: each seed is accepted
 *    by the parser it is for (test_owamp --write-seeds DIR writes them).
 * usage: test_owamp PATH-TO-nmprobe-owampd SEED-DIR
 *        test_owamp --write-seeds SEED-DIR */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nmp_kind.h"
#include "nmp_net.h"
#include "nmp_owclient.h"
#include "nmp_owctl.h"
#include "nmp_owctl_fuzz.h"
#include "nmp_pfs.h"
#include "nmp_test.h"
#include "nmp_test_proc.h"
#include "nmprobe.h"

static const char *daemon_bin;
static char keyfile[64] = "/tmp/nmp-owamp-key-XXXXXX";
static nmp_test_proc proc;
static int op, tp;                    /* the daemon's OWAMP and TWAMP control ports */

static const uint8_t secret_alice[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                         0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};

/* ---- codec ---- */

TEST(greeting_and_setup_octets_are_the_rfcs) {
    nmp_ow_greeting g = {.modes = 7, .count = 1024}, d;
    uint8_t b[NMP_OW_GREETING_LEN];
    memset(g.challenge, 0xC1, 16), memset(g.salt, 0x5A, 16);
    nmp_ow_greeting_encode(b, &g);
    for (int i = 0; i < 12; i++) CHECK_EQ_INT(b[i], 0);  /* Unused */
    CHECK_EQ_INT(b[15], 7);                              /* Modes, big-endian at 12 */
    CHECK_EQ_INT(b[16], 0xC1); CHECK_EQ_INT(b[31], 0xC1); /* Challenge 16..31 */
    CHECK_EQ_INT(b[32], 0x5A); CHECK_EQ_INT(b[47], 0x5A); /* Salt 32..47 */
    CHECK_EQ_INT(b[50], 4); CHECK_EQ_INT(b[51], 0);      /* Count 1024 at 48 */
    for (int i = 52; i < 64; i++) CHECK_EQ_INT(b[i], 0); /* MBZ */
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_ow_greeting_decode(b, sizeof(b), &d, err, sizeof(err)), 0);
    CHECK_EQ_INT(d.modes, 7); CHECK_EQ_INT(d.count, 1024);
    CHECK_EQ_INT(nmp_ow_greeting_decode(b, 63, &d, err, sizeof(err)), -EINVAL);
    b[50] = 0, b[51] = 1; /* Count 1: below the RFC's 1024 */
    CHECK_EQ_INT(nmp_ow_greeting_decode(b, sizeof(b), &d, err, sizeof(err)), -EINVAL);
    memset(b + 12, 0, 4); /* Modes 0: the server turns the client away */
    CHECK_EQ_INT(nmp_ow_greeting_decode(b, sizeof(b), &d, err, sizeof(err)), -EACCES);

    nmp_ow_setup s = {.mode = 2}, t;
    uint8_t sb[NMP_OW_SETUP_LEN];
    memcpy(s.keyid, "alice", 5), memset(s.token, 0x77, 64), memset(s.client_iv, 0x99, 16);
    nmp_ow_setup_encode(sb, &s);
    CHECK_EQ_INT(sb[3], 2); CHECK(memcmp(sb + 4, "alice", 5) == 0); CHECK_EQ_INT(sb[84], 0x77);
    CHECK_EQ_INT(sb[147], 0x77); CHECK_EQ_INT(sb[148], 0x99); CHECK_EQ_INT(sb[163], 0x99);
    CHECK_EQ_INT(nmp_ow_setup_decode(sb, sizeof(sb), &t, err, sizeof(err)), 0);
    sb[3] = 3; /* two modes at once */
    CHECK_EQ_INT(nmp_ow_setup_decode(sb, sizeof(sb), &t, err, sizeof(err)), -EINVAL);
}

TEST(request_session_octets_are_the_rfcs) {
    nmp_ow_request r = {.cmd = 1, .ipvn = 4, .conf_receiver = 1, .nslots = 1, .npackets = 300, .sender_port = 0x1234,
                        .receiver_port = 0x5678, .padding = 17, .start_time = 0x0102030405060708ull,
                        .timeout = 0x0000000280000000ull, .type_p = 0x2E000000u},
                   d;
    uint8_t b[NMP_OW_REQUEST_LEN];
    char err[NMP_ERRLEN];
    memcpy(r.sender_addr, (uint8_t[]){127, 0, 0, 1}, 4), memcpy(r.receiver_addr, (uint8_t[]){10, 1, 2, 3}, 4);
    memset(r.sid, 0xAB, 16);
    nmp_ow_request_encode(b, &r);
    CHECK_EQ_INT(b[0], 1); CHECK_EQ_INT(b[1], 4); CHECK_EQ_INT(b[2], 0); CHECK_EQ_INT(b[3], 1);
    CHECK_EQ_INT(b[7], 1); CHECK_EQ_INT(b[10], 300 >> 8); CHECK_EQ_INT(b[11], 300 & 0xff);
    CHECK_EQ_INT(b[12], 0x12); CHECK_EQ_INT(b[13], 0x34); CHECK_EQ_INT(b[14], 0x56); CHECK_EQ_INT(b[15], 0x78);
    CHECK_EQ_INT(b[16], 127); CHECK_EQ_INT(b[19], 1); CHECK_EQ_INT(b[20], 0); /* IPv4: 12 MBZ octets follow */
    CHECK_EQ_INT(b[32], 10); CHECK_EQ_INT(b[35], 3);
    CHECK_EQ_INT(b[48], 0xAB); CHECK_EQ_INT(b[63], 0xAB); CHECK_EQ_INT(b[67], 17);
    CHECK_EQ_INT(b[68], 1); CHECK_EQ_INT(b[75], 8); CHECK_EQ_INT(b[80], 0x80); CHECK_EQ_INT(b[84], 0x2E);
    for (int i = 88; i < 112; i++) CHECK_EQ_INT(b[i], 0); /* MBZ and the HMAC left for the seal */
    CHECK_EQ_INT(nmp_ow_request_decode(b, sizeof(b), &d, err, sizeof(err)), 0);
    CHECK_EQ_INT(d.sender_port, 0x1234); CHECK_EQ_INT(d.npackets, 300); CHECK_EQ_INT(d.timeout, r.timeout);
    CHECK_EQ_INT(nmp_ow_dur_to_ns(d.timeout), 2500000000ll);
    b[2] = 1; /* both roles */
    CHECK_EQ_INT(nmp_ow_request_decode(b, sizeof(b), &d, err, sizeof(err)), -EINVAL);
    b[2] = 0, b[1] = 5;
    CHECK_EQ_INT(nmp_ow_request_decode(b, sizeof(b), &d, err, sizeof(err)), -EPROTONOSUPPORT);
    b[1] = 4, b[0] = 5; /* Request-TW-Session must carry no slots, packets or roles */
    CHECK_EQ_INT(nmp_ow_request_decode(b, sizeof(b), &d, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(nmp_ow_request_decode(b, 111, &d, err, sizeof(err)), -EINVAL);
}

TEST(client_message_lengths_are_read_from_the_first_block) {
    uint8_t b[64] = {1, 0, 0, 0, 0, 0, 0, 3};
    CHECK_EQ_INT(nmp_ow_client_msg_len(0, b, 16), 112 + 16 * 4);
    CHECK_EQ_INT(nmp_ow_client_msg_len(1, b, 16), -EINVAL); /* command 1 is forbidden in TWAMP */
    CHECK_EQ_INT(nmp_ow_client_msg_len(0, b, 4), 0);
    b[4] = 0xFF;                                          /* a huge slot count */
    CHECK_EQ_INT(nmp_ow_client_msg_len(0, b, 16), -EMSGSIZE);
    b[0] = 5;
    CHECK_EQ_INT(nmp_ow_client_msg_len(1, b, 16), 112); CHECK_EQ_INT(nmp_ow_client_msg_len(0, b, 16), -EINVAL);
    b[0] = 2;
    CHECK_EQ_INT(nmp_ow_client_msg_len(0, b, 16), 32);
    b[0] = 4;
    CHECK_EQ_INT(nmp_ow_client_msg_len(0, b, 16), 48); CHECK_EQ_INT(nmp_ow_client_msg_len(1, b, 16), -EINVAL);
    b[0] = 9;
    CHECK_EQ_INT(nmp_ow_client_msg_len(0, b, 16), -EINVAL);

    /* OWAMP Stop-Sessions: header, one description with two skip ranges (and 8 octets of padding), HMAC */
    uint8_t m[128], sid[16];
    uint32_t skips[4] = {2, 3, 7, 7};
    memset(sid, 0x42, 16);
    memset(m, 0, sizeof(m));
    nmp_ow_stop_header_encode(m, 0, 1);
    long dl = nmp_ow_stop_session_encode(m + 16, sizeof(m) - 16, sid, 20, skips, 2);
    CHECK_EQ_INT(dl, 16 + 32);
    CHECK_EQ_INT(nmp_ow_client_msg_len(0, m, 16 + 24), 16 + 48 + 16);
    CHECK_EQ_INT(nmp_ow_client_msg_len(1, m, 16), 32);
    nmp_ow_stop_session st;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_ow_stop_session_at(m, 80, 0, &st, err, sizeof(err)), 0);
    CHECK_EQ_INT(st.next_seqno, 20);
    CHECK_EQ_INT(st.nskips, 2);
    CHECK_EQ_INT(st.skips[11], 7);
    m[16 + 24 + 16] = 1; /* the padding after the skip ranges must be zero */
    CHECK_EQ_INT(nmp_ow_stop_session_at(m, 80, 0, &st, err, sizeof(err)), -EINVAL);
    m[16 + 24 + 16] = 0, m[16 + 24 + 15] = 6; /* a range ending before it starts: 7..6 */
    CHECK_EQ_INT(nmp_ow_stop_session_at(m, 80, 0, &st, err, sizeof(err)), -EINVAL);
    CHECK_EQ_INT(nmp_ow_stop_session_at(m, 40, 0, &st, err, sizeof(err)), -EINVAL); /* truncated */
}

TEST(records_and_error_estimates_round_trip) {
    nmp_ow_record r = {.seq = 77, .send_error = 0x8101, .recv_error = 0x0203, .send_ts = 0x1111222233334444ull,
                       .recv_ts = 0x5555666677778888ull, .ttl = 251},
                  d;
    uint8_t b[NMP_OW_RECORD_LEN];
    nmp_ow_record_encode(b, &r);
    CHECK_EQ_INT(b[3], 77); CHECK_EQ_INT(b[4], 0x81); CHECK_EQ_INT(b[7], 0x03); CHECK_EQ_INT(b[8], 0x11);
    CHECK_EQ_INT(b[16], 0x55); CHECK_EQ_INT(b[24], 251);
    CHECK_EQ_INT(nmp_ow_record_decode(b, sizeof(b), &d), 0);
    CHECK(memcmp(&r, &d, sizeof(r)) == 0 || (d.seq == 77 && d.recv_ts == r.recv_ts && d.ttl == 251));
    CHECK_EQ_INT(nmp_ow_record_decode(b, 24, &d), -EINVAL);
    int sync;
    uint16_t e = nmp_ow_error_encode(1, 0.001);
    double s = nmp_ow_error_decode(e, &sync);
    CHECK(sync == 1 && (e & 0x4000) == 0); /* S set, Z = 0 (NTP) */
    CHECK(s >= 0.001 && s < 0.001 * (1 + 2.0 / 128));
    nmp_walltime_ns t = 1795698395823163910ll;
    CHECK_NEAR((double)(nmp_ow_ts_to_wall(nmp_ow_ts_from_wall(t), t) - t), 0, 1);
}

TEST(token_opens_only_with_the_key_and_the_greeting_it_answers) {
    nmp_ow_greeting g = {.modes = 6, .count = 1024}, g2;
    nmp_ow_keys k, o;
    uint8_t token[NMP_OW_TOKEN_LEN];
    nmp_net_random(&g.challenge, 16), nmp_net_random(&g.salt, 16), nmp_net_random(&k, sizeof(k));
    CHECK_EQ_INT(nmp_ow_token_make(secret_alice, 16, &g, &k, token), 0);
    CHECK(memcmp(token, g.challenge, 16) != 0); /* encrypted */
    CHECK_EQ_INT(nmp_ow_token_open(secret_alice, 16, &g, token, &o), 0);
    CHECK(memcmp(&k, &o, sizeof(k)) == 0);
    uint8_t wrong[16];
    memcpy(wrong, secret_alice, 16), wrong[0] ^= 1;
    CHECK_EQ_INT(nmp_ow_token_open(wrong, 16, &g, token, &o), -EACCES);
    g2 = g;
    nmp_net_random(&g2.challenge, 16); /* another connection's greeting: a replayed Token */
    CHECK_EQ_INT(nmp_ow_token_open(secret_alice, 16, &g2, token, &o), -EACCES);
}

TEST(control_stream_is_cbc_chained_and_hmac_checked) {
    nmp_ow_cipher a, b;
    memset(&a, 0, sizeof(a));
    a.on = 1;
    nmp_net_random(&a.keys, sizeof(a.keys)), nmp_net_random(a.send_iv, 16);
    b = a;
    memcpy(b.recv_iv, a.send_iv, 16);
    uint8_t m1[32], m2[48], c1[32], c2[48];
    memset(m1, 0, sizeof(m1)), m1[0] = 2;
    memset(m2, 0, sizeof(m2)), m2[0] = 4, m2[8] = 9;
    size_t h1 = 16, h2 = 32;
    memcpy(c1, m1, 32), memcpy(c2, m2, 48);
    CHECK_EQ_INT(nmp_ow_seal(&a, c1, 32, &h1, 1), 0);
    CHECK_EQ_INT(nmp_ow_seal(&a, c2, 48, &h2, 1), 0);
    CHECK(memcmp(c1, m1, 16) != 0);
    CHECK_EQ_INT(nmp_ow_decrypt(&b, c1, 32), 0); CHECK_EQ_INT(nmp_ow_verify(&b, c1, 32, &h1, 1), 0);
    CHECK(memcmp(c1, m1, 16) == 0);
    uint8_t keep[48];
    memcpy(keep, c2, 48);
    nmp_ow_cipher b2 = b;
    CHECK_EQ_INT(nmp_ow_decrypt(&b, c2, 48), 0); CHECK_EQ_INT(nmp_ow_verify(&b, c2, 48, &h2, 1), 0);
    CHECK_EQ_INT(c2[8], 9);
    keep[47] ^= 0x01; /* one bit of the HMAC block's ciphertext */
    CHECK_EQ_INT(nmp_ow_decrypt(&b2, keep, 48), 0);
    CHECK_EQ_INT(nmp_ow_verify(&b2, keep, 48, &h2, 1), -EBADMSG);
}

TEST(test_packets_in_each_mode) {
    nmp_ow_keys k;
    nmp_ow_test_keys tk;
    uint8_t sid[16], buf[200];
    nmp_net_random(&k, sizeof(k)), nmp_net_random(sid, 16);
    CHECK_EQ_INT(nmp_ow_test_keys_make(&k, sid, &tk), 0);
    CHECK(memcmp(tk.aes, k.aes, 16) != 0); /* a per-session key */
    const uint32_t modes[3] = {NMP_OW_MODE_OPEN, NMP_OW_MODE_AUTH, NMP_OW_MODE_ENCRYPTED};
    for (int i = 0; i < 3; i++) {
        nmp_ow_test_pkt p = {.seq = 4711, .ts = 0x0102030405060708ull, .error = 0x81FF}, q;
        size_t hl = nmp_ow_test_hdr_len(modes[i]);
        CHECK_EQ_INT(hl, i == 0 ? 14 : 48);
        CHECK_EQ_INT(nmp_ow_test_encode(buf, hl + 10, &p, modes[i], &tk), 0);
        if (i == 0) CHECK_EQ_INT(buf[3], 4711 & 0xff);
        else CHECK(!(buf[0] == 0 && buf[1] == 0 && buf[2] == 0x12 && buf[3] == 0x67)); /* not in the clear */
        if (i == 2) CHECK(buf[16] != 1 || buf[17] != 2); /* encrypted mode hides the timestamp too */
        if (i == 1) CHECK_EQ_INT(buf[16], 1);             /* authenticated mode leaves it in the clear */
        CHECK_EQ_INT(nmp_ow_test_decode(buf, hl + 10, &q, modes[i], &tk), 0);
        CHECK_EQ_INT(q.seq, 4711); CHECK_EQ_INT(q.ts, p.ts); CHECK_EQ_INT(q.error, 0x81FF);
        CHECK_EQ_INT(nmp_ow_test_decode(buf, hl - 1, &q, modes[i], &tk), -EINVAL);
        if (i > 0) {
            buf[0] ^= 0x80;
            CHECK_EQ_INT(nmp_ow_test_decode(buf, hl, &q, modes[i], &tk), -EBADMSG);
        }
        nmp_ow_refl_pkt r = {.seq = 5, .ts = 7, .error = 1, .rx_ts = 6, .sender_seq = 4711, .sender_ts = p.ts,
                             .sender_error = 2, .sender_ttl = 255}, s;
        size_t rl = nmp_ow_refl_hdr_len(modes[i]);
        CHECK_EQ_INT(rl, i == 0 ? 41 : 112);
        CHECK_EQ_INT(nmp_ow_refl_encode(buf, rl, &r, modes[i], &tk), 0);
        CHECK_EQ_INT(nmp_ow_refl_decode(buf, rl, &s, modes[i], &tk), 0);
        CHECK_EQ_INT(s.sender_seq, 4711); CHECK_EQ_INT(s.rx_ts, 6); CHECK_EQ_INT(s.sender_ttl, 255);
        if (i == 0) {
            CHECK_EQ_INT(buf[40], 255);
            CHECK_EQ_INT(buf[27], 4711 & 0xff);
        }
    }
    CHECK_EQ_INT(nmp_ow_test_mode(NMP_OW_MODE_MIXED), NMP_OW_MODE_OPEN);
}

TEST(schedules_are_the_sids_and_exponential_gaps_have_their_mean) {
    uint8_t sid[16] = {127, 0, 0, 1, 0xE0, 1, 2, 3, 4, 5, 6, 7, 0xAA, 0xBB, 0xCC, 0xDD};
    nmp_ow_slot slots[2] = {{.type = 0, .param = nmp_ow_dur_from_ns(3000000)}, {.type = 1, .param = nmp_ow_dur_from_ns(1000000)}};
    nmp_ow_sched a, b;
    CHECK_EQ_INT(nmp_ow_sched_init(&a, sid, slots, 2), 0);
    CHECK_EQ_INT(nmp_ow_sched_init(&b, sid, slots, 2), 0);
    /* the same SID gives the same schedule (the receiver recomputes the sender's) */
    for (int i = 0; i < 100; i++) {
        uint64_t ga = nmp_ow_sched_next(&a), gb = nmp_ow_sched_next(&b);
        CHECK_EQ_INT(ga, gb);
        if (i % 2 == 1) CHECK_EQ_INT(ga, slots[1].param); /* the fixed slot, every other packet */
    }
    nmp_ow_sched_free(&b);
    /* deviates of mean 1: 20000 of them average 1 within 3 % (fixed by the SID: no flake) */
    double sum = 0, mx = 0;
    for (int i = 0; i < 20000; i++) {
        double x = (double)nmp_ow_sched_exp(&a) / 4294967296.0;
        sum += x;
        if (x > mx) mx = x;
    }
    CHECK(fabs(sum / 20000 - 1) < 0.03);
    CHECK(mx > 5 && mx <= 32 * 0.6932); /* a long tail, bounded by the algorithm's 32 ln 2 */
    nmp_ow_sched_free(&a);
    uint8_t sid2[16];
    memcpy(sid2, sid, 16), sid2[15] ^= 1;
    CHECK_EQ_INT(nmp_ow_sched_init(&a, sid, slots, 1), 0);
    CHECK_EQ_INT(nmp_ow_sched_init(&b, sid2, slots, 1), 0);
    CHECK(nmp_ow_sched_next(&a) != nmp_ow_sched_next(&b)); /* another session, another schedule */
    nmp_ow_sched_free(&a), nmp_ow_sched_free(&b);
    nmp_ow_slot bad = {.type = 2};
    CHECK_EQ_INT(nmp_ow_sched_init(&a, sid, &bad, 1), -EINVAL);
    CHECK_EQ_INT(nmp_ow_sched_init(&a, sid, slots, 0), -EINVAL);
}

TEST(pfs_key_file_lines) {
    const char *t = "# owampd pfs\n\n  alice\t0123456789abcdef0123456789abcdef\r\nbob deadbeef # no\n";
    size_t good = strlen(t) - strlen("bob deadbeef # no\n");
    uint8_t key[64];
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_ow_pfs_lookup(t, good, "alice", key, sizeof(key), err, sizeof(err)), 16);
    CHECK(memcmp(key, secret_alice, 16) == 0);
    CHECK_EQ_INT(nmp_ow_pfs_lookup(t, strlen(t), "alice", key, sizeof(key), err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "line 4") != NULL); /* bob's line has a trailing word */
    const char *u = "alice 0123\ncarol 0a1\n";
    CHECK_EQ_INT(nmp_ow_pfs_lookup(u, 11, "alice", key, sizeof(key), err, sizeof(err)), 2);
    CHECK_EQ_INT(nmp_ow_pfs_lookup(u, 11, "dave", key, sizeof(key), err, sizeof(err)), -ENOENT);
    /* an odd number of hex digits, even on another key id's line: the whole file is checked */
    CHECK_EQ_INT(nmp_ow_pfs_lookup(u, strlen(u), "alice", key, sizeof(key), err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "line 2") != NULL);
}

TEST(one_pfs_reader_serves_owamp_and_stamp_alike) {
    /* the same file read by STAMP's key set and by OWAMP's lookup gives the same bytes */
    const char *t = "# one key file for owampd, twampd and a STAMP reflector\nalice 0123456789abcdef0123456789abcdef\n";
    nmp_pfs *f = malloc(sizeof(*f));
    uint8_t key[64];
    char err[NMP_ERRLEN], path[] = "/tmp/nmws-pfs-XXXXXX";
    CHECK(f != NULL && nmp_pfs_parse(t, strlen(t), "t", f, err, sizeof(err)) == 0);
    CHECK_EQ_INT(nmp_ow_pfs_lookup(t, strlen(t), "alice", key, sizeof(key), err, sizeof(err)), 16);
    CHECK(nmp_pfs_find(f, "alice") != NULL && memcmp(nmp_pfs_find(f, "alice")->k, key, 16) == 0);
    nmp_pfs_wipe(f);
    /* and from a file: the same checks on it, whichever reads it */
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, t, strlen(t)) == (ssize_t)strlen(t));
    close(fd);
    CHECK_EQ_INT(nmp_ow_pfs_load(path, "alice", key, sizeof(key), err, sizeof(err)), 16);
    CHECK_EQ_INT(nmp_pfs_load(path, f, err, sizeof(err)), 0);
    chmod(path, 0644); /* others may read it: refused by both */
    CHECK_EQ_INT(nmp_ow_pfs_load(path, "alice", key, sizeof(key), err, sizeof(err)), -EPERM);
    CHECK(strstr(err, "chmod 600") != NULL);
    CHECK_EQ_INT(nmp_pfs_load(path, f, err, sizeof(err)), -EPERM);
    unlink(path);
    nmp_pfs_wipe(f);
    free(f);
}

/* ---- the fuzz_owctl seed corpus ---- */

/* Writes selector + message to dir/name. */
static int put_seed(const char *dir, const char *name, int sel, const uint8_t *m, size_t n) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    uint8_t s = (uint8_t)sel;
    int ok = fwrite(&s, 1, 1, f) == 1 && fwrite(m, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Every message the codec reads, as the client and the server send them. */
static int write_seeds(const char *dir) {
    uint8_t m[256];
    int rc = 0;
    nmp_ow_greeting g = {.modes = 15, .count = 1024};
    memset(g.challenge, 7, 16), memset(g.salt, 9, 16);
    nmp_ow_greeting_encode(m, &g);
    rc |= put_seed(dir, "greeting", SEL_GREETING, m, NMP_OW_GREETING_LEN);
    nmp_ow_setup s = {.mode = NMP_OW_MODE_AUTH};
    nmp_ow_keys k;
    memset(&k, 3, sizeof(k));
    memcpy(s.keyid, "alice", 5);
    nmp_ow_token_make(secret_alice, 16, &g, &k, s.token);
    nmp_ow_setup_encode(m, &s);
    rc |= put_seed(dir, "setup_authenticated", SEL_SETUP, m, NMP_OW_SETUP_LEN);
    nmp_ow_server_start ss = {.accept = 0, .start_time = nmp_ow_ts_from_wall(nmp_wall_now())};
    nmp_ow_server_start_encode(m, &ss);
    rc |= put_seed(dir, "server_start", SEL_SERVER_START, m, NMP_OW_SERVER_START_LEN);
    nmp_ow_request r = {.cmd = 1, .ipvn = 4, .conf_receiver = 1, .nslots = 1, .npackets = 100, .sender_port = 40000,
                        .padding = 20, .timeout = nmp_ow_dur_from_ns(2000000000ull)};
    memcpy(r.sender_addr, (uint8_t[]){127, 0, 0, 1}, 4), memcpy(r.receiver_addr, (uint8_t[]){127, 0, 0, 1}, 4);
    nmp_ow_request_encode(m, &r);
    nmp_ow_slot sl = {.type = 1, .param = nmp_ow_dur_from_ns(10000000)};
    nmp_ow_slot_encode(m + 112, &sl);
    memset(m + 128, 0, 16);
    rc |= put_seed(dir, "request_session", SEL_REQUEST, m, 144);
    rc |= put_seed(dir, "slot", SEL_SLOT, m + 112, 16);
    r = (nmp_ow_request){.cmd = 5, .ipvn = 6, .sender_port = 40001, .receiver_port = 862,
                         .timeout = nmp_ow_dur_from_ns(2000000000ull)};
    memset(r.sender_addr + 15, 1, 1), memset(r.receiver_addr + 15, 1, 1);
    nmp_ow_request_encode(m, &r);
    rc |= put_seed(dir, "request_tw_session_v6", SEL_REQUEST, m, 112);
    nmp_ow_accept a = {.accept = 0, .port = 42100};
    memset(a.sid, 0x11, 16);
    nmp_ow_accept_encode(m, &a);
    rc |= put_seed(dir, "accept_session", SEL_ACCEPT, m, NMP_OW_ACCEPT_LEN);
    nmp_ow_start_ack_encode(m, 0);
    rc |= put_seed(dir, "start_ack", SEL_START_ACK, m, NMP_OW_START_LEN);
    uint32_t skips[4] = {3, 4, 9, 9};
    memset(m, 0, sizeof(m));
    nmp_ow_stop_header_encode(m, 0, 1);
    long dl = nmp_ow_stop_session_encode(m + 16, 200, a.sid, 100, skips, 2);
    rc |= put_seed(dir, "stop_sessions", SEL_STOP, m, 16 + (size_t)dl + 16);
    nmp_ow_fetch f = {.begin = 0, .end = 0xFFFFFFFFu};
    memcpy(f.sid, a.sid, 16);
    nmp_ow_fetch_encode(m, &f);
    rc |= put_seed(dir, "fetch_session", SEL_FETCH, m, NMP_OW_FETCH_LEN);
    nmp_ow_fetch_ack fa = {.accept = 0, .finished = 1, .next_seqno = 100, .nskips = 2, .nrecords = 98};
    nmp_ow_fetch_ack_encode(m, &fa);
    rc |= put_seed(dir, "fetch_ack", SEL_FETCH_ACK, m, NMP_OW_FETCH_ACK_LEN);
    nmp_ow_record rec = {.seq = 5, .send_error = nmp_ow_local_error(), .recv_error = nmp_ow_local_error(),
                         .send_ts = ss.start_time, .recv_ts = ss.start_time + 4295, .ttl = 255};
    nmp_ow_record_encode(m, &rec);
    rc |= put_seed(dir, "record", SEL_RECORD, m, NMP_OW_RECORD_LEN);
    nmp_ow_test_pkt t = {.seq = 5, .ts = ss.start_time, .error = rec.send_error};
    memset(m, 0, sizeof(m));
    nmp_ow_test_encode(m, 14 + 20, &t, NMP_OW_MODE_OPEN, NULL);
    rc |= put_seed(dir, "test_packet", SEL_TEST, m, 34);
    nmp_ow_refl_pkt rp = {.seq = 5, .ts = ss.start_time + 9000, .rx_ts = ss.start_time + 8000, .sender_seq = 5,
                          .sender_ts = ss.start_time, .sender_ttl = 255};
    nmp_ow_refl_encode(m, 41, &rp, NMP_OW_MODE_OPEN, NULL);
    rc |= put_seed(dir, "reflector_packet", SEL_REFL, m, 41);
    const char *pfs = "# owampd pfs\nalice 0123456789abcdef0123456789abcdef\nbob deadbeef\n";
    rc |= put_seed(dir, "pfs", SEL_PFS, (const uint8_t *)pfs, strlen(pfs));
    return rc;
}

static const char *seed_dir;

TEST(every_fuzz_owctl_seed_is_accepted_by_its_parser) {
    DIR *d = opendir(seed_dir);
    CHECK(d != NULL);
    if (d == NULL) return;
    int n = 0, sels = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[512];
        uint8_t buf[4096];
        snprintf(path, sizeof(path), "%s/%s", seed_dir, e->d_name);
        FILE *f = fopen(path, "rb");
        size_t len = f ? fread(buf, 1, sizeof(buf), f) : 0;
        if (f) fclose(f);
        int rc = nmp_owctl_fuzz_one(buf, len);
        if (rc != 0) fprintf(stderr, "  seed %s: rejected (%d)\n", e->d_name, rc);
        CHECK(len > 1 && rc == 0);
        sels |= len ? 1 << (buf[0] % SEL_N) : 0;
        n++;
    }
    closedir(d);
    CHECK_EQ_INT(sels, (1 << SEL_N) - 1); /* a seed for every parser */
    fprintf(stderr, "  %d seeds\n", n);
}

/* ---- the daemon ---- */

static int start_daemon(const char *const *extra) {
    const char *argv[40];
    int n = 0;
    argv[n++] = daemon_bin;
    const char *base[] = {"-b", "127.0.0.1", "--owamp-port", "0", "--twamp-port", "0", "--modes",
                          "open,authenticated,encrypted,mixed", "--key-file", keyfile, "-v", "-v", NULL};
    for (int i = 0; base[i]; i++) argv[n++] = base[i];
    for (int i = 0; extra && extra[i] && n < 39; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    memset(&proc, 0, sizeof(proc));
    snprintf(proc.log, sizeof(proc.log), "/tmp/nmp-owampd-XXXXXX");
    int lfd = mkstemp(proc.log);
    if (lfd < 0 || (proc.pid = fork()) < 0) return -1;
    if (proc.pid == 0) {
        dup2(lfd, 2);
        execv(daemon_bin, (char *const *)argv);
        _exit(127);
    }
    close(lfd);
    op = (int)nmp_test_proc_log_num(&proc, "owamp listening on 127.0.0.1 port ");
    tp = (int)nmp_test_proc_log_num(&proc, "twamp listening on 127.0.0.1 port ");
    return op > 0 && tp > 0 ? 0 : -1;
}

/* The daemon's open descriptors, counted once its log says it holds no connection and no session. */
static int daemon_holds_nothing(int fds0);
static int daemon_fds(void);
static int idle_fds(void) {
    daemon_holds_nothing(-2);
    /* a connection its client has just closed may not be read by the daemon yet (its log's last
     * "now 0 connections" can be an earlier one's): the idle count is the least seen over 200 ms */
    int n = daemon_fds();
    for (int i = 0; i < 5; i++) {
        usleep(40000);
        int m = daemon_fds();
        if (m >= 0 && m < n) n = m;
    }
    return n;
}

static int daemon_fds(void) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)proc.pid);
    DIR *d = opendir(path);
    int n = 0;
    if (d == NULL) return -1;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

/* The daemon's last "now C connections, S sessions" line, waited for up to 3 s to say 0 and 0. */
static int daemon_holds_nothing(int fds0) {
    for (double end = nmp_test_now() + 3; nmp_test_now() < end; usleep(20000)) {
        char buf[65536];
        FILE *f = fopen(proc.log, "r");
        size_t got = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
        if (f) fclose(f);
        buf[got] = '\0';
        const char *last = NULL;
        for (const char *p = buf; (p = strstr(p, "now ")) != NULL; p++) last = p;
        if (last && strncmp(last, "now 0 connections, 0 sessions", 29) == 0 && (fds0 == -2 || daemon_fds() == fds0))
            return 1;
    }
    fprintf(stderr, "daemon fds %d, at start %d\n", daemon_fds(), fds0);
    return 0;
}

static const char *kind_direction; /* owamp's "direction", NULL: the default */

static uint8_t *run_kind(const char *kind, int port, const char *mode, uint32_t count, const char *keyid,
                         size_t *len, char *err, size_t errlen) {
    nmp_pack p;
    nmp_pack_init(&p);
    if (kind_direction) nmp_pack_str(&p, "direction", kind_direction);
    nmp_pack_str(&p, "host", "127.0.0.1");
    nmp_pack_i64(&p, "port", port);
    nmp_pack_i64(&p, "count", count);
    nmp_pack_i64(&p, "intervalNs", 2000000);
    nmp_pack_i64(&p, "timeoutNs", 300000000);
    nmp_pack_i64(&p, "size", 20);
    nmp_pack_str(&p, "mode", mode);
    if (keyid) nmp_pack_str(&p, "keyId", keyid), nmp_pack_str(&p, "keyFile", keyfile);
    uint8_t *res = NULL;
    int rc = nmp_kind_run_packed(nmp_kind_find(kind), p.buf, p.len, NULL, &res, len, err, errlen);
    nmp_pack_free(&p);
    if (rc < 0) {
        free(res);
        return NULL;
    }
    return res;
}

static int64_t get_i(const uint8_t *r, size_t n, const char *name) {
    nmp_field f;
    return nmp_unpack_find(r, n, name, &f, NULL, 0) == 1 ? f.i64 : -999;
}
static double get_f(const uint8_t *r, size_t n, const char *name) {
    nmp_field f;
    return nmp_unpack_find(r, n, name, &f, NULL, 0) == 1 ? f.f64 : NAN;
}
/* Two error estimates of this host's one clock (ms), read by two processes or at two
 * moments: equal but for what the kernel changed in between (maxerror grows 0.5 ms a
 * second, esterror moves at each NTP update) and the encoding (an 8-bit multiplier:
 * under 1/128 a step), so alike within an eighth and a millisecond, not to the bit. */
static int same_error(double a, double b) { return !isnan(a) && !isnan(b) && fabs(a - b) <= fmax(a, b) / 8 + 1.0; }

static int get_s(const uint8_t *r, size_t n, const char *name, const char *want) {
    nmp_field f;
    return nmp_unpack_find(r, n, name, &f, NULL, 0) == 1 && f.n == strlen(want) && memcmp(f.data, want, f.n) == 0;
}

TEST(owamp_kind_measures_one_way_in_every_mode) {
    const char *modes[3] = {"open", "authenticated", "encrypted"};
    for (int i = 0; i < 3; i++) {
        char err[NMP_ERRLEN] = "";
        size_t n;
        uint8_t *r = run_kind("owamp", op, modes[i], 30, i ? "alice" : NULL, &n, err, sizeof(err));
        if (r == NULL) fprintf(stderr, "owamp %s: %s\n", modes[i], err);
        CHECK(r != NULL);
        if (r == NULL) continue;
        CHECK(get_s(r, n, "mode", modes[i]));
        CHECK_EQ_INT(get_i(r, n, "sent"), 30); CHECK_EQ_INT(get_i(r, n, "received"), 30);
        CHECK_EQ_INT(get_i(r, n, "lost"), 0); CHECK_EQ_INT(get_i(r, n, "duplicates"), 0);
        CHECK_EQ_INT(get_i(r, n, "reordered"), 0); CHECK_EQ_INT(get_i(r, n, "records"), 30);
        double mn = get_f(r, n, "minOwdMs"), mx = get_f(r, n, "maxOwdMs");
        CHECK(mn > 0 && mx >= mn && mx < 1000); /* the receiver's own stamps, one clock, loopback */
        /* both ends share this host's clock: the receiver's stated error is the sender's */
        CHECK(same_error(get_f(r, n, "receiverErrorMs"), get_f(r, n, "senderErrorMs")));
        nmp_field f;
        CHECK(nmp_unpack_find(r, n, "frames.seq", &f, NULL, 0) == 1 && f.n == 30);
        for (uint32_t k = 0; k < f.n && k < 30; k++) CHECK_EQ_INT(nmp_field_i32_at(&f, k), k);
        CHECK(nmp_unpack_find(r, n, "frames.ttl", &f, NULL, 0) == 1 && f.n == 30 && nmp_field_i32_at(&f, 0) == 255);
        free(r);
    }
}

TEST(owamp_kind_measures_the_from_direction_in_every_mode) {
    const char *modes[3] = {"open", "authenticated", "encrypted"};
    kind_direction = "from";
    for (int i = 0; i < 3; i++) {
        char err[NMP_ERRLEN] = "";
        size_t n;
        uint8_t *r = run_kind("owamp", op, modes[i], 30, i ? "alice" : NULL, &n, err, sizeof(err));
        if (r == NULL) fprintf(stderr, "owamp from, %s: %s\n", modes[i], err);
        CHECK(r != NULL);
        if (r == NULL) continue;
        CHECK(get_s(r, n, "mode", modes[i]));
        CHECK(get_s(r, n, "direction", "from"));
        /* sent is the server's own count (its Next Seqno less its skips), received this end's */
        CHECK_EQ_INT(get_i(r, n, "sent"), 30); CHECK_EQ_INT(get_i(r, n, "skipped"), 0);
        CHECK_EQ_INT(get_i(r, n, "received"), 30); CHECK_EQ_INT(get_i(r, n, "lost"), 0);
        CHECK_EQ_INT(get_i(r, n, "duplicates"), 0); CHECK_EQ_INT(get_i(r, n, "reordered"), 0);
        CHECK_EQ_INT(get_i(r, n, "invalid"), 0); CHECK_EQ_INT(get_i(r, n, "records"), 30);
        double mn = get_f(r, n, "minOwdMs"), mx = get_f(r, n, "maxOwdMs");
        CHECK(mn > 0 && mx >= mn && mx < 1000); /* kernel receive stamp after the server's send stamp, one clock */
        CHECK(same_error(get_f(r, n, "receiverErrorMs"), get_f(r, n, "senderErrorMs")));
        nmp_field f, sn;
        CHECK(nmp_unpack_find(r, n, "frames.seq", &f, NULL, 0) == 1 && f.n == 30);
        for (uint32_t k = 0; k < f.n && k < 30; k++) CHECK_EQ_INT(nmp_field_i32_at(&f, k), k);
        CHECK(nmp_unpack_find(r, n, "frames.ttl", &f, NULL, 0) == 1 && f.n == 30 && nmp_field_i32_at(&f, 29) == 255);
        /* the server's send stamps, in sending order (their slots: the raw schedule test below) */
        CHECK(nmp_unpack_find(r, n, "frames.sendEpochNanos", &sn, NULL, 0) == 1 && sn.n == 30);
        for (uint32_t k = 1; k < sn.n && k < 30; k++) CHECK(nmp_field_i64_at(&sn, k) > nmp_field_i64_at(&sn, k - 1));
        free(r);
    }
    kind_direction = NULL;
}

/* Occurrences of needle in the daemon's whole log. */
static int log_count(const char *needle) {
    FILE *f = fopen(proc.log, "r");
    if (f == NULL) return -1;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - 1 - len, f)) > 0;) {
        len += got;
        if (len == cap - 1) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) break;
            buf = nb, cap *= 2;
        }
    }
    fclose(f);
    if (buf == NULL) return -1;
    buf[len] = '\0';
    int n = 0;
    for (const char *q = buf; (q = strstr(q, needle)) != NULL; q += strlen(needle)) n++;
    free(buf);
    return n;
}

/* owping's default: this end's session and the server's on ONE control connection, one
 * Start-Sessions, one Stop-Sessions exchange, then Fetch-Session of this end's */
TEST(owamp_kind_measures_both_directions_on_one_control_connection_in_every_mode) {
    const char *modes[3] = {"open", "authenticated", "encrypted"};
    /* a daemon of its own: the shared one allows one session per key, "both" holds two (and
     * two fit a limit of two per client and per key) */
    nmp_test_proc saved = proc;
    int sop = op, stp = tp;
    const char *extra[] = {"--max-per-client", "2", "--max-per-key", "2", NULL};
    if (start_daemon(extra) < 0) {
        fprintf(stderr, "a second nmprobe-owampd did not start\n");
        nmp_test_proc_stop(&proc, 1);
        proc = saved, op = sop, tp = stp;
        CHECK(0);
        return;
    }
    int fds0 = idle_fds();
    kind_direction = "both";
    for (int i = 0; i < 3; i++) {
        char err[NMP_ERRLEN] = "";
        size_t n;
        int opened = log_count("OWAMP control connection opened"), started = log_count("Start-Sessions: 2 sessions");
        int freed = log_count("OWAMP control connection closed (2 sessions freed)");
        uint8_t *r = run_kind("owamp", op, modes[i], 20, i ? "alice" : NULL, &n, err, sizeof(err));
        if (r == NULL) fprintf(stderr, "owamp both, %s: %s\n", modes[i], err);
        CHECK(r != NULL);
        if (r == NULL) continue;
        CHECK(get_s(r, n, "mode", modes[i]));
        CHECK(get_s(r, n, "direction", "both"));
        /* this end's session, as "to" packs it: the server's records, fetched */
        CHECK_EQ_INT(get_i(r, n, "sent"), 20); CHECK_EQ_INT(get_i(r, n, "received"), 20);
        CHECK_EQ_INT(get_i(r, n, "lost"), 0); CHECK_EQ_INT(get_i(r, n, "duplicates"), 0);
        CHECK_EQ_INT(get_i(r, n, "reordered"), 0); CHECK_EQ_INT(get_i(r, n, "records"), 20);
        CHECK_EQ_INT(get_i(r, n, "skipped"), 0);
        /* the server's, as "from" packs it, under reverse.: its Stop-Sessions count, this end's records */
        CHECK_EQ_INT(get_i(r, n, "reverse.requested"), 20);
        CHECK_EQ_INT(get_i(r, n, "reverse.sent"), 20); CHECK_EQ_INT(get_i(r, n, "reverse.skipped"), 0);
        CHECK_EQ_INT(get_i(r, n, "reverse.received"), 20); CHECK_EQ_INT(get_i(r, n, "reverse.lost"), 0);
        CHECK_EQ_INT(get_i(r, n, "reverse.duplicates"), 0); CHECK_EQ_INT(get_i(r, n, "reverse.reordered"), 0);
        CHECK_EQ_INT(get_i(r, n, "reverse.invalid"), 0); CHECK_EQ_INT(get_i(r, n, "reverse.records"), 20);
        CHECK(get_f(r, n, "reverse.lossPercent") == 0.0);
        /* the two sessions have their own ports; the shared connection's figures are not repeated */
        CHECK(get_i(r, n, "reverse.remotePort") > 0 && get_i(r, n, "reverse.remotePort") != get_i(r, n, "remotePort"));
        nmp_field f;
        CHECK(nmp_unpack_find(r, n, "reverse.mode", &f, NULL, 0) == 0);
        CHECK(nmp_unpack_find(r, n, "reverse.direction", &f, NULL, 0) == 0);
        /* one clock, loopback: each way's delay is positive, its median well under 10 ms; any one
         * packet may meet a preemption (two ctests share two cores), so its bound is loose */
        double mn = get_f(r, n, "minOwdMs"), mx = get_f(r, n, "maxOwdMs");
        double rmn = get_f(r, n, "reverse.minOwdMs"), rmx = get_f(r, n, "reverse.maxOwdMs");
        double med = get_f(r, n, "medianOwdMs"), rmed = get_f(r, n, "reverse.medianOwdMs");
        fprintf(stderr, "  %s: to min %.4f median %.4f max %.4f ms; from min %.4f median %.4f max %.4f ms\n", modes[i],
                mn, med, mx, rmn, rmed, rmx);
        CHECK(mn >= 0 && mx >= mn && mx < 1000 && med < 10);
        CHECK(rmn >= 0 && rmx >= rmn && rmx < 1000 && rmed < 10);
        CHECK(get_f(r, n, "reverse.p95OwdMs") >= rmn && get_f(r, n, "reverse.meanOwdMs") >= rmn);
        CHECK(same_error(get_f(r, n, "receiverErrorMs"), get_f(r, n, "senderErrorMs")));
        CHECK(same_error(get_f(r, n, "reverse.receiverErrorMs"), get_f(r, n, "reverse.senderErrorMs")));
        CHECK(same_error(get_f(r, n, "reverse.oneWayUncertaintyMs"), get_f(r, n, "oneWayUncertaintyMs")));
        /* per frame, each direction in sequence order */
        CHECK(nmp_unpack_find(r, n, "frames.seq", &f, NULL, 0) == 1 && f.n == 20);
        for (uint32_t k = 0; k < f.n && k < 20; k++) CHECK_EQ_INT(nmp_field_i32_at(&f, k), k);
        CHECK(nmp_unpack_find(r, n, "reverse.frames.seq", &f, NULL, 0) == 1 && f.n == 20);
        for (uint32_t k = 0; k < f.n && k < 20; k++) CHECK_EQ_INT(nmp_field_i32_at(&f, k), k);
        CHECK(nmp_unpack_find(r, n, "reverse.frames.owdNanos", &f, NULL, 0) == 1 && f.n == 20);
        for (uint32_t k = 0; k < f.n && k < 20; k++) CHECK(nmp_field_i64_at(&f, k) >= 0);
        CHECK(nmp_unpack_find(r, n, "reverse.frames.ttl", &f, NULL, 0) == 1 && f.n == 20 && nmp_field_i32_at(&f, 0) == 255);
        /* the daemon saw one control connection holding both sessions, started together */
        CHECK_EQ_INT(log_count("OWAMP control connection opened"), opened + 1);
        CHECK_EQ_INT(log_count("Start-Sessions: 2 sessions"), started + 1);
        /* and freed both when this end closed it (the daemon reads the close soon after) */
        for (double end = nmp_test_now() + 3; nmp_test_now() < end && log_count("(2 sessions freed)") <= freed;)
            usleep(20000);
        CHECK_EQ_INT(log_count("OWAMP control connection closed (2 sessions freed)"), freed + 1);
        CHECK(daemon_holds_nothing(-2));
        free(r);
    }
    CHECK(daemon_holds_nothing(fds0));
    /* TWAMP has no direction to choose (a TWAMP session measures both ways): the kind has no
     * such field, so the spec is refused before the run; OWAMP takes only these three */
    char err[NMP_ERRLEN] = "";
    size_t n;
    CHECK(run_kind("twamp", tp, "open", 3, NULL, &n, err, sizeof(err)) == NULL);
    if (strcmp(err, "twamp: unknown spec field 'direction'") != 0) fprintf(stderr, "twamp with direction: %s\n", err);
    CHECK(strcmp(err, "twamp: unknown spec field 'direction'") == 0);
    kind_direction = "back";
    CHECK(run_kind("owamp", op, "open", 3, NULL, &n, err, sizeof(err)) == NULL);
    CHECK(strstr(err, "\"back\"") != NULL && strstr(err, "both") != NULL);
    kind_direction = NULL;
    CHECK(daemon_holds_nothing(fds0));
    CHECK_EQ_INT(nmp_test_proc_stop(&proc, nmp_test_failures > 0), 0);
    proc = saved, op = sop, tp = stp;
    /* the shared daemon allows one session per key: the second request (the server's session) is
     * refused with Accept 5 after the first was accepted, and the first is freed with the connection */
    fds0 = idle_fds();
    kind_direction = "both";
    int refused = log_count("key id \"alice\" holds 1 sessions, limit 1");
    CHECK(run_kind("owamp", op, "authenticated", 20, "alice", &n, err, sizeof(err)) == NULL);
    kind_direction = NULL;
    CHECK(strstr(err, "refused the session it would send: Accept 5") != NULL);
    CHECK_EQ_INT(log_count("key id \"alice\" holds 1 sessions, limit 1"), refused + 1);
    CHECK(daemon_holds_nothing(fds0));
}

TEST(twamp_kind_measures_round_trips_in_every_mode) {
    const char *modes[4] = {"open", "authenticated", "encrypted", "mixed"};
    for (int i = 0; i < 4; i++) {
        char err[NMP_ERRLEN] = "";
        size_t n;
        uint8_t *r = run_kind("twamp", tp, modes[i], 30, i ? "alice" : NULL, &n, err, sizeof(err));
        if (r == NULL) fprintf(stderr, "twamp %s: %s\n", modes[i], err);
        CHECK(r != NULL);
        if (r == NULL) continue;
        CHECK(get_s(r, n, "mode", modes[i]));
        CHECK_EQ_INT(get_i(r, n, "sent"), 30); CHECK_EQ_INT(get_i(r, n, "received"), 30);
        CHECK_EQ_INT(get_i(r, n, "lost"), 0); CHECK_EQ_INT(get_i(r, n, "invalid"), 0);
        CHECK_EQ_INT(get_i(r, n, "forwardLost"), 0);
        double mn = get_f(r, n, "minRttMs");
        CHECK(mn > 0 && get_f(r, n, "maxRttMs") < 1000);
        CHECK(same_error(get_f(r, n, "reflectorErrorMs"), get_f(r, n, "senderErrorMs")));
        nmp_field rt, fw, bw, ttl;
        CHECK(nmp_unpack_find(r, n, "frames.rttNanos", &rt, NULL, 0) == 1 && rt.n == 30);
        CHECK(nmp_unpack_find(r, n, "frames.forwardNanos", &fw, NULL, 0) == 1 && fw.n == 30);
        CHECK(nmp_unpack_find(r, n, "frames.backwardNanos", &bw, NULL, 0) == 1 && bw.n == 30);
        CHECK(nmp_unpack_find(r, n, "frames.senderTtl", &ttl, NULL, 0) == 1 && ttl.n == 30);
        for (uint32_t k = 0; k < 30 && rt.n == 30 && fw.n == 30 && bw.n == 30; k++) {
            /* round trip without the residence time: exactly forward + backward on one clock */
            CHECK_EQ_INT(nmp_field_i64_at(&rt, k), nmp_field_i64_at(&fw, k) + nmp_field_i64_at(&bw, k));
            CHECK(nmp_field_i64_at(&fw, k) > 0 && nmp_field_i64_at(&bw, k) > 0);
            CHECK_EQ_INT(nmp_field_i32_at(&ttl, k), 255);
        }
        free(r);
    }
}

TEST(a_wrong_key_or_a_mode_not_offered_is_refused_by_name) {
    char err[NMP_ERRLEN] = "";
    size_t n;
    /* the TWAMP-only mixed mode asked of OWAMP */
    CHECK(run_kind("owamp", op, "mixed", 3, "alice", &n, err, sizeof(err)) == NULL);
    CHECK(strstr(err, "mixed") != NULL);
    CHECK(run_kind("twamp", tp, "encrypted", 3, "mallory", &n, err, sizeof(err)) == NULL);
    CHECK(strstr(err, "no key for key id \"mallory\"") != NULL); /* not in this end's file */
}

/* Open-mode set-up by hand from a chosen source address; returns the socket after Server-Start. */
static int raw_open(int port, const char *src) {
    int fd = src ? -1 : nmp_test_connect(port);
    if (!src && fd < 0) return -1;
    if (src) {
        struct sockaddr_in s = {.sin_family = AF_INET}, d = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        struct timeval tv = {.tv_sec = 10};
        inet_pton(AF_INET, src, &s.sin_addr), inet_pton(AF_INET, "127.0.0.1", &d.sin_addr);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        if (bind(fd, (struct sockaddr *)&s, sizeof(s)) < 0 || connect(fd, (struct sockaddr *)&d, sizeof(d)) < 0) {
            close(fd);
            return -1;
        }
    }
    uint8_t g[64], su[164] = {0, 0, 0, 1}, ss[48];
    if (recv(fd, g, 64, MSG_WAITALL) != 64 || send(fd, su, sizeof(su), 0) != 164 ||
        recv(fd, ss, 48, MSG_WAITALL) != 48 || ss[15] != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends one open-mode Request-TW-Session (or Request-Session with the schedule given); returns Accept. */
static int raw_request(int fd, int twamp, uint16_t sender_port, uint32_t npackets, uint64_t gap_ns) {
    uint8_t m[144];
    nmp_ow_request r = {.cmd = twamp ? 5 : 1, .ipvn = 4, .conf_receiver = !twamp, .nslots = !twamp,
                        .npackets = twamp ? 0 : npackets, .sender_port = sender_port,
                        .timeout = nmp_ow_dur_from_ns(1000000000ull)};
    memcpy(r.sender_addr, (uint8_t[]){127, 0, 0, 1}, 4), memcpy(r.receiver_addr, (uint8_t[]){127, 0, 0, 1}, 4);
    nmp_ow_request_encode(m, &r);
    nmp_ow_slot sl = {.type = 1, .param = nmp_ow_dur_from_ns(gap_ns)};
    nmp_ow_slot_encode(m + 112, &sl);
    memset(m + 128, 0, 16);
    size_t len = twamp ? 112 : 144;
    uint8_t a[48];
    if (send(fd, m, len, 0) != (ssize_t)len || recv(fd, a, 48, MSG_WAITALL) != 48) return -1;
    return a[0];
}

/* A conf-sender session run by hand (open mode) against the daemon, as owping -f runs
 * one: this end's UDP socket and SID in Request-Session, Start-Sessions, the packets
 * read until all came (or 2 s of quiet), then Stop-Sessions and the server's answer. */
typedef struct from_run {
    int accept;                       /* Accept-Session's value */
    uint8_t sid[16];
    uint64_t start_ts;                /* Start Time asked (NTP) */
    uint32_t nrecv, seq[512];
    uint64_t ts[512];                 /* the packets' send timestamps */
    uint32_t next_seqno, nskips, skip_first, skip_last; /* the server's Stop-Sessions */
    uint16_t from_port;               /* where the packets came from */
    uint16_t accept_port;             /* Accept-Session's Port */
} from_run;

static int raw_from(int port, const nmp_ow_slot *slots, uint32_t nslots, uint32_t npackets, int64_t start_in_ns,
                    uint64_t timeout_ns, from_run *fr) {
    char err[NMP_ERRLEN];
    nmp_owc oc;
    memset(fr, 0, sizeof(*fr));
    fr->accept = -1;
    if (nmp_owc_open(&oc, "127.0.0.1", port, 0, NMP_OW_MODE_OPEN, NULL, NULL, 5000, NULL, err, sizeof(err)) < 0) return -1;
    int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;
    struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t ul = sizeof(ua);
    if (u < 0 || bind(u, (struct sockaddr *)&ua, ul) < 0 || getsockname(u, (struct sockaddr *)&ua, &ul) < 0) goto end;
    uint8_t m[112 + 16 * 4 + 16], a[48], st[32];
    nmp_ow_request r = {.cmd = 1, .ipvn = 4, .conf_sender = 1, .nslots = nslots, .npackets = npackets,
                        .receiver_port = ntohs(ua.sin_port), .timeout = nmp_ow_dur_from_ns(timeout_ns)};
    memcpy(r.sender_addr, (uint8_t[]){127, 0, 0, 1}, 4), memcpy(r.receiver_addr, (uint8_t[]){127, 0, 0, 1}, 4);
    nmp_net_random(r.sid, 16);
    memcpy(fr->sid, r.sid, 16);
    fr->start_ts = r.start_time = nmp_ow_ts_from_wall(nmp_wall_now() + start_in_ns);
    nmp_ow_request_encode(m, &r);
    for (uint32_t i = 0; i < nslots; i++) nmp_ow_slot_encode(m + 112 + 16 * i, &slots[i]);
    size_t len = 112 + 16 * nslots + 16, hm[2] = {96, len - 16}, h1 = 32, h2 = 16;
    memset(m + len - 16, 0, 16);
    nmp_ow_accept acc;
    if (nmp_owc_send(&oc, m, len, hm, 2, err, sizeof(err)) < 0 || nmp_owc_recv(&oc, a, 48, err, sizeof(err)) < 0 ||
        nmp_owc_verify(&oc, a, 48, &h1, 1, "Accept", err, sizeof(err)) < 0 ||
        nmp_ow_accept_decode(a, 48, &acc, err, sizeof(err)) < 0)
        goto end;
    fr->accept = acc.accept, fr->accept_port = acc.port;
    rc = 0;
    if (acc.accept != 0) goto end;
    rc = -1;
    nmp_ow_start_encode(st);
    if (nmp_owc_send(&oc, st, 32, &h2, 1, err, sizeof(err)) < 0 || nmp_owc_recv(&oc, st, 32, err, sizeof(err)) < 0 ||
        st[0] != 0)
        goto end;
    for (double quiet = nmp_test_now() + 2 + (start_in_ns > 0 ? start_in_ns / 1e9 : 0); fr->nrecv < npackets && fr->nrecv < 512 &&
                                                                                          nmp_test_now() < quiet;) {
        struct pollfd pf = {.fd = u, .events = POLLIN};
        if (poll(&pf, 1, 50) <= 0) continue;
        uint8_t b[2048];
        struct sockaddr_in from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(u, b, sizeof(b), 0, (struct sockaddr *)&from, &fl);
        nmp_ow_test_pkt p;
        if (n <= 0 || nmp_ow_test_decode(b, (size_t)n, &p, NMP_OW_MODE_OPEN, NULL) < 0) continue;
        fr->seq[fr->nrecv] = p.seq, fr->ts[fr->nrecv++] = p.ts, fr->from_port = ntohs(from.sin_port);
        quiet = nmp_test_now() + 2;
        if (p.seq == npackets - 1) break; /* the last slot's packet: nothing follows it */
    }
    /* Stop-Sessions: this end sent nothing; the server's answer describes what it sent */
    uint8_t sm[32] = {0}, ans[128];
    size_t sh = 16;
    nmp_ow_stop_header_encode(sm, 0, 0);
    if (nmp_owc_send(&oc, sm, 32, &sh, 1, err, sizeof(err)) < 0 || nmp_owc_recv(&oc, ans, 16, err, sizeof(err)) < 0)
        goto end;
    size_t have = 16;
    long L;
    while ((L = nmp_ow_client_msg_len(0, ans, have)) >= 0 && (size_t)L != have && have < sizeof(ans)) {
        size_t want = L == 0 ? have + 16 : (size_t)L;
        if (want > sizeof(ans) || nmp_owc_recv(&oc, ans + have, want - have, err, sizeof(err)) < 0) goto end;
        have = want;
    }
    nmp_ow_stop_session ss;
    size_t ah = have - 16;
    if (nmp_owc_verify(&oc, ans, have, &ah, 1, "Stop", err, sizeof(err)) < 0 ||
        nmp_ow_stop_session_at(ans, have, 0, &ss, err, sizeof(err)) < 0 || memcmp(ss.sid, fr->sid, 16) != 0)
        goto end;
    fr->next_seqno = ss.next_seqno, fr->nskips = ss.nskips;
    if (ss.nskips) {
        fr->skip_first = (uint32_t)ss.skips[0] << 24 | ss.skips[1] << 16 | ss.skips[2] << 8 | ss.skips[3];
        fr->skip_last = (uint32_t)ss.skips[4] << 24 | ss.skips[5] << 16 | ss.skips[6] << 8 | ss.skips[7];
    }
    rc = 0;
end:
    if (rc < 0) fprintf(stderr, "  raw conf-sender session: %s\n", err);
    if (u >= 0) close(u);
    nmp_owc_close(&oc);
    return rc;
}

TEST(the_server_sends_fixed_and_exponential_schedules_in_order_and_never_before_a_slot) {
    int fds0 = idle_fds();
    /* an exponential slot of mean 3 ms, then a fixed one of 1 ms, over and over (RFC 4656 3.5) */
    nmp_ow_slot slots[2] = {{.type = 0, .param = nmp_ow_dur_from_ns(3000000)}, {.type = 1, .param = nmp_ow_dur_from_ns(1000000)}};
    from_run fr;
    CHECK_EQ_INT(raw_from(op, slots, 2, 60, 300000000, 2000000000ull, &fr), 0);
    CHECK_EQ_INT(fr.accept, 0);
    CHECK(fr.accept_port != 0 && fr.from_port == fr.accept_port); /* Accept-Session's Port: where the packets leave */
    CHECK_EQ_INT(fr.nrecv, 60);
    CHECK_EQ_INT(fr.next_seqno, 60); CHECK_EQ_INT(fr.nskips, 0);
    nmp_ow_sched sc;
    CHECK_EQ_INT(nmp_ow_sched_init(&sc, fr.sid, slots, 2), 0);
    uint64_t off = 0;
    double worst = -1e9, sum_late = 0;
    for (uint32_t i = 0; i < fr.nrecv && i < 60; i++) {
        off += nmp_ow_sched_next(&sc);
        CHECK_EQ_INT(fr.seq[i], i); /* in order, none missing on loopback */
        /* packet i leaves at Start Time plus gaps 0..i, never before (1 ms for the wall clock's slew against
         * the monotonic one the daemon waits on); late is possible on a loaded machine and not judged */
        CHECK(fr.ts[i] + nmp_ow_dur_from_ns(1000000) >= fr.start_ts + off);
        double late = (double)(int64_t)(fr.ts[i] - (fr.start_ts + off)) / 4294967296.0 * 1e6;
        if (late > worst) worst = late;
        sum_late += late;
    }
    fprintf(stderr, "  send stamps after their slots: mean %.1f us, worst %.1f us (information, not judged)\n",
            sum_late / (fr.nrecv ? fr.nrecv : 1), worst);
    nmp_ow_sched_free(&sc);
    CHECK(daemon_holds_nothing(fds0));
}

TEST(packets_past_their_slot_by_the_timeout_are_skipped_and_reported_at_stop_sessions) {
    int fds0 = idle_fds();
    /* Start Time a second ago, 10 ms slots, 100 ms timeout: the first ~90 slots are too late to send */
    nmp_ow_slot slot = {.type = 1, .param = nmp_ow_dur_from_ns(10000000)};
    from_run fr;
    CHECK_EQ_INT(raw_from(op, &slot, 1, 150, -1000000000ll, 100000000ull, &fr), 0);
    CHECK_EQ_INT(fr.accept, 0);
    CHECK_EQ_INT(fr.next_seqno, 150);
    CHECK_EQ_INT(fr.nskips, 1);
    CHECK_EQ_INT(fr.skip_first, 0);
    CHECK(fr.skip_last >= 85 && fr.skip_last < 149);
    /* what was not skipped was sent, and arrived, in order */
    CHECK_EQ_INT(fr.nrecv, 150 - (fr.skip_last + 1));
    for (uint32_t i = 0; i < fr.nrecv; i++) CHECK_EQ_INT(fr.seq[i], fr.skip_last + 1 + i);
    CHECK(nmp_test_proc_log_num(&proc, "next seqno 150, ") == 1); /* the log's figures: 1 skip range */
    CHECK(daemon_holds_nothing(fds0));
}

/* One open-mode Request-Session asking this server to send to 127.0.0.X port receiver_port; returns Accept. */
static int raw_request_from(int fd, uint16_t receiver_port, uint32_t npackets, uint64_t gap_ns, int x) {
    uint8_t m[144], a[48];
    nmp_ow_request r = {.cmd = 1, .ipvn = 4, .conf_sender = 1, .nslots = 1, .npackets = npackets,
                        .receiver_port = receiver_port, .timeout = nmp_ow_dur_from_ns(1000000000ull)};
    memcpy(r.sender_addr, (uint8_t[]){127, 0, 0, 1}, 4), memcpy(r.receiver_addr, (uint8_t[]){127, 0, 0, (uint8_t)x}, 4);
    nmp_net_random(r.sid, 16);
    nmp_ow_request_encode(m, &r);
    nmp_ow_slot sl = {.type = 0, .param = nmp_ow_dur_from_ns(gap_ns)}; /* exponential: its mean sets the rate */
    nmp_ow_slot_encode(m + 112, &sl);
    memset(m + 128, 0, 16);
    if (send(fd, m, 144, 0) != 144 || recv(fd, a, 48, MSG_WAITALL) != 48) return -1;
    return a[0];
}

TEST(bad_input_is_refused_with_the_rfcs_codes_and_nothing_is_held) {
    int fds0 = idle_fds();
    CHECK(fds0 > 0);
    char err[NMP_ERRLEN];
    /* a truncated Set-Up-Response, then the client goes away */
    int fd = nmp_test_connect(tp);
    uint8_t g[64], junk[100] = {0, 0, 0, 1};
    CHECK(recv(fd, g, 64, MSG_WAITALL) == 64 && send(fd, junk, sizeof(junk), 0) == 100);
    close(fd);
    CHECK(daemon_holds_nothing(fds0));
    CHECK(nmp_test_proc_log_num(&proc, "connection ended inside a message (") == 100);

    /* an oversized message: a Request-Session announcing 5000 schedule slots */
    fd = raw_open(op, NULL);
    CHECK(fd >= 0);
    uint8_t big[16] = {1, 0, 0, 1, 0, 0, 0x13, 0x88};
    CHECK(send(fd, big, 16, 0) == 16);
    CHECK(nmp_test_wait_closed(fd, 5) >= 0);
    close(fd);
    CHECK(daemon_holds_nothing(fds0));

    /* a command TWAMP forbids (Request-Session, 1) on the TWAMP port */
    fd = raw_open(tp, NULL);
    CHECK(fd >= 0 && raw_request(fd, 0, 5000, 10, 1000000) < 0); /* closed without an answer */
    close(fd);
    CHECK(daemon_holds_nothing(fds0));

    /* an unknown mode (16): Server-Start Accept 3, then the connection closes */
    fd = nmp_test_connect(tp);
    uint8_t su[164] = {0, 0, 0, 16}, ss[48];
    CHECK(recv(fd, g, 64, MSG_WAITALL) == 64 && send(fd, su, sizeof(su), 0) == 164);
    CHECK(recv(fd, ss, 48, MSG_WAITALL) == 48 && ss[15] == NMP_OW_ACCEPT_UNSUPPORTED);
    CHECK(nmp_test_wait_closed(fd, 5) >= 0);
    close(fd);

    /* a wrong HMAC in authenticated mode: one bit of the Request-TW-Session's last block */
    nmp_owc oc;
    CHECK_EQ_INT(nmp_owc_open(&oc, "127.0.0.1", tp, 1, NMP_OW_MODE_AUTH, "alice", keyfile, 5000, NULL, err,
                              sizeof(err)), 0);
    uint8_t m[112];
    nmp_ow_request r = {.cmd = 5, .ipvn = 4, .sender_port = 5001, .timeout = nmp_ow_dur_from_ns(1000000000ull)};
    nmp_ow_request_encode(m, &r);
    size_t hm = 96;
    CHECK_EQ_INT(nmp_ow_seal(&oc.c, m, sizeof(m), &hm, 1), 0);
    m[111] ^= 1;
    CHECK(send(oc.fd, m, sizeof(m), MSG_NOSIGNAL) == 112);
    CHECK(nmp_test_wait_closed(oc.fd, 5) >= 0);
    nmp_owc_close(&oc);
    CHECK(daemon_holds_nothing(fds0));

    /* a replayed Set-Up-Response: valid for one greeting, sent against another */
    uint8_t setup[NMP_OW_SETUP_LEN];
    fd = nmp_test_connect(op);
    nmp_ow_greeting gr;
    CHECK(recv(fd, g, 64, MSG_WAITALL) == 64 && nmp_ow_greeting_decode(g, 64, &gr, err, sizeof(err)) == 0);
    nmp_ow_setup s = {.mode = NMP_OW_MODE_ENCRYPTED};
    nmp_ow_keys keys;
    nmp_net_random(&keys, sizeof(keys));
    memcpy(s.keyid, "alice", 5);
    CHECK_EQ_INT(nmp_ow_token_make(secret_alice, 16, &gr, &keys, s.token), 0);
    nmp_ow_setup_encode(setup, &s);
    CHECK(send(fd, setup, sizeof(setup), 0) == 164 && recv(fd, ss, 48, MSG_WAITALL) == 48 && ss[15] == 0);
    close(fd);
    fd = nmp_test_connect(op);
    CHECK(recv(fd, g, 64, MSG_WAITALL) == 64 && send(fd, setup, sizeof(setup), 0) == 164);
    CHECK(recv(fd, ss, 48, MSG_WAITALL) == 48 && ss[15] == NMP_OW_ACCEPT_FAILURE);
    CHECK(nmp_test_wait_closed(fd, 5) >= 0);
    close(fd);

    /* a replayed session: the same Request-TW-Session twice on one connection */
    fd = raw_open(tp, NULL);
    CHECK(fd >= 0 && raw_request(fd, 1, 5002, 0, 0) == NMP_OW_ACCEPT_OK);
    CHECK(raw_request(fd, 1, 5002, 0, 0) == NMP_OW_ACCEPT_FAILURE);
    close(fd);
    CHECK(daemon_holds_nothing(fds0));

    /* Stop-Sessions describing one session twice: the first description holds, the second is
     * ignored (and its skip ranges not allocated over the first's) */
    fd = raw_open(op, NULL);
    CHECK(fd >= 0);
    {
        uint8_t rq[144], ac[48], sa[32], sm[16 + 32 + 48 + 16] = {0}, ans[32];
        nmp_ow_request q = {.cmd = 1, .ipvn = 4, .conf_receiver = 1, .nslots = 1, .npackets = 10,
                            .sender_port = 5003, .timeout = nmp_ow_dur_from_ns(1000000000ull)};
        memcpy(q.sender_addr, (uint8_t[]){127, 0, 0, 1}, 4), memcpy(q.receiver_addr, (uint8_t[]){127, 0, 0, 1}, 4);
        nmp_ow_request_encode(rq, &q);
        nmp_ow_slot sl = {.type = 1, .param = nmp_ow_dur_from_ns(1000000)};
        nmp_ow_slot_encode(rq + 112, &sl);
        memset(rq + 128, 0, 16);
        nmp_ow_accept acc = {.accept = 255};
        CHECK(send(fd, rq, 144, 0) == 144 && recv(fd, ac, 48, MSG_WAITALL) == 48 &&
              nmp_ow_accept_decode(ac, 48, &acc, err, sizeof(err)) == 0 && acc.accept == 0);
        nmp_ow_start_encode(sa);
        CHECK(send(fd, sa, 32, 0) == 32 && recv(fd, sa, 32, MSG_WAITALL) == 32 && sa[0] == 0);
        uint32_t sk1[2] = {2, 3}, sk2[4] = {5, 5, 7, 7};
        const char *first = "records, next seqno 10, 1 skip ranges"; /* the first description's */
        int before = log_count(first);
        nmp_ow_stop_header_encode(sm, 0, 2);
        long d1 = nmp_ow_stop_session_encode(sm + 16, 32, acc.sid, 10, sk1, 1);
        long d2 = nmp_ow_stop_session_encode(sm + 16 + 32, 48, acc.sid, 10, sk2, 2);
        CHECK_EQ_INT(d1, 32); CHECK_EQ_INT(d2, 48);
        CHECK(send(fd, sm, sizeof(sm), 0) == (ssize_t)sizeof(sm));
        /* the server's answer: it sent no session */
        CHECK(recv(fd, ans, 32, MSG_WAITALL) == 32 && ans[0] == NMP_OW_CMD_STOP_SESSIONS);
        for (double end = nmp_test_now() + 3; nmp_test_now() < end && log_count(first) <= before;) usleep(20000);
        CHECK_EQ_INT(log_count(first), before + 1);
    }
    close(fd);
    CHECK(daemon_holds_nothing(fds0));

    /* a client that connects and never speaks is dropped after servwait (1 s here) */
    fd = nmp_test_connect(op);
    CHECK(recv(fd, g, 64, MSG_WAITALL) == 64);
    CHECK(nmp_test_wait_closed(fd, 10) >= 0);
    close(fd);
    CHECK(nmp_test_proc_log_num(&proc, "silent past servwait") != -1);
    CHECK(daemon_holds_nothing(fds0));
}

TEST(sessions_beyond_each_limit_are_refused_with_accept_4_or_5) {
    int fds0 = idle_fds();
    /* per session: packets, rate, duration (Accept 4: permanent) */
    int fd = raw_open(op, NULL);
    CHECK(fd >= 0);
    CHECK_EQ_INT(raw_request(fd, 0, 6000, 200000, 1000000), NMP_OW_ACCEPT_PERMANENT); /* > 100000 packets */
    CHECK_EQ_INT(raw_request(fd, 0, 6000, 100, 100000), NMP_OW_ACCEPT_PERMANENT);     /* 10000 pps > 2000 */
    CHECK_EQ_INT(raw_request(fd, 0, 6000, 50000, 1000000), NMP_OW_ACCEPT_PERMANENT);  /* 50 s > 30 s */
    CHECK_EQ_INT(raw_request(fd, 0, 6000, 100, 1000000), NMP_OW_ACCEPT_OK);
    /* the same limits when this server is to send (conf-sender): 10000 packets/s, and 50 s */
    CHECK_EQ_INT(raw_request_from(fd, 6100, 100, 100000, 1), NMP_OW_ACCEPT_PERMANENT);
    CHECK_EQ_INT(raw_request_from(fd, 6100, 50000, 1000000, 1), NMP_OW_ACCEPT_PERMANENT);
    /* and it sends only to the client's own address: never to a third party */
    CHECK_EQ_INT(raw_request_from(fd, 6100, 100, 1000000, 9), NMP_OW_ACCEPT_FAILURE);
    /* per client address (2): the third session from 127.0.0.1 waits (Accept 5: temporary) */
    CHECK_EQ_INT(raw_request(fd, 0, 6001, 100, 1000000), NMP_OW_ACCEPT_OK);
    CHECK_EQ_INT(raw_request(fd, 0, 6002, 100, 1000000), NMP_OW_ACCEPT_TEMPORARY);
    /* sessions at once (3), whoever asks */
    int f2 = raw_open(tp, "127.0.0.2"), f3 = raw_open(tp, "127.0.0.3");
    CHECK(f2 >= 0 && f3 >= 0);
    CHECK_EQ_INT(raw_request(f2, 1, 6003, 0, 0), NMP_OW_ACCEPT_OK);
    CHECK_EQ_INT(raw_request(f3, 1, 6004, 0, 0), NMP_OW_ACCEPT_TEMPORARY);
    close(fd), close(f2), close(f3);
    CHECK(daemon_holds_nothing(fds0));
    /* per key id (1): a second session under "alice" waits */
    char err[NMP_ERRLEN];
    nmp_owc oc;
    CHECK_EQ_INT(nmp_owc_open(&oc, "127.0.0.1", tp, 1, NMP_OW_MODE_ENCRYPTED, "alice", keyfile, 5000, NULL, err,
                              sizeof(err)), 0);
    for (int i = 0; i < 2; i++) {
        uint8_t m[112], a[48];
        nmp_ow_request r = {.cmd = 5, .ipvn = 4, .sender_port = (uint16_t)(6010 + i),
                            .timeout = nmp_ow_dur_from_ns(1000000000ull)};
        nmp_ow_request_encode(m, &r);
        size_t hm = 96, ahm = 32;
        CHECK_EQ_INT(nmp_owc_send(&oc, m, sizeof(m), &hm, 1, err, sizeof(err)), 0);
        CHECK_EQ_INT(nmp_owc_recv(&oc, a, sizeof(a), err, sizeof(err)), 0);
        CHECK_EQ_INT(nmp_owc_verify(&oc, a, sizeof(a), &ahm, 1, "Accept-Session", err, sizeof(err)), 0);
        CHECK_EQ_INT(a[0], i == 0 ? NMP_OW_ACCEPT_OK : NMP_OW_ACCEPT_TEMPORARY);
    }
    nmp_owc_close(&oc);
    CHECK(daemon_holds_nothing(fds0));
    /* and every refusal said why in the log */
    CHECK(nmp_test_proc_log_num(&proc, "Accept 4 (cannot perform the request due to permanent resource limitations): 200000 packets, limit ") == 100000);
    CHECK(nmp_test_proc_log_num(&proc, "client holds ") == 2);
    CHECK(nmp_test_proc_log_num(&proc, "Accept 5 (cannot perform the request due to temporary resource limitations): ") != -1);
}

/* Run against a daemon whose --max-duration is 1 s: a session's longest duration counts from its
 * Start Time, not from Start-Sessions, so a client's lead does not cut its last packets. */
TEST(the_longest_duration_counts_from_the_start_time) {
    int fds0 = idle_fds();
    /* Start Time 0.8 s ahead; 10 packets 50 ms apart and a 0.2 s timeout: 0.7 s, within the 1 s
     * limit; the last leaves 1.3 s after Start-Sessions */
    nmp_ow_slot slot = {.type = 1, .param = nmp_ow_dur_from_ns(50000000)};
    from_run fr;
    CHECK_EQ_INT(raw_from(op, &slot, 1, 10, 800000000, 200000000ull, &fr), 0);
    CHECK_EQ_INT(fr.accept, 0);
    CHECK_EQ_INT(fr.nrecv, 10);
    CHECK_EQ_INT(fr.next_seqno, 10);
    CHECK_EQ_INT(fr.nskips, 0);
    CHECK(daemon_holds_nothing(fds0));
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) return write_seeds(argv[2]) == 0 ? 0 : 1;
    if (argc != 3) {
        fprintf(stderr, "usage: test_owamp PATH-TO-nmprobe-owampd SEED-DIR | --write-seeds SEED-DIR\n");
        return 2;
    }
    daemon_bin = argv[1];
    seed_dir = argv[2];
    signal(SIGPIPE, SIG_IGN);
    int kfd = mkstemp(keyfile);
    const char *kt = "# owampd pfs: key id and hex key\nalice 0123456789abcdef0123456789abcdef\n";
    if (kfd < 0 || write(kfd, kt, strlen(kt)) != (ssize_t)strlen(kt) || fchmod(kfd, 0600) < 0) return 1;
    close(kfd);
    RUN(greeting_and_setup_octets_are_the_rfcs);
    RUN(request_session_octets_are_the_rfcs);
    RUN(client_message_lengths_are_read_from_the_first_block);
    RUN(records_and_error_estimates_round_trip);
    RUN(token_opens_only_with_the_key_and_the_greeting_it_answers);
    RUN(control_stream_is_cbc_chained_and_hmac_checked);
    RUN(test_packets_in_each_mode);
    RUN(pfs_key_file_lines);
    RUN(one_pfs_reader_serves_owamp_and_stamp_alike);
    RUN(schedules_are_the_sids_and_exponential_gaps_have_their_mean);
    RUN(every_fuzz_owctl_seed_is_accepted_by_its_parser);
    const char *extra[] = {"--servwait", "1", "--max-per-client", "2", "--max-sessions", "3", "--max-per-key", "1",
                           "--max-pps", "2000", "--max-duration", "30", "--max-packets", "100000", NULL};
    if (start_daemon(extra) < 0) {
        fprintf(stderr, "nmprobe-owampd did not start\n");
        nmp_test_proc_stop(&proc, 1);
        unlink(keyfile);
        return 1;
    }
    RUN(owamp_kind_measures_one_way_in_every_mode);
    RUN(owamp_kind_measures_the_from_direction_in_every_mode);
    RUN(owamp_kind_measures_both_directions_on_one_control_connection_in_every_mode);
    RUN(the_server_sends_fixed_and_exponential_schedules_in_order_and_never_before_a_slot);
    RUN(packets_past_their_slot_by_the_timeout_are_skipped_and_reported_at_stop_sessions);
    RUN(twamp_kind_measures_round_trips_in_every_mode);
    RUN(a_wrong_key_or_a_mode_not_offered_is_refused_by_name);
    RUN(bad_input_is_refused_with_the_rfcs_codes_and_nothing_is_held);
    RUN(sessions_beyond_each_limit_are_refused_with_accept_4_or_5);
    int st = nmp_test_proc_stop(&proc, nmp_test_failures > 0);
    CHECK_EQ_INT(st, 0); /* SIGTERM: a clean exit */
    const char *short_tests[] = {"--servwait", "1", "--max-duration", "1", NULL};
    if (start_daemon(short_tests) < 0) {
        fprintf(stderr, "nmprobe-owampd (--max-duration 1) did not start\n");
        nmp_test_proc_stop(&proc, 1);
        unlink(keyfile);
        return 1;
    }
    RUN(the_longest_duration_counts_from_the_start_time);
    st = nmp_test_proc_stop(&proc, nmp_test_failures > 0);
    CHECK_EQ_INT(st, 0);
    unlink(keyfile);
    return nmp_test_failures ? 1 : 0;
}
