package dev.rpcrdma.oncrpc.message;

/**
 * The header of an RFC 5531 §9 {@code rpc_msg}: an {@link RpcCall} or an {@link RpcReply}. Headers are immutable
 * values without buffers; the procedure arguments or results travel beside them in an {@link InboundRpcMessage}
 * or {@link OutboundRpcMessage}.
 */
public abstract class RpcMessage {

    private final int xid;

    RpcMessage(int xid) {
        this.xid = xid;
    }

    /** The transaction id (RFC 5531 §9). */
    public final int xid() {
        return xid;
    }

    /** CALL or REPLY. */
    public abstract MsgType msgType();
}
