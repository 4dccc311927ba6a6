package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.client.RpcCallSecurity;
import dev.rpcrdma.oncrpc.client.RpcException;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSException;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The calling side of an established RPCSEC_GSS context under one handle (RFC 2203 §5.3): each data call's
 * credential, header MIC and protected arguments, and each reply's verifier and protected results. Serves the
 * client's fore channel ({@link RpcGssClientContext}) and the server's callbacks on a context the client made
 * (RFC 5661 §2.10.8.2: same GSS context, the client's back handle, a sequence of its own). Thread-safe.
 */
final class GssCaller implements RpcCallSecurity {

    /** What a reply may add to the results: the largest verifier, and the integrity or privacy framing. */
    private static final int REPLY_OVERHEAD = OpaqueAuth.MAX_BODY + 128;

    /** Says whether the context may still be used; throws when not. */
    interface Liveness {
        void check() throws RpcGssException;
    }

    private final GSSContext gss;
    private final byte[] handle;
    private final RpcGssService service;
    private final Liveness liveness;
    /** The next sequence number: one per context and handle, whatever the service. */
    private final AtomicInteger nextSeq;

    GssCaller(GSSContext gss, byte[] handle, RpcGssService service, AtomicInteger nextSeq, Liveness liveness) {
        this.gss = gss;
        this.handle = handle;
        this.service = service;
        this.nextSeq = nextSeq;
        this.liveness = liveness;
    }

    RpcGssService service() {
        return service;
    }

    int nextSequence() throws RpcGssException {
        liveness.check();
        int seq = nextSeq.getAndIncrement();
        if (Integer.toUnsignedLong(seq) > RpcGssCred.MAXSEQ || seq < 0) {
            throw new RpcGssException("the RPCSEC_GSS context used up its sequence numbers: create a new one");
        }
        return seq;
    }

    /** The credential and the header MIC of a call (RFC 2203 §5.3.1). */
    OpaqueAuth[] header(int proc, int seq, int xid, int program, int version, int procedure) throws GSSException {
        OpaqueAuth cred = new RpcGssCred(proc, seq, service, handle).toOpaqueAuth();
        OpaqueAuth verifier = GssBody.mic(gss, GssBody.headerBytes(new RpcCall(xid, program, version, procedure,
                cred)));
        return new OpaqueAuth[] {cred, verifier};
    }

    @Override
    public Sealed seal(int xid, int program, int version, int procedure, int[] replyDdpItems, int maxReplySize,
                       XdrPayload args, ByteBufAllocator alloc) throws RpcException {
        XdrPayload body = null;
        try {
            int seq = nextSequence();
            OpaqueAuth[] h = header(RpcGssCred.DATA, seq, xid, program, version, procedure);
            body = GssBody.wrap(gss, service, seq, args, alloc);
            args = null;
            // RFC 8166 §8.2.2: with integrity or privacy nothing is reduced, so no reply item is placed by DDP.
            int[] items = service == RpcGssService.NONE ? replyDdpItems : new int[0];
            int max = maxReplySize > 0 ? maxReplySize + REPLY_OVERHEAD : 0;
            OutboundRpcMessage message = OutboundRpcMessage.newCall(xid, program, version, procedure, h[0], h[1],
                    items, max, body);
            body = null;
            return new Sealed(message, seq);
        } catch (GSSException e) {
            throw new RpcGssException("cannot protect the call: " + e.getMessage(), e);
        } finally {
            if (args != null) {
                args.release();
            }
            if (body != null) {
                body.release();
            }
        }
    }

    @Override
    public ByteBuf open(Object state, RpcReply reply, XdrReader results) throws RpcException {
        int seq = (Integer) state;
        checkVerifier(reply, seq);
        if (!reply.isSuccess()) {
            return null;
        }
        try {
            return GssBody.unwrap(gss, service, seq, results);
        } catch (XdrException e) {
            throw new RpcGssException("the reply's protected results do not verify: " + e.getMessage(), e);
        }
    }

    /** RFC 2203 §5.3.3.2: the reply verifier is the MIC of the call's sequence number. */
    void checkVerifier(RpcReply reply, int seq) throws RpcGssException {
        OpaqueAuth v = reply.verifier();
        if (!AuthFlavor.RPCSEC_GSS.equals(v.flavor()) || !GssBody.verifyMic(gss, v.body(), GssBody.intBytes(seq))) {
            throw new RpcGssException("the verifier of the reply to sequence number " + Integer.toUnsignedString(seq)
                    + " does not verify (" + v + ")");
        }
    }

    @Override
    public String toString() {
        return "RPCSEC_GSS(" + service + ", handle=" + handle.length + " bytes)";
    }
}
