/* test_ctl.c -- the control-protocol parser and decoders: valid lines,
 * malformed lines, oversized lines, out-of-range values; the frame header
 * codec and the control line buffer. */
#include <errno.h>
#include <string.h>

#include "nmp_net.h"
#include "nmp_test.h"
#include "nmprobe.h"

static int parse(const char *s, nmp_ctl_msg *m) {
    char err[NMP_ERRLEN];
    return nmp_ctl_parse(s, strlen(s), m, err, sizeof(err));
}

/* Parses and decodes a SESSION line against default limits. */
static int decode(const char *s, nmp_session_req *r, char *err) {
    nmp_ctl_msg m;
    nmp_limits lim;
    nmp_limits_default(&lim);
    int rc = nmp_ctl_parse(s, strlen(s), &m, err, NMP_ERRLEN);
    if (rc < 0) return rc;
    return nmp_ctl_session_decode(&m, &lim, r, err, NMP_ERRLEN);
}

TEST(a_valid_session_line_parses_and_decodes) {
    nmp_ctl_msg m;
    nmp_session_req r;
    char err[NMP_ERRLEN];
    const char *l = "NMP/1 SESSION kind=rr frames=100 size=64 interval_ns=1000000 timeout_ms=500\n";
    CHECK_EQ_INT(parse(l, &m), 0);
    CHECK_EQ_INT(m.verb, NMP_CTL_SESSION);
    CHECK_EQ_INT(m.nkv, 5);
    CHECK(strcmp(nmp_ctl_get(&m, "kind"), "rr") == 0);
    CHECK(nmp_ctl_get(&m, "nope") == NULL);
    CHECK_EQ_INT(decode(l, &r, err), 0);
    CHECK_EQ_INT(r.kind, NMP_KIND_RR);
    CHECK_EQ_INT(r.frames, 100);
    CHECK_EQ_INT(r.size, 64);
    CHECK_EQ_INT(r.interval_ns, 1000000);
    CHECK_EQ_INT(r.timeout_ms, 500);
}

TEST(crlf_and_missing_newline_are_accepted) {
    nmp_ctl_msg m;
    CHECK_EQ_INT(parse("NMP/1 END\r\n", &m), 0);
    CHECK_EQ_INT(m.verb, NMP_CTL_END);
    CHECK_EQ_INT(parse("NMP/1 BYE rx=1 tx=1", &m), 0);
    CHECK_EQ_INT(m.verb, NMP_CTL_BYE);
}

TEST(malformed_lines_are_rejected_with_eproto) {
    nmp_ctl_msg m;
    const char *bad[] = {
        "",                               /* empty */
        "HELLO\n",                        /* no prefix */
        "NMP/2 END\n",                    /* wrong version */
        "NMP/1 end\n",                    /* lower-case verb */
        "NMP/1 FOO\n",                    /* unknown verb */
        "NMP/1 ENDX\n",                   /* verb prefix only */
        "NMP/1 END \n",                   /* trailing space */
        "NMP/1 OK  port=1\n",             /* double space */
        "NMP/1 OK Port=1\n",              /* upper-case key */
        "NMP/1 OK port=\n",               /* empty value */
        "NMP/1 OK =1\n",                  /* empty key */
        "NMP/1 OK port\n",                /* no '=' */
        "NMP/1 OK port=1;rm\n",           /* bad value byte */
        "NMP/1 OK port=1 port=2\n",       /* duplicate key */
        "NMP/1 OK port=1\nNMP/1 END\n",   /* embedded newline */
        "NMP/1 OK port=1\0x\n",           /* embedded NUL (strlen stops; see below) */
    };
    for (size_t i = 0; i + 1 < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = parse(bad[i], &m);
        if (rc != -EPROTO) fprintf(stderr, "  line %zu: rc %d\n", i, rc);
        CHECK_EQ_INT(rc, -EPROTO);
    }
    char err[NMP_ERRLEN];
    const char nul[] = "NMP/1 OK port=1\0x\n";
    CHECK_EQ_INT(nmp_ctl_parse(nul, sizeof(nul) - 1, &m, err, sizeof(err)), -EPROTO);
    char key24[64] = "NMP/1 OK ";
    strcat(key24, "abcdefghijklmnopqrstuvwx=1\n");
    CHECK_EQ_INT(parse(key24, &m), -EPROTO);
    char val[NMP_CTL_MAXLINE] = "NMP/1 OK text=";
    size_t n = strlen(val);
    memset(val + n, 'a', NMP_CTL_VALMAX + 1);
    val[n + NMP_CTL_VALMAX + 1] = '\0';
    CHECK_EQ_INT(parse(val, &m), -EPROTO);
    val[n + NMP_CTL_VALMAX] = '\0';
    CHECK_EQ_INT(parse(val, &m), 0);
}

