package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;

/**
 * One DDP-eligible opaque data item of an {@link XdrPayload} (RFC 8166 §3.4.1, §3.4.5).
 *
 * <p>{@link #position()} is the offset, in the fully-inline XDR stream of the payload, where the item's data
 * bytes start (its length word ends there). This is the XDR position an RDMA requester puts into a Read chunk
 * (RFC 8166 §3.5.3) once the payload is the whole RPC message. {@link #data()} belongs to the payload: it is
 * valid while the payload is, and is released with it; retain it to keep it longer.
 */
public final class DdpItem {

    private final int position;
    private final ByteBuf data;

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

    DdpItem shift(int delta) {
        return new DdpItem(position + delta, data);
    }

    @Override
    public String toString() {
        return "DdpItem(position=" + position + ", length=" + length() + ')';
    }
}
