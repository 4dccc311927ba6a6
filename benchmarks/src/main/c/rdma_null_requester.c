/*
 * An independent RPC-over-RDMA Version 1 requester (RFC 8166) in C over librdmacm and libibverbs, for
 * tools/vm/run-benchmarks, run-icount and run-dropin: by default one connection, one NULL call in flight (closed
 * loop), event-driven like ib_send_lat -e (it sleeps in ibv_get_cq_event on its receive queue's completion channel),
 * against any RPC-over-RDMA server. Prints the round-trip percentiles of the measured calls.
 *
 *   gcc -O2 -Wall -o rdma_null_requester rdma_null_requester.c -lrdmacm -libverbs
 *   rdma_null_requester -a ADDRESS [-p PORT] [-w WARMUP_CALLS] [-n CALLS] [-P PROG] [-V VERS] [-c CREDITS]
 *                       [-q DEPTH] [-C CONNECTIONS] [-W WARMUP_S -s SECONDS]
 *
 * -q DEPTH: calls in flight per connection (default 1, at most 32), never more than the server's latest grant of
 * credits (RFC 8166 §3.3; one until the first reply). -C CONNECTIONS: that many processes, each with its own
 * connection (default 1), their round trips in one histogram. -s SECONDS: time-based instead of -w/-n: every
 * connection warms up for WARMUP_S seconds (default 2) and then counts the calls it starts in the next SECONDS, the
 * same window for all of them (deadlines taken before the processes start).
 *
 * Output (one line): calls N p50_us X p90_us X p99_us X mean_us X clock_reads_per_call 2 window_ns T0 T1
 * connections C depth D calls_per_s X
 * (T0, T1: CLOCK_MONOTONIC at the first measured call's start and the last one's end, for cutting a profile
 * recorded on that clock, perf record -k CLOCK_MONOTONIC, to the measured calls; calls_per_s: the measured calls
 * over SECONDS with -s, else over T1 - T0)
 *
 * What it does per call, and nothing more: one ibv_post_send (the 68-byte RDMA_MSG call: a 28-byte transport header
 * with empty chunk lists, RFC 8166 §4.1, then the RPC CALL with AUTH_NONE, RFC 5531), unsignalled except one in
 * SIGNAL_EVERY (its send queue's completions go to a queue without a completion channel, drained without waiting);
 * one ibv_req_notify_cq and one ibv_get_cq_event when no reply is there yet (the event acknowledged in batches);
 * ibv_poll_cq; checks of the reply (transport header: xid, version 1, RDMA_MSG, empty lists; RPC: xid, REPLY,
 * MSG_ACCEPTED, SUCCESS); one ibv_post_recv to put the receive back; two clock reads (the call's stamps).
 * It sends RFC 8797 private data (1 KiB inline both ways) and asks for CREDITS credits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RECEIVES 8
#define MAX_DEPTH 32
#define BUF_SIZE 1024
#define SEND_DEPTH 64
#define SIGNAL_EVERY 16
#define ACK_BATCH 32
#define BIN_NS 100
#define BINS (100 * 1000 * 1000 / BIN_NS)

static uint32_t bins[BINS + 1];

/** What the connections measured, in memory shared by their processes. */
struct shared {
    uint64_t measured;
    uint64_t sum;
    uint64_t t0;
    uint64_t t1;
    uint32_t bins[BINS + 1];
};

struct options {
    const char *address, *port;
    long warmup, calls;
    uint32_t prog, vers, credits, depth;
    /** Time-based (-s): calls started in [warmup_end, end) are measured; none is started from end on. */
    uint64_t warmup_end, end;
};

