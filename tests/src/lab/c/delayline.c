/* delayline.c -- a user-space delay line for the namespace lab.
 *
 * The lab kernel has no netem, so delay and reordering are made here: packets that
 * iptables sends to NFQUEUE are held for a fixed delay before their ACCEPT verdict. For
 * reordering, every k-th packet is held back until the n packets behind it have been
 * released (or 50 ms have passed): counting packets rather than time makes the reordering
 * extent exactly n whatever the sender's pacing jitter. -x instead holds it a fixed extra
 * time. -r adds a link of a given rate in front of the delay: each packet waits for the one
 * before it to leave and then occupies the link for its IP length * 8 / rate, so a latency
 * scan sees exactly that per-byte cost (tbf cannot show it: a spaced packet finds a full
 * bucket and passes at once). Run it inside the router namespace with real-time priority
 * and a 1 ns timer slack; without those, a 10 ms delay showed a p99 of 44 ms.
 *
 * usage: nmws-delayline -q QUEUE -d DELAY_US [-r RATE_KBIT] [-s SPIN_US] [-k EVERY_K (-n OVERTAKERS | -x EXTRA_US)]
 */
#define _GNU_SOURCE /* ppoll */
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_HELD 65536 /* packets held at once; the kernel queue is sized to match */
#define MAX_BACK 1024  /* packets held back for reordering at once */
#define MAX_BACK_NS 50000000ull /* a held-back packet goes after 50 ms even if too few overtook it */

typedef struct held {
    uint64_t release_ns; /* CLOCK_MONOTONIC time of the verdict */
    uint64_t order;      /* arrival number at the delay line */
    uint32_t id;         /* NFQUEUE packet id */
} held;

typedef struct back {
    uint64_t order;       /* arrival number: only packets that came after it count as overtaking */
    uint32_t id;          /* NFQUEUE packet id */
    uint32_t to_overtake; /* packets still to be released before this one */
    uint64_t deadline_ns; /* released then at the latest */
} back;

typedef struct line {
    held heap[MAX_HELD];  /* min-heap on release_ns */
    size_t n;             /* packets in the heap */
    uint64_t delay_ns;    /* added to every packet */
    uint64_t every_k;     /* every k-th packet is held longer; 0 = never */
    uint64_t extra_ns;    /* how much longer (time mode) */
    uint32_t overtakers;  /* or: how many later packets pass it (count mode) */
    uint64_t rate_kbit;   /* serializing link in front of the delay; 0 = none */
    uint64_t spin_ns;     /* poll without sleeping this long before each release */
    uint64_t link_free_ns; /* when that link has sent the last packet given to it */
    back backq[MAX_BACK]; /* held-back packets, oldest first */
    size_t nback;         /* entries in backq */
    uint64_t seen;        /* packets queued so far */
    uint64_t dropped;     /* packets accepted at once because the heap was full */
    struct nfq_q_handle *qh;
} line;

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void heap_push(line *l, held h) {
    size_t i = l->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (l->heap[parent].release_ns <= h.release_ns) break;
        l->heap[i] = l->heap[parent];
        i = parent;
    }
    l->heap[i] = h;
}

static held heap_pop(line *l) {
    held top = l->heap[0];
    held last = l->heap[--l->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= l->n) break;
        if (c + 1 < l->n && l->heap[c + 1].release_ns < l->heap[c].release_ns) c++;
        if (last.release_ns <= l->heap[c].release_ns) break;
        l->heap[i] = l->heap[c];
        i = c;
    }
    if (l->n > 0) l->heap[i] = last;
    return top;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data) {
    (void)msg;
    line *l = data;
    struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
    if (ph == NULL) return 0;
    uint32_t id = ntohl(ph->packet_id);
    l->seen++;
    if (l->n == MAX_HELD) {
        l->dropped++;
        return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
    }
    uint64_t now = now_ns(), hold = l->delay_ns;
    if (l->rate_kbit > 0) {
        /* The IP header's total length: the queue copies the first 20 bytes of each packet. */
        unsigned char *ip;
        int got = nfq_get_payload(nfa, &ip);
        uint64_t bytes = got >= 4 ? ((uint64_t)ip[2] << 8 | ip[3]) : 0;
        uint64_t start = l->link_free_ns > now ? l->link_free_ns : now;
        l->link_free_ns = start + bytes * 8ull * 1000000ull / l->rate_kbit;
        hold += l->link_free_ns - now;
    }
    if (l->every_k > 0 && l->seen % l->every_k == 0) {
        if (l->overtakers > 0 && l->nback < MAX_BACK) {
            l->backq[l->nback++] = (back){l->seen, id, l->overtakers, now + l->delay_ns + MAX_BACK_NS};
            return 0;
        }
        hold += l->extra_ns;
    }
    heap_push(l, (held){now + hold, l->seen, id});
    return 0;
}

/* After each normal release: count it against the held-back packets that arrived before it,
 * and let go those that enough packets have overtaken (or that waited too long). released
 * is the arrival number of the packet just released, 0 for none. */
