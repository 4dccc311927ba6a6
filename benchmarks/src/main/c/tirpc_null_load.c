/*
 * An independent ONC RPC load client over libtirpc (clnt_call), for benchmarks/run-tcp-peers: N processes, each
 * with its own TCP connection, each making one NULL call at a time (closed loop) for a fixed time after a warm-up;
 * prints the calls/s of all processes together and the round-trip percentiles of all their calls.
 *
 *   gcc -O2 -I/usr/include/tirpc -o tirpc_null_load tirpc_null_load.c -ltirpc
 *   tirpc_null_load -p PORT [-h 127.0.0.1] [-c CLIENTS] [-w WARMUP_S] [-s SECONDS] [-P PROG] [-V VERS]
 *
 * Output (one line): clients N calls N seconds S calls_per_s X p50_us Y p90_us Y p99_us Y mean_us Y all_calls N
 * (calls and the figures after the warm-up; all_calls with the warm-up's).
 * Round trips go to a histogram of 100 ns bins (up to 100 ms) in memory shared by the processes.
 */
#include <rpc/rpc.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BIN_NS 100
#define BINS (100 * 1000 * 1000 / BIN_NS)

struct shared {
    volatile int ready;
    volatile int failed;
    uint64_t calls;
    /** Calls including the warm-up's: what the server answered while the clients ran. */
    uint64_t all_calls;
    uint64_t total_ns;
    uint32_t bins[BINS + 1];
};

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static int client(struct shared *sh, const char *host, int port, unsigned long prog, unsigned long vers,
                  uint64_t warmup_end, uint64_t end) {
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t) port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        fprintf(stderr, "tirpc_null_load: bad address %s\n", host);
        return 1;
    }
    int sock = RPC_ANYSOCK;
    CLIENT *cl = clnttcp_create(&addr, prog, vers, &sock, 0, 0);
    if (cl == NULL) {
        clnt_pcreateerror("tirpc_null_load: clnttcp_create");
        return 1;
    }
    struct timeval timeout = {30, 0};
    uint64_t calls = 0, all = 0, total = 0;
    uint32_t *bins = calloc(BINS + 1, sizeof(uint32_t));
    __sync_fetch_and_add(&sh->ready, 1);
    for (;;) {
        uint64_t t0 = now_ns();
        if (t0 >= end) {
            break;
        }
        enum clnt_stat st = clnt_call(cl, NULLPROC, (xdrproc_t) xdr_void, NULL, (xdrproc_t) xdr_void, NULL,
                                      timeout);
        if (st != RPC_SUCCESS) {
            clnt_perror(cl, "tirpc_null_load: clnt_call");
            sh->failed = 1;
            return 1;
        }
        uint64_t t1 = now_ns();
        all++;
        if (t0 >= warmup_end) {
            uint64_t d = t1 - t0;
            uint64_t b = d / BIN_NS;
            bins[b > BINS ? BINS : b]++;
            calls++;
            total += d;
        }
    }
    clnt_destroy(cl);
    for (int i = 0; i <= BINS; i++) {
        if (bins[i]) {
            __sync_fetch_and_add(&sh->bins[i], bins[i]);
        }
    }
    __sync_fetch_and_add(&sh->calls, calls);
    __sync_fetch_and_add(&sh->all_calls, all);
    __sync_fetch_and_add(&sh->total_ns, total);
    return 0;
}

static double quantile_us(const struct shared *sh, double q) {
    uint64_t rank = (uint64_t) (q * (double) sh->calls + 0.5);
    uint64_t seen = 0;
    if (rank < 1) {
        rank = 1;
    }
    for (int i = 0; i <= BINS; i++) {
        seen += sh->bins[i];
        if (seen >= rank) {
            return (i + 0.5) * BIN_NS / 1000.0;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1";
    int port = 0, clients = 8, opt;
    double warmup = 2, seconds = 5;
    unsigned long prog = 0x2004F001, vers = 1;
    while ((opt = getopt(argc, argv, "h:p:c:w:s:P:V:")) != -1) {
        switch (opt) {
            case 'h': host = optarg; break;
            case 'p': port = atoi(optarg); break;
            case 'c': clients = atoi(optarg); break;
            case 'w': warmup = atof(optarg); break;
            case 's': seconds = atof(optarg); break;
            case 'P': prog = strtoul(optarg, NULL, 0); break;
            case 'V': vers = strtoul(optarg, NULL, 0); break;
            default:
                fprintf(stderr, "usage: %s -p PORT [-h HOST] [-c CLIENTS] [-w WARMUP_S] [-s SECONDS] [-P PROG]"
                                " [-V VERS]\n", argv[0]);
                return 2;
        }
    }
    if (port <= 0 || clients <= 0 || seconds <= 0) {
        fprintf(stderr, "tirpc_null_load: -p PORT is required; -c and -s must be positive\n");
        return 2;
    }
    struct shared *sh = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    uint64_t start = now_ns();
    uint64_t warmup_end = start + (uint64_t) (warmup * 1e9);
    uint64_t end = warmup_end + (uint64_t) (seconds * 1e9);
    for (int i = 0; i < clients; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            _exit(client(sh, host, port, prog, vers, warmup_end, end));
        }
    }
    int rc = 0, status;
    while (wait(&status) > 0) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            rc = 1;
        }
    }
    if (rc || sh->failed || sh->calls == 0) {
        fprintf(stderr, "tirpc_null_load: a client failed (or no call was measured)\n");
        return 1;
    }
    printf("clients %d calls %llu seconds %.2f calls_per_s %.0f p50_us %.1f p90_us %.1f p99_us %.1f mean_us %.1f"
           " all_calls %llu\n",
           clients, (unsigned long long) sh->calls, seconds, sh->calls / seconds, quantile_us(sh, 0.5),
           quantile_us(sh, 0.9), quantile_us(sh, 0.99), sh->total_ns / 1000.0 / sh->calls,
           (unsigned long long) sh->all_calls);
    return 0;
}
