package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBufAllocator;

/**
 * How one call was authenticated by an {@link RpcAuthenticator}, and how its reply is protected: the reply's
 * verifier and, for a SUCCESS, its results (RFC 2203 §5.3.3.2: the MIC of the sequence number; integrity or
 * privacy of the results). {@link RpcCallContext} answers through it; its methods may run on any thread.
 */
public interface RpcCallAuth {

    /** The flavor the call came with (e.g. {@link AuthFlavor#RPCSEC_GSS}). */
    AuthFlavor flavor();

    /** What protects the arguments and the results. */
    RpcProtection protection();

    /** The authenticated principal's name (e.g. {@code alice@EXAMPLE.ORG}). */
    String principal();

    /** The caller identity the service sees (what the authenticator's identity mapper made of the principal). */
    Object identity();

    /**
     * The MSG_ACCEPTED reply to {@code xid} with {@code stat} (not PROG_MISMATCH) and, for SUCCESS,
     * {@code results}, protected; takes ownership of {@code results} (which may be the shared
     * {@link XdrPayload#empty()}: read it, never write into it). Never throws: a reply that cannot be protected
     * becomes the flavor's AUTH_ERROR.
     */
    OutboundRpcMessage protect(int xid, AcceptStat stat, XdrPayload results, ByteBufAllocator alloc);

    /** {@code reply} (any reply header: PROG_MISMATCH, MSG_DENIED...) with this flavor's verifier where it has one. */
    RpcReply protect(RpcReply reply);
}
