/* fuzz_stamp.c -- libFuzzer target for what a STAMP peer sends: the test
 * packet codecs of both modes, the HMAC check, the reflection tests, the
 * pfs key file parser, and whole datagrams through an open and an
 * authenticated reflector on loopback (an input whose first byte is 'S' is
 * signed with the reflector's key first, so the fuzzer reaches what follows
 * a good HMAC too). Built with -DNMP_FUZZ=ON and clang; run e.g.
 *   ./fuzz_stamp -max_total_time=60 -max_len=9100 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nmp_pfs.h"
#include "nmp_stamp.h"
#include "nmprobe.h"

static const uint8_t KEY[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static nmp_stamp_reflector *open_refl, *auth_refl;
static nmp_stamp_mac *mac;
static int fd = -1;

static nmp_stamp_reflector *reflector(const char *keys) {
    char err[NMP_ERRLEN];
    nmp_stamp_reflector_cfg cfg = {.bind_addr = "127.0.0.1", .port = 0, .stateful = 1, .key_file = keys};
    nmp_stamp_reflector *r = NULL;
    if (nmp_stamp_reflector_open(&cfg, &r, err, sizeof(err)) < 0) {
        fprintf(stderr, "fuzz_stamp: %s\n", err);
        abort(); /* a fuzz target, not library code: no reflector, nothing to fuzz */
    }
    return r;
}

static void setup(void) {
    char path[64];
    snprintf(path, sizeof(path), "/tmp/fuzz_stamp_keys_%d", (int)getpid());
    FILE *f = fopen(path, "w");
    if (f == NULL) abort();
    fputs("fuzz 000102030405060708090a0b0c0d0e0f\n", f);
    fclose(f);
    chmod(path, 0600);
    open_refl = reflector(NULL);
    auth_refl = reflector(path);
    unlink(path);
    if (nmp_stamp_mac_new(KEY, sizeof(KEY), &mac) < 0) abort();
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
}

static void through(nmp_stamp_reflector *r, const uint8_t *data, size_t size) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)nmp_stamp_reflector_port(r))};
    sendto(fd, data, size, 0, (struct sockaddr *)&a, sizeof(a));
    nmp_stamp_reflector_drain(r);
    uint8_t back[NMP_STAMP_MAX_LEN + 64];
    while (recv(fd, back, sizeof(back), 0) > 0) {
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fd < 0) setup();
    nmp_stamp_sender_pkt s;
    nmp_stamp_reflector_pkt r;
    nmp_stamp_sender_decode(data, size, &s);
    nmp_stamp_reflector_decode(data, size, &r);
    nmp_stamp_sender_decode_auth(data, size, &s);
    nmp_stamp_reflector_decode_auth(data, size, &r);
    nmp_stamp_is_reflection(data, size);
    nmp_stamp_is_reflection_auth(data, size);
    nmp_stamp_verify(mac, data, size);
    nmp_pfs *keys = malloc(sizeof(*keys));
    char err[NMP_ERRLEN];
    if (keys) nmp_pfs_parse((const char *)data, size, "fuzz", keys, err, sizeof(err));
    free(keys);
    if (size > NMP_STAMP_MAX_LEN + 32) return 0;
    uint8_t pkt[NMP_STAMP_MAX_LEN + 32];
    memcpy(pkt, data, size);
    if (size >= 1 && data[0] == 'S' && size >= NMP_STAMP_AUTH_LEN) nmp_stamp_sign(mac, pkt);
    through(open_refl, pkt, size);
    through(auth_refl, pkt, size);
    return 0;
}
