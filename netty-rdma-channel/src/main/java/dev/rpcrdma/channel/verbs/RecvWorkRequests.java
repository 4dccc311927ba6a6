package dev.rpcrdma.channel.verbs;

import static dev.rpcrdma.channel.verbs.NativeMemory.IO;

import dev.rpcrdma.channel.verbs.IbvLayouts.IbvRecvWr;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvSge;

/**
 * A reusable chain of up to {@code capacity} {@code struct ibv_recv_wr} with up to {@code maxSge} SGEs each, in
 * one native block (work requests, SGE arrays, {@code bad_wr} slot), like {@link SendWorkRequests}. Post with
 * {@link Verbs#postRecv(long, RecvWorkRequests)}.
 *
 * <p>Ownership: owns its block ({@link #close()} frees it); the block may be reused once {@code ibv_post_recv}
 * returns, but the receive buffers the SGEs point to belong to the device until their completion (or flush).
 * Not thread-safe.
 */
public final class RecvWorkRequests implements AutoCloseable {
    private final NativeMemory memory;
    private final long base;
    private final long sgeBase;
    private final long badWrSlot;
    private final int capacity;
    private final int maxSge;
    private int count;

    public RecvWorkRequests(int capacity, int maxSge) {
        if (capacity <= 0 || maxSge <= 0) {
            throw new IllegalArgumentException("capacity " + capacity + ", maxSge " + maxSge + " (expected: > 0)");
        }
        this.capacity = capacity;
        this.maxSge = maxSge;
        long wrBytes = (long) capacity * IbvRecvWr.SIZE;
        long sgeBytes = (long) capacity * maxSge * IbvSge.SIZE;
        memory = NativeMemory.allocate(wrBytes + sgeBytes + Long.BYTES);
        base = memory.address();
        sgeBase = base + wrBytes;
        badWrSlot = sgeBase + sgeBytes;
    }

    public void clear() {
        count = 0;
    }

    public int count() {
        return count;
    }

    public int capacity() {
        return capacity;
    }

    /** Appends a receive work request with no SGE yet and returns its index. */
    public int add(long wrId) {
        if (count == capacity) {
            throw new IllegalStateException("all " + capacity + " work requests in use");
        }
        int index = count++;
        long wr = wr(index);
        IO.setMemory(wr, IbvRecvWr.SIZE, (byte) 0);
        IO.putLong(wr + IbvRecvWr.WR_ID, wrId);
        IO.putLong(wr + IbvRecvWr.SG_LIST, sge(index, 0));
        if (index > 0) {
            IO.putLong(wr(index - 1) + IbvRecvWr.NEXT, wr);
        }
        return index;
    }

    /** Appends a scatter/gather element (a registered receive buffer) to work request {@code index}. */
    public RecvWorkRequests addSge(int index, long addr, int length, int lkey) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("work request " + index + " (count " + count + ")");
        }
        long wr = wr(index);
        int n = IO.getInt(wr + IbvRecvWr.NUM_SGE);
        if (n == maxSge) {
            throw new IllegalStateException("work request " + index + " already has " + maxSge + " SGEs");
        }
        long sge = sge(index, n);
        IO.putLong(sge + IbvSge.ADDR, addr);
        IO.putInt(sge + IbvSge.LENGTH, length);
        IO.putInt(sge + IbvSge.LKEY, lkey);
        IO.putInt(wr + IbvRecvWr.NUM_SGE, n + 1);
        return this;
    }

    public long address() {
        return base;
    }

    long badWrSlot() {
        return badWrSlot;
    }

    /** After a failed post: the index of the work request {@code bad_wr} names, or -1. */
    public int badIndex() {
        return indexOf(IO.getAddress(badWrSlot));
    }

    int indexOf(long wrAddress) {
        long off = wrAddress - base;
        if (off < 0 || off % IbvRecvWr.SIZE != 0 || off / IbvRecvWr.SIZE >= count) {
            return -1;
        }
        return (int) (off / IbvRecvWr.SIZE);
    }

    public long wr(int index) {
        return base + (long) index * IbvRecvWr.SIZE;
    }

    public long sge(int index, int n) {
        return sgeBase + ((long) index * maxSge + n) * IbvSge.SIZE;
    }

    @Override
    public void close() {
        memory.close();
    }
}
