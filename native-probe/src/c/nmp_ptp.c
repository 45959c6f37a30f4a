/* nmp_ptp.c -- what a running ptp4l (linuxptp) knows about this host's
 * clock, asked over its management socket with IEEE 1588 management GETs,
 * as linuxptp's own pmc does. Written by hand: linuxptp ships no library,
 * and the four datasets needed are fixed layouts of a few dozen bytes.
 *
 * A hardware-timestamping ptp4l disciplines the NIC's clock (PHC); the
 * system clock follows it through phc2sys, whose offset is then measured
 * here with PTP_SYS_OFFSET and added to the error. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/ptp_clock.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nmp_clock.h"
#include "nmp_ptp.h"

#define HDR_LEN 34                   /* common PTP header */
#define MGMT_LEN 48                  /* header + target port identity, hops, action */
#define TLV_MANAGEMENT 0x0001
#define TLV_MANAGEMENT_ERROR 0x0002
#define ACTION_GET 0
#define ACTION_RESPONSE 2
#define MSG_MANAGEMENT 0x0d

#define ID_CURRENT_DATA_SET 0x2001
#define ID_TIME_PROPERTIES_DATA_SET 0x2003
#define ID_TIME_STATUS_NP 0xc000
#define ID_PORT_PROPERTIES_NP 0xc004

static char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

void nmp_ptp_set_socket(const char *path) {
    snprintf(socket_path, sizeof(socket_path), "%s", path != NULL && path[0] ? path : NMP_PTP_DEFAULT_SOCKET);
}

const char *nmp_ptp_socket(void) {
    /* NMP_PTP_SOCKET serves tools that take no option for it (nmprobe's kinds) */
    if (socket_path[0] == '\0') nmp_ptp_set_socket(getenv("NMP_PTP_SOCKET"));
    return socket_path;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }
static int64_t get64(const uint8_t *p) { return (int64_t)((uint64_t)get32(p) << 32 | get32(p + 4)); }

size_t nmp_ptp_get_encode(uint8_t *buf, size_t buflen, uint16_t id, uint16_t seq) {
    const size_t len = MGMT_LEN + 6;
    if (buflen < len) return 0;
    memset(buf, 0, len);
    buf[0] = MSG_MANAGEMENT;
    buf[1] = 2;                      /* PTP version 2 */
    put16(buf + 2, (uint16_t)len);
    /* sourcePortIdentity 20..29 stays zero: ptp4l answers to the socket address */
    put16(buf + 30, seq);
    buf[32] = 4;                     /* controlField: management */
    buf[33] = 0x7f;                  /* logMessageInterval */
    memset(buf + HDR_LEN, 0xff, 10); /* every clock and port */
    buf[44] = 0;                     /* startingBoundaryHops: this ptp4l only */
    buf[45] = 0;
    buf[46] = ACTION_GET;
    put16(buf + MGMT_LEN, TLV_MANAGEMENT);
    put16(buf + MGMT_LEN + 2, 2);
    put16(buf + MGMT_LEN + 4, id);
    return len;
}

static void identity(char *dst, size_t dstlen, const uint8_t *id) {
    snprintf(dst, dstlen, "%02x%02x%02x.%02x%02x.%02x%02x%02x", id[0], id[1], id[2], id[3], id[4], id[5], id[6],
             id[7]);
}

static const char *port_state_name(unsigned s) {
    static const char *const names[] = {"", "INITIALIZING", "FAULTY", "DISABLED", "LISTENING", "PRE_MASTER",
                                        "MASTER", "PASSIVE", "UNCALIBRATED", "SLAVE", "GRAND_MASTER"};
    return s < sizeof(names) / sizeof(names[0]) ? names[s] : "";
}

