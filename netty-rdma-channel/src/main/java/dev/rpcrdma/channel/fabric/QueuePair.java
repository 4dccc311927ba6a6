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

    /**
     * {@code ibv_post_send} of the chain {@code wrs[0..count)} in that order: one call, so one doorbell on a device
     * (one system call on rxe). If request {@code k} is rejected, requests {@code 0..k-1} are posted and the rest are
     * not: {@link PostSendException#posted()} is {@code k}. At most {@link #MAX_POST_CHAIN} requests. The default
     * posts them one by one.
     */
    default void postSend(SendWorkRequest[] wrs, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            try {
                postSend(wrs[i]);
            } catch (IOException e) {
                throw new PostSendException(i, e);
            }
        }
    }

    /** Most requests {@link #postSend(SendWorkRequest[], int)} takes in one chain. */
    int MAX_POST_CHAIN = 16;

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
