package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.verbs.IbvLayouts.IbvRecvWr;

/**
 * A reusable chain of up to {@code capacity} {@code struct ibv_recv_wr} with up to {@code maxSge} SGEs each, in
 * one native block (work requests, SGE arrays, {@code bad_wr} slot: a {@code WorkRequestBlock}), like
 * {@link SendWorkRequests}. Post with
 * {@link Verbs#postRecv(long, RecvWorkRequests)}.
 *
 * <p>Ownership: owns its block ({@link #close()} frees it); the block may be reused once {@code ibv_post_recv}
 * returns, but the receive buffers the SGEs point to belong to the device until their completion (or flush).
 * Not thread-safe.
 */
public final class RecvWorkRequests extends WorkRequestBlock {

    public RecvWorkRequests(int capacity, int maxSge) {
        super(capacity, maxSge, IbvRecvWr.SIZE);
    }

    /** Appends a receive work request with no SGE yet and returns its index. */
    public int add(long wrId) {
        return append(wrId);
    }

    /** Appends a scatter/gather element (a registered receive buffer) to work request {@code index}. */
    public RecvWorkRequests addSge(int index, long addr, int length, int lkey) {
        appendSge(index, addr, length, lkey);
        return this;
    }
}
