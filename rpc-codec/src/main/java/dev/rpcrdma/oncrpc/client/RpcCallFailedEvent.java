package dev.rpcrdma.oncrpc.client;

import io.netty.util.internal.ObjectUtil;

/**
 * A user event a transport handler fires up the pipeline ({@code ctx.fireUserEventTriggered(...)}) when it knows
 * that one call failed for good before any reply can come: {@link RpcClientHandler} then fails that call, and only
 * that call, with {@link #cause()} itself (not wrapped). The transport needs to know nothing about the client
 * classes; an event for no pending call (e.g. one that already timed out) is ignored.
 *
 * <p>Example: an RPC-over-RDMA requester that receives RDMA_ERROR for a call (RFC 8166 §4.5) fires this event with
 * a typed exception carrying the error code.
 */
public final class RpcCallFailedEvent {

    private final int xid;
    private final Throwable cause;

    /** The call {@code xid} failed with {@code cause}. */
    public RpcCallFailedEvent(int xid, Throwable cause) {
        this.xid = xid;
        this.cause = ObjectUtil.checkNotNull(cause, "cause");
    }

    /** The xid of the failed call. */
    public int xid() {
        return xid;
    }

    /** Why it failed: what the call's future completes exceptionally with. */
    public Throwable cause() {
        return cause;
    }

    @Override
    public String toString() {
        return "RpcCallFailedEvent(xid=" + Integer.toUnsignedString(xid) + ", cause=" + cause + ')';
    }
}
