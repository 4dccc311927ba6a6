package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * A connection-manager event channel ({@code rdma_event_channel}). Its {@link #fd()} is non-blocking and readable
 * while events are pending.
 */
public interface CmEventChannel extends AutoCloseable {

    int fd();

    /** {@code rdma_create_id(channel, context, RDMA_PS_TCP)}. */
    CmId createId(Object context) throws IOException;

    /**
     * {@code rdma_get_cm_event} without blocking, copied into a {@link CmEvent} and acknowledged
     * ({@code rdma_ack_cm_event}); {@code null} when nothing is pending.
     */
    CmEvent poll() throws IOException;

    /** {@code rdma_destroy_event_channel}; ids must have been destroyed or migrated. */
    @Override
    void close() throws IOException;
}
