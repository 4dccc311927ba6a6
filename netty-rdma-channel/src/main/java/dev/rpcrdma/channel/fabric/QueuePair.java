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
     * (one system call for a kernel software provider). If request {@code k} is rejected, requests {@code 0..k-1}
     * are posted and the rest are not: {@link PostException#posted()} is {@code k}. At most
     * {@link #MAX_POST_CHAIN} requests. The default posts them one by one.
     */
    default void postSend(SendWorkRequest[] wrs, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            try {
                postSend(wrs[i]);
            } catch (IOException e) {
                throw new PostException("ibv_post_send", i, e);
            }
        }
    }

    /**
     * The queue pair's one {@link SendChain}: requests written one at a time (on a native queue pair straight into
     * the {@code ibv_send_wr} chain) and posted with one call. Valid until {@link #close()}.
     */
    SendChain sendChain();

    /** Most requests {@link #postSend(SendWorkRequest[], int)} takes in one chain. */
    int MAX_POST_CHAIN = 16;

    /** {@code ibv_post_recv} of one single-SGE receive work request. */
    void postReceive(long wrId, long address, int length, int lkey) throws IOException;

    /**
     * {@code ibv_post_recv} of a chain of {@code count} single-SGE receives of {@code length} bytes
     * ({@code wrIds[i]}, {@code addresses[i]}, all under {@code lkey}), in order, with one call. If request {@code k}
     * is rejected, those before it were posted and it and the rest were not: {@link PostException#posted()} is
     * {@code k}. At most {@link #MAX_POST_CHAIN} requests. The default posts them one by one.
     */
    default void postReceives(long[] wrIds, long[] addresses, int count, int length, int lkey) throws IOException {
        for (int i = 0; i < count; i++) {
            try {
                postReceive(wrIds[i], addresses[i], length, lkey);
            } catch (IOException e) {
                throw new PostException("ibv_post_recv", i, e);
            }
        }
    }

    /** {@code ibv_modify_qp(IBV_QPS_ERR)}: flush everything outstanding. */
    void modifyToError() throws IOException;

    /** The current {@link QpState}. */
    int state();

    /** {@code rdma_destroy_qp}. */
    @Override
    void close() throws IOException;
}
