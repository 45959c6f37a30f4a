/* nmp_owping.c -- kinds "owamp" and "twamp": one control session and one
 * test session to an OWAMP (RFC 4656) or TWAMP (RFC 5357) server, as owping
 * and twping run them.
 *
 * OWAMP: this end sends on a fixed schedule (one literal schedule slot),
 * stops the session, and fetches the receiver's records (Fetch-Session), so
 * one-way delay, loss, duplicates and reordering are the far end's own
 * observations. OWAMP "from" (owping -f): the server sends (conf-sender),
 * this end receives with kernel timestamps and keeps the records itself
 * (RFC 4656 3.8: no Fetch when the client is the receiver); the server's
 * Stop-Sessions says how many it sent (Next Seqno) and which it skipped.
 * OWAMP "both" (owping's default): the two sessions on one control
 * connection, requested one after the other and started together; this end
 * sends its schedule while receiving the server's, one Stop-Sessions
 * exchange describes each side's sent session, then this end's is fetched.
 * The server's session is packed under "reverse.".
 * TWAMP: this end sends, the server reflects; round trips
 * without the reflector's residence time and both one-way delays. A packet
 * this end could not send within the loss timeout of its slot is skipped
 * and reported in Stop-Sessions, as RFC 4656 4.1.1 asks. */
#define _GNU_SOURCE
#include "nmp_owamp.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "nmp_kind.h"
#include "nmp_net.h"
#include "nmp_owclient.h"
#include "nmprobe.h"

#define SPIN_NS 60000ull              /* busy-wait the last 60 us before a send */
#define START_DELAY_NS 100000000ull   /* Start Time lead: at least this far after the first request */
#define LEAD_MARGIN_NS 20000000ull    /* and the control round trips before Start-Ack plus this */
#define LEAD_MAX_NS 5000000000ull     /* but never more than this */
#define IO_MS 10000u                  /* longest wait for one control message */
#define PROGRESS_NS 100000000ull

/* Per-run state shared by both kinds; lives on nmp_owping_run's heap. */
typedef struct owrun {
    const nmp_owamp_spec *spec;
    const nmp_control *ctl;
    int twamp;
    int from;                        /* OWAMP: the server sends, this end receives */
    uint32_t mode, test_mode;        /* control mode, test packet mode */
    nmp_owc *oc;                     /* control connection: own_oc, or in "both" the to-run's for the from-run */
    nmp_owc own_oc;
    struct owrun *rev;               /* "both", on the to-run: the from-session's run, sharing oc */
    struct owrun *fwd;               /* "both", on the from-session's run: the to-run (it reports progress) */
    int ufd;                         /* test UDP socket */
    uint16_t local_port;
    nmp_ow_test_keys tk;             /* test packet keys (not open) */
    uint8_t sid[16];
    uint16_t server_port;            /* receiver / reflector UDP port */
    uint16_t error;                  /* this end's error estimate */
    nmp_monotime_ns next_progress;
    uint8_t buf[NMP_OW_TEST_MAX_LEN + 128];
    /* results */
    uint32_t next_seq;               /* sequence numbers this end has sent or skipped */
    uint32_t requested, sent, skipped, received, lost, duplicates, reordered, invalid, forward_lost;
    int64_t *send_wall;              /* per seq, 0 = not sent */
    uint32_t *skips;                 /* (first, last) pairs of skipped seqs */
    uint32_t nskips;
    /* OWAMP records as fetched, or as received here ("from"), in arrival order */
    nmp_ow_record *rec;
    uint32_t nrec, rec_cap;
    uint8_t *got;                    /* "from": per seq, received */
    /* TWAMP per seq */
    int64_t *rtt_ns, *fwd_ns, *bwd_ns;
    int32_t *sender_ttl, *reply_ttl;
    double local_error_ns, remote_error_ns;
    int remote_sync;
    nmp_walltime_ns start_wall, end_wall;
    nmp_walltime_ns sched_start;     /* the Request-Session's Start Time (one for both sessions of "both") */
    uint64_t lead_ns;                /* how far ahead of the first request sched_start was chosen */
    uint32_t far_next_seqno;         /* "from": the server's Next Seqno at Stop-Sessions */
} owrun;

/* Progress: packets this end sent (or received, "from") of those requested; in "both" the
 * sum of both sessions (sent here plus received here, of twice the count), reported by
 * the to-run whichever run waits, so it never goes backwards. */
static void progress(owrun *t, int force) {
    if (t->fwd) t = t->fwd;
    nmp_monotime_ns now = nmp_mono_now();
    if (!t->ctl || !t->ctl->progress || (!force && now < t->next_progress)) return;
    t->next_progress = now + PROGRESS_NS;
    uint32_t done = t->from ? t->received : t->sent, total = t->requested;
    if (t->rev) done += t->rev->received, total += t->rev->requested;
    t->ctl->progress(t->ctl->progress_ctx, done, total);
}

static const char *pname(const owrun *t) { return t->twamp ? "twamp" : "owamp"; }

/* The test socket: same family as the control connection, TTL 255 unless asked. */
static int open_test_socket(owrun *t, char *err, size_t errlen) {
    int fam = t->oc->peer.ss_family;
    int rc = nmp_net_udp_open(fam, t->spec->ttl ? t->spec->ttl : 255, &t->ufd, err, errlen);
    int one = 1;
    if (rc == 0 && setsockopt(t->ufd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) rc = -errno;
    if (rc == 0 && t->from) {
        /* this end receives the whole session: room for all of it (as the kernel counts a
         * datagram, about its size plus 768), bounded; the kernel caps it at rmem_max */
        uint64_t want = (uint64_t)t->spec->count * (nmp_ow_test_hdr_len(t->test_mode) + t->spec->size + 768);
        int cur = 0, v = want > (8u << 20) ? (8 << 20) : (int)want;
        socklen_t cl = sizeof(cur);
        if (getsockopt(t->ufd, SOL_SOCKET, SO_RCVBUF, &cur, &cl) == 0 && cur < v)
            setsockopt(t->ufd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)); /* best effort */
    }
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    ss.ss_family = (sa_family_t)fam;
    socklen_t sl = fam == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    if (rc == 0 && bind(t->ufd, (struct sockaddr *)&ss, sl) < 0) rc = -errno;
    sl = sizeof(ss);
    if (rc == 0 && getsockname(t->ufd, (struct sockaddr *)&ss, &sl) < 0) rc = -errno;
    if (rc < 0) {
        nmp_seterr(err, errlen, "%s: test socket: %s", pname(t), strerror(-rc));
        return rc;
    }
    uint8_t a[16];
    nmp_owc_addr(&ss, a, &t->local_port);
    return 0;
}