TEST(oversized_lines_and_too_many_pairs_are_rejected_with_emsgsize) {
    nmp_ctl_msg m;
    char line[NMP_CTL_MAXLINE + 2];
    memset(line, 'a', sizeof(line));
    memcpy(line, "NMP/1 OK t=", 11);
    line[NMP_CTL_MAXLINE] = '\n';
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(nmp_ctl_parse(line, NMP_CTL_MAXLINE + 1, &m, err, sizeof(err)), -EMSGSIZE);
    CHECK(strstr(err, "exceeds") != NULL);
    char many[NMP_CTL_MAXLINE] = "NMP/1 OK";
    for (int i = 0; i < NMP_CTL_MAXKV + 1; i++) {
        char kv[16];
        snprintf(kv, sizeof(kv), " k%c=1", 'a' + i); /* keys ka, kb, ... */
        strcat(many, kv);
    }
    CHECK_EQ_INT(parse(many, &m), -EMSGSIZE);
}

TEST(session_decoder_rejects_unknown_missing_and_out_of_range_values) {
    nmp_session_req r;
    char err[NMP_ERRLEN];
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=1 size=64 interval_ns=0 colour=red", &r, err), -EPROTO);
    CHECK(strstr(err, "unknown key colour") != NULL);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr size=64 interval_ns=0", &r, err), -EPROTO);
    CHECK(strstr(err, "missing key frames") != NULL);
    CHECK_EQ_INT(decode("NMP/1 SESSION frames=1 size=64 interval_ns=0", &r, err), -EPROTO);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=xx frames=1 size=64 interval_ns=0", &r, err), -EINVAL);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=0 size=64 interval_ns=0", &r, err), -ERANGE);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=1 size=31 interval_ns=0", &r, err), -ERANGE);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=1 size=9001 interval_ns=0", &r, err), -ERANGE);
    CHECK(strstr(err, "size=9001 out of range 32..9000") != NULL);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=1 size=9000 interval_ns=0", &r, err), 0);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=12a size=64 interval_ns=0", &r, err), -EINVAL);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=99999999999999999999 size=64 interval_ns=0", &r, err), -EINVAL);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=1000001 size=64 interval_ns=0", &r, err), -ERANGE);
    CHECK_EQ_INT(decode("NMP/1 SESSION kind=rr frames=1 size=64 interval_ns=0 timeout_ms=60001", &r, err), -ERANGE);
    CHECK_EQ_INT(decode("NMP/1 END", &r, err), -EPROTO);
}

TEST(session_decoder_enforces_rate_and_duration_limits) {
    nmp_ctl_msg m;
    nmp_session_req r;
    nmp_limits lim;
    char err[NMP_ERRLEN];
    nmp_limits_default(&lim);
    lim.max_rate_mbps = 100;
    lim.max_duration_ms = 10000;
    const char *ok = "NMP/1 SESSION kind=rr frames=100 size=1000 interval_ns=100000 timeout_ms=1000";
    CHECK_EQ_INT(nmp_ctl_parse(ok, strlen(ok), &m, err, sizeof(err)), 0);
    CHECK_EQ_INT(nmp_ctl_session_decode(&m, &lim, &r, err, sizeof(err)), 0); /* 80 Mbit/s */
    const char *fast = "NMP/1 SESSION kind=rr frames=100 size=1000 interval_ns=10000";
    CHECK_EQ_INT(nmp_ctl_parse(fast, strlen(fast), &m, err, sizeof(err)), 0);
    CHECK_EQ_INT(nmp_ctl_session_decode(&m, &lim, &r, err, sizeof(err)), -ERANGE); /* 800 Mbit/s */
    const char *flat = "NMP/1 SESSION kind=rr frames=100 size=1000 interval_ns=0";
    CHECK_EQ_INT(nmp_ctl_parse(flat, strlen(flat), &m, err, sizeof(err)), 0);
    CHECK_EQ_INT(nmp_ctl_session_decode(&m, &lim, &r, err, sizeof(err)), -ERANGE);
    const char *slow = "NMP/1 SESSION kind=rr frames=100 size=64 interval_ns=100000000 timeout_ms=1000";
    CHECK_EQ_INT(nmp_ctl_parse(slow, strlen(slow), &m, err, sizeof(err)), 0);
    CHECK_EQ_INT(nmp_ctl_session_decode(&m, &lim, &r, err, sizeof(err)), -ERANGE); /* 11 s */
    CHECK(strstr(err, "exceeds 10000 ms") != NULL);
}

