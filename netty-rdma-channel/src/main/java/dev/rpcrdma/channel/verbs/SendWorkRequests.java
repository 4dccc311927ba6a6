package dev.rpcrdma.channel.verbs;

import static dev.rpcrdma.channel.verbs.NativeMemory.IO;

import dev.rpcrdma.channel.verbs.IbvLayouts.IbvSendWr;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvSge;

/**
 * A reusable chain of up to {@code capacity} {@code struct ibv_send_wr}, each with up to {@code maxSge}
 * {@code struct ibv_sge}, written in place in one native block: the work requests, then their SGE arrays, then
 * the {@code bad_wr} slot that {@code ibv_post_send} fills. {@link #add} appends a work request and links it to
 * the previous one through {@code next}; {@link #clear()} starts over. Post with
 * {@link Verbs#postSend(long, SendWorkRequests)}.
 *
 * <p>Ownership: this object owns its native block; {@link #close()} frees it. The provider copies work requests
 * during {@code ibv_post_send}, so the block may be rewritten right after the call returns; the MEMORY THE SGEs
 * POINT TO must stay registered and untouched until the completion. Not thread-safe (one per event loop).
 */
public final class SendWorkRequests implements AutoCloseable {
    private final NativeMemory memory;
    private final long base;
    private final long sgeBase;
    private final long badWrSlot;
    private final int capacity;
    private final int maxSge;
    private int count;

    public SendWorkRequests(int capacity, int maxSge) {
        if (capacity <= 0 || maxSge <= 0) {
            throw new IllegalArgumentException("capacity " + capacity + ", maxSge " + maxSge + " (expected: > 0)");
        }
        this.capacity = capacity;
        this.maxSge = maxSge;
        long wrBytes = (long) capacity * IbvSendWr.SIZE;
        long sgeBytes = (long) capacity * maxSge * IbvSge.SIZE;
        memory = NativeMemory.allocate(wrBytes + sgeBytes + Long.BYTES);
        base = memory.address();
        sgeBase = base + wrBytes;
        badWrSlot = sgeBase + sgeBytes;
    }

    /** Forgets all work requests. */
    public void clear() {
        count = 0;
    }

    public int count() {
        return count;
    }

    public int capacity() {
        return capacity;
    }

    public int maxSge() {
        return maxSge;
    }

    /**
     * Appends a work request with no SGE yet and returns its index. {@code opcode} is an {@code IBV_WR_*},
     * {@code sendFlags} an or of {@code IBV_SEND_*}.
     */
    public int add(long wrId, int opcode, int sendFlags) {
        if (count == capacity) {
            throw new IllegalStateException("all " + capacity + " work requests in use");
        }
        int index = count++;
        long wr = wr(index);
        IO.setMemory(wr, IbvSendWr.SIZE, (byte) 0);
        IO.putLong(wr + IbvSendWr.WR_ID, wrId);
        IO.putLong(wr + IbvSendWr.SG_LIST, sge(index, 0));
        IO.putInt(wr + IbvSendWr.OPCODE, opcode);
        IO.putInt(wr + IbvSendWr.SEND_FLAGS, sendFlags);
        if (index > 0) {
            IO.putLong(wr(index - 1) + IbvSendWr.NEXT, wr);
        }
        return index;
    }

    /** Appends a scatter/gather element (registered memory: {@code lkey} of its MR) to work request {@code index}. */
    public SendWorkRequests addSge(int index, long addr, int length, int lkey) {
        long wr = wr(checkIndex(index));
        int n = IO.getInt(wr + IbvSendWr.NUM_SGE);
        if (n == maxSge) {
            throw new IllegalStateException("work request " + index + " already has " + maxSge + " SGEs");
        }
        long sge = sge(index, n);
        IO.putLong(sge + IbvSge.ADDR, addr);
        IO.putInt(sge + IbvSge.LENGTH, length);
        IO.putInt(sge + IbvSge.LKEY, lkey);
        IO.putInt(wr + IbvSendWr.NUM_SGE, n + 1);
        return this;
    }