/* Request-Session / Request-TW-Session, Accept-Session, connect the test socket. */
static int request_session(owrun *t, char *err, size_t errlen) {
    const nmp_owamp_spec *s = t->spec;
    uint8_t msg[NMP_OW_REQUEST_LEN + 2 * NMP_OW_BLOCK];
    nmp_ow_request r;
    memset(&r, 0, sizeof(r));
    uint8_t dummy[16];
    uint16_t server_ctl_port;
    if (t->from) {
        /* the server sends to this end's test socket; the receiver chooses the SID (RFC 4656 3.5):
         * this address's last 4 octets, an NTP timestamp, 4 random octets */
        r.ipvn = (uint8_t)nmp_owc_addr(&t->oc->local, r.receiver_addr, NULL);
        nmp_owc_addr(&t->oc->peer, r.sender_addr, &server_ctl_port);
        r.receiver_port = t->local_port;
        memcpy(r.sid, r.ipvn == 4 ? r.receiver_addr : r.receiver_addr + 12, 4);
        uint64_t now_ts = nmp_ow_ts_from_wall(nmp_wall_now());
        for (int i = 0; i < 8; i++) r.sid[4 + i] = (uint8_t)(now_ts >> (56 - 8 * i));
        nmp_net_random(r.sid + 12, 4);
        memcpy(t->sid, r.sid, 16);
    } else {
        r.ipvn = (uint8_t)nmp_owc_addr(&t->oc->local, r.sender_addr, NULL);
        nmp_owc_addr(&t->oc->peer, r.receiver_addr, &server_ctl_port);
        r.sender_port = t->local_port;
    }
    (void)dummy;
    r.padding = s->size;
    r.start_time = nmp_ow_ts_from_wall(t->sched_start);
    r.timeout = nmp_ow_dur_from_ns(s->timeout_ns);
    size_t len, hm[2];
    int nh;
    if (t->twamp) {
        r.cmd = NMP_OW_CMD_REQUEST_TW_SESSION;
        nmp_ow_request_encode(msg, &r);
        len = NMP_OW_REQUEST_LEN, hm[0] = 96, nh = 1;
    } else {
        r.cmd = NMP_OW_CMD_REQUEST_SESSION;
        r.conf_receiver = !t->from; /* the server receives, this end sends */
        r.conf_sender = t->from;    /* or the reverse */
        r.nslots = 1;
        r.npackets = s->count;
        nmp_ow_request_encode(msg, &r);
        nmp_ow_slot slot = {.type = 1, .param = nmp_ow_dur_from_ns(s->interval_ns)};
        nmp_ow_slot_encode(msg + NMP_OW_REQUEST_LEN, &slot);
        len = NMP_OW_REQUEST_LEN + 2 * NMP_OW_BLOCK, hm[0] = 96, hm[1] = NMP_OW_REQUEST_LEN + NMP_OW_BLOCK, nh = 2;
    }
    int rc = nmp_owc_send(t->oc, msg, len, hm, nh, err, errlen);
    if (rc < 0) return rc;
    uint8_t ab[NMP_OW_ACCEPT_LEN];
    size_t ahm = 32;
    nmp_ow_accept a;
    char sub[NMP_ERRLEN];
    if ((rc = nmp_owc_recv(t->oc, ab, sizeof(ab), err, errlen)) < 0 ||
        (rc = nmp_owc_verify(t->oc, ab, sizeof(ab), &ahm, 1, "Accept-Session", err, errlen)) < 0)
        return rc;
    if ((rc = nmp_ow_accept_decode(ab, sizeof(ab), &a, sub, sizeof(sub))) < 0) {
        nmp_seterr(err, errlen, "%s server %s: %s", pname(t), t->oc->peer_str, sub);
        return rc;
    }
    if (a.accept != NMP_OW_ACCEPT_OK) {
        nmp_seterr(err, errlen, "%s server %s refused the session%s: Accept %u (%s)", pname(t), t->oc->peer_str,
                   t->twamp ? "" : t->from ? " it would send" : " it would receive", a.accept, nmp_ow_accept_name(a.accept));
        return a.accept == NMP_OW_ACCEPT_TEMPORARY ? -EBUSY : -EACCES;
    }
    if (a.port == 0) {
        nmp_seterr(err, errlen, "%s server %s accepted the session with port 0", pname(t), t->oc->peer_str);
        return -EPROTO;
    }
    t->server_port = a.port;
    if (!t->from) memcpy(t->sid, a.sid, 16); /* the receiver's SID; "from": this end's, owamp's servers echo it or send zero */
    struct sockaddr_storage dst = t->oc->peer;
    if (dst.ss_family == AF_INET) ((struct sockaddr_in *)&dst)->sin_port = htons(a.port);
    else ((struct sockaddr_in6 *)&dst)->sin6_port = htons(a.port);
    if (connect(t->ufd, (struct sockaddr *)&dst,
                dst.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) < 0) {
        rc = -errno;
        nmp_seterr(err, errlen, "%s: connect test socket to port %u: %s", pname(t), a.port, strerror(errno));
        return rc;
    }
    if (t->test_mode != NMP_OW_MODE_OPEN && nmp_ow_test_keys_make(&t->oc->c.keys, t->sid, &t->tk) < 0) {
        nmp_seterr(err, errlen, "%s: cannot derive the test session key", pname(t));
        return -EIO;
    }
    return 0;
}

static int start_sessions(owrun *t, char *err, size_t errlen) {
    uint8_t m[NMP_OW_START_LEN], accept;
    size_t hm = 16;
    char sub[NMP_ERRLEN];
    nmp_ow_start_encode(m);
    int rc = nmp_owc_send(t->oc, m, sizeof(m), &hm, 1, err, errlen);
    if (rc < 0 || (rc = nmp_owc_recv(t->oc, m, sizeof(m), err, errlen)) < 0 ||
        (rc = nmp_owc_verify(t->oc, m, sizeof(m), &hm, 1, "Start-Ack", err, errlen)) < 0)
        return rc;
    if ((rc = nmp_ow_start_ack_decode(m, sizeof(m), &accept, sub, sizeof(sub))) < 0) {
        nmp_seterr(err, errlen, "%s server %s: %s", pname(t), t->oc->peer_str, sub);
        return rc;
    }
    if (accept != NMP_OW_ACCEPT_OK) {
        nmp_seterr(err, errlen, "%s server %s refused Start-Sessions: Accept %u (%s)", pname(t), t->oc->peer_str, accept,
                   nmp_ow_accept_name(accept));
        return -EACCES;
    }
    return 0;
}

static void add_skip(owrun *t, uint32_t seq) {
    if (t->nskips > 0 && t->skips[2 * t->nskips - 1] + 1 == seq) t->skips[2 * t->nskips - 1] = seq;
    else if (t->nskips < NMP_OW_MAX_SKIPS) t->skips[2 * t->nskips] = t->skips[2 * t->nskips + 1] = seq, t->nskips++;
    t->skipped++;
}

static void send_one(owrun *t, uint32_t seq) {
    size_t len = nmp_ow_test_hdr_len(t->test_mode) + t->spec->size;
    nmp_walltime_ns now = nmp_wall_now();
    nmp_ow_test_pkt p = {.seq = seq, .ts = nmp_ow_ts_from_wall(now), .error = t->error};
    memset(t->buf, 0, len); /* zero padding: RFC 4656 allows it, and it compresses nothing away on a real path */
    if (nmp_ow_test_encode(t->buf, len, &p, t->test_mode, &t->tk) < 0) return;
    ssize_t n;
    do n = send(t->ufd, t->buf, len, 0);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)len) {
        t->send_wall[seq] = nmp_ow_ts_to_wall(p.ts, now);
        t->sent++;
    }
}

