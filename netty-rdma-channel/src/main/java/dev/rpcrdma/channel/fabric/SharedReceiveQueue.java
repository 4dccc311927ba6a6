package dev.rpcrdma.channel.fabric;

import java.io.IOException;

/**
 * A shared receive queue ({@code ibv_srq}): receives posted here are consumed by whichever queue pair created with
 * it ({@link CmId#createQueuePair(ProtectionDomain, CompletionQueue, CompletionQueue, SharedReceiveQueue,
 * QpCapabilities)}) receives a Send first; the completion goes to that queue pair's receive CQ and names it
 * ({@link CompletionArray#qpNum(int)}). When it is empty, a Send meets RNR (the sender retries per its
 * {@code rnr_retry_count}). A queue pair moved to error does not flush the shared receives: they stay posted for the
 * other queue pairs, and are discarded (no completion) when the queue is destroyed, after which the device owns none
 * of their memory.
 */
public interface SharedReceiveQueue extends AutoCloseable {

    /** Receives the queue holds at most ({@code max_wr} as granted). */
    int capacity();

    /** {@code ibv_post_srq_recv} of one single-SGE receive work request. */
    void postReceive(long wrId, long address, int length, int lkey) throws IOException;

    /**
     * {@code ibv_post_srq_recv} of a chain of {@code count} single-SGE receives (as
     * {@link QueuePair#postReceives(long[], long[], int, int, int)}): if request {@code k} is rejected, those before
     * it were posted, {@link PostException#posted()} is {@code k}. At most {@link QueuePair#MAX_POST_CHAIN}.
     */
    default void postReceives(long[] wrIds, long[] addresses, int count, int length, int lkey) throws IOException {
        for (int i = 0; i < count; i++) {
            try {
                postReceive(wrIds[i], addresses[i], length, lkey);
            } catch (IOException e) {
                throw new PostException("ibv_post_srq_recv", i, e);
            }
        }
    }

    /** {@code ibv_destroy_srq}; fails with EBUSY while queue pairs use it. */
    @Override
    void close() throws IOException;
}
