package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SharedReceiveQueue;

import java.io.IOException;

/**
 * A shared receive queue: one ring of posted receives that every queue pair created with it consumes from, in
 * posting order, whichever pair's Send arrives first ({@link SoftQueuePair}); empty, a Send meets RNR. A pair going
 * to error leaves the ring alone; destroying the queue (EBUSY while pairs use it) discards what is posted.
 */
final class SoftSharedReceiveQueue implements SharedReceiveQueue {
    private final SoftwareFabric fabric;
    final SoftProtectionDomain pd;
    final SlotRing<SoftRecvWr> rq;
    private final int capacity;
    /** Queue pairs created with it and not destroyed. */
    int users;
    boolean destroyed;

    SoftSharedReceiveQueue(SoftwareFabric fabric, SoftProtectionDomain pd, int capacity) {
        this.fabric = fabric;
        this.pd = pd;
        this.capacity = capacity;
        rq = new SlotRing<>(capacity, SoftRecvWr::new);
        fabric.count("srq", 1);
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public void postReceive(long wrId, long address, int length, int lkey) throws IOException {
        synchronized (fabric.lock) {
            postLocked(wrId, address, length, lkey);
        }
    }

    /** One lock for the chain, as one {@code ibv_post_srq_recv}; stops at the first rejected request. */
    @Override
    public void postReceives(long[] wrIds, long[] addresses, int count, int length, int lkey) throws IOException {
        if (count > QueuePair.MAX_POST_CHAIN) {
            throw new IllegalArgumentException("a chain of " + count + " > " + QueuePair.MAX_POST_CHAIN
                    + " work requests");
        }
        synchronized (fabric.lock) {
            for (int i = 0; i < count; i++) {
                try {
                    postLocked(wrIds[i], addresses[i], length, lkey);
                } catch (FabricException e) {
                    throw new PostException("ibv_post_srq_recv", i, e);
                }
            }
        }
    }

    private void postLocked(long wrId, long address, int length, int lkey) throws FabricException {
        if (destroyed) {
            throw new FabricException("ibv_post_srq_recv: SRQ destroyed", FabricException.EINVAL);
        }
        if (rq.isFull()) {
            throw new FabricException("ibv_post_srq_recv: shared receive queue full (" + capacity + ")",
                    FabricException.ENOMEM);
        }
        rq.claimTail().load(wrId, address, length, lkey);
    }

    /** Receives posted and not consumed (test visibility). */
    int posted() {
        synchronized (fabric.lock) {
            return rq.size();
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (fabric.lock) {
            if (destroyed) {
                return;
            }
            if (users > 0) {
                throw new FabricException("ibv_destroy_srq: " + users + " queue pairs still use it",
                        FabricException.EBUSY);
            }
            destroyed = true;
            rq.clear();
            fabric.count("srq", -1);
            pd.users--;
        }
    }
}
