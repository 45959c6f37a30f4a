/* test_responder_auth.c -- authenticated sessions (issue 12, as OWAMP's
 * authenticated mode): a responder started with --key-file answers SESSION
 * with a CHALLENGE and admits only a client that answers AUTH with the v2
 * MAC (nmp_wire.h): HMAC-SHA256 under the key of the nonce, the responder's
 * address and port as dialled, the client's address as the responder sees
 * it, and the SESSION line; everything else gets a clear ERR reason=auth.
 * A relaying fake responder cannot get a session opened (issue 21, finding
 * 3). The MAC is computed here with OpenSSL's HMAC directly, from the wire
 * format as documented, not with the engine's own code. Runs against a real
 * nmprobe-responder process (argv[1]); argv[2] is the nmprobe CLI. */
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "nmp_test.h"
#include "nmp_test_proc.h"
#include "nmprobe.h"

static const char *bin, *cli;
static char dir[64], key_a[96], key_b[96], key_loose[96], key_short[96];
static uint8_t a_bytes[32];

/* Writes n bytes (and a final newline when nl) into path with 'mode'. */
static void write_key(const char *path, const uint8_t *k, size_t n, int nl, mode_t mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, k, n) != (ssize_t)n || (nl && write(fd, "\n", 1) != 1)) perror(path);
    fchmod(fd, mode);
    close(fd);
}

static void make_keys(void) {
    uint8_t b[32];
    snprintf(dir, sizeof(dir), "/tmp/nmp-keys-XXXXXX");
    if (mkdtemp(dir) == NULL) perror("mkdtemp");
    for (int i = 0; i < 32; i++) a_bytes[i] = (uint8_t)(i * 37 + 11), b[i] = (uint8_t)(255 - i);
    snprintf(key_a, sizeof(key_a), "%s/a.key", dir);
    snprintf(key_b, sizeof(key_b), "%s/b.key", dir);
    snprintf(key_loose, sizeof(key_loose), "%s/loose.key", dir);
    snprintf(key_short, sizeof(key_short), "%s/short.key", dir);
    write_key(key_a, a_bytes, 32, 1, 0600); /* echo-style newline: not part of the key */
    write_key(key_b, b, 32, 0, 0600);
    write_key(key_loose, a_bytes, 32, 0, 0644);
    write_key(key_short, a_bytes, 8, 0, 0600);
}

static void remove_keys(void) {
    unlink(key_a);
    unlink(key_b);
    unlink(key_loose);
    unlink(key_short);
    rmdir(dir);
}

/* The value of 'key=' in a control line, up to a space or the line's end. */
static void value_of(const char *line, const char *key, char *out, size_t cap) {
    const char *v = strstr(line, key);
    size_t n = 0;
    if (v) v += strlen(key);
    while (v && v[n] && v[n] != ' ' && v[n] != '\n' && n + 1 < cap) n++;
    if (v) memcpy(out, v, n);
    out[n] = '\0';
}

/* AUTH line for 'session' (without "\n") and the CHALLENGE line received,
 * under key k, for the responder dialled at raddr:rport and the client the
 * challenge names (peer=) unless 'client' says otherwise: the independent
 * implementation of the documented v2 MAC. */
static void auth_line_for(char *out, size_t cap, const uint8_t *k, size_t klen, const char *challenge,
                          const char *session, const char *raddr, int rport, const char *client) {
    char msg[1200], nonce[40], peer[64];
    uint8_t mac[32];
    unsigned maclen = 32;
    value_of(challenge, "nonce=", nonce, sizeof(nonce));
    value_of(challenge, "peer=", peer, sizeof(peer));
    int n = snprintf(msg, sizeof(msg), "nmp-auth/2\nnonce=%s\nresponder=%s %d\nclient=%s\n%s", nonce, raddr, rport,
                     client ? client : peer, session);
    HMAC(EVP_sha256(), k, (int)klen, (const uint8_t *)msg, (size_t)n, mac, &maclen);
    int o = snprintf(out, cap, "NMP/1 AUTH mac=");
    for (int i = 0; i < 32; i++) o += snprintf(out + o, cap - (size_t)o, "%02x", mac[i]);
    snprintf(out + o, cap - (size_t)o, "\n");
}

