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
        return true;
    }

    /** Creates a connection-manager event channel ({@code rdma_create_event_channel}). */
    CmEventChannel createEventChannel() throws IOException;
}