int nmp_ptp_response_decode(const uint8_t *buf, size_t len, uint16_t id, nmp_ptp_state *st) {
    if (len < MGMT_LEN + 6 || (buf[0] & 0x0f) != MSG_MANAGEMENT || (buf[1] & 0x0f) != 2) return -EPROTO;
    size_t msglen = get16(buf + 2);
    if (msglen < MGMT_LEN + 6 || msglen > len) return -EPROTO;
    if ((buf[46] & 0x0f) != ACTION_RESPONSE) return -EPROTO;
    uint16_t type = get16(buf + MGMT_LEN), tlvlen = get16(buf + MGMT_LEN + 2), rid = get16(buf + MGMT_LEN + 4);
    if (type == TLV_MANAGEMENT_ERROR) return -EOPNOTSUPP;
    if (type != TLV_MANAGEMENT || rid != id || tlvlen < 2 || MGMT_LEN + 4 + (size_t)tlvlen > msglen) return -EPROTO;
    const uint8_t *d = buf + MGMT_LEN + 6;
    size_t n = (size_t)tlvlen - 2;
    switch (id) {
    case ID_CURRENT_DATA_SET:
        if (n < 18) return -EPROTO;
        st->steps_removed = get16(d);
        st->offset_ns = get64(d + 2) / 65536; /* TimeInterval: ns scaled by 2^16 */
        st->path_delay_ns = get64(d + 10) / 65536;
        return 0;
    case ID_TIME_PROPERTIES_DATA_SET:
        if (n < 4) return -EPROTO;
        st->current_utc_offset = (int16_t)get16(d);
        st->time_traceable = (d[2] & 0x10) != 0;
        st->ptp_timescale = (d[2] & 0x08) != 0;
        return 0;
    case ID_TIME_STATUS_NP:
        /* master_offset 8, ingress_time 8, two rates 4+4, gmTimeBaseIndicator 2,
         * lastGmPhaseChange 12, gmPresent 4, gmIdentity 8 */
        if (n < 50) return -EPROTO;
        st->gm_present = get32(d + 38) != 0;
        identity(st->grandmaster, sizeof(st->grandmaster), d + 42);
        return 0;
    case ID_PORT_PROPERTIES_NP: {
        if (n < 13) return -EPROTO;
        identity(st->clock_identity, sizeof(st->clock_identity), d);
        snprintf(st->port_state, sizeof(st->port_state), "%s", port_state_name(d[10]));
        st->hardware_timestamping = d[11] != 0; /* TS_SOFTWARE is 0 */
        size_t ilen = d[12];
        if (13 + ilen > n) return -EPROTO;
        size_t k = 0;
        for (size_t i = 0; i < ilen && k + 1 < sizeof(st->interface); i++)
            if (d[13 + i] > 0x20 && d[13 + i] < 0x7f) st->interface[k++] = (char)d[13 + i];
        st->interface[k] = '\0';
        return 0;
    }
    default: return -EPROTO;
    }
}

/* One GET, answered within the deadline; other answers (late ones to an
 * earlier GET) are skipped. */
static int ask(int fd, uint16_t id, uint16_t seq, nmp_monotime_ns deadline, nmp_ptp_state *st) {
    uint8_t buf[512];
    size_t len = nmp_ptp_get_encode(buf, sizeof(buf), id, seq);
    if (send(fd, buf, len, 0) < 0) return -errno;
    for (;;) {
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= deadline) return -ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ms = (int)((deadline - now + 999999) / 1000000);
        int rc = poll(&p, 1, ms);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return -errno;
        if (rc == 0) return -ETIMEDOUT;
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) return -errno;
        if ((size_t)n >= HDR_LEN && get16(buf + 30) != seq) continue;
        return nmp_ptp_response_decode(buf, (size_t)n, id, st);
    }
}

/* How far the system clock is from the NIC's clock that ptp4l disciplines:
 * the PTP_SYS_OFFSET sample with the shortest system-clock window. */
