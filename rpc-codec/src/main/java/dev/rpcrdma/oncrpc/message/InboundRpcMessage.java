package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

import io.netty.util.internal.ObjectUtil;
import java.util.Deque;

/**
 * A received RPC message: its decoded {@link RpcMessage header} and its body (a call's arguments or a successful
 * reply's results) as an {@link XdrReader} positioned after the header. The body is the rest of the inline
 * XDR plus any data an RDMA transport already placed (RFC 8166 §3.4; empty over TCP).
 *
 * <p>Ownership: reference-counted; owns the inline buffer and the placed buffers not yet taken through
 * {@link XdrReader#readDdpOpaque(int)}. The last handler to use it releases it. Produced by
 * {@link RpcMessageCodec#decode}.
 */
public final class InboundRpcMessage extends AbstractReferenceCounted {

    private final RpcMessage header;
    private final ByteBuf buffer;
    private final Deque<ByteBuf> placed;
    private final XdrReader body;

    /** {@code placed} null: inline only (TCP), no deque at all. */
    InboundRpcMessage(RpcMessage header, ByteBuf buffer, Deque<ByteBuf> placed) {
        this.header = header;
        this.buffer = buffer;
        this.placed = placed;
        this.body = placed == null ? new XdrReader(buffer) : new XdrReader(buffer, placed);
    }

    /** Creates a message from an already-decoded header and a body; takes ownership of the buffers. */
    public static InboundRpcMessage of(RpcMessage header, ByteBuf body, Deque<ByteBuf> placed) {
        return new InboundRpcMessage(header, body, placed);
    }

    /** Creates a message from an already-decoded header and an inline body; takes ownership of it. */
    public static InboundRpcMessage of(RpcMessage header, ByteBuf body) {
        return new InboundRpcMessage(header, ObjectUtil.checkNotNull(body, "body"), null);
    }

    /** The header. */
    public RpcMessage header() {
        return header;
    }

    /** The body reader (arguments or results), valid until this message is released. */
    public XdrReader body() {
        return body;
    }

    @Override
    public InboundRpcMessage retain() {
        super.retain();
        return this;
    }

    @Override
    public InboundRpcMessage touch() {
        buffer.touch();
        return this;
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        buffer.touch(hint);
        return this;
    }

    @Override
    protected void deallocate() {
        buffer.release();
        if (placed != null) {
            ByteBuf b;
            while ((b = placed.pollFirst()) != null) {
                b.release();
            }
        }
    }

    @Override
    public String toString() {
        return "InboundRpcMessage(" + header + ", body=" + buffer.readableBytes() + " bytes"
                + (placed == null || placed.isEmpty() ? "" : ", placed=" + placed.size()) + ')';
    }
}