static nmp_walltime_ns arrival(struct msghdr *msg) {
    nmp_walltime_ns k = nmp_net_cmsg_stamp(msg);
    return k != 0 ? k : nmp_wall_now();
}

/* OWAMP "from": one test packet from the server becomes a record here, as
 * a receiver keeps it for Fetch-Session (kernel receive stamp, this
 * clock's error, TTL). The socket is connected to the server's sending
 * port, so nothing else arrives; a packet that does not decode in this
 * session's mode and keys, or names a sequence number beyond the request,
 * is counted invalid. Records beyond twice the packets (duplicates without
 * end) are counted invalid too. */
static void receive_one(owrun *t, struct msghdr *msg, size_t n) {
    nmp_walltime_ns rx = arrival(msg);
    nmp_ow_test_pkt p;
    if (nmp_ow_test_decode(t->buf, n, &p, t->test_mode, &t->tk) < 0 || p.seq >= t->requested ||
        t->nrec >= t->rec_cap) {
        t->invalid++;
        return;
    }
    int ttl = nmp_net_cmsg_ttl(msg);
    t->rec[t->nrec++] = (nmp_ow_record){.seq = p.seq, .send_error = p.error, .recv_error = t->error, .send_ts = p.ts,
                                        .recv_ts = nmp_ow_ts_from_wall(rx), .ttl = (uint8_t)(ttl < 0 ? 255 : ttl)};
    if (!t->got[p.seq]) t->got[p.seq] = 1, t->received++;
}

