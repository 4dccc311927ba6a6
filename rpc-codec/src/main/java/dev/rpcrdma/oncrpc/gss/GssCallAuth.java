package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.server.RpcCallAuth;
import dev.rpcrdma.oncrpc.server.RpcProtection;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.ietf.jgss.GSSException;

/**
 * One call an RPCSEC_GSS context accepted: its sequence number and service, and how its reply is protected (the
 * MIC of the sequence number as verifier, RFC 2203 §5.3.3.2; the results wrapped as the call's service says).
 */
final class GssCallAuth implements RpcCallAuth {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(GssCallAuth.class);

    private final GssServerContext context;
    private final int seq;
    private final RpcGssService service;

    GssCallAuth(GssServerContext context, int seq, RpcGssService service) {
        this.context = context;
        this.seq = seq;
        this.service = service;
    }

    @Override
    public AuthFlavor flavor() {
        return AuthFlavor.RPCSEC_GSS;
    }

    @Override
    public RpcProtection protection() {
        return service.protection();
    }

    @Override
    public String principal() {
        return context.principal();
    }

    @Override
    public Object identity() {
        return context.identity();
    }

    /** The RPCSEC_GSS service of the call. */
    RpcGssService service() {
        return service;
    }

    @Override
    public OutboundRpcMessage protect(int xid, AcceptStat stat, XdrPayload results, ByteBufAllocator alloc) {
        OpaqueAuth verifier;
        XdrPayload body;
        try {
            verifier = GssBody.mic(context.gss, GssBody.intBytes(seq));
            body = AcceptStat.SUCCESS.equals(stat) ? GssBody.wrap(context.gss, service, seq, results, alloc)
                    : results;
        } catch (GSSException | RuntimeException e) {
            // The context went away (expired, disposed) between the call and its reply.
            results.release();
            logger.warn("{}: reply to xid {} cannot be protected: {}", context, Integer.toUnsignedString(xid),
                    e.toString());
            return new OutboundRpcMessage(RpcReply.authError(xid, AuthStat.RPCSEC_GSS_CTXPROBLEM),
                    XdrPayload.empty());
        }
        return OutboundRpcMessage.newReply(xid, verifier, stat, body);
    }

    @Override
    public RpcReply protect(RpcReply reply) {
        try {
            return reply.withVerifier(GssBody.mic(context.gss, GssBody.intBytes(seq)));
        } catch (GSSException | RuntimeException e) {
            logger.warn("{}: reply {} cannot be protected: {}", context, reply, e.toString());
            return RpcReply.authError(reply.xid(), AuthStat.RPCSEC_GSS_CTXPROBLEM);
        }
    }

    @Override
    public String toString() {
        return "RPCSEC_GSS(" + service + ", " + context.principal() + ", seq=" + Integer.toUnsignedString(seq) + ')';
    }
}
