package dev.rpcrdma.channel.verbs;

import static dev.rpcrdma.channel.verbs.NativeMemory.IO;

import dev.rpcrdma.channel.verbs.IbvLayouts.IbvRecvWr;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvSge;

/**
 * The native block behind {@link SendWorkRequests} and {@link RecvWorkRequests}: up to {@code capacity} work
 * requests of {@code wrSize} bytes, then their SGE arrays ({@code maxSge} each), then the {@code bad_wr} slot the
 * post call fills. Appending links each work request to the previous one through {@code next}; it relies on
 * {@code struct ibv_send_wr} and {@code struct ibv_recv_wr} starting with the same fields ({@code wr_id},
 * {@code next}, {@code sg_list}, {@code num_sge}). Owns the block ({@link #close()} frees it); not thread-safe, one
 * per event loop like its subclasses.
 */
abstract class WorkRequestBlock implements AutoCloseable {
    private final NativeMemory memory;
    private final long base;
    private final long sgeBase;
    private final long badWrSlot;
    private final int wrSize;
    private final int capacity;
    private final int maxSge;
    private int count;

    WorkRequestBlock(int capacity, int maxSge, int wrSize) {
        if (capacity <= 0 || maxSge <= 0) {
            throw new IllegalArgumentException("capacity " + capacity + ", maxSge " + maxSge + " (expected: > 0)");
        }
        if (wrSize < IbvRecvWr.SIZE || wrSize % Long.BYTES != 0) {
            throw new IllegalArgumentException("work request size " + wrSize);
        }
        this.wrSize = wrSize;
        this.capacity = capacity;
        this.maxSge = maxSge;
        long wrBytes = (long) capacity * wrSize;
        long sgeBytes = (long) capacity * maxSge * IbvSge.SIZE;
        memory = NativeMemory.allocate(wrBytes + sgeBytes + Long.BYTES);
        base = memory.address();
        sgeBase = base + wrBytes;
        badWrSlot = sgeBase + sgeBytes;
    }

    /** Forgets all work requests. */
    public final void clear() {
        count = 0;
    }

    public final int count() {
        return count;
    }

    public final int capacity() {
        return capacity;
    }

    public final int maxSge() {
        return maxSge;
    }

    /** Appends a zeroed work request with {@code wr_id}, its SGE array and no SGE yet; returns its index. */
    final int append(long wrId) {
        if (count == capacity) {
            throw new IllegalStateException("all " + capacity + " work requests in use");
        }
        int index = count++;
        init(index, wrId);
        return index;
    }

    /** Starts work request {@code index} (appended already) over: {@code wr_id}, zeroed, no SGE, linked. */
    final void init(int index, long wrId) {
        long wr = wr(index);
        // Zeroed word by word (plain stores the JIT inlines), not with Unsafe.setMemory: that is a call into the
        // JVM's native code per work request, one Send and one receive repost per RPC call.
        IO.putLong(wr + IbvRecvWr.WR_ID, wrId);
        IO.putLong(wr + IbvRecvWr.NEXT, 0L);
        IO.putLong(wr + IbvRecvWr.SG_LIST, sge(index, 0));
        for (int off = IbvRecvWr.NUM_SGE; off < wrSize; off += Long.BYTES) {
            IO.putLong(wr + off, 0L);
        }
        if (index > 0) {
            IO.putLong(wr(index - 1) + IbvRecvWr.NEXT, wr);
        }
    }

    /** The SGEs of work request {@code index}. */
    public final int numSge(int index) {
        return IO.getInt(wr(checkIndex(index)) + IbvRecvWr.NUM_SGE);
    }

    /** Appends a scatter/gather element (registered memory: {@code lkey} of its MR) to work request {@code index}. */
    final void appendSge(int index, long addr, int length, int lkey) {
        long wr = wr(checkIndex(index));
        int n = IO.getInt(wr + IbvRecvWr.NUM_SGE);
        if (n == maxSge) {
            throw new IllegalStateException("work request " + index + " already has " + maxSge + " SGEs");
        }
        long sge = sge(index, n);
        IO.putLong(sge + IbvSge.ADDR, addr);
        IO.putInt(sge + IbvSge.LENGTH, length);
        IO.putInt(sge + IbvSge.LKEY, lkey);
        IO.putInt(wr + IbvRecvWr.NUM_SGE, n + 1);
    }

    /** Address of the first work request (the {@code wr} argument of the post call). */
    public final long address() {
        return base;
    }

    /** Address of the work-request pointer slot passed as {@code bad_wr}. */
    final long badWrSlot() {
        return badWrSlot;
    }

    /** Index of the work request that {@code bad_wr} named after a failed post, or -1. */
    public final int badIndex() {
        return indexOf(IO.getAddress(badWrSlot));
    }

    /** Index of the work request at {@code wrAddress} (e.g. the one {@code bad_wr} names), or -1. */
    final int indexOf(long wrAddress) {
        long off = wrAddress - base;
        if (off < 0 || off % wrSize != 0 || off / wrSize >= count) {
            return -1;
        }
        return (int) (off / wrSize);
    }

    /** Address of work request {@code index} (for tests and debugging). */
    public final long wr(int index) {
        return base + (long) index * wrSize;
    }

    /** Address of SGE {@code n} of work request {@code index}. */
    public final long sge(int index, int n) {
        return sgeBase + ((long) index * maxSge + n) * IbvSge.SIZE;
    }

    final int checkIndex(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("work request " + index + " (count " + count + ")");
        }
        return index;
    }

    @Override
    public final void close() {
        memory.close();
    }
}