/* TWAMP: reads every reflection waiting. OWAMP: nothing comes back on the test socket, but in "from". */
static void drain(owrun *t) {
    for (;;) {
        char cbuf[256];
        struct iovec iov = {.iov_base = t->buf, .iov_len = sizeof(t->buf)};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        ssize_t n = recvmsg(t->ufd, &msg, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return;
        if (!t->twamp && t->from) {
            receive_one(t, &msg, (size_t)n);
            continue;
        }
        if (!t->twamp) {
            t->invalid++;
            continue;
        }
        nmp_walltime_ns t4 = arrival(&msg);
        nmp_ow_refl_pkt p;
        if (nmp_ow_refl_decode(t->buf, (size_t)n, &p, t->test_mode, &t->tk) < 0 || p.sender_seq >= t->requested ||
            t->send_wall[p.sender_seq] == 0 || nmp_ow_ts_to_wall(p.sender_ts, t4) != t->send_wall[p.sender_seq]) {
            t->invalid++;
            continue;
        }
        uint32_t i = p.sender_seq;
        if (t->rtt_ns[i] >= 0) {
            t->duplicates++;
            continue;
        }
        int rsync;
        double rerr = nmp_ow_error_decode(p.error, &rsync) * 1e9;
        nmp_walltime_ns t1 = t->send_wall[i], t2 = nmp_ow_ts_to_wall(p.rx_ts, t4), t3 = nmp_ow_ts_to_wall(p.ts, t4);
        int64_t residence = t3 - t2, rtt = (t4 - t1) - (residence > 0 ? residence : 0);
        t->rtt_ns[i] = rtt > 0 ? rtt : 0;
        t->fwd_ns[i] = t2 - t1;
        t->bwd_ns[i] = t4 - t3;
        t->sender_ttl[i] = p.sender_ttl;
        t->reply_ttl[i] = nmp_net_cmsg_ttl(&msg);
        if (isnan(t->remote_error_ns) || rerr > t->remote_error_ns) t->remote_error_ns = rerr;
        t->remote_sync = rsync;
        /* a stateful reflector numbers what it received: a gap below the sender's number is forward loss */
        if (i >= p.seq && i - p.seq > t->forward_lost) t->forward_lost = i - p.seq;
        t->received++;
    }
}

static void wait_until(owrun *t, nmp_monotime_ns until, int early) {
    for (;;) {
        drain(t);
        if (t->rev) drain(t->rev); /* "both": the server's packets arrive while this end sends */
        nmp_monotime_ns now = nmp_mono_now();
        if (now >= until || nmp_control_cancelled(t->ctl) || (early && t->twamp && t->received >= t->sent) ||
            (early && t->from && t->received >= t->requested))
            return;
        progress(t, 0);
        uint64_t left = until - now;
        struct pollfd p[2] = {{.fd = t->ufd, .events = POLLIN}, {.fd = t->rev ? t->rev->ufd : -1, .events = POLLIN}};
        poll(p, t->rev ? 2 : 1, left > 20000000ull ? 20 : (int)(left / 1000000) + 1);
    }
}

/* The monotonic time of the Start Time: the wall clock's distance to it, never
 * more than the lead it was chosen with (a wall clock stepped back after the
 * request would otherwise hold the run that much longer), nor less than now. */
static nmp_monotime_ns mono_start(const owrun *t) {
    int64_t to_start = t->sched_start - nmp_wall_now();
    if (to_start < 0) to_start = 0;
    if ((uint64_t)to_start > t->lead_ns) to_start = (int64_t)t->lead_ns;
    return nmp_mono_now() + (uint64_t)to_start;
}

/* Sends the schedule: packet i at start + (i + 1) * interval, the schedule the
 * Request-Session announced (RFC 4656 4.1: Start Time plus the gaps of slots
 * 0..i, as owampd and this file's from_deadline read it). TWAMP's request
 * carries no schedule (RFC 5357 3.5); its packets keep the same one, so both
 * kinds send alike. A packet more than the loss timeout late is skipped
 * instead (RFC 4656 4.1.1). In "both" the server's packets are read after
 * each send too, whatever the interval, so its session does not overflow
 * this end's receive buffer. */
static void send_schedule(owrun *t) {
    const nmp_owamp_spec *s = t->spec;
    /* not before the Start Time the request announced (RFC 4656 3.4, RFC 5357 3.5): a receiver
     * may hold its session from then only. Past it (a control round trip longer than the lead),
     * the schedule starts now, as Start-Sessions allows. */
    nmp_monotime_ns start = mono_start(t);
    if (nmp_mono_now() + SPIN_NS < start) wait_until(t, start - SPIN_NS, 0);
    nmp_sleep_until(start, SPIN_NS);
    t->start_wall = nmp_wall_now();
    for (uint32_t seq = 0; seq < s->count && !nmp_control_cancelled(t->ctl); seq++) {
        nmp_monotime_ns due = start + (uint64_t)(seq + 1) * s->interval_ns;
        if (s->interval_ns > SPIN_NS && nmp_mono_now() + SPIN_NS < due) wait_until(t, due - SPIN_NS, 0);
        nmp_sleep_until(due, SPIN_NS);
        t->next_seq = seq + 1;
        if (nmp_mono_now() > due + s->timeout_ns) add_skip(t, seq);
        else send_one(t, seq);
        if (t->twamp) drain(t);
        if (t->rev) drain(t->rev);
        progress(t, 0);
    }
}

/* Reads the server's whole Stop-Sessions (header, its session descriptions,
 * HMAC) into a malloc'd buffer, block by block as its length unfolds. */
static int read_stop(owrun *t, uint8_t **out, size_t *outlen, char *err, size_t errlen) {
    size_t have = NMP_OW_BLOCK, cap = 4 * NMP_OW_BLOCK;
    uint8_t *b = malloc(cap);
    int rc;
    if (b == NULL) return -ENOMEM;
    if ((rc = nmp_owc_recv(t->oc, b, have, err, errlen)) < 0) goto fail;
    for (;;) {
        long L = nmp_ow_client_msg_len(0, b, have); /* Stop-Sessions reads the same both ways */
        if (L < 0 || b[0] != NMP_OW_CMD_STOP_SESSIONS) {
            nmp_seterr(err, errlen, "owamp server %s: Stop-Sessions answer: %s", t->oc->peer_str,
                       L == -EMSGSIZE ? "beyond the limits (sessions or skip ranges)" : "not a Stop-Sessions message");
            rc = -EPROTO;
            goto fail;
        }
        size_t want = L == 0 ? have + NMP_OW_BLOCK : (size_t)L;
        if (want == have) break;
        if (want > cap) {
            uint8_t *nb = realloc(b, want);
            if (nb == NULL) {
                rc = -ENOMEM;
                goto fail;
            }
            b = nb, cap = want;
        }
        if ((rc = nmp_owc_recv(t->oc, b + have, want - have, err, errlen)) < 0) goto fail;
        have = want;
    }
    *out = b, *outlen = have;
    return 0;
fail:
    free(b);
    return rc;
}

/* OWAMP Stop-Sessions (RFC 4656 3.8): each side describes the sessions IT
 * sent. This end describes snd, the session it sent (NULL in "from"), then
 * reads the server's, which describes the sessions the server sent: none
 * when this end only sent, rcv in "from" and "both" (its Next Seqno and skip
 * ranges say how many packets it sent). One exchange stops both sessions of
 * "both"; snd or rcv may be NULL, not both. */
static int stop_owamp(owrun *snd, owrun *rcv, char *err, size_t errlen) {
    owrun *t = snd ? snd : rcv;
    size_t cap = NMP_OW_BLOCK + 16 + 16 + 8 * (size_t)(snd ? snd->nskips : 0) + 16 + NMP_OW_HMAC_LEN;
    uint8_t *m = calloc(1, cap);
    if (m == NULL) return -ENOMEM;
    uint8_t cancelled = nmp_control_cancelled(t->ctl) ? NMP_OW_ACCEPT_FAILURE : NMP_OW_ACCEPT_OK;
    nmp_ow_stop_header_encode(m, cancelled, snd ? 1 : 0);
    long dl = !snd ? 0
                   : nmp_ow_stop_session_encode(m + NMP_OW_BLOCK, cap - NMP_OW_BLOCK - NMP_OW_HMAC_LEN, snd->sid,
                                                snd->next_seq, snd->skips, snd->nskips);
    int rc = (int)dl;
    if (dl >= 0) {
        size_t len = NMP_OW_BLOCK + (size_t)dl + NMP_OW_HMAC_LEN, hm = len - NMP_OW_HMAC_LEN;
        rc = nmp_owc_send(t->oc, m, len, &hm, 1, err, errlen);
    }
    free(m);
    if (rc < 0) return rc;
    uint8_t *h = NULL, accept;
    size_t hl = 0;
    uint32_t ns;
    char sub[NMP_ERRLEN];
    if ((rc = read_stop(t, &h, &hl, err, errlen)) < 0) return rc;
    size_t hm = hl - NMP_OW_HMAC_LEN;
    if ((rc = nmp_owc_verify(t->oc, h, hl, &hm, 1, "Stop-Sessions", err, errlen)) < 0) goto end;
    if ((rc = nmp_ow_stop_header_decode(h, hl, &accept, &ns, sub, sizeof(sub))) < 0 || (!rcv && ns != 0)) {
        nmp_seterr(err, errlen, "owamp server %s: Stop-Sessions answer: %s", t->oc->peer_str,
                   rc < 0 ? sub : "it names sessions it sent, but it sent none");
        rc = rc < 0 ? rc : -EPROTO;
        goto end;
    }
    if (rcv) {
        nmp_ow_stop_session st;
        uint32_t i = 0;
        for (; i < ns; i++) {
            if ((rc = nmp_ow_stop_session_at(h, hl, i, &st, sub, sizeof(sub))) < 0) {
                nmp_seterr(err, errlen, "owamp server %s: %s", t->oc->peer_str, sub);
                goto end;
            }
            if (memcmp(st.sid, rcv->sid, 16) == 0) break;
        }
        if (i == ns || st.next_seqno > rcv->requested) {
            nmp_seterr(err, errlen, "owamp server %s: its Stop-Sessions %s", t->oc->peer_str,
                       i == ns ? "does not describe the session it sent" : "says it sent more packets than asked");
            rc = -EPROTO;
            goto end;
        }
        rcv->far_next_seqno = st.next_seqno;
        rcv->skipped = 0;
        for (uint32_t k = 0; k < st.nskips; k++) {
            const uint8_t *p = st.skips + 8 * k;
            uint32_t first = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
            uint32_t last = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
            rcv->skipped += last - first + 1; /* ordered and below Next Seqno: checked by the decoder */
        }
        rcv->sent = st.next_seqno - rcv->skipped;
        rcv->next_seq = st.next_seqno;
    }
end:
    free(h);
    return rc;
}

/* Fetch-Session of the whole session, then the receiver's records. */
static int fetch_owamp(owrun *t, char *err, size_t errlen) {
    uint8_t m[NMP_OW_FETCH_LEN], *buf = NULL;
    size_t hm = 32;
    char sub[NMP_ERRLEN];
    nmp_ow_fetch f = {.begin = 0, .end = 0xFFFFFFFFu};
    memcpy(f.sid, t->sid, 16);
    nmp_ow_fetch_encode(m, &f);
    int rc = nmp_owc_send(t->oc, m, sizeof(m), &hm, 1, err, errlen);
    if (rc < 0) return rc;
    uint8_t ab[NMP_OW_FETCH_ACK_LEN];
    nmp_ow_fetch_ack ack;
    hm = 16;
    if ((rc = nmp_owc_recv(t->oc, ab, sizeof(ab), err, errlen)) < 0 ||
        (rc = nmp_owc_verify(t->oc, ab, sizeof(ab), &hm, 1, "Fetch-Ack", err, errlen)) < 0)
        return rc;
    if ((rc = nmp_ow_fetch_ack_decode(ab, sizeof(ab), &ack, sub, sizeof(sub))) < 0) {
        nmp_seterr(err, errlen, "owamp server %s: %s", t->oc->peer_str, sub);
        return rc;
    }
    if (ack.accept != NMP_OW_ACCEPT_OK) {
        nmp_seterr(err, errlen, "owamp server %s refused Fetch-Session: Accept %u (%s)", t->oc->peer_str, ack.accept,
                   nmp_ow_accept_name(ack.accept));
        return -EACCES;
    }
    if (ack.nrecords > t->requested * 2u + 16u) {
        /* duplicates make more records than packets, but not without bound */
        nmp_seterr(err, errlen, "owamp server %s announces %u records for %u packets", t->oc->peer_str, ack.nrecords,
                   t->requested);
        return -EPROTO;
    }
    /* the Request-Session as the server keeps it */
    uint8_t rq[NMP_OW_REQUEST_LEN];
    nmp_ow_request r;
    hm = 96;
    if ((rc = nmp_owc_recv(t->oc, rq, sizeof(rq), err, errlen)) < 0 ||
        (rc = nmp_owc_verify(t->oc, rq, sizeof(rq), &hm, 1, "Fetch: Request-Session", err, errlen)) < 0)
        return rc;
    if ((rc = nmp_ow_request_decode(rq, sizeof(rq), &r, sub, sizeof(sub))) < 0) {
        nmp_seterr(err, errlen, "owamp server %s: Fetch: %s", t->oc->peer_str, sub);
        return rc;
    }
    size_t parts[3] = {NMP_OW_BLOCK * ((size_t)r.nslots + 1),
                       ack.finished && ack.nskips ? ((size_t)ack.nskips * 8 + 15) / 16 * 16 + 16 : 16,
                       ack.nrecords ? ((size_t)ack.nrecords * NMP_OW_RECORD_LEN + 15) / 16 * 16 + 16 : 16};
    for (int i = 0; i < 3 && rc == 0; i++) {
        free(buf);
        if ((buf = malloc(parts[i])) == NULL) return -ENOMEM;
        hm = parts[i] - 16;
        if ((rc = nmp_owc_recv(t->oc, buf, parts[i], err, errlen)) < 0 ||
            (rc = nmp_owc_verify(t->oc, buf, parts[i], &hm, 1, "Fetch-Session data", err, errlen)) < 0)
            break;
        if (i == 2) {
            t->rec = calloc(ack.nrecords ? ack.nrecords : 1, sizeof(*t->rec));
            if (t->rec == NULL) rc = -ENOMEM;
            for (uint32_t k = 0; rc == 0 && k < ack.nrecords; k++)
                nmp_ow_record_decode(buf + (size_t)k * NMP_OW_RECORD_LEN, NMP_OW_RECORD_LEN, &t->rec[k]);
            t->nrec = ack.nrecords;
        }
    }
    free(buf);
    return rc;
}

static int stop_twamp(owrun *t, char *err, size_t errlen) {
    uint8_t m[NMP_OW_START_LEN];
    size_t hm = 16;
    memset(m, 0, sizeof(m));
    nmp_ow_stop_header_encode(m, nmp_control_cancelled(t->ctl) ? NMP_OW_ACCEPT_FAILURE : NMP_OW_ACCEPT_OK, 1);
    return nmp_owc_send(t->oc, m, sizeof(m), &hm, 1, err, errlen);
}

static void owrun_free(owrun *t) {
    free(t->send_wall), free(t->skips), free(t->rec), free(t->rtt_ns), free(t->fwd_ns), free(t->bwd_ns);
    free(t->sender_ttl), free(t->reply_ttl), free(t->got);
    nmp_owc_close(&t->own_oc);
    nmp_net_close(&t->ufd);
    free(t);
}

static int check_spec(const nmp_owamp_spec *s, int twamp, uint32_t *mode, char *err, size_t errlen) {
    *mode = s->mode ? nmp_ow_mode_parse(s->mode) : NMP_OW_MODE_OPEN;
    if (*mode == 0 || (!twamp && *mode == NMP_OW_MODE_MIXED)) {
        nmp_seterr(err, errlen, "%s: mode \"%s\" is not one of open, authenticated, encrypted%s", twamp ? "twamp" : "owamp",
                   s->mode, twamp ? ", mixed" : "");
        return -EINVAL;
    }
    if (*mode != NMP_OW_MODE_OPEN && (s->key_id == NULL || s->key_file == NULL || strlen(s->key_id) == 0 ||
                                      strlen(s->key_id) > NMP_OW_KEYID_LEN)) {
        nmp_seterr(err, errlen, "%s: %s mode needs keyId (1..%d octets) and keyFile", twamp ? "twamp" : "owamp",
                   s->mode, NMP_OW_KEYID_LEN);
        return -EINVAL;
    }
    if (!twamp && s->direction && strcmp(s->direction, "to") != 0 && strcmp(s->direction, "from") != 0 &&
        strcmp(s->direction, "both") != 0) {
        nmp_seterr(err, errlen,
                   "owamp: direction \"%s\" is not \"to\" (this end sends), \"from\" (the server sends) or \"both\"",
                   s->direction);
        return -EINVAL;
    }
    size_t hdr = twamp ? NMP_OW_TW_REFL_AUTH_LEN : NMP_OW_TEST_AUTH_LEN;
    if (s->host == NULL || s->host[0] == '\0' || s->count < 1 || s->count > 1000000 || s->size + hdr > NMP_OW_TEST_MAX_LEN) {
        nmp_seterr(err, errlen, "%s: host non-empty, count 1..1000000, size at most %zu", twamp ? "twamp" : "owamp",
                   (size_t)NMP_OW_TEST_MAX_LEN - hdr);
        return -EINVAL;
    }
    return 0;
}

/* The per-packet arrays of a run of s->count packets. */
static int run_alloc(owrun *t) {
    const nmp_owamp_spec *s = t->spec;
    size_t n = s->count;
    t->requested = s->count;
    t->send_wall = calloc(n, sizeof(int64_t));
    t->skips = calloc(2 * NMP_OW_MAX_SKIPS, sizeof(uint32_t));
    if (!t->send_wall || !t->skips) return -ENOMEM;
    if (t->from) {
        t->rec_cap = 2 * s->count + 16; /* duplicates make more records than packets, but not without bound */
        t->rec = malloc(t->rec_cap * sizeof(*t->rec)), t->got = calloc(n, 1);
        if (!t->rec || !t->got) return -ENOMEM;
    }
    if (t->twamp) {
        t->rtt_ns = malloc(n * sizeof(int64_t)), t->fwd_ns = calloc(n, sizeof(int64_t));
        t->bwd_ns = calloc(n, sizeof(int64_t)), t->sender_ttl = malloc(n * sizeof(int32_t));
        t->reply_ttl = malloc(n * sizeof(int32_t));
        if (!t->rtt_ns || !t->fwd_ns || !t->bwd_ns || !t->sender_ttl || !t->reply_ttl) return -ENOMEM;
        for (size_t i = 0; i < n; i++) t->rtt_ns[i] = -1, t->sender_ttl[i] = t->reply_ttl[i] = -1;
    }
    t->error = nmp_ow_local_error();
    t->local_error_ns = nmp_ow_error_decode(t->error, NULL) * 1e9;
    t->remote_error_ns = NAN;
    return 0;
}

/* "from": when the server's last packet is due, and its loss timeout past
 * it: packet i at Start Time + (i + 1) gaps (RFC 4656 4.1, as owampd sends). */
static nmp_monotime_ns from_deadline(const owrun *r) {
    const nmp_owamp_spec *s = r->spec;
    return mono_start(r) + (uint64_t)s->count * s->interval_ns + s->timeout_ns;
}

/* The Start Time of every session of this run, chosen before the first request
 * (as owping does): at least START_DELAY_NS ahead, and ahead of the control
 * round trips that pass before Start-Ack (each Request-Session, then
 * Start-Sessions) plus a margin, so a slow path does not find the Start Time
 * over when the sessions start; at most LEAD_MAX_NS. The round trip is
 * bounded by the control connection's own set-up (open_ns: the TCP handshake,
 * the Server-Greeting, Set-Up-Response to Server-Start, and the name lookup if
 * any), an over-estimate by design. */
static void choose_start(owrun *t, uint64_t open_ns) {
    uint64_t nreq = t->rev ? 2 : 1;
    uint64_t lead = open_ns >= LEAD_MAX_NS ? LEAD_MAX_NS : (nreq + 1) * open_ns + LEAD_MARGIN_NS;
    if (lead < START_DELAY_NS) lead = START_DELAY_NS;
    if (lead > LEAD_MAX_NS) lead = LEAD_MAX_NS;
    t->lead_ns = lead;
    t->sched_start = nmp_wall_now() + (int64_t)lead;
    if (t->rev) t->rev->lead_ns = lead, t->rev->sched_start = t->sched_start;
}

/* Runs one session of either protocol into t; OWAMP "both" (t->rev set):
 * t's session and the reverse one on the one control connection, as owping
 * runs them by default. */
static int owping_run(owrun *t, char *err, size_t errlen) {
    const nmp_owamp_spec *s = t->spec;
    owrun *r = t->rev;
    int rc;
    if ((rc = run_alloc(t)) < 0 || (r && (rc = run_alloc(r)) < 0)) return rc;
    nmp_monotime_ns t0 = nmp_mono_now();
    rc = nmp_owc_open(t->oc, s->host, s->port, t->twamp, t->mode, s->key_id, s->key_file, IO_MS, t->ctl, err, errlen);
    if (rc < 0) return rc;
    choose_start(t, nmp_mono_now() - t0);
    /* "both": this end's session first (the server receives), then the server's (it sends),
     * one Start-Sessions for the two */
    if ((rc = open_test_socket(t, err, errlen)) < 0 || (rc = request_session(t, err, errlen)) < 0 ||
        (r && ((rc = open_test_socket(r, err, errlen)) < 0 || (rc = request_session(r, err, errlen)) < 0)) ||
        (rc = start_sessions(t, err, errlen)) < 0)
        return rc;
    if (t->from) {
        /* the last packet may arrive up to the loss timeout after its slot, or all may have come before */
        t->start_wall = nmp_wall_now();
        wait_until(t, from_deadline(t), 1);
    } else {
        nmp_monotime_ns rev_until = 0;
        if (r) r->start_wall = nmp_wall_now(), rev_until = from_deadline(r);
        send_schedule(t); /* drains r's socket too */
        /* every packet may still arrive up to the loss timeout after its send */
        if (!nmp_control_cancelled(t->ctl)) wait_until(t, nmp_mono_now() + s->timeout_ns, 1);
        /* "both": the server's last packets, if its schedule (which started later) is not done */
        if (r && !nmp_control_cancelled(t->ctl) && r->received < r->requested) wait_until(r, rev_until, 1);
    }
    t->end_wall = nmp_wall_now();
    if (r) r->end_wall = t->end_wall;
    progress(t, 1);
    if (t->twamp) {
        rc = stop_twamp(t, err, errlen);
    } else {
        /* this end receives in "from" and holds the records already (RFC 4656 3.8); in "both" one
         * Stop-Sessions exchange stops both sessions, then this end's is fetched */
        if ((rc = stop_owamp(t->from ? NULL : t, t->from ? t : r, err, errlen)) == 0 &&
            !nmp_control_cancelled(t->ctl) && !t->from)
            rc = fetch_owamp(t, err, errlen);
    }
    if (rc == 0 && nmp_control_cancelled(t->ctl)) {
        nmp_seterr(err, errlen, "%s %s port %d: cancelled", pname(t), s->host, s->port);
        rc = -ECANCELED;
    }
    return rc;
}

/* ---- packing ---- */

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* pfx + name in b (a figure of the reverse session of "both" is "reverse." + its name). */
static const char *pn(char b[NMP_PACK_NAME_MAX + 1], const char *pfx, const char *name) {
    snprintf(b, NMP_PACK_NAME_MAX + 1, "%s%s", pfx, name);
    return b;
}

/* Packs min/median/mean/p95/p99/max of v (ns) under pfx + names, in ms. */
static void pack_summary(nmp_pack *out, const char *pfx, double *v, size_t k, const char *const names[6]) {
    double q[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    nmp_summary s;
    if (k > 0 && nmp_stats_summarize(v, k, &s) == 0) {
        q[0] = s.min, q[1] = s.median, q[2] = s.mean, q[5] = s.max;
        qsort(v, k, sizeof(double), cmp_dbl);
        nmp_stats_quantile(v, k, 0.95, &q[3]);
        nmp_stats_quantile(v, k, 0.99, &q[4]);
    }
    char b[NMP_PACK_NAME_MAX + 1];
    for (int i = 0; i < 6; i++)
        if (names[i]) nmp_pack_f64(out, pn(b, pfx, names[i]), q[i] / 1e6);
}

/* The run's common figures; under a prefix (the reverse session) only its
 * own, not those of the control connection both sessions share. */
static void pack_common(nmp_pack *out, const char *pfx, owrun *t, int rc) {
    char b[NMP_PACK_NAME_MAX + 1];
    if (!*pfx) {
        nmp_pack_bool(out, "cancelled", rc == -ECANCELED);
        nmp_pack_str(out, "mode", nmp_ow_mode_name(t->mode));
        nmp_pack_str(out, "localAddress", t->oc->local_str);
        nmp_pack_str(out, "remoteAddress", t->oc->peer_str);
    }
    nmp_pack_i64(out, pn(b, pfx, "remotePort"), t->server_port);
    nmp_pack_i64(out, pn(b, pfx, "requested"), t->requested);
    nmp_pack_i64(out, pn(b, pfx, "sent"), t->sent);
    nmp_pack_i64(out, pn(b, pfx, "skipped"), t->skipped);
    nmp_pack_i64(out, pn(b, pfx, "startEpochNanos"), t->start_wall);
    nmp_pack_i64(out, pn(b, pfx, "endEpochNanos"), t->end_wall);
}

/* An OWAMP session's figures under pfx ("" for this run's, "reverse." for
 * the server's session of "both"). */
static void pack_owamp(nmp_pack *out, const char *pfx, owrun *t, int rc) {
    char b[NMP_PACK_NAME_MAX + 1];
    size_t n = t->nrec;
    uint8_t *seen = calloc(t->requested ? t->requested : 1, 1);
    double *owd = malloc((n ? n : 1) * sizeof(double));
    int32_t *seq = malloc((n ? n : 1) * sizeof(int32_t)), *ttl = malloc((n ? n : 1) * sizeof(int32_t));
    int64_t *snd = malloc((n ? n : 1) * sizeof(int64_t)), *arr = malloc((n ? n : 1) * sizeof(int64_t));
    int64_t *d = malloc((n ? n : 1) * sizeof(int64_t));
    size_t k = 0, nf = 0;
    uint32_t maxseq = 0;
    int any = 0;
    t->received = 0, t->duplicates = 0, t->reordered = 0; /* counted here from the records, whoever kept them */
    if (!seen || !owd || !seq || !ttl || !snd || !arr || !d) goto end;
    for (size_t i = 0; i < n; i++) {
        const nmp_ow_record *r = &t->rec[i];
        if (r->recv_ts == 0 || r->seq >= t->requested) continue; /* lost, or not of this session */
        nmp_walltime_ns near = t->send_wall[r->seq] ? t->send_wall[r->seq] : t->start_wall;
        nmp_walltime_ns sw = nmp_ow_ts_to_wall(r->send_ts, near), aw = nmp_ow_ts_to_wall(r->recv_ts, near);
        seq[nf] = (int32_t)r->seq, snd[nf] = sw, arr[nf] = aw, d[nf] = aw - sw, ttl[nf] = r->ttl, nf++;
        int rs;
        /* the far end's clock: the receiver's stamps when this end sent, the sender's in "from" */
        double re = nmp_ow_error_decode(t->from ? r->send_error : r->recv_error, &rs) * 1e9;
        if (isnan(t->remote_error_ns) || re > t->remote_error_ns) t->remote_error_ns = re;
        t->remote_sync = rs;
        if (seen[r->seq]) {
            t->duplicates++;
            continue;
        }
        seen[r->seq] = 1;
        t->received++;
        if (any && r->seq < maxseq) t->reordered++; /* arrived after a later-sent packet (RFC 4737) */
        if (!any || r->seq > maxseq) maxseq = r->seq;
        any = 1;
        owd[k++] = (double)(aw - sw);
    }
end:;
    uint32_t sent = t->sent;
    t->lost = sent > t->received ? sent - t->received : 0;
    pack_common(out, pfx, t, rc);
    if (!*pfx) nmp_pack_str(out, "direction", t->rev ? "both" : t->from ? "from" : "to");
    nmp_pack_i64(out, pn(b, pfx, "received"), t->received);
    nmp_pack_i64(out, pn(b, pfx, "lost"), t->lost);
    nmp_pack_i64(out, pn(b, pfx, "duplicates"), t->duplicates);
    nmp_pack_i64(out, pn(b, pfx, "reordered"), t->reordered);
    nmp_pack_i64(out, pn(b, pfx, "invalid"), t->invalid);
    nmp_pack_i64(out, pn(b, pfx, "records"), t->nrec);
    nmp_pack_f64(out, pn(b, pfx, "lossPercent"), sent ? 100.0 * t->lost / sent : NAN);
    static const char *const names[6] = {"minOwdMs", "medianOwdMs", "meanOwdMs", "p95OwdMs", "p99OwdMs", "maxOwdMs"};
    pack_summary(out, pfx, owd ? owd : (double[1]){0}, owd ? k : 0, names);
    int local_sync = 0;
    nmp_ow_error_decode(t->error, &local_sync);
    nmp_pack_f64(out, pn(b, pfx, "senderErrorMs"), (t->from ? t->remote_error_ns : t->local_error_ns) / 1e6);
    nmp_pack_f64(out, pn(b, pfx, "receiverErrorMs"), (t->from ? t->local_error_ns : t->remote_error_ns) / 1e6);
    nmp_pack_f64(out, pn(b, pfx, "oneWayUncertaintyMs"), (t->local_error_ns + t->remote_error_ns) / 1e6);
    nmp_pack_i64(out, pn(b, pfx, "receiverSynchronised"), t->from ? local_sync : t->remote_sync);
    nmp_pack_i32s(out, pn(b, pfx, "frames.seq"), seq, seq ? nf : 0);
    nmp_pack_i64s(out, pn(b, pfx, "frames.sendEpochNanos"), snd, snd ? nf : 0);
    nmp_pack_i64s(out, pn(b, pfx, "frames.arrivalEpochNanos"), arr, arr ? nf : 0);
    nmp_pack_i64s(out, pn(b, pfx, "frames.owdNanos"), d, d ? nf : 0);
    nmp_pack_i32s(out, pn(b, pfx, "frames.ttl"), ttl, ttl ? nf : 0);
    free(seen), free(owd), free(seq), free(ttl), free(snd), free(arr), free(d);
}

static void pack_twamp(nmp_pack *out, owrun *t, int rc) {
    size_t n = t->requested, k = 0;
    double *rtt = malloc((n ? n : 1) * sizeof(double)), *fwd = malloc((n ? n : 1) * sizeof(double));
    double *bwd = malloc((n ? n : 1) * sizeof(double));
    if (rtt && fwd && bwd && t->rtt_ns)
        for (size_t i = 0; i < n; i++)
            if (t->rtt_ns[i] >= 0) rtt[k] = (double)t->rtt_ns[i], fwd[k] = (double)t->fwd_ns[i], bwd[k] = (double)t->bwd_ns[i], k++;
    if (!(rtt && fwd && bwd)) k = 0;
    t->lost = t->sent > t->received ? t->sent - t->received : 0;
    if (t->forward_lost > t->lost) t->forward_lost = t->lost;
    pack_common(out, "", t, rc);
    nmp_pack_i64(out, "received", t->received);
    nmp_pack_i64(out, "lost", t->lost);
    nmp_pack_i64(out, "duplicates", t->duplicates);
    nmp_pack_i64(out, "invalid", t->invalid);
    nmp_pack_f64(out, "lossPercent", t->sent ? 100.0 * t->lost / t->sent : NAN);
    static const char *const rn[6] = {"minRttMs", "medianRttMs", "meanRttMs", NULL, "p99RttMs", "maxRttMs"};
    static const char *const fn[6] = {"minForwardMs", "medianForwardMs", NULL, NULL, NULL, "maxForwardMs"};
    static const char *const bn[6] = {"minBackwardMs", "medianBackwardMs", NULL, NULL, NULL, "maxBackwardMs"};
    pack_summary(out, "", rtt, k, rn);
    pack_summary(out, "", fwd, k, fn);
    pack_summary(out, "", bwd, k, bn);
    nmp_pack_f64(out, "senderErrorMs", t->local_error_ns / 1e6);
    nmp_pack_f64(out, "reflectorErrorMs", t->remote_error_ns / 1e6);
    nmp_pack_f64(out, "oneWayUncertaintyMs", (t->local_error_ns + t->remote_error_ns) / 1e6);
    nmp_pack_i64(out, "reflectorSynchronised", t->remote_sync);
    nmp_pack_i64(out, "forwardLost", t->forward_lost);
    size_t fn_ = t->rtt_ns ? n : 0;
    nmp_pack_i64s(out, "frames.sendEpochNanos", t->send_wall, t->send_wall ? n : 0);
    nmp_pack_i64s(out, "frames.rttNanos", t->rtt_ns, fn_);
    nmp_pack_i64s(out, "frames.forwardNanos", t->fwd_ns, fn_);
    nmp_pack_i64s(out, "frames.backwardNanos", t->bwd_ns, fn_);
    nmp_pack_i32s(out, "frames.senderTtl", t->sender_ttl, fn_);
    nmp_pack_i32s(out, "frames.replyTtl", t->reply_ttl, fn_);
    free(rtt), free(fwd), free(bwd);
}

static int kind_run(int twamp, const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    const nmp_owamp_spec *s = sp;
    uint32_t mode;
    int rc = check_spec(s, twamp, &mode, err, errlen);
    if (rc < 0) return rc;
    owrun *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        nmp_seterr(err, errlen, "%s: out of memory", twamp ? "twamp" : "owamp");
        return -ENOMEM;
    }
    t->spec = s, t->ctl = ctl, t->twamp = twamp, t->mode = mode, t->test_mode = nmp_ow_test_mode(mode);
    t->from = !twamp && s->direction && strcmp(s->direction, "from") == 0;
    t->ufd = -1, t->oc = &t->own_oc, t->oc->fd = -1;
    if (!twamp && s->direction && strcmp(s->direction, "both") == 0) {
        /* the server's session: its own test socket, SID and keys, this run's control connection */
        owrun *r = calloc(1, sizeof(*r));
        if (r == NULL) {
            owrun_free(t);
            nmp_seterr(err, errlen, "owamp: out of memory");
            return -ENOMEM;
        }
        *r = (owrun){.spec = s, .ctl = ctl, .mode = mode, .test_mode = t->test_mode, .from = 1, .ufd = -1, .oc = t->oc};
        r->own_oc.fd = -1;
        t->rev = r, r->fwd = t;
    }
    rc = owping_run(t, err, errlen);
    if (rc == -ENOMEM) nmp_seterr(err, errlen, "%s: out of memory for %u packets", pname(t), s->count);
    if (rc == 0 || rc == -ECANCELED) {
        if (twamp) pack_twamp(out, t, rc);
        else pack_owamp(out, "", t, rc);
        if (t->rev) pack_owamp(out, "reverse.", t->rev, rc);
    }
    if (t->rev) owrun_free(t->rev);
    owrun_free(t);
    return rc;
}

static int owamp_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    return kind_run(0, sp, ctl, out, err, errlen);
}

