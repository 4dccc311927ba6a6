package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.oncrpc.client.RpcReplyTooLargeException;

/** The exception a call answered with RDMA_ERROR (RFC 8166 §4.5) fails with. */
final class RdmaErrorCause {

    private RdmaErrorCause() {
    }

    /**
     * An {@link RpcRdmaErrorException} for {@code rpc}'s RDMA_ERROR {@code header}; an ERR_CHUNK to a call that
     * declared its maximum reply size fails as the same call fails over TCP ({@link RpcReplyTooLargeException}).
     */
    static Throwable of(RpcRdmaHeader header, RequesterCall rpc, int configuredMaxReply) {
        Throwable cause = new RpcRdmaErrorException(rpc.xid, header.errorCode(), header.lowVersion(),
                header.highVersion(), detail(header, rpc, configuredMaxReply));
        if (RdmaErrorCode.ERR_CHUNK.equals(header.errorCode()) && rpc.declaredMaxReply > 0) {
            cause = new RpcReplyTooLargeException(rpc.xid, rpc.declaredMaxReply, cause);
        }
        return cause;
    }

    /**
     * What an ERR_CHUNK most likely means for {@code rpc} (RFC 8166 §4.5.3: the reply did not fit the chunks it
     * offered) and which setting raises the limit; null for other errors.
     */
    private static String detail(RpcRdmaHeader header, RequesterCall rpc, int configuredMaxReply) {
        if (!RdmaErrorCode.ERR_CHUNK.equals(header.errorCode())) {
            return null;
        }
        long offered = rpc.replyChunk != null ? rpc.replyChunk.totalLength() : 0;
        return "the responder could not convey the reply (or use the call's chunks); this call offered "
                + (offered > 0 ? "a Reply chunk of " + offered + " bytes" : "no Reply chunk")
                + ". A larger reply needs a larger maximum reply size: CallOptions.withMaxReplySize(n) for this call,"
                + " the procedure's declared RpcProcedureSpec maxReplySize, or RpcRdmaConfig.withMaxReplySize(n) for"
                + " the connection (now " + configuredMaxReply + " bytes)";
    }
}