    /** Sets {@code wr.rdma} (RDMA WRITE / READ): the peer's address and rkey. */
    public SendWorkRequests rdma(int index, long remoteAddr, int rkey) {
        long wr = wr(checkIndex(index));
        IO.putLong(wr + IbvSendWr.RDMA_REMOTE_ADDR, remoteAddr);
        IO.putInt(wr + IbvSendWr.RDMA_RKEY, rkey);
        return this;
    }

    /** Sets {@code imm_data} for *_WITH_IMM; {@code immData} is in host order and written in network order. */
    public SendWorkRequests immData(int index, int immData) {
        IO.putInt(wr(checkIndex(index)) + IbvSendWr.IMM_DATA, Integer.reverseBytes(immData));
        return this;
    }

    /** Sets {@code invalidate_rkey} for {@code IBV_WR_SEND_WITH_INV} (and LOCAL_INV). */
    public SendWorkRequests invalidateRkey(int index, int rkey) {
        IO.putInt(wr(checkIndex(index)) + IbvSendWr.INVALIDATE_RKEY, rkey);
        return this;
    }

    /**
     * Sets {@code bind_mw} for {@code IBV_WR_BIND_MW} (type-2 window): binds {@code mw} with {@code newRkey}
     * (first bind: {@code Verbs.incRkey(Verbs.mwRkey(mw))}; later binds: {@code incRkey} of the
     * rkey last bound, which the caller tracks because rxe does not update {@code ibv_mw->rkey}) to {@code [addr, addr + length)} of {@code mr}, which
     * must be registered with {@code IBV_ACCESS_MW_BIND}.
     */
    public SendWorkRequests bindMw(int index, long mw, int newRkey, long mr, long addr, long length, int mwAccessFlags) {
        long wr = wr(checkIndex(index));
        IO.putLong(wr + IbvSendWr.BIND_MW_MW, mw);
        IO.putInt(wr + IbvSendWr.BIND_MW_RKEY, newRkey);
        IO.putLong(wr + IbvSendWr.BIND_MW_BIND_INFO_MR, mr);
        IO.putLong(wr + IbvSendWr.BIND_MW_BIND_INFO_ADDR, addr);
        IO.putLong(wr + IbvSendWr.BIND_MW_BIND_INFO_LENGTH, length);
        IO.putInt(wr + IbvSendWr.BIND_MW_BIND_INFO_MW_ACCESS_FLAGS, mwAccessFlags);
        return this;
    }

    /** Address of the first work request (the {@code wr} argument of {@code ibv_post_send}). */
    public long address() {
        return base;
    }

    /** Address of the {@code struct ibv_send_wr *} slot passed as {@code bad_wr}. */
    long badWrSlot() {
        return badWrSlot;
    }

    /** Index of the work request that {@code bad_wr} named after a failed {@code ibv_post_send}, or -1. */
    public int badIndex() {
        return indexOf(IO.getAddress(badWrSlot));
    }

    /** Index of the work request at {@code wrAddress} (e.g. the one {@code bad_wr} names), or -1. */
    int indexOf(long wrAddress) {
        long off = wrAddress - base;
        if (off < 0 || off % IbvSendWr.SIZE != 0 || off / IbvSendWr.SIZE >= count) {
            return -1;
        }
        return (int) (off / IbvSendWr.SIZE);
    }

    /** Address of work request {@code index} (for tests and debugging). */
    public long wr(int index) {
        return base + (long) index * IbvSendWr.SIZE;
    }

    /** Address of SGE {@code n} of work request {@code index}. */
    public long sge(int index, int n) {
        return sgeBase + ((long) index * maxSge + n) * IbvSge.SIZE;
    }

    private int checkIndex(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("work request " + index + " (count " + count + ")");
        }
        return index;
    }

    @Override
    public void close() {
        memory.close();
    }
}
