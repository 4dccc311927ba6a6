package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;

/**
 * One DDP-eligible opaque data item of an {@link XdrPayload} (RFC 8166 §3.4.1, §3.4.5).
 *
 * <p>{@link #position()} is the offset, in the fully-inline XDR stream of the payload, where the item's data
 * bytes start (its length word ends there). This is the XDR position an RDMA requester puts into a Read chunk
 * (RFC 8166 §3.5.3) once the payload is the whole RPC message. {@link #data()} belongs to the payload: it is
 * valid while the payload is, and is released with it; retain it to keep it longer. The item itself is reused
 * with its payload: do not keep it after the payload was released.
 */
public final class DdpItem {

    // Not final: an item is reused with its pooled payload (valid until the payload is released).
    private int position;
    private ByteBuf data;

    DdpItem(int position, ByteBuf data) {
        this.position = position;
        this.data = data;
    }

    /** Offset in the fully-inline stream where the item's data bytes start. */
    public int position() {
        return position;
    }

    /** Number of data bytes (the value of the length word). */
    public int length() {
        return data.readableBytes();
    }

    /** Number of zero bytes that follow the data inline; never transferred in a chunk (RFC 8166 §3.4.6). */
    public int padLength() {
        return Xdr.pad(length());
    }

    /** The data bytes (readable region). Owned by the payload; do not release. */
    public ByteBuf data() {
        return data;
    }

    DdpItem set(int position, ByteBuf data) {
        this.position = position;
        this.data = data;
        return this;
    }

    @Override
    public String toString() {
        return "DdpItem(position=" + position + ", length=" + length() + ')';
    }
}
