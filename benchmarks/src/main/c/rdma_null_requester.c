/*
 * An independent RPC-over-RDMA Version 1 requester (RFC 8166) in C over librdmacm and libibverbs, for
 * tools/vm/run-benchmarks: one connection, one NULL call in flight (closed loop), event-driven like ib_send_lat -e
 * (it sleeps in ibv_get_cq_event on its receive queue's completion channel), against any RPC-over-RDMA server
 * (the echo sample's server in the benchmarks). Prints the round-trip percentiles of the measured calls.
 *
 *   gcc -O2 -Wall -o rdma_null_requester rdma_null_requester.c -lrdmacm -libverbs
 *   rdma_null_requester -a ADDRESS [-p PORT] [-w WARMUP_CALLS] [-n CALLS] [-P PROG] [-V VERS] [-c CREDITS]
 *
 * Output (one line): calls N p50_us X p90_us X p99_us X mean_us X clock_reads_per_call 2 window_ns T0 T1
 * (T0, T1: CLOCK_MONOTONIC at the first measured call's start and the last one's end, for cutting a profile
 * recorded on that clock, perf record -k CLOCK_MONOTONIC, to the measured calls)
 *
 * What it does per call, and nothing more: one ibv_post_send (the 68-byte RDMA_MSG call: a 28-byte transport header
 * with empty chunk lists, RFC 8166 §4.1, then the RPC CALL with AUTH_NONE, RFC 5531), unsignalled except one in
 * SIGNAL_EVERY (its send queue's completions go to a queue without a completion channel, drained without waiting);
 * one ibv_req_notify_cq and one ibv_get_cq_event when the reply is not there yet (the event acknowledged in batches);
 * ibv_poll_cq; checks of the reply (transport header: xid, version 1, RDMA_MSG, empty lists; RPC: xid, REPLY,
 * MSG_ACCEPTED, SUCCESS); one ibv_post_recv to put the receive back; two clock reads (the call's stamps).
 * It sends RFC 8797 private data (1 KiB inline both ways) and asks for CREDITS credits; with one call in flight any
 * grant of at least one suffices (RFC 8166 §3.3).
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
#include <time.h>
#include <unistd.h>

#define RECEIVES 8
#define BUF_SIZE 1024
#define SEND_DEPTH 64
#define SIGNAL_EVERY 16
#define ACK_BATCH 32
#define BIN_NS 100
#define BINS (100 * 1000 * 1000 / BIN_NS)

static uint32_t bins[BINS + 1];

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

int main(int argc, char **argv) {
    const char *address = NULL, *port = "20049";
    long warmup = 30000, calls = 10000;
    uint32_t prog = 0x2004F001, vers = 1, credits = 32;
    int opt;
    while ((opt = getopt(argc, argv, "a:p:w:n:P:V:c:")) != -1) {
        switch (opt) {
        case 'a': address = optarg; break;
        case 'p': port = optarg; break;
        case 'w': warmup = atol(optarg); break;
        case 'n': calls = atol(optarg); break;
        case 'P': prog = (uint32_t) strtoul(optarg, NULL, 0); break;
        case 'V': vers = (uint32_t) strtoul(optarg, NULL, 0); break;
        case 'c': credits = (uint32_t) strtoul(optarg, NULL, 0); break;
        default:
            fprintf(stderr, "usage: rdma_null_requester -a ADDRESS [-p PORT] [-w WARMUP_CALLS] [-n CALLS] [-P PROG]"
                    " [-V VERS] [-c CREDITS]\n");
            return 2;
        }
    }
    if (address == NULL || calls <= 0 || warmup < 0 || credits == 0) {
        fail("-a ADDRESS is required, -n must be positive, -c at least 1");
    }

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
    struct ibv_cq *rcq = cc ? ibv_create_cq(id->verbs, RECEIVES, NULL, cc, 0) : NULL;
    struct ibv_cq *scq = ibv_create_cq(id->verbs, SEND_DEPTH, NULL, NULL, 0);
    if (pd == NULL || rcq == NULL || scq == NULL) {
        die("PD, completion channel or CQs");
    }
    static uint8_t bufs[RECEIVES + 1][BUF_SIZE] __attribute__((aligned(64)));
    struct ibv_mr *mr = ibv_reg_mr(pd, bufs, sizeof bufs, IBV_ACCESS_LOCAL_WRITE);
    if (mr == NULL) {
        die("ibv_reg_mr");
    }
    struct ibv_qp_init_attr qa = {
        .send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
        .cap = {.max_send_wr = SEND_DEPTH, .max_recv_wr = RECEIVES, .max_send_sge = 1, .max_recv_sge = 1},
    };
    if (rdma_create_qp(id, pd, &qa)) {
        die("rdma_create_qp");
    }
    struct ibv_recv_wr rwr[RECEIVES], *bad_r;
    struct ibv_sge rsge[RECEIVES];
    for (int i = 0; i < RECEIVES; i++) {
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

    /* The call: RPC-over-RDMA header (RFC 8166 §4.1) then RPC CALL (RFC 5531 §9), 17 XDR words. */
    uint8_t *call = bufs[RECEIVES];
    const int call_len = 68;
    memset(call, 0, call_len);
    put32(call + 4, 1);        /* rdma_vers */
    put32(call + 8, credits);  /* rdma_credit: requested */
    put32(call + 12, 0);       /* RDMA_MSG; read list, write list, reply chunk: absent (16..27) */
    put32(call + 32, 0);       /* CALL */
    put32(call + 36, 2);       /* rpcvers */
    put32(call + 40, prog);
    put32(call + 44, vers);
    put32(call + 48, 0);       /* NULL; AUTH_NONE credential and verifier (52..67) */
    struct ibv_sge ssge = {.addr = (uintptr_t) call, .length = call_len, .lkey = mr->lkey};
    struct ibv_send_wr swr = {.sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND}, *bad_s;

    uint32_t xid = (uint32_t) now_ns();
    long total = warmup + calls, unsignalled = 0, unacked = 0, measured = 0;
    uint64_t sum = 0, t0 = 0, t1 = 0;
    struct ibv_wc wc[SEND_DEPTH];
    for (long i = 0; i < total; i++) {
        xid++;
        put32(call, xid);
        put32(call + 28, xid);
        uint64_t start = now_ns();
        swr.send_flags = ++unsignalled >= SIGNAL_EVERY ? IBV_SEND_SIGNALED : 0;
        if (swr.send_flags) {
            unsignalled = 0;
        }
        if (ibv_post_send(id->qp, &swr, &bad_s)) {
            die("ibv_post_send");
        }
        int n;
        while ((n = ibv_poll_cq(rcq, 1, wc)) == 0) {
            if (ibv_req_notify_cq(rcq, 0)) {
                die("ibv_req_notify_cq");
            }
            if ((n = ibv_poll_cq(rcq, 1, wc)) != 0) {
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
        if (n < 0 || wc[0].status != IBV_WC_SUCCESS) {
            fprintf(stderr, "rdma_null_requester: receive completion %s\n",
                    n < 0 ? "poll failed" : ibv_wc_status_str(wc[0].status));
            return 1;
        }
        uint64_t end = now_ns(), rtt = end - start;
        const uint8_t *r = bufs[wc[0].wr_id];
        /* Transport header: xid, version 1, credits granted (at least one), RDMA_MSG, three absent lists. */
        if (wc[0].byte_len < 52 || get32(r) != xid || get32(r + 4) != 1 || get32(r + 8) == 0 || get32(r + 12) != 0
            || get32(r + 16) || get32(r + 20) || get32(r + 24)
            /* RPC: xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier of length 0, SUCCESS. */
            || get32(r + 28) != xid || get32(r + 32) != 1 || get32(r + 36) != 0 || get32(r + 44) != 0
            || get32(r + 48) != 0) {
            fprintf(stderr, "rdma_null_requester: unexpected reply (%u bytes) to call %ld\n", wc[0].byte_len, i);
            return 1;
        }
        if (ibv_post_recv(id->qp, &rwr[wc[0].wr_id], &bad_r)) {
            die("ibv_post_recv");
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
        if (i >= warmup) {
            if (i == warmup) {
                t0 = start;
            }
            t1 = end;
            uint64_t bin = rtt / BIN_NS;
            bins[bin < BINS ? bin : BINS]++;
            sum += rtt;
            measured++;
        }
    }
    if (unacked > 0) {
        ibv_ack_cq_events(rcq, unacked);
    }
    rdma_disconnect(id);

    double q[3] = {0.50, 0.90, 0.99}, v[3] = {0, 0, 0};
    uint64_t seen = 0;
    int k = 0;
    for (uint64_t b = 0; b <= BINS && k < 3; b++) {
        seen += bins[b];
        while (k < 3 && seen >= (uint64_t) (q[k] * (double) measured + 0.5) && seen > 0) {
            v[k++] = (b + 0.5) * BIN_NS / 1000.0;
        }
    }
    printf("calls %ld p50_us %.1f p90_us %.1f p99_us %.1f mean_us %.1f clock_reads_per_call 2 window_ns %llu %llu\n",
           measured, v[0], v[1], v[2], (double) sum / (double) measured / 1000.0, (unsigned long long) t0,
           (unsigned long long) t1);
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