static int twamp_kind_run(const void *sp, const nmp_control *ctl, nmp_pack *out, char *err, size_t errlen) {
    return kind_run(1, sp, ctl, out, err, errlen);
}

#define OW_FIELDS(PORT, MODES)                                                                                          \
    {.name = "host", .type = NMP_S_STR, .offset = offsetof(nmp_owamp_spec, host), .hi = 255, .required = 1,             \
     .cli = "host", .cli_short = 'H', .help = "server name or address (IPv4 or IPv6)"},                                 \
    {.name = "port", .type = NMP_S_INT, .offset = offsetof(nmp_owamp_spec, port), .lo = 1, .hi = 65535, .def = PORT,    \
     .cli = "port", .cli_short = 'p', .help = "server control port"},                                                   \
    {.name = "count", .type = NMP_S_U32, .offset = offsetof(nmp_owamp_spec, count), .lo = 1, .hi = 1000000, .def = 10,  \
     .cli = "count", .cli_short = 'c', .help = "test packets to send"},                                                 \
    {.name = "size", .type = NMP_S_U32, .offset = offsetof(nmp_owamp_spec, size), .hi = 8800, .def = 0,                 \
     .cli = "size", .cli_short = 's', .help = "padding octets in each test packet"},                                     \
    {.name = "intervalNs", .type = NMP_S_U64, .offset = offsetof(nmp_owamp_spec, interval_ns), .lo = 0, .hi = 60e9,     \
     .def = 1e7, .cli = "interval-us", .cli_short = 'i', .cli_scale = 1000,                                              \
     .help = "spacing between packets in microseconds (one fixed schedule slot)"},                                      \
    {.name = "timeoutNs", .type = NMP_S_U64, .offset = offsetof(nmp_owamp_spec, timeout_ns), .lo = 1e6, .hi = 60e9,     \
     .def = 2e9, .cli = "timeout-ms", .cli_short = 't', .cli_scale = 1e6,                                                \
     .help = "loss timeout: a packet not arrived this long after its send is lost"},                                     \
    {.name = "mode", .type = NMP_S_STR, .offset = offsetof(nmp_owamp_spec, mode), .hi = 32, .cli = "mode",              \
     .cli_short = 'm', .help = MODES},                                                                                  \
    {.name = "keyId", .type = NMP_S_STR, .offset = offsetof(nmp_owamp_spec, key_id), .hi = 80, .cli = "key-id",         \
     .help = "KeyID (owamp's user name) for the authenticated and encrypted modes"},                                    \
    {.name = "keyFile", .type = NMP_S_STR, .offset = offsetof(nmp_owamp_spec, key_file), .hi = 4096, .cli = "key-file", \
     .help = "owampd pfs file (\"keyid hexkey\" lines, mode 600) holding the key of keyId"},                            \
    {.name = "ttl", .type = NMP_S_INT, .offset = offsetof(nmp_owamp_spec, ttl), .hi = 255, .cli = "ttl",                \
     .help = "outgoing TTL / hop limit (0 = 255, as owping sends)"}