static int phc_offset(const char *ifname, int64_t *offset_ns, int64_t *window_ns) {
    char path[128];
    snprintf(path, sizeof(path), "/sys/class/net/%s/device/ptp", ifname);
    /* the PHC's name is the one entry of that directory: ptpN */
    int idx = -1;
    for (int i = 0; i < 64 && idx < 0; i++) {
        char p2[160];
        snprintf(p2, sizeof(p2), "%s/ptp%d", path, i);
        if (access(p2, F_OK) == 0) idx = i;
    }
    if (idx < 0) return -ENODEV;
    snprintf(path, sizeof(path), "/dev/ptp%d", idx);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct ptp_sys_offset so;
    memset(&so, 0, sizeof(so));
    so.n_samples = 5;
    int rc = ioctl(fd, PTP_SYS_OFFSET, &so);
    int e = errno;
    close(fd);
    if (rc < 0) return -e;
    int64_t best = INT64_MAX;
    for (unsigned i = 0; i < so.n_samples; i++) {
        /* ts[2i] system, ts[2i+1] PHC, ts[2i+2] system */
        int64_t s1 = so.ts[2 * i].sec * 1000000000LL + so.ts[2 * i].nsec;
        int64_t ph = so.ts[2 * i + 1].sec * 1000000000LL + so.ts[2 * i + 1].nsec;
        int64_t s2 = so.ts[2 * i + 2].sec * 1000000000LL + so.ts[2 * i + 2].nsec;
        if (s2 - s1 < best) {
            best = s2 - s1;
            *offset_ns = (s1 + (s2 - s1) / 2) - ph;
        }
    }
    *window_ns = best;
    return 0;
}

int nmp_ptp_read(nmp_ptp_state *st, int timeout_ms) {
    memset(st, 0, sizeof(*st));
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    /* autobind: an abstract address of our own for ptp4l to answer to */
    struct sockaddr_un self = {.sun_family = AF_UNIX};
    struct sockaddr_un peer = {.sun_family = AF_UNIX};
    snprintf(peer.sun_path, sizeof(peer.sun_path), "%s", nmp_ptp_socket());
    int rc = 0;
    if (bind(fd, (struct sockaddr *)&self, sizeof(sa_family_t)) < 0 ||
        connect(fd, (struct sockaddr *)&peer, sizeof(peer)) < 0)
        rc = -errno;
    static const uint16_t ids[] = {ID_PORT_PROPERTIES_NP, ID_TIME_STATUS_NP, ID_CURRENT_DATA_SET,
                                   ID_TIME_PROPERTIES_DATA_SET};
    nmp_monotime_ns deadline = nmp_mono_now() + (nmp_monotime_ns)timeout_ms * 1000000;
    for (unsigned i = 0; rc == 0 && i < sizeof(ids) / sizeof(ids[0]); i++) rc = ask(fd, ids[i], (uint16_t)(i + 1), deadline, st);
    close(fd);
    if (rc < 0) {
        memset(st, 0, sizeof(*st));
        return rc;
    }
    st->present = 1;
    st->is_grandmaster = strcmp(st->grandmaster, st->clock_identity) == 0;
    if (st->hardware_timestamping && st->interface[0])
        st->phc_read = phc_offset(st->interface, &st->phc_offset_ns, &st->phc_window_ns) == 0;
    return 0;
}

void nmp_ptp_error(const nmp_ptp_state *st, int *usable, int64_t *error_ns) {
    *usable = 0;
    *error_ns = 0;
    if (!st->present) return;
    if (st->is_grandmaster &&
        (strcmp(st->port_state, "MASTER") == 0 || strcmp(st->port_state, "GRAND_MASTER") == 0)) {
        /* the domain's reference itself: no error against it (but see the PHC below) */
        *usable = 1;
    } else if (st->gm_present && !st->is_grandmaster &&
               (strcmp(st->port_state, "SLAVE") == 0 || strcmp(st->port_state, "UNCALIBRATED") == 0)) {
        /* offsetFromMaster is measured assuming symmetric paths; an asymmetry can
         * move it by up to the mean path delay, so both bound the error */
        int64_t off = st->offset_ns < 0 ? -st->offset_ns : st->offset_ns;
        *error_ns = off + (st->path_delay_ns > 0 ? st->path_delay_ns : 0);
        *usable = 1;
    } else {
        return;
    }
    if (st->hardware_timestamping) {
        if (!st->phc_read) {
            *usable = 0; /* the system clock's distance from the PHC is unknown */
            return;
        }
        /* a PHC on the PTP timescale keeps TAI; the system clock keeps UTC */
        int64_t off = st->phc_offset_ns + (st->ptp_timescale ? (int64_t)st->current_utc_offset * 1000000000LL : 0);
        if (off < 0) off = -off;
        *error_ns += off + st->phc_window_ns / 2;
    }
}
