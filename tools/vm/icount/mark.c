/*
 * icount-mark: sets a mark for the icount plugin (tools/vm/icount/icount.c) from inside the guest.
 *
 *   icount-mark ID [print|start|stop]      (ID 0..1023; default print)
 *
 * It jumps to entry 4 * ID + OP of a table linked at a fixed address (MARK_BASE, kept in step with icount.c); the
 * entry is a block of its own that exits the process. The plugin sees that block execute and logs every vCPU's
 * totals with ID (print), and starts (start) or stops and dumps (stop) the per-address profile. Nothing else.
 * Static, no libc:
 *
 *   gcc -O2 -static -nostdlib -fno-pie -no-pie -mcmodel=large -fno-stack-protector -Wl,--section-start=.icount_mark=0x5a5a00000000 -o icount-mark mark.c
 */
#define ENTRIES 4096

/* The table: ENTRIES 16-byte entries, each exit(0) (mov $60,%eax; xor %edi,%edi; syscall: 9 bytes). */
__asm__(".section .icount_mark,\"ax\",@progbits\n"
        ".balign 16\n"
        ".globl icount_mark_table\n"
        "icount_mark_table:\n"
        ".rept 4096\n"
        ".balign 16\n"
        "mov $60, %eax\n"
        "xor %edi, %edi\n"
        "syscall\n"
        ".endr\n"
        ".text\n");

extern char icount_mark_table[];

static long sys_write(int fd, const char *s, long n) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(1L), "D"((long) fd), "S"(s), "d"(n) : "rcx", "r11", "memory");
    return r;
}

static __attribute__((noreturn)) void sys_exit(int code) {
    __asm__ volatile("syscall" : : "a"(60L), "D"((long) code) : "rcx", "r11", "memory");
    __builtin_unreachable();
}

static int same(const char *a, const char *b) {
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

static __attribute__((noreturn)) void usage(void) {
    static const char msg[] = "usage: icount-mark ID [print|start|stop]   (ID 0..1023)\n";
    sys_write(2, msg, sizeof msg - 1);
    sys_exit(2);
}

__attribute__((used, noreturn)) void mark_main(long *sp) {
    long argc = sp[0];
    char **argv = (char **) (sp + 1);
    if (argc < 2 || argc > 3) {
        usage();
    }
    unsigned long id = 0;
    const char *p = argv[1];
    if (*p == 0) {
        usage();
    }
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || id > ENTRIES) {
            usage();
        }
        id = id * 10 + (unsigned long) (*p - '0');
    }
    unsigned long op = 0;
    if (argc == 3) {
        if (same(argv[2], "print")) {
            op = 0;
        } else if (same(argv[2], "start")) {
            op = 1;
        } else if (same(argv[2], "stop")) {
            op = 2;
        } else {
            usage();
        }
    }
    if (id >= ENTRIES / 4) {
        usage();
    }
    void (*entry)(void) = (void (*)(void)) (icount_mark_table + 16 * (4 * id + op));
    entry();
    __builtin_unreachable();
}

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "mov %rsp, %rdi\n"
        "and $-16, %rsp\n"
        "call mark_main\n"
        "hlt\n");
