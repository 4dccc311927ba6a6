package dev.rpcrdma.channel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * An outbound Send with options; writing a plain {@link ByteBuf} is the same as {@code new RdmaSend(buf)}.
 * With {@link #withInvalidate(ByteBuf, int)} it is a Send With Invalidate that invalidates the peer's memory-window
 * rkey on arrival. The content is copied when the Send is posted (inline, or into a registered send slot): the
 * channel releases it and the write promise succeeds then, unless an RDMA Read, Write or Bind written before it is
 * still in flight, in which case both wait for that one's completion (promises complete in write order). A Send
 * that fails after its promise succeeded breaks the connection (see {@link RdmaChannel}: {@code exceptionCaught}
 * with the {@link RdmaWorkRequestException} when the Send was refused, then close).
 */
public final class RdmaSend extends DefaultByteBufHolder {
    private final boolean invalidate;
    private final int invalidateRkey;

    public RdmaSend(ByteBuf content) {
        this(content, false, 0);
    }

    private RdmaSend(ByteBuf content, boolean invalidate, int invalidateRkey) {
        super(content);
        this.invalidate = invalidate;
        this.invalidateRkey = invalidateRkey;
    }

    /** A Send With Invalidate of {@code rkey}. */
    public static RdmaSend withInvalidate(ByteBuf content, int rkey) {
        return new RdmaSend(content, true, rkey);
    }

    public boolean isInvalidate() {
        return invalidate;
    }

    public int invalidateRkey() {
        return invalidateRkey;
    }

    @Override
    public RdmaSend replace(ByteBuf content) {
        return new RdmaSend(content, invalidate, invalidateRkey);
    }
}
