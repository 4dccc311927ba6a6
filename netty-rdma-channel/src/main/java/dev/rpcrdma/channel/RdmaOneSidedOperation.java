package dev.rpcrdma.channel;

import io.netty.util.internal.ObjectUtil;

/**
 * An outbound one-sided operation between a local registered range and a peer's (rkey, address) range: the base of
 * {@link RdmaWrite} and {@link RdmaRead}. The write promise completes with the work completion.
 */
public abstract class RdmaOneSidedOperation {
    private final RdmaMemory local;
    private final int offset;
    private final int length;
    private final long remoteAddress;
    private final int rkey;

    RdmaOneSidedOperation(RdmaMemory local, int offset, int length, long remoteAddress, int rkey) {
        this.local = ObjectUtil.checkNotNull(local, "local");
        ObjectUtil.checkPositiveOrZero(offset, "offset");
        ObjectUtil.checkPositiveOrZero(length, "length");
        if ((long) offset + length > local.length()) {
            throw new IndexOutOfBoundsException("offset " + offset + " + length " + length + " > registered length "
                    + local.length());
        }
        this.offset = offset;
        this.length = length;
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
    }

    /** The local registered memory (must belong to the channel the operation is written to). */
    public RdmaMemory local() {
        return local;
    }

    public int offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    public long remoteAddress() {
        return remoteAddress;
    }

    public int rkey() {
        return rkey;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + '(' + length + " B, remote 0x" + Long.toHexString(remoteAddress)
                + "/rkey 0x" + Integer.toHexString(rkey) + ')';
    }
}
