package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * An RDMA fabric: the entry point of the SPI, comparable to "librdmacm + libibverbs on this host".
 * Devices are reached through connection-manager ids ({@link CmId#device()}), as with {@code rdma_cm}.
 */
public interface Fabric {

    /** A short name: {@code "software"} or {@code "native"}. */
    String name();

    /** Whether the fabric can be used on this host (the native one needs libraries and a device). */
    default boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /**
     * Why the fabric cannot be used on this host (with what to install or load), or null when it can; the
     * answer does not change during the life of the JVM.
     */
    default Throwable unavailabilityCause() {
        return null;
    }

    /**
     * The errno of {@code failure} if it is a failed verbs or RDMA-CM call of this fabric (a
     * {@link FabricException} unless the fabric has its own type), else 0. Looks at {@code failure} only, not
     * at its causes.
     */
    default int errno(Throwable failure) {
        return failure instanceof FabricException ? ((FabricException) failure).errno() : 0;
    }

    /**
     * The name of the C function (e.g. {@code "rdma_resolve_addr"}) whose failure {@code failure} reports, if it
     * is a failed native library call of this fabric; else null (always null for a fabric without native calls).
     */
    default String failedCall(Throwable failure) {
        return null;
    }

    /**
     * An event loop ({@code RdmaIoHandler}) starts using this fabric: a fabric with threads of its own keeps them
     * until the last loop {@linkplain #loopStopped() stopped}. Any thread.
     */
    default void loopStarted() {
    }

    /**
     * A loop that {@linkplain #loopStarted() started} stopped using this fabric; after the last, the fabric's own
     * threads end (once they finished their work). Any thread.
     */
    default void loopStopped() {
    }

    /** Creates a connection-manager event channel ({@code rdma_create_event_channel}). */
    CmEventChannel createEventChannel() throws IOException;
}
