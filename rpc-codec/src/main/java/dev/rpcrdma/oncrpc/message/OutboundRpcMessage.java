package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;
import io.netty.util.internal.ObjectUtil;

/**
 * An RPC message to send: a {@link RpcMessage header} and an {@link XdrPayload body} (a call's arguments, a
 * successful reply's results, empty otherwise). Transports turn it into bytes with
 * {@link RpcMessageCodec#encode}: TCP writes the payload inline; RPC-over-RDMA may move its DDP-eligible items
 * into chunks.
 *
 * <p>Ownership: reference-counted; owns the body. Whoever writes it to a channel hands it over; the transport
 * releases it.
 */
public final class OutboundRpcMessage extends AbstractReferenceCounted {

    private final RpcMessage header;
    private final XdrPayload body;

    /** Takes ownership of {@code body}. */
    public OutboundRpcMessage(RpcMessage header, XdrPayload body) {
        this.header = ObjectUtil.checkNotNull(header, "header");
        this.body = ObjectUtil.checkNotNull(body, "body");
        if (header instanceof RpcReply && !((RpcReply) header).isSuccess() && body.inlineLength() != 0) {
            body.release();
            throw new IllegalArgumentException("only a SUCCESS reply carries results: " + header);
        }
    }

    /** The header. */
    public RpcMessage header() {
        return header;
    }

    /** The body; owned by this message. */
    public XdrPayload body() {
        return body;
    }

    @Override
    public OutboundRpcMessage retain() {
        super.retain();
        return this;
    }

    @Override
    public OutboundRpcMessage touch() {
        return this;
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        return this;
    }

    @Override
    protected void deallocate() {
        body.release();
    }

    @Override
    public String toString() {
        return "OutboundRpcMessage(" + header + ", " + body + ')';
    }
}