static void release_back(line *l, uint64_t released, uint64_t now) {
    size_t kept = 0;
    for (size_t i = 0; i < l->nback; i++) {
        back *b = &l->backq[i];
        if (released > b->order && b->to_overtake > 0) b->to_overtake--;
        if (b->to_overtake == 0 || now >= b->deadline_ns) {
            nfq_set_verdict(l->qh, b->id, NF_ACCEPT, 0, NULL);
        } else {
            l->backq[kept++] = *b;
        }
    }
    l->nback = kept;
}

static void release_due(line *l) {
    uint64_t now = now_ns();
    while (l->n > 0 && l->heap[0].release_ns <= now) {
        held h = heap_pop(l);
        nfq_set_verdict(l->qh, h.id, NF_ACCEPT, 0, NULL);
        release_back(l, h.order, now);
    }
    release_back(l, 0, now);
}

int main(int argc, char **argv) {
    static line l;
    int queue = 0, opt;
    while ((opt = getopt(argc, argv, "q:d:k:x:n:r:s:")) != -1) {
        switch (opt) {
        case 'q': queue = atoi(optarg); break;
        case 'd': l.delay_ns = strtoull(optarg, NULL, 10) * 1000ull; break;
        case 'k': l.every_k = strtoull(optarg, NULL, 10); break;
        case 'x': l.extra_ns = strtoull(optarg, NULL, 10) * 1000ull; break;
        case 'n': l.overtakers = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'r': l.rate_kbit = strtoull(optarg, NULL, 10); break;
        case 's': l.spin_ns = strtoull(optarg, NULL, 10) * 1000ull; break;
        default:
            fprintf(stderr, "usage: %s -q QUEUE -d DELAY_US [-r RATE_KBIT] [-s SPIN_US] [-k EVERY_K (-n OVERTAKERS | -x EXTRA_US)]\n",
                    argv[0]);
            return 2;
        }
    }
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    struct nfq_handle *h = nfq_open();
    if (h == NULL) { perror("nfq_open"); return 1; }
    nfq_unbind_pf(h, AF_INET);
    if (nfq_bind_pf(h, AF_INET) < 0) { perror("nfq_bind_pf"); return 1; }
    l.qh = nfq_create_queue(h, (uint16_t)queue, on_packet, &l);
    if (l.qh == NULL) { perror("nfq_create_queue"); return 1; }
    if (nfq_set_mode(l.qh, NFQNL_COPY_PACKET, 20) < 0) { perror("nfq_set_mode"); return 1; }
    nfq_set_queue_maxlen(l.qh, MAX_HELD);
    nfnl_rcvbufsiz(nfq_nfnlh(h), 16 * 1024 * 1024);
    int fd = nfq_fd(h);
    fprintf(stderr, "delayline: queue %d delay %llu us, link %llu kbit/s, every %llu-th +%llu us or after %u overtakers\n",
            queue, (unsigned long long)(l.delay_ns / 1000), (unsigned long long)l.rate_kbit, (unsigned long long)l.every_k,
            (unsigned long long)(l.extra_ns / 1000), l.overtakers);
    fflush(stderr);

    char buf[65536] __attribute__((aligned));
    while (!stop) {
        /* Sleep until the next release with ppoll's nanosecond timeout (1 ns timer slack)
         * rather than spinning: a spinning real-time task is throttled by the kernel for
         * 50 ms of every second (sched_rt_runtime_us), which showed up as 50 ms stalls. */
        struct timespec ts = {0, 100000000L};
        if (l.nback > 0) ts.tv_nsec = 1000000L;
        if (l.n > 0) {
            uint64_t now = now_ns(), next = l.heap[0].release_ns;
            uint64_t wait = next > now ? next - now : 0;
            if (l.nback > 0 && wait > 1000000ull) wait = 1000000ull;
            /* -s: wake that much early and poll without sleeping until the release. A sleeping
             * vCPU wakes late by an amount that grew with the sleep (up to 0.1 ms after 1.2 ms),
             * which read as a steeper per-byte cost in latency scans. Only for sparse traffic:
             * spinning through a stream would meet the real-time throttle described above. */
            wait = wait > l.spin_ns ? wait - l.spin_ns : 0;
            ts.tv_sec = (time_t)(wait / 1000000000ull);
            ts.tv_nsec = (long)(wait % 1000000000ull);
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = ppoll(&p, 1, &ts, NULL);
        if (r > 0 && (p.revents & POLLIN)) {
            for (;;) {
                ssize_t len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                if (len <= 0) break;
                nfq_handle_packet(h, buf, (int)len);
            }
        }
        release_due(&l);
    }
    while (l.n > 0) {
        held x = heap_pop(&l);
        nfq_set_verdict(l.qh, x.id, NF_ACCEPT, 0, NULL);
    }
    for (size_t i = 0; i < l.nback; i++) nfq_set_verdict(l.qh, l.backq[i].id, NF_ACCEPT, 0, NULL);
    fprintf(stderr, "delayline: %llu packets, %llu passed undelayed (queue full)\n",
            (unsigned long long)l.seen, (unsigned long long)l.dropped);
    nfq_destroy_queue(l.qh);
    nfq_close(h);
    return 0;
}
