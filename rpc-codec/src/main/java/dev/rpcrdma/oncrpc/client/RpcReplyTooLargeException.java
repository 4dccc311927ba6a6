package dev.rpcrdma.oncrpc.client;

/**
 * A reply larger than its call's maximum reply size ({@link CallOptions#withMaxReplySize(int)}, or the procedure's
 * declared {@code RpcProcedureSpec.withMaxReplySize}): the same failure over TCP and over RPC-over-RDMA. The client
 * checks the size of a reply that arrived; over RPC-over-RDMA a reply that fits no chunk the call offered never
 * arrives (RDMA_ERROR ERR_CHUNK, the cause, {@link #replySize()} -1).
 */
public final class RpcReplyTooLargeException extends RpcException {

    private static final long serialVersionUID = 1L;

    private final int replySize;
    private final int maxReplySize;

    /** The reply to {@code xid} had {@code replySize} bytes, more than the call's {@code maxReplySize}. */
    public RpcReplyTooLargeException(int xid, int replySize, int maxReplySize) {
        super("the reply to xid " + Integer.toUnsignedString(xid) + " has " + replySize + " bytes, more than this"
                + " call's maximum reply size of " + maxReplySize + " bytes (the same over TCP and RPC-over-RDMA). "
                + ADVICE);
        this.replySize = replySize;
        this.maxReplySize = maxReplySize;
    }

    /**
     * The reply to {@code xid} did not fit the call's {@code maxReplySize} and the transport could not even carry it:
     * over RPC-over-RDMA the responder answered RDMA_ERROR ERR_CHUNK ({@code cause}), its size unknown here.
     */
    public RpcReplyTooLargeException(int xid, int maxReplySize, Throwable cause) {
        super("the reply to xid " + Integer.toUnsignedString(xid) + " is larger than this call's maximum reply size"
                + " of " + maxReplySize + " bytes: the responder could not convey it (" + cause.getMessage() + "). "
                + ADVICE, cause);
        this.replySize = -1;
        this.maxReplySize = maxReplySize;
    }

    /** What raises the limit; RPC-over-RDMA's ERR_CHUNK message names the same settings. */
    static final String ADVICE = "A larger reply needs a larger maximum reply size: CallOptions.withMaxReplySize(n)"
            + " for this call or the procedure's declared RpcProcedureSpec maxReplySize";

    /** The size of the reply that arrived (the whole RPC message); -1 when none arrived (RDMA_ERROR ERR_CHUNK). */
    public int replySize() {
        return replySize;
    }

    /** The call's maximum reply size. */
    public int maxReplySize() {
        return maxReplySize;
    }
}
