package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.message.RpcReply;
import io.netty.util.internal.ObjectUtil;

/** The server answered, but not with SUCCESS: MSG_ACCEPTED with an error status, or MSG_DENIED. */
public final class RpcReplyException extends RpcException {

    private static final long serialVersionUID = 1L;

    private final transient RpcReply reply;

    /** For the given non-success reply (kept as an immutable {@link RpcReply#copy() copy}). */
    public RpcReplyException(RpcReply reply) {
        super("RPC call failed: " + reply);
        this.reply = reply.copy();
    }

    /**
     * For the given non-success reply, with what the client knows of its likely cause appended to the message
     * (e.g. for GARBAGE_ARGS the procedure and the size of the arguments it sent).
     */
    public RpcReplyException(RpcReply reply, String detail) {
        super("RPC call failed: " + reply + ": " + ObjectUtil.checkNotNull(detail, "detail"));
        this.reply = reply.copy();
    }

    /** The reply header (accept_stat, or reject_stat with mismatch range / auth_stat). */
    public RpcReply reply() {
        return reply;
    }
}