static const nmp_spec_field owamp_fields[] = {
    OW_FIELDS(NMP_OW_OWAMP_PORT, "open (default), authenticated or encrypted"),
    {.name = "direction", .type = NMP_S_STR, .offset = offsetof(nmp_owamp_spec, direction), .hi = 4, .cli = "direction",
     .cli_short = 'D',
     .help = "to (default: this end sends, the server receives), from (the server sends, owping -f) or both "
             "(the two sessions on one control connection, as owping runs by default; the server's under reverse.)"}};
static const nmp_spec_field twamp_fields[] = {
    OW_FIELDS(NMP_OW_TWAMP_PORT, "open (default), authenticated, encrypted or mixed")};

const nmp_kind nmp_kind_owamp = {
    .name = "owamp",
    .summary = "one-way delay, loss, duplicates and reordering to an OWAMP server (owampd, RFC 4656)",
    .fields = owamp_fields,
    .nfields = sizeof(owamp_fields) / sizeof(owamp_fields[0]),
    .spec_size = sizeof(nmp_owamp_spec),
    .run = owamp_kind_run,
};

const nmp_kind nmp_kind_twamp = {
    .name = "twamp",
    .summary = "round trip and both one-way delays to a TWAMP server (twampd, routers; RFC 5357)",
    .fields = twamp_fields,
    .nfields = sizeof(twamp_fields) / sizeof(twamp_fields[0]),
    .spec_size = sizeof(nmp_owamp_spec),
    .run = twamp_kind_run,
};
