package dev.rpcrdma.oncrpc.client;

/**
 * A reply larger than its call's maximum reply size ({@link CallOptions#withMaxReplySize(int)}, or the procedure's
 * declared {@code RpcProcedureSpec.withMaxReplySize}). Over TCP the client checks it when the reply arrives, so a
 * call behaves as over RPC-over-RDMA, where a reply that does not fit the Reply chunk the call offered fails with
 * RDMA_ERROR ERR_CHUNK ({@code RpcRdmaErrorException}) naming the same settings.
 */
public final class RpcReplyTooLargeException extends RpcException {

    private static final long serialVersionUID = 1L;

    private final int replySize;
    private final int maxReplySize;

    /** The reply to {@code xid} had {@code replySize} bytes, more than the call's {@code maxReplySize}. */
    public RpcReplyTooLargeException(int xid, int replySize, int maxReplySize) {
        super("the reply to xid " + Integer.toUnsignedString(xid) + " has " + replySize + " bytes, more than this"
                + " call's maximum reply size of " + maxReplySize + " bytes (over RPC-over-RDMA the same call fails"
                + " with RDMA_ERROR ERR_CHUNK). " + ADVICE);
        this.replySize = replySize;
        this.maxReplySize = maxReplySize;
    }

    /** What raises the limit; RPC-over-RDMA's ERR_CHUNK message names the same settings. */
    static final String ADVICE = "A larger reply needs a larger maximum reply size: CallOptions.withMaxReplySize(n)"
            + " for this call or the procedure's declared RpcProcedureSpec maxReplySize";

    /** The size of the reply that arrived (the whole RPC message). */
    public int replySize() {
        return replySize;
    }

    /** The call's maximum reply size. */
    public int maxReplySize() {
        return maxReplySize;
    }
}
