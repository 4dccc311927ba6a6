package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * A reliable-connected queue pair ({@code ibv_qp}, created by {@code rdma_create_qp}). Work requests complete
 * in posting order on each queue; an error moves the pair to {@link QpState#ERR}, after which every outstanding
 * and later-posted work request completes with {@link WcStatus#WR_FLUSH_ERR}.
 */
public interface QueuePair extends AutoCloseable {

    /** The queue pair number. */
    int qpNum();

    /** Capabilities granted at creation. */
    QpCapabilities capabilities();

    /** {@code ibv_post_send} of one work request (the request object may be reused after return). */
    void postSend(SendWorkRequest wr) throws IOException;

    /** {@code ibv_post_recv} of one single-SGE receive work request. */
    void postReceive(long wrId, long address, int length, int lkey) throws IOException;

    /** {@code ibv_modify_qp(IBV_QPS_ERR)}: flush everything outstanding. */
    void modifyToError() throws IOException;

    /** The current {@link QpState}. */
    int state();

    /** {@code rdma_destroy_qp}. */
    @Override
    void close() throws IOException;
}
