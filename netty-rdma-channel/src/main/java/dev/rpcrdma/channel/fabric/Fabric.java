package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * An RDMA fabric: the entry point of the SPI, comparable to "librdmacm + libibverbs on this host".
 * Devices are reached through connection-manager ids ({@link CmId#device()}), as with {@code rdma_cm}.
 */
public interface Fabric {

    /** A short name: {@code "software"} or {@code "native"}. */
    String name();

    /** Creates a connection-manager event channel ({@code rdma_create_event_channel}). */
    CmEventChannel createEventChannel() throws IOException;
}
