package dev.rpcrdma.channel.verbs;

import static dev.rpcrdma.channel.verbs.NativeMemory.IO;

import dev.rpcrdma.channel.verbs.IbvLayouts.IbvSendWr;

/**
 * A reusable chain of up to {@code capacity} {@code struct ibv_send_wr}, each with up to {@code maxSge}
 * {@code struct ibv_sge}, written in place in one native block (a {@code WorkRequestBlock}): the work requests,
 * then their SGE arrays, then the {@code bad_wr} slot that {@code ibv_post_send} fills. {@link #add} appends a
 * work request and links it to the previous one through {@code next}; {@link #clear()} starts over. Post with
 * {@link Verbs#postSend(long, SendWorkRequests)}.
 *
 * <p>Ownership: this object owns its native block; {@link #close()} frees it. The provider copies work requests
 * during {@code ibv_post_send}, so the block may be rewritten right after the call returns; the MEMORY THE SGEs
 * POINT TO must stay registered and untouched until the completion. Not thread-safe (one per event loop).
 */
public final class SendWorkRequests extends WorkRequestBlock {

    public SendWorkRequests(int capacity, int maxSge) {
        super(capacity, maxSge, IbvSendWr.SIZE);
    }

    /**
     * Appends a work request with no SGE yet and returns its index. {@code opcode} is an {@code IBV_WR_*},
     * {@code sendFlags} an or of {@code IBV_SEND_*}.
     */
    public int add(long wrId, int opcode, int sendFlags) {
        int index = append(wrId);
        long wr = wr(index);
        IO.putInt(wr + IbvSendWr.OPCODE, opcode);
        IO.putInt(wr + IbvSendWr.SEND_FLAGS, sendFlags);
        return index;
    }

    /** Starts work request {@code index} (the last appended) over: {@code wrId}, no opcode, flags or SGE. */
    public void restart(int index, long wrId) {
        init(checkIndex(index), wrId);
    }

    /** Sets the {@code IBV_WR_*} opcode of work request {@code index}. */
    public void opcode(int index, int opcode) {
        IO.putInt(wr(checkIndex(index)) + IbvSendWr.OPCODE, opcode);
    }

    /** The {@code IBV_SEND_*} flags of work request {@code index}. */
    public int sendFlags(int index) {
        return IO.getInt(wr(checkIndex(index)) + IbvSendWr.SEND_FLAGS);
    }

    /** Sets the {@code IBV_SEND_*} flags of work request {@code index}. */
    public void sendFlags(int index, int sendFlags) {
        IO.putInt(wr(checkIndex(index)) + IbvSendWr.SEND_FLAGS, sendFlags);
    }

    /** Appends a scatter/gather element (registered memory: {@code lkey} of its MR) to work request {@code index}. */
    public SendWorkRequests addSge(int index, long addr, int length, int lkey) {
        appendSge(index, addr, length, lkey);
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

    /**
     * Sets {@code invalidate_rkey} for {@code IBV_WR_SEND_WITH_INV} (and LOCAL_INV), and {@code wr.rdma.rkey} to the
     * same key: rdma-core's siw provider takes the STag a Send With Invalidate names from {@code wr.rdma.rkey}
     * ({@code push_send_wqe} copies {@code wr.rdma.rkey} into the queue entry for every opcode), so a Send With
     * Invalidate with only {@code invalidate_rkey} set named no STag or a stale one, and the peer answered with a
     * TERMINATE ("STag cannot be invalidated", RFC 5040 §7.2). Other providers read {@code invalidate_rkey} and ignore
     * {@code wr.rdma} for Sends.
     */
    public SendWorkRequests invalidateRkey(int index, int rkey) {
        long wr = wr(checkIndex(index));
        IO.putInt(wr + IbvSendWr.INVALIDATE_RKEY, rkey);
        IO.putInt(wr + IbvSendWr.RDMA_RKEY, rkey);
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
}
