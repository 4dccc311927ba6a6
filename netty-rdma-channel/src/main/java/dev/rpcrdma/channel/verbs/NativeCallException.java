package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.unix.Libc;
import java.io.IOException;

/**
 * A failed libibverbs / librdmacm call: names the C function and carries the errno with its {@code strerror} text,
 * e.g. {@code "rdma_resolve_addr failed: No such device (errno 19)"}.
 */
public final class NativeCallException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    NativeCallException(String call, int errno) {
        this(call, errno, null);
    }

    NativeCallException(String call, int errno, String detail) {
        super(call + " failed: " + Libc.strerror(errno) + " (errno " + errno + ")"
                + (detail == null ? "" : ": " + detail));
        this.call = call;
        this.errno = errno;
    }

    /** The C function that failed, e.g. {@code "ibv_reg_mr"}. */
    public String call() {
        return call;
    }

    /** The errno value the call reported (positive). */
    public int errno() {
        return errno;
    }
}