static void die(const char *what) {
    fprintf(stderr, "rdma_null_requester: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void fail(const char *what) {
    fprintf(stderr, "rdma_null_requester: %s\n", what);
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static void put32(uint8_t *p, uint32_t v) {
    v = htonl(v);
    memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return ntohl(v);
}

/** Waits for the next RDMA-CM event, which must be {@code expected}. */
static void expect_event(struct rdma_event_channel *ec, enum rdma_cm_event_type expected) {
    struct rdma_cm_event *ev;
    if (rdma_get_cm_event(ec, &ev)) {
        die("rdma_get_cm_event");
    }
    if (ev->event != expected) {
        fprintf(stderr, "rdma_null_requester: RDMA-CM event %s (status %d), expected %s\n",
                rdma_event_str(ev->event), ev->status, rdma_event_str(expected));
        exit(1);
    }
    rdma_ack_cm_event(ev);
}

/** One connection's run: its calls, their round trips added to {@code sh}. */
static int connection(const struct options *o, struct shared *sh) {
    const char *address = o->address, *port = o->port;
    const long warmup = o->warmup, calls = o->calls;
    const uint32_t prog = o->prog, vers = o->vers, credits = o->credits, depth = o->depth;
    const int receives = depth > RECEIVES ? (int) depth : RECEIVES;
    struct rdma_event_channel *ec = rdma_create_event_channel();
    struct rdma_cm_id *id;
    if (ec == NULL || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) {
        die("rdma_create_id");
    }
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(address, port, &hints, &ai)) {
        fail("cannot resolve the address");
    }
    if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000)) {
        die("rdma_resolve_addr");
    }
    freeaddrinfo(ai);
    expect_event(ec, RDMA_CM_EVENT_ADDR_RESOLVED);
    if (rdma_resolve_route(id, 2000)) {
        die("rdma_resolve_route");
    }
    expect_event(ec, RDMA_CM_EVENT_ROUTE_RESOLVED);

    struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
    struct ibv_comp_channel *cc = ibv_create_comp_channel(id->verbs);
    struct ibv_cq *rcq = cc ? ibv_create_cq(id->verbs, receives, NULL, cc, 0) : NULL;
    struct ibv_cq *scq = ibv_create_cq(id->verbs, SEND_DEPTH, NULL, NULL, 0);
    if (pd == NULL || rcq == NULL || scq == NULL) {
        die("PD, completion channel or CQs");
    }
    /* Receive buffers first (receives of them), then one send buffer per call in flight. */
    static uint8_t bufs[2 * MAX_DEPTH][BUF_SIZE] __attribute__((aligned(64)));
    struct ibv_mr *mr = ibv_reg_mr(pd, bufs, sizeof bufs, IBV_ACCESS_LOCAL_WRITE);
    if (mr == NULL) {
        die("ibv_reg_mr");
    }
    struct ibv_qp_init_attr qa = {
        .send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
        .cap = {.max_send_wr = SEND_DEPTH, .max_recv_wr = receives, .max_send_sge = 1, .max_recv_sge = 1},
    };
    if (rdma_create_qp(id, pd, &qa)) {
        die("rdma_create_qp");
    }
    struct ibv_recv_wr rwr[MAX_DEPTH], *bad_r;
    struct ibv_sge rsge[MAX_DEPTH];
    for (int i = 0; i < receives; i++) {
        rsge[i] = (struct ibv_sge) {.addr = (uintptr_t) bufs[i], .length = BUF_SIZE, .lkey = mr->lkey};
        rwr[i] = (struct ibv_recv_wr) {.wr_id = (uint64_t) i, .sg_list = &rsge[i], .num_sge = 1};
        if (ibv_post_recv(id->qp, &rwr[i], &bad_r)) {
            die("ibv_post_recv");
        }
    }
    /* RFC 8797 §5.2: format identifier, version 1, no flags, 1 KiB inline send and receive (size codes 0). */
    uint8_t priv[8];
    put32(priv, 0xf6ab0e18);
    priv[4] = 1; priv[5] = 0; priv[6] = 0; priv[7] = 0;
    struct rdma_conn_param cp = {.private_data = priv, .private_data_len = sizeof priv, .responder_resources = 1,
                                 .initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7};
    if (rdma_connect(id, &cp)) {
        die("rdma_connect");
    }
    expect_event(ec, RDMA_CM_EVENT_ESTABLISHED);

    /* The calls: RPC-over-RDMA header (RFC 8166 §4.1) then RPC CALL (RFC 5531 §9), 17 XDR words; one buffer per
     * call in flight (slot), its xid rewritten for each call. */
    const int call_len = 68;
    struct ibv_sge ssge[MAX_DEPTH];
    struct ibv_send_wr swr[MAX_DEPTH], *bad_s;
    uint32_t slot_xid[MAX_DEPTH] = {0};
    uint64_t slot_start[MAX_DEPTH] = {0};
    long slot_index[MAX_DEPTH];
    int free_slots[MAX_DEPTH], nfree = 0;
    for (uint32_t s = 0; s < depth; s++) {
        uint8_t *call = bufs[receives + s];
        memset(call, 0, call_len);
        put32(call + 4, 1);        /* rdma_vers */
        put32(call + 8, credits);  /* rdma_credit: requested */
        put32(call + 12, 0);       /* RDMA_MSG; read list, write list, reply chunk: absent (16..27) */
        put32(call + 32, 0);       /* CALL */
        put32(call + 36, 2);       /* rpcvers */
        put32(call + 40, prog);
        put32(call + 44, vers);
        put32(call + 48, 0);       /* NULL; AUTH_NONE credential and verifier (52..67) */
        ssge[s] = (struct ibv_sge) {.addr = (uintptr_t) call, .length = call_len, .lkey = mr->lkey};
        swr[s] = (struct ibv_send_wr) {.sg_list = &ssge[s], .num_sge = 1, .opcode = IBV_WR_SEND};
        free_slots[nfree++] = (int) (depth - 1 - s);
    }

    const int timed = o->end != 0;
    uint32_t xid = (uint32_t) now_ns(), granted = 1; /* RFC 8166 §3.3: one call until the server grants more */
    long total = warmup + calls, unsignalled = 0, unacked = 0, measured = 0, issued = 0, inflight = 0;
    uint64_t sum = 0, t0 = 0, t1 = 0;
    struct ibv_wc wc[SEND_DEPTH];
    for (;;) {
        /* Issue calls while a slot is free, the grant allows, and the run is not over. */
        while (nfree > 0 && inflight < (long) granted) {
            uint64_t start = now_ns();
            if (timed ? start >= o->end : issued >= total) {
                break;
            }
            int s = free_slots[--nfree];
            uint8_t *call = bufs[receives + s];
            xid++;
            put32(call, xid);
            put32(call + 28, xid);
            slot_xid[s] = xid;
            slot_start[s] = start;
            slot_index[s] = issued++;
            swr[s].send_flags = ++unsignalled >= SIGNAL_EVERY ? IBV_SEND_SIGNALED : 0;
            if (swr[s].send_flags) {
                unsignalled = 0;
            }
            if (ibv_post_send(id->qp, &swr[s], &bad_s)) {
                die("ibv_post_send");
            }
            inflight++;
        }
        if (inflight == 0) {
            break;
        }
        int n;
        while ((n = ibv_poll_cq(rcq, (int) depth, wc)) == 0) {
            if (ibv_req_notify_cq(rcq, 0)) {
                die("ibv_req_notify_cq");
            }
            if ((n = ibv_poll_cq(rcq, (int) depth, wc)) != 0) {
                break; /* arrived while arming */
            }
            struct ibv_cq *ev_cq;
            void *ev_ctx;
            if (ibv_get_cq_event(cc, &ev_cq, &ev_ctx)) {
                die("ibv_get_cq_event");
            }
            if (++unacked == ACK_BATCH) {
                ibv_ack_cq_events(rcq, unacked);
                unacked = 0;
            }
        }
        if (n < 0) {
            fail("receive completion poll failed");
        }
        uint64_t end = now_ns();
        for (int k = 0; k < n; k++) {
            if (wc[k].status != IBV_WC_SUCCESS) {
                fprintf(stderr, "rdma_null_requester: receive completion %s\n", ibv_wc_status_str(wc[k].status));
                return 1;
            }
            const uint8_t *r = bufs[wc[k].wr_id];
            uint32_t rx = wc[k].byte_len >= 4 ? get32(r) : 0;
            int s = -1;
            for (uint32_t j = 0; j < depth; j++) {
                if (slot_xid[j] == rx && slot_start[j] != 0) {
                    s = (int) j;
                    break;
                }
            }
            /* Transport header: a call's xid, version 1, credits granted (at least one), RDMA_MSG, three absent
             * lists. */
            if (s < 0 || wc[k].byte_len < 52 || get32(r + 4) != 1 || get32(r + 8) == 0 || get32(r + 12) != 0
                || get32(r + 16) || get32(r + 20) || get32(r + 24)
                /* RPC: xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier of length 0, SUCCESS. */
                || get32(r + 28) != rx || get32(r + 32) != 1 || get32(r + 36) != 0 || get32(r + 44) != 0
                || get32(r + 48) != 0) {
                fprintf(stderr, "rdma_null_requester: unexpected reply (%u bytes) after %ld calls\n", wc[k].byte_len,
                        issued);
                return 1;
            }
            granted = get32(r + 8);
            uint64_t start = slot_start[s], rtt = end - start;
            long i = slot_index[s];
            slot_start[s] = 0;
            free_slots[nfree++] = s;
            inflight--;
            if (ibv_post_recv(id->qp, &rwr[wc[k].wr_id], &bad_r)) {
                die("ibv_post_recv");
            }
            if (timed ? start >= o->warmup_end : i >= warmup) {
                if (measured == 0 || start < t0) {
                    t0 = start;
                }
                t1 = end;
                uint64_t bin = rtt / BIN_NS;
                bins[bin < BINS ? bin : BINS]++;
                sum += rtt;
                measured++;
            }
        }
        /* Reclaim send queue entries: nothing waits here. */
        if ((n = ibv_poll_cq(scq, SEND_DEPTH, wc)) < 0) {
            fail("send completion poll failed");
        }
        for (int k = 0; k < n; k++) {
            if (wc[k].status != IBV_WC_SUCCESS) {
                fprintf(stderr, "rdma_null_requester: send completion %s\n", ibv_wc_status_str(wc[k].status));
                return 1;
            }
        }
    }
    if (unacked > 0) {
        ibv_ack_cq_events(rcq, unacked);
    }
    rdma_disconnect(id);

    for (int i = 0; i <= BINS; i++) {
        if (bins[i]) {
            __sync_fetch_and_add(&sh->bins[i], bins[i]);
        }
    }
    __sync_fetch_and_add(&sh->measured, (uint64_t) measured);
    __sync_fetch_and_add(&sh->sum, sum);
    if (measured > 0) {
        uint64_t seen;
        while ((seen = sh->t0) == 0 || t0 < seen) {
            if (__sync_bool_compare_and_swap(&sh->t0, seen, t0)) {
                break;
            }
        }
        while ((seen = sh->t1) < t1) {
            if (__sync_bool_compare_and_swap(&sh->t1, seen, t1)) {
                break;
            }
        }
    }
    rdma_destroy_qp(id);
    ibv_dereg_mr(mr);
    ibv_destroy_cq(scq);
    ibv_destroy_cq(rcq);
    ibv_destroy_comp_channel(cc);
    ibv_dealloc_pd(pd);
    rdma_destroy_id(id);
    rdma_destroy_event_channel(ec);
    return 0;
}

