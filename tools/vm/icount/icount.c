/*
 * icount: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that counts the guest instructions each vCPU executes,
 * user space and kernel apart, and reports them at marks the guest sets (tools/vm/icount/mark.c; tools/vm/README.md,
 * "Counting instructions").
 *
 * Every translated block gets an execution callback that adds the block's instruction count to its vCPU's user or
 * kernel total (kernel: a block starting in the canonical upper half). A block starting at MARK_BASE + 16 * (4 * id +
 * op), the entries of the mark binary, reports: one line per mark with every vCPU's totals since boot,
 *   icount mark ID OP vcpus N v0 USER KERNEL v1 USER KERNEL ...
 * op 1 also starts a profile (user-space instructions per vCPU per block start address), op 2 stops it and dumps the
 * top addresses of each vCPU (plugin argument top=N, default 3000):
 *   icount prof ID vcpu V total USER_INSNS blocks DISTINCT
 *   icount at ID V ADDRESS_HEX INSNS
 * The lines go to QEMU's log (-d plugin -D FILE). A block that exits early (a fault in its middle) is counted whole.
 *
 *   gcc -O2 -shared -fPIC -fvisibility=hidden -o icount.so icount.c
 *   qemu-system-x86_64 ... -plugin file=icount.so,top=3000 -d plugin -D icount.log
 *
 * QEMU's plugin header is not packaged by Debian: the few declarations used are below, as in QEMU 7.2's
 * include/qemu/qemu-plugin.h (API version 1).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- QEMU 7.2 plugin API (version 1), the parts used here --- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_outs(const char *string);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
/* --- end of the API --- */

/* Where tools/vm/icount/mark.c's entry table is linked (keep the two in step). */
#define MARK_BASE UINT64_C(0x5a5a00000000)
#define MARK_ENTRIES 4096
#define MAX_VCPUS 64
#define PROF_BITS 20 /* slots per vCPU profile table: 1 Mi addresses, 16 MiB */
#define PROF_SLOTS (1u << PROF_BITS)

struct block {
    uint64_t vaddr;
    uint64_t insns;
};

struct slot {
    uint64_t vaddr; /* 0: empty */
    uint64_t insns;
};

struct vcpu {
    uint64_t user, kernel;
    uint64_t prof_total, prof_lost;
    unsigned prof_gen;
    struct slot *prof;
    char pad[64];
};

static struct vcpu vcpus[MAX_VCPUS];
static int n_vcpus = 1;
static unsigned top = 3000;
static volatile unsigned prof_gen; /* bumped by each start mark */
static volatile int profiling;

static inline bool is_kernel(uint64_t vaddr) { return vaddr >= UINT64_C(0xffff800000000000); }

static void outf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void outf(const char *fmt, ...) {
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    qemu_plugin_outs(line);
}

static void profile(struct vcpu *v, uint64_t vaddr, uint64_t insns) {
    if (v->prof_gen != prof_gen) {
        if (v->prof == NULL && (v->prof = calloc(PROF_SLOTS, sizeof(struct slot))) == NULL) {
            return;
        }
        memset(v->prof, 0, PROF_SLOTS * sizeof(struct slot));
        v->prof_total = v->prof_lost = 0;
        v->prof_gen = prof_gen;
    }
    v->prof_total += insns;
    uint32_t h = (uint32_t) ((vaddr * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - PROF_BITS));
    for (unsigned probe = 0; probe < 64; probe++) {
        struct slot *s = &v->prof[(h + probe) & (PROF_SLOTS - 1)];
        if (s->vaddr == vaddr) {
            s->insns += insns;
            return;
        }
        if (s->vaddr == 0) {
            s->vaddr = vaddr;
            s->insns = insns;
            return;
        }
    }
    v->prof_lost += insns;
}

static int by_insns_desc(const void *a, const void *b) {
    const struct slot *x = a, *y = b;
    return x->insns < y->insns ? 1 : x->insns > y->insns ? -1 : 0;
}

