package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SharedReceiveQueue;
import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.verbs.RecvWorkRequests;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/**
 * {@code ibv_srq}: receives posted with {@code ibv_post_srq_recv} (the provider's {@code ops.post_srq_recv}, through
 * a reused native work-request block, as {@link NativeQueuePair} posts receives). Used by one thread at a time.
 */
final class NativeSharedReceiveQueue implements SharedReceiveQueue {
    final long srq;
    private final int capacity;
    private final RecvWorkRequests recvWr = new RecvWorkRequests(QueuePair.MAX_POST_CHAIN, 1);
    private boolean destroyed;

    NativeSharedReceiveQueue(long srq, int capacity) {
        this.srq = srq;
        this.capacity = capacity;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void postReceive(long wrId, long address, int length, int lkey) throws IOException {
        recvWr.clear();
        recvWr.addSge(recvWr.add(wrId), address, length, lkey);
        try {
            Verbs.postSrqRecv(srq, recvWr);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void postReceives(long[] wrIds, long[] addresses, int count, int length, int lkey) throws IOException {
        if (count > QueuePair.MAX_POST_CHAIN) {
            throw new IllegalArgumentException("a chain of " + count + " > " + QueuePair.MAX_POST_CHAIN
                    + " work requests");
        }
        recvWr.clear();
        for (int i = 0; i < count; i++) {
            recvWr.addSge(recvWr.add(wrIds[i]), addresses[i], length, lkey);
        }
        try {
            Verbs.postSrqRecv(srq, recvWr);
        } catch (NativeCallException e) {
            int bad = recvWr.badIndex();
            throw new PostException("ibv_post_srq_recv", bad < 0 ? 0 : bad, NativeErrors.of(e));
        }
    }

    @Override
    public void close() throws IOException {
        if (!destroyed) {
            try {
                Verbs.destroySrq(srq);
            } catch (NativeCallException e) {
                throw NativeErrors.of(e);
            }
            destroyed = true;
            recvWr.close();
        }
    }
}
