package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.Fabric;

/**
 * Tells whether real RDMA (libibverbs + librdmacm + a usable RDMA device) is available on this host, in the style
 * of Netty's {@code Epoll}: {@link #isAvailable()}, {@link #ensureAvailability()} and
 * {@link #unavailabilityCause()} explaining what is missing and how to fix it. Checked once, by the native fabric,
 * when this class initializes.
 */
public final class Rdma {
    private static final Throwable UNAVAILABILITY_CAUSE = nativeUnavailabilityCause();

    private Rdma() {
    }

    /** True if the native libraries load and an RDMA device can be opened through libibverbs and librdmacm. */
    public static boolean isAvailable() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /** Throws {@link UnsatisfiedLinkError} with {@link #unavailabilityCause()} as its cause if RDMA is unusable. */
    public static void ensureAvailability() {
        if (UNAVAILABILITY_CAUSE != null) {
            throw (Error) new UnsatisfiedLinkError("RDMA is not available: " + UNAVAILABILITY_CAUSE.getMessage())
                    .initCause(UNAVAILABILITY_CAUSE);
        }
    }

    /** Why RDMA is unusable (with what to install or load), or null if it is available. */
    public static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }

    /** The native fabric's own verdict, asked through the fabric SPI. */
    private static Throwable nativeUnavailabilityCause() {
        try {
            Fabric f = RdmaFabric.installedNative();
            return f != null ? f.unavailabilityCause() : new UnsupportedOperationException("no native RDMA fabric"
                    + " on the class path (a dev.rpcrdma.channel.fabric.Fabric service named \"native\")");
        } catch (Throwable t) {
            return t;
        }
    }
}