static void report(unsigned id, unsigned op) {
    char line[64 + MAX_VCPUS * 48];
    int n = snprintf(line, sizeof line, "icount mark %u %u vcpus %d", id, op, n_vcpus);
    for (int i = 0; i < n_vcpus && n < (int) sizeof line - 48; i++) {
        n += snprintf(line + n, sizeof line - n, " v%d %" PRIu64 " %" PRIu64, i, vcpus[i].user, vcpus[i].kernel);
    }
    snprintf(line + n, sizeof line - n, "\n");
    qemu_plugin_outs(line);
}

static void dump(unsigned id) {
    for (int i = 0; i < n_vcpus; i++) {
        struct vcpu *v = &vcpus[i];
        if (v->prof == NULL || v->prof_gen != prof_gen) {
            outf("icount prof %u vcpu %d total 0 blocks 0 lost 0\n", id, i);
            continue;
        }
        /* The other vCPUs may still be adding (the table never moves): a copy, then sort. */
        size_t used = 0;
        struct slot *copy = malloc(PROF_SLOTS * sizeof(struct slot));
        if (copy == NULL) {
            continue;
        }
        for (uint32_t k = 0; k < PROF_SLOTS; k++) {
            if (v->prof[k].vaddr != 0 && v->prof[k].insns != 0) {
                copy[used++] = v->prof[k];
            }
        }
        qsort(copy, used, sizeof *copy, by_insns_desc);
        outf("icount prof %u vcpu %d total %" PRIu64 " blocks %zu lost %" PRIu64 "\n", id, i, v->prof_total, used,
             v->prof_lost);
        char buf[16384];
        size_t len = 0;
        for (size_t k = 0; k < used && k < top; k++) {
            len += (size_t) snprintf(buf + len, sizeof buf - len, "icount at %u %d %" PRIx64 " %" PRIu64 "\n", id, i,
                                     copy[k].vaddr, copy[k].insns);
            if (len > sizeof buf - 128) {
                qemu_plugin_outs(buf);
                len = 0;
            }
        }
        if (len > 0) {
            qemu_plugin_outs(buf);
        }
        free(copy);
    }
}

static void mark(unsigned id, unsigned op) {
    if (op == 2) {
        profiling = 0;
    }
    report(id, op);
    if (op == 1) {
        prof_gen++;
        profiling = 1;
    } else if (op == 2) {
        dump(id);
    }
}

static void on_exec(unsigned int vcpu_index, void *userdata) {
    const struct block *b = userdata;
    struct vcpu *v = &vcpus[vcpu_index < MAX_VCPUS ? vcpu_index : MAX_VCPUS - 1];
    if (is_kernel(b->vaddr)) {
        v->kernel += b->insns;
        return;
    }
    v->user += b->insns;
    if (b->vaddr - MARK_BASE < MARK_ENTRIES * 16u && (b->vaddr & 15) == 0) {
        unsigned e = (unsigned) ((b->vaddr - MARK_BASE) >> 4);
        mark(e >> 2, e & 3);
    } else if (profiling) {
        profile(v, b->vaddr, b->insns);
    }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void) id;
    /* One record per translation, never freed: QEMU gives no hook for a block's retirement. */
    struct block *b = malloc(sizeof *b);
    if (b == NULL) {
        return;
    }
    b->vaddr = qemu_plugin_tb_vaddr(tb);
    b->insns = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void at_exit_report(qemu_plugin_id_t id, void *userdata) {
    (void) id;
    (void) userdata;
    report(0, 3);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    if (info->system_emulation) {
        n_vcpus = info->system.max_vcpus < MAX_VCPUS ? info->system.max_vcpus : MAX_VCPUS;
    }
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "top=", 4) == 0) {
            top = (unsigned) strtoul(argv[i] + 4, NULL, 10);
        } else {
            fprintf(stderr, "icount: unknown argument %s (top=N)\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, at_exit_report, NULL);
    return 0;
}
