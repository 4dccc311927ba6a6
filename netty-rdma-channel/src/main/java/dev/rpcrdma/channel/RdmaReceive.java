package dev.rpcrdma.channel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * One received Send, fired down the pipeline of an {@link RdmaChannel}. {@link #content()} holds exactly the
 * {@code byte_len} received bytes, copied out of the posted receive buffer into a buffer from the channel's
 * allocator (the receive buffer itself is reposted at once). The handler that consumes it releases it.
 */
public final class RdmaReceive extends DefaultByteBufHolder {
    private final int invalidatedRkey;
    private final boolean invalidated;

    public RdmaReceive(ByteBuf content, boolean invalidated, int invalidatedRkey) {
        super(content);
        this.invalidated = invalidated;
        this.invalidatedRkey = invalidatedRkey;
    }

    /** The number of bytes the peer sent ({@code wc.byte_len}). */
    public int byteLength() {
        return content().readableBytes();
    }

    /** True if the peer used Send With Invalidate (the {@code IBV_WC_WITH_INV} flag). */
    public boolean hasInvalidatedRkey() {
        return invalidated;
    }

    /** The rkey the peer invalidated when {@link #hasInvalidatedRkey()}, else 0. */
    public int invalidatedRkey() {
        return invalidatedRkey;
    }

    @Override
    public RdmaReceive replace(ByteBuf content) {
        return new RdmaReceive(content, invalidated, invalidatedRkey);
    }

    @Override
    public RdmaReceive retain() {
        super.retain();
        return this;
    }

    @Override
    public RdmaReceive touch(Object hint) {
        super.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return "RdmaReceive(" + byteLength() + " B" + (invalidated ? ", invalidated rkey 0x"
                + Integer.toHexString(invalidatedRkey) : "") + ')';
    }
}
