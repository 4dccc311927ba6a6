package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.Fabric;

/**
 * Tells whether real RDMA (libibverbs + librdmacm + a usable RDMA device) is available on this host, in the style
 * of Netty's {@code Epoll}: {@link #isAvailable()}, {@link #ensureAvailability()} and
 * {@link #unavailabilityCause()} explaining what is missing and how to fix it; {@link #unavailabilityMessage()} is
 * the one-line message every refusal of the native fabric uses. Checked once, by the native fabric, when this class
 * initializes.
 */
public final class Rdma {
    private static final Throwable UNAVAILABILITY_CAUSE = nativeUnavailabilityCause();

    private Rdma() {
    }

    /** True if the native libraries load and an RDMA device can be opened through libibverbs and librdmacm. */
    public static boolean isAvailable() {
        return UNAVAILABILITY_CAUSE == null;
    }

    /**
     * Throws {@link UnsatisfiedLinkError} with {@link #unavailabilityMessage()} and {@link #unavailabilityCause()}
     * as its cause if RDMA is unusable.
     */
    public static void ensureAvailability() {
        if (UNAVAILABILITY_CAUSE != null) {
            throw (Error) new UnsatisfiedLinkError(unavailabilityMessage()).initCause(UNAVAILABILITY_CAUSE);
        }
    }

    /**
     * Why RDMA is unusable here and what to do, as one line ({@code "RDMA is not available: <cause>: <remedy>"},
     * for example {@code "RDMA is not available: no RDMA device (/sys/class/infiniband does not exist): for
     * Soft-RoCE load rdma_rxe and run `rdma link add rxe0 type rxe netdev <if>` ..."}), or null if it is available.
     */
    public static String unavailabilityMessage() {
        return UNAVAILABILITY_CAUSE == null ? null : "RDMA is not available: " + firstLine(UNAVAILABILITY_CAUSE);
    }

    private static String firstLine(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            return t.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return (nl < 0 ? m : m.substring(0, nl)).strip();
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
