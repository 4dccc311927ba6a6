package dev.rpcrdma.oncrpc.message;

/**
 * The header of an RFC 5531 §9 {@code rpc_msg}: an {@link RpcCall} or an {@link RpcReply}. Headers are values
 * without buffers; the procedure arguments or results travel beside them in an {@link InboundRpcMessage}
 * or {@link OutboundRpcMessage}.
 *
 * <p>Lifetime: a header built with a public constructor or factory is immutable and lives as long as it is
 * referenced. A header that a message <em>carries from a pool</em> (decoded by {@link RpcMessageCodec}, or built by
 * {@link OutboundRpcMessage#newCall}/{@link OutboundRpcMessage#newReply}) is valid until that message is released,
 * like the message's buffers: the allocation-free path reuses it for a later message. Keep {@link #copy()} to hold
 * it longer.
 */
public abstract class RpcMessage {

    /** Set once for a value; again each time a pooled header is reused ({@link #isPooled()}). */
    int xid;

    RpcMessage(int xid) {
        this.xid = xid;
    }

    /**
     * Whether this header belongs to a message pool: valid only until the message carrying it is released (see
     * the class comment).
     */
    public abstract boolean isPooled();

    /** An immutable copy (this header itself if it is not {@link #isPooled() pooled}). */
    public abstract RpcMessage copy();

    /** Gives a pooled header back to its pool (its message was released); nothing for a value. */
    abstract void recycle();

    /** The transaction id (RFC 5531 §9). */
    public final int xid() {
        return xid;
    }

    /** CALL or REPLY. */
    public abstract MsgType msgType();
}