static const char session_line[] = "NMP/1 SESSION kind=rr frames=10 size=64 interval_ns=1000000 timeout_ms=100";
static int responder_port; /* the port auth_line's MAC names */

/* AUTH for the responder under test as the raw clients dial it (127.0.0.1). */
static void auth_line(char *out, size_t cap, const uint8_t *k, size_t klen, const char *challenge, const char *session) {
    auth_line_for(out, cap, k, klen, challenge, session, "127.0.0.1", responder_port, NULL);
}

/* Opens a control connection, sends SESSION and reads the CHALLENGE. */
static int challenged(int port, char *challenge, size_t cap) {
    char req[200];
    int fd = nmp_test_connect(port);
    snprintf(req, sizeof(req), "%s\n", session_line);
    send(fd, req, strlen(req), MSG_NOSIGNAL);
    nmp_test_line(fd, challenge, cap);
    return fd;
}

static int rr(int port, const char *key_file, char *err, size_t errlen) {
    nmp_rr_spec s = {.host = "127.0.0.1", .port = port, .count = 20, .size = 64, .interval_ns = 1000000,
                     .timeout_ns = 500000000, .key_file = key_file};
    nmp_rr_result r;
    int rc = nmp_rr_run(&s, NULL, &r, err, errlen);
    if (rc == 0) {
        CHECK_EQ_INT(r.received, 20);
        nmp_rr_result_free(&r);
    }
    return rc;
}

TEST(a_keyed_responder_admits_clients_holding_its_key) {
    nmp_test_proc p;
    const char *args[] = {"--key-file", key_a, NULL};
    if (nmp_test_proc_start(&p, bin, args) < 0) {
        CHECK(0);
        return;
    }
    responder_port = p.port;
    int before = nmp_test_failures;
    char err[NMP_ERRLEN] = "";
    CHECK_EQ_INT(nmp_test_proc_log_num(&p, "authenticated sessions only"), 0); /* said at start (found: 0) */
    int rc = rr(p.port, key_a, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "  rr: %s\n", err);
    CHECK_EQ_INT(rc, 0);
    nmp_stream_spec ss = {.host = "127.0.0.1", .port = p.port, .count = 200, .size = 200, .interval_ns = 100000,
                          .timeout_ns = 200000000, .key_file = key_a};
    nmp_stream_result sr;
    rc = nmp_stream_run(&ss, NULL, &sr, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "  stream: %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        CHECK_EQ_INT(sr.received, 200);
        nmp_stream_result_free(&sr);
    }
    nmp_tcp_spec ts = {.host = "127.0.0.1", .port = p.port, .streams = 2, .msg_size = 1000, .interval_ns = 1000000,
                       .duration_ns = 300000000, .timeout_ns = 1000000000, .key_file = key_a};
    nmp_tcp_result tr;
    rc = nmp_tcp_run(&ts, NULL, &tr, err, sizeof(err));
    if (rc < 0) fprintf(stderr, "  tcp: %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        CHECK(tr.bytes_sent > 0 && tr.bytes_received == tr.bytes_sent);
        nmp_tcp_result_free(&tr);
    }
    /* the CLI's --key-file (from the kinds' spec table) */
    char cmd[512], out[8192];
    snprintf(cmd, sizeof(cmd), "%s rr --host 127.0.0.1 --port %d --count 5 --interval-us 1000 --key-file %s --json",
             cli, p.port, key_a);
    FILE *f = popen(cmd, "r");
    size_t n = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
    out[n] = '\0';
    int st = f ? pclose(f) : -1;
    CHECK_EQ_INT(st, 0);
    CHECK(strstr(out, "\"received\": 5") != NULL || strstr(out, "\"received\":5") != NULL);
    if (st != 0 || !strstr(out, "received")) fprintf(stderr, "  cli: %s\n", out);
    /* and a raw client: AUTH and END in one segment, answered OK then BYE */
    char challenge[600], auth[300], line[600];
    int fd = challenged(p.port, challenge, sizeof(challenge));
    CHECK(strncmp(challenge, "NMP/1 CHALLENGE nonce=", 22) == 0 &&
          strcmp(challenge + 22 + 32, " auth=2 peer=127.0.0.1\n") == 0);
    auth_line(auth, sizeof(auth) - 12, a_bytes, 32, challenge, session_line);
    strcat(auth, "NMP/1 END\n");
    send(fd, auth, strlen(auth), MSG_NOSIGNAL);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 OK port=", 14) == 0);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strcmp(line, "NMP/1 BYE rx=0 tx=0\n") == 0);
    close(fd);
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

/* Sends 'then' after the CHALLENGE and expects ERR reason=auth with 'text' (encoded), then the close. */
static void refused(int port, const char *then, const char *text) {
    char challenge[600], line[600], want[300];
    int fd = challenged(port, challenge, sizeof(challenge));
    CHECK(strncmp(challenge, "NMP/1 CHALLENGE nonce=", 22) == 0);
    send(fd, then, strlen(then), MSG_NOSIGNAL);
    snprintf(want, sizeof(want), "NMP/1 ERR reason=auth text=%s", text);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, want, strlen(want)) == 0);
    if (strncmp(line, want, strlen(want)) != 0) fprintf(stderr, "  got: %s  want: %s\n", line, want);
    CHECK(nmp_test_wait_closed(fd, 2) >= 0);
    close(fd);
}