int main(int argc, char **argv) {
    struct options o = {.port = "20049", .warmup = 30000, .calls = 10000, .prog = 0x2004F001, .vers = 1,
                        .credits = 32, .depth = 1};
    long connections = 1;
    double warmup_s = 2, seconds = 0;
    int opt;
    while ((opt = getopt(argc, argv, "a:p:w:n:P:V:c:q:C:W:s:")) != -1) {
        switch (opt) {
        case 'a': o.address = optarg; break;
        case 'p': o.port = optarg; break;
        case 'w': o.warmup = atol(optarg); break;
        case 'n': o.calls = atol(optarg); break;
        case 'P': o.prog = (uint32_t) strtoul(optarg, NULL, 0); break;
        case 'V': o.vers = (uint32_t) strtoul(optarg, NULL, 0); break;
        case 'c': o.credits = (uint32_t) strtoul(optarg, NULL, 0); break;
        case 'q': o.depth = (uint32_t) strtoul(optarg, NULL, 0); break;
        case 'C': connections = atol(optarg); break;
        case 'W': warmup_s = atof(optarg); break;
        case 's': seconds = atof(optarg); break;
        default:
            fprintf(stderr, "usage: rdma_null_requester -a ADDRESS [-p PORT] [-w WARMUP_CALLS] [-n CALLS] [-P PROG]"
                    " [-V VERS] [-c CREDITS] [-q DEPTH] [-C CONNECTIONS] [-W WARMUP_S -s SECONDS]\n");
            return 2;
        }
    }
    if (o.address == NULL || o.calls <= 0 || o.warmup < 0 || o.credits == 0 || o.depth < 1 || o.depth > MAX_DEPTH
        || connections < 1 || connections > 256 || seconds < 0 || warmup_s < 0) {
        fail("-a ADDRESS is required, -n must be positive, -c at least 1, -q in [1, 32], -C in [1, 256]");
    }
    struct shared *sh = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        die("mmap");
    }
    if (seconds > 0) {
        o.warmup_end = now_ns() + (uint64_t) (warmup_s * 1e9);
        o.end = o.warmup_end + (uint64_t) (seconds * 1e9);
    }
    int rc = 0;
    if (connections == 1) {
        rc = connection(&o, sh);
    } else {
        for (long i = 0; i < connections; i++) {
            pid_t pid = fork();
            if (pid < 0) {
                die("fork");
            }
            if (pid == 0) {
                _exit(connection(&o, sh));
            }
        }
        int status;
        while (wait(&status) > 0) {
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                rc = 1;
            }
        }
    }
    if (rc || sh->measured == 0) {
        fprintf(stderr, "rdma_null_requester: a connection failed (or no call was measured)\n");
        return 1;
    }
    double q[3] = {0.50, 0.90, 0.99}, v[3] = {0, 0, 0};
    uint64_t seen = 0, measured = sh->measured;
    int k = 0;
    for (uint64_t b = 0; b <= BINS && k < 3; b++) {
        seen += sh->bins[b];
        while (k < 3 && seen >= (uint64_t) (q[k] * (double) measured + 0.5) && seen > 0) {
            v[k++] = (b + 0.5) * BIN_NS / 1000.0;
        }
    }
    double window_s = seconds > 0 ? seconds : (double) (sh->t1 - sh->t0) / 1e9;
    printf("calls %llu p50_us %.1f p90_us %.1f p99_us %.1f mean_us %.1f clock_reads_per_call 2 window_ns %llu %llu"
           " connections %ld depth %u calls_per_s %.0f\n",
           (unsigned long long) measured, v[0], v[1], v[2], (double) sh->sum / (double) measured / 1000.0,
           (unsigned long long) sh->t0, (unsigned long long) sh->t1, connections, o.depth,
           window_s > 0 ? (double) measured / window_s : 0.0);
    return 0;
}