TEST(format_writes_one_line_and_refuses_overflow) {
    char buf[NMP_CTL_MAXLINE + 1];
    int n = nmp_ctl_format(buf, sizeof(buf), NMP_CTL_OK, "port=%d cookie=%016llx", 4000, 0xabcULL);
    CHECK_EQ_INT(n, (int)strlen("NMP/1 OK port=4000 cookie=0000000000000abc\n"));
    CHECK(strcmp(buf, "NMP/1 OK port=4000 cookie=0000000000000abc\n") == 0);
    CHECK_EQ_INT(nmp_ctl_format(buf, sizeof(buf), NMP_CTL_END, NULL), 10);
    char small[8];
    CHECK_EQ_INT(nmp_ctl_format(small, sizeof(small), NMP_CTL_END, NULL), -EMSGSIZE);
    char big[600];
    memset(big, 'a', 599);
    big[599] = 0;
    CHECK_EQ_INT(nmp_ctl_format(buf, sizeof(buf), NMP_CTL_ERR, "text=%s", big), -EMSGSIZE);
}

TEST(text_values_round_trip_spaces_and_drop_unsafe_bytes) {
    char enc[NMP_CTL_VALMAX + 1], dec[256];
    nmp_ctl_text_encode(enc, "size=9001 out of range 32..9000; a+b");
    CHECK(strcmp(enc, "size=9001+out+of+range+32..9000_+a_b") == 0);
    nmp_ctl_text_decode(dec, sizeof(dec), enc);
    CHECK(strcmp(dec, "size=9001 out of range 32..9000_ a_b") == 0);
    nmp_ctl_msg m;
    char line[NMP_CTL_MAXLINE + 1];
    nmp_ctl_format(line, sizeof(line), NMP_CTL_ERR, "reason=limit text=%s", enc);
    CHECK_EQ_INT(parse(line, &m), 0);
}

TEST(frame_header_round_trips_and_bad_frames_are_rejected) {
    uint8_t buf[NMP_FRAME_HDR];
    nmp_frame_hdr h = {.type = NMP_FRAME_RR_REQ, .cookie = 0x0123456789abcdefULL, .seq = 77, .total = 100,
                       .send_wall = 1700000000123456789LL},
                  g;
    nmp_frame_encode(buf, &h);
    CHECK_EQ_INT(buf[0], 'N');
    CHECK_EQ_INT(buf[3], '1');
    CHECK_EQ_INT(nmp_frame_decode(buf, sizeof(buf), &g), 0);
    CHECK(g.cookie == h.cookie && g.seq == 77 && g.total == 100 && g.send_wall == h.send_wall &&
          g.type == NMP_FRAME_RR_REQ);
    CHECK_EQ_INT(nmp_frame_decode(buf, NMP_FRAME_HDR - 1, &g), -EPROTO);
    buf[4] = 9;
    CHECK_EQ_INT(nmp_frame_decode(buf, sizeof(buf), &g), -EPROTO);
    buf[4] = NMP_PROTO_VERSION;
    buf[0] = 'X';
    CHECK_EQ_INT(nmp_frame_decode(buf, sizeof(buf), &g), -EPROTO);
}

TEST(line_buffer_splits_lines_and_flags_overlong_input) {
    nmp_linebuf lb = {.len = 0};
    char line[NMP_CTL_MAXLINE + 1];
    size_t len;
    const char *in = "NMP/1 END\nNMP/1 BY";
    memcpy(lb.buf, in, strlen(in));
    lb.len = strlen(in);
    CHECK_EQ_INT(nmp_linebuf_take(&lb, line, &len), 1);
    CHECK_EQ_INT(len, 10);
    CHECK(strcmp(line, "NMP/1 END\n") == 0);
    CHECK_EQ_INT(nmp_linebuf_take(&lb, line, &len), 0);
    CHECK_EQ_INT(lb.len, 8);
    memset(lb.buf, 'x', NMP_CTL_MAXLINE);
    lb.len = NMP_CTL_MAXLINE;
    CHECK_EQ_INT(nmp_linebuf_take(&lb, line, &len), -EMSGSIZE);
}

int main(void) {
    RUN(a_valid_session_line_parses_and_decodes);
    RUN(crlf_and_missing_newline_are_accepted);
    RUN(malformed_lines_are_rejected_with_eproto);
    RUN(oversized_lines_and_too_many_pairs_are_rejected_with_emsgsize);
    RUN(session_decoder_rejects_unknown_missing_and_out_of_range_values);
    RUN(session_decoder_enforces_rate_and_duration_limits);
    RUN(format_writes_one_line_and_refuses_overflow);
    RUN(text_values_round_trip_spaces_and_drop_unsafe_bytes);
    RUN(frame_header_round_trips_and_bad_frames_are_rejected);
    RUN(line_buffer_splits_lines_and_flags_overlong_input);
    return nmp_test_failures != 0;
}
