package dev.rpcrdma.channel.verbs;

import jnr.ffi.annotations.IgnoreError;

/** Internal (public only for jnr-ffi). The few libc functions the bindings need: error texts and non-blocking / readiness on event channel fds. */
public interface LibC {
    String SONAME = "libc.so.6";

    @IgnoreError
    String strerror(int errnum);

    int fcntl(int fd, int cmd, int arg);

    // fds: struct pollfd[] as int pairs {fd, events | revents << 16} (x86_64 little endian)
    int poll(int[] fds, long nfds, int timeoutMs);
}