TEST(sessions_without_a_valid_mac_are_refused_with_a_clear_err) {
    nmp_test_proc p;
    const char *args[] = {"--key-file", key_a, NULL};
    if (nmp_test_proc_start(&p, bin, args) < 0) {
        CHECK(0);
        return;
    }
    responder_port = p.port;
    int before = nmp_test_failures;
    char err[NMP_ERRLEN] = "", challenge[600], other[600], auth[300];
    /* engine clients: without a key, with another key */
    CHECK_EQ_INT(rr(p.port, NULL, err, sizeof(err)), -EPERM);
    fprintf(stderr, "  no key: %s\n", err);
    CHECK(strstr(err, "admits only authenticated sessions") != NULL);
    CHECK_EQ_INT(rr(p.port, key_b, err, sizeof(err)), -EPERM);
    fprintf(stderr, "  other key: %s\n", err);
    CHECK(strstr(err, "refused the session: authentication failed: wrong MAC") != NULL);
    /* raw: no AUTH at all */
    refused(p.port, "NMP/1 END\n", "authentication+required:+this+responder+admits+only+sessions");
    /* raw: a MAC that is not hex */
    refused(p.port, "NMP/1 AUTH mac=zz\n", "authentication+failed:+mac+must+be+64+hex+digits");
    /* raw: the right key over another SESSION line (the request was changed on the way) */
    int fd = challenged(p.port, challenge, sizeof(challenge));
    close(fd);
    auth_line(auth, sizeof(auth), a_bytes, 32, challenge,
              "NMP/1 SESSION kind=rr frames=1000 size=64 interval_ns=1000000 timeout_ms=100");
    refused(p.port, auth, "authentication+failed:+wrong+MAC");
    /* raw: replaying the answer to an earlier challenge: each challenge is new */
    fd = challenged(p.port, challenge, sizeof(challenge));
    close(fd);
    fd = challenged(p.port, other, sizeof(other));
    close(fd);
    CHECK(strcmp(challenge, other) != 0);
    auth_line(auth, sizeof(auth), a_bytes, 32, challenge, session_line);
    refused(p.port, auth, "authentication+failed:+wrong+MAC");
    /* none of that held the responder: a client with the key is served at once */
    CHECK_EQ_INT(rr(p.port, key_a, err, sizeof(err)), 0);
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

/* A fake responder: listens on 127.0.0.2 and relays each control connection,
 * byte for byte both ways, to the real responder, connecting from 127.0.0.3
 * (another host). */
typedef struct relay {
    int lfd;                         /* listening socket */
    int port;                        /* its port */
    int target;                      /* the keyed responder's port on 127.0.0.1 */
    pthread_t th;
} relay;

static void *relay_run(void *arg) {
    relay *rl = arg;
    int c = accept(rl->lfd, NULL, NULL);
    struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)rl->target)};
    inet_pton(AF_INET, "127.0.0.3", &src.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    int k = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0 || bind(k, (struct sockaddr *)&src, sizeof(src)) < 0 || connect(k, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
        perror("relay");
        goto end;
    }
    for (;;) {
        struct pollfd p[2] = {{.fd = c, .events = POLLIN}, {.fd = k, .events = POLLIN}};
        char buf[4096];
        if (poll(p, 2, 10000) <= 0) break;
        int from = p[0].revents ? 0 : 1;
        ssize_t n = recv(p[from].fd, buf, sizeof(buf), 0);
        if (n <= 0 || send(p[1 - from].fd, buf, (size_t)n, MSG_NOSIGNAL) != n) break;
    }
end:
    if (c >= 0) close(c);
    close(k);
    return NULL;
}

