package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/** A verbs or RDMA-CM call failed; {@link #errno()} is the errno value (0 when not applicable). */
public class FabricException extends IOException {
    private static final long serialVersionUID = 1L;

    /** errno values used by the software fabric, as on Linux. */
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EBUSY = 16;
    public static final int EINVAL = 22;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ECONNRESET = 104;
    public static final int ECONNREFUSED = 111;

    private final int errno;

    public FabricException(String message, int errno) {
        super(message + (errno != 0 ? " (errno " + errno + ")" : ""));
        this.errno = errno;
    }

    /** The errno value. */
    public int errno() {
        return errno;
    }
}
