package dev.rpcrdma.channel.verbs;

import static dev.rpcrdma.channel.verbs.NativeMemory.IO;

import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.fabric.WcOpcode;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvWc;

/**
 * A reusable array of {@code capacity} {@code struct ibv_wc} in one native block, filled by
 * {@link Verbs#pollCq(long, WorkCompletions)} and read in place by index. Nothing is copied or allocated.
 * Owns its block ({@link #close()} frees it). Not thread-safe (one per event loop).
 */
public final class WorkCompletions implements AutoCloseable {
    private final NativeMemory memory;
    private final long base;
    private final int capacity;
    private final int withInvalidateFlag;

    /** {@code capacity} completions of a device that follows verbs.h for {@code IBV_WC_WITH_INV}. */
    public WorkCompletions(int capacity) {
        this(capacity, WcFlags.WITH_INV);
    }

    /**
     * {@code capacity} completions of a device whose "received with invalidate" bit is {@code withInvalidateFlag}
     * (from {@link DeviceAttributes#wcWithInvalidateFlag()}: rxe differs from verbs.h).
     */
    public WorkCompletions(int capacity, int withInvalidateFlag) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: > 0)");
        }
        if (Integer.bitCount(withInvalidateFlag) != 1) {
            throw new IllegalArgumentException("withInvalidateFlag: " + withInvalidateFlag + " (expected: one bit)");
        }
        this.capacity = capacity;
        this.withInvalidateFlag = withInvalidateFlag;
        memory = NativeMemory.allocate((long) capacity * IbvWc.SIZE);
        base = memory.address();
    }

    public int capacity() {
        return capacity;
    }

    public long address() {
        return base;
    }

    private long wc(int index) {
        if (index < 0 || index >= capacity) {
            throw new IndexOutOfBoundsException("completion " + index + " (capacity " + capacity + ")");
        }
        return base + (long) index * IbvWc.SIZE;
    }

    public long wrId(int index) {
        return IO.getLong(wc(index) + IbvWc.WR_ID);
    }

    /** {@code IBV_WC_*} status; see {@link Verbs#wcStatusString(int)}. */
    public int status(int index) {
        return IO.getInt(wc(index) + IbvWc.STATUS);
    }

    /** {@code IBV_WC_*} opcode; receives have {@code IBV_WC_RECV} set. Undefined when status is not success. */
    public int opcode(int index) {
        return IO.getInt(wc(index) + IbvWc.OPCODE);
    }

    public int vendorErr(int index) {
        return IO.getInt(wc(index) + IbvWc.VENDOR_ERR);
    }

    /** Bytes received (receive completions). */
    public int byteLen(int index) {
        return IO.getInt(wc(index) + IbvWc.BYTE_LEN);
    }

    /** Immediate data in host order (valid with {@code IBV_WC_WITH_IMM}). */
    public int immData(int index) {
        return Integer.reverseBytes(IO.getInt(wc(index) + IbvWc.IMM_DATA));
    }

    /** The rkey the peer invalidated (valid with {@code IBV_WC_WITH_INV}). */
    public int invalidatedRkey(int index) {
        return IO.getInt(wc(index) + IbvWc.INVALIDATED_RKEY);
    }

    public int qpNum(int index) {
        return IO.getInt(wc(index) + IbvWc.QP_NUM);
    }

    public int srcQp(int index) {
        return IO.getInt(wc(index) + IbvWc.SRC_QP);
    }

    /** Or of {@code IBV_WC_WITH_IMM}, {@code IBV_WC_WITH_INV}, ... */
    public int wcFlags(int index) {
        return IO.getInt(wc(index) + IbvWc.WC_FLAGS);
    }

    /**
     * Whether receive completion {@code index} was a Send With Invalidate; {@link #invalidatedRkey(int)} is then
     * the rkey the peer invalidated. Uses the device's flag bit (see the constructor).
     */
    public boolean withInvalidate(int index) {
        return (opcode(index) & WcOpcode.RECV) != 0 && (wcFlags(index) & withInvalidateFlag) != 0;
    }

    /** Whether receive completion {@code index} carries immediate data ({@link #immData(int)}). */
    public boolean withImm(int index) {
        return (wcFlags(index) & WcFlags.WITH_IMM) != 0;
    }

    @Override
    public void close() {
        memory.close();
    }
}