static int relay_start(relay *rl, int target) {
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t al = sizeof(a);
    inet_pton(AF_INET, "127.0.0.2", &a.sin_addr);
    rl->target = target;
    rl->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (bind(rl->lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(rl->lfd, 1) < 0 ||
        getsockname(rl->lfd, (struct sockaddr *)&a, &al) < 0)
        return -1;
    rl->port = ntohs(a.sin_port);
    pthread_create(&rl->th, NULL, relay_run, rl);
    return rl->port;
}

static void relay_stop(relay *rl) {
    pthread_join(rl->th, NULL);
    close(rl->lfd);
}

/* Whether the responder's log says a session was opened for 'peer'. */
static int log_has_session_for(const nmp_test_proc *p, const char *peer) {
    char buf[16384], want[96];
    usleep(100000);
    FILE *f = fopen(p->log, "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    snprintf(want, sizeof(want), "opened: peer %s ", peer);
    return strstr(buf, want) != NULL;
}

TEST(a_relaying_fake_responder_cannot_get_a_session_opened_on_a_keyed_responder) {
    /* issue 21, finding 3: the fake relays the client's SESSION to the keyed responder,
     * passes its CHALLENGE back, and the client's answer opened a session for the fake */
    nmp_test_proc p;
    const char *args[] = {"--key-file", key_a, NULL};
    if (nmp_test_proc_start(&p, bin, args) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    relay rl;
    CHECK(relay_start(&rl, p.port) > 0);
    char err[NMP_ERRLEN] = "";
    nmp_rr_spec s = {.host = "127.0.0.2", .port = rl.port, .count = 5, .size = 64, .interval_ns = 1000000,
                     .timeout_ns = 200000000, .key_file = key_a};
    nmp_rr_result r;
    int rc = nmp_rr_run(&s, NULL, &r, err, sizeof(err));
    if (rc == 0) nmp_rr_result_free(&r);
    relay_stop(&rl);
    fprintf(stderr, "  through the relay: rc %d: %s\n", rc, err);
    CHECK_EQ_INT(rc, -EPERM);
    CHECK(strstr(err, "authentication failed: wrong MAC") != NULL);
    CHECK(!log_has_session_for(&p, "127.0.0.3"));
    /* the honest client, straight to the keyed responder, is admitted */
    CHECK_EQ_INT(rr(p.port, key_a, err, sizeof(err)), 0);
    CHECK(log_has_session_for(&p, "127.0.0.1"));
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

TEST(the_mac_binds_the_responders_address_and_port_and_the_clients_address) {
    nmp_test_proc p;
    const char *args[] = {"--key-file", key_a, "--auth-address", "192.0.2.7:8700,[2001:db8::7]:8701", NULL};
    if (nmp_test_proc_start(&p, bin, args) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    char challenge[600], auth[300], line[600];
    int fd = challenged(p.port, challenge, sizeof(challenge));
    /* the challenge names the client as the responder sees it */
    char peer[64], v[8];
    value_of(challenge, "peer=", peer, sizeof(peer));
    value_of(challenge, "auth=", v, sizeof(v));
    CHECK(strcmp(peer, "127.0.0.1") == 0 && strcmp(v, "2") == 0);
    close(fd);
    /* another port, another address, another client: each refused */
    fd = challenged(p.port, challenge, sizeof(challenge));
    close(fd);
    auth_line_for(auth, sizeof(auth), a_bytes, 32, challenge, session_line, "127.0.0.1", p.port + 1, NULL);
    refused(p.port, auth, "authentication+failed:+wrong+MAC");
    fd = challenged(p.port, challenge, sizeof(challenge));
    auth_line_for(auth, sizeof(auth), a_bytes, 32, challenge, session_line, "127.0.0.2", p.port, NULL);
    send(fd, auth, strlen(auth), MSG_NOSIGNAL);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 ERR reason=auth text=authentication+"
                                                                      "failed:+wrong+MAC", 49) == 0);
    close(fd);
    fd = challenged(p.port, challenge, sizeof(challenge));
    auth_line_for(auth, sizeof(auth), a_bytes, 32, challenge, session_line, "127.0.0.1", p.port, "127.0.0.3");
    send(fd, auth, strlen(auth), MSG_NOSIGNAL);
    CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 ERR reason=auth ", 22) == 0);
    close(fd);
    /* the address a port-forwarding NAT shows clients (--auth-address) is accepted, v4 and v6 */
    const char *names[][2] = {{"192.0.2.7", "8700"}, {"2001:db8::7", "8701"}};
    for (int i = 0; i < 2; i++) {
        fd = challenged(p.port, challenge, sizeof(challenge));
        auth_line_for(auth, sizeof(auth) - 12, a_bytes, 32, challenge, session_line, names[i][0], atoi(names[i][1]),
                      NULL);
        strcat(auth, "NMP/1 END\n");
        send(fd, auth, strlen(auth), MSG_NOSIGNAL);
        CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 OK port=", 14) == 0);
        CHECK(nmp_test_line(fd, line, sizeof(line)) > 0 && strncmp(line, "NMP/1 BYE ", 10) == 0);
        close(fd);
    }
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

TEST(an_open_responder_works_as_before_with_or_without_a_client_key) {
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(0);
        return;
    }
    int before = nmp_test_failures;
    char err[NMP_ERRLEN] = "";
    CHECK_EQ_INT(rr(p.port, NULL, err, sizeof(err)), 0);
    CHECK_EQ_INT(rr(p.port, key_a, err, sizeof(err)), 0); /* not asked: the key is not used */
    nmp_test_proc_stop(&p, nmp_test_failures != before);
}

/* The responder's log after a failed start. */
static void failed_start_says(const char *key, const char *text) {
    nmp_test_proc p;
    const char *args[] = {"--key-file", key, NULL};
    char buf[4096] = "";
    CHECK_EQ_INT(nmp_test_proc_start(&p, bin, args), -1);
    FILE *f = fopen(p.log, "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    CHECK(strstr(buf, text) != NULL);
    nmp_test_proc_stop(&p, 0);
}

TEST(key_files_others_can_read_or_too_short_are_refused) {
    failed_start_says(key_loose, "group or others may read or write it (mode 644; chmod 600 it)");
    failed_start_says(key_short, "a key has 16..1024 bytes");
    nmp_test_proc p;
    if (nmp_test_proc_start(&p, bin, NULL) < 0) {
        CHECK(0);
        return;
    }
    char err[NMP_ERRLEN] = "";
    CHECK_EQ_INT(rr(p.port, key_loose, err, sizeof(err)), -EPERM);
    CHECK(strstr(err, "chmod 600") != NULL);
    CHECK_EQ_INT(rr(p.port, "/nonexistent/nmp.key", err, sizeof(err)), -ENOENT);
    CHECK(strstr(err, "key file /nonexistent/nmp.key: No such file or directory") != NULL);
    nmp_test_proc_stop(&p, 0);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s path/to/nmprobe-responder path/to/nmprobe\n", argv[0]);
        return 2;
    }
    bin = argv[1];
    cli = argv[2];
    signal(SIGPIPE, SIG_IGN);
    make_keys();
    RUN(a_keyed_responder_admits_clients_holding_its_key);
    RUN(sessions_without_a_valid_mac_are_refused_with_a_clear_err);
    RUN(a_relaying_fake_responder_cannot_get_a_session_opened_on_a_keyed_responder);
    RUN(the_mac_binds_the_responders_address_and_port_and_the_clients_address);
    RUN(an_open_responder_works_as_before_with_or_without_a_client_key);
    RUN(key_files_others_can_read_or_too_short_are_refused);
    remove_keys();
    return nmp_test_failures != 0;
}
