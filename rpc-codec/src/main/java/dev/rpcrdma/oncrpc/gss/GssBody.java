package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.MessageProp;

/**
 * The per-message protections of RFC 2203 on a {@link GSSContext}, for both sides: the header MIC (§5.3.1), the
 * sequence-number MIC of replies (§5.3.3.2), and the integrity and privacy bodies (§5.3.2:
 * {@code rpc_gss_integ_data}, {@code rpc_gss_priv_data}). Every operation holds the context's lock (the JDK's
 * contexts are not meant for concurrent use; one context serves several connections).
 */
final class GssBody {

    /** Longest MIC or verifier token accepted (a verifier is an opaque_auth body: RFC 5531 §8.2). */
    static final int MAX_MIC = OpaqueAuth.MAX_BODY;

    private GssBody() {
    }

    /** The bytes of a call header from xid up to and including the credential (RFC 2203 §5.3.1). */
    static byte[] headerBytes(RpcCall call) {
        OpaqueAuth cred = call.credential();
        int padded = (cred.bodyLength() + 3) & ~3;
        byte[] header = new byte[32 + padded];
        Unpooled.wrappedBuffer(header).writerIndex(0)
                .writeInt(call.xid()).writeInt(0).writeInt(call.rpcvers()).writeInt(call.program())
                .writeInt(call.version()).writeInt(call.procedure()).writeInt(cred.flavor().intValue())
                .writeInt(cred.bodyLength()).writeBytes(cred.body()); // the pad stays zero
        return header;
    }

    static byte[] intBytes(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** The pad of an opaque of {@code length} bytes, then {@code next} as an opaque (length, bytes, pad). */
    private static byte[] opaqueTail(int length, byte[] next) {
        int pad = (4 - (length & 3)) & 3;
        byte[] tail = new byte[pad + 4 + ((next.length + 3) & ~3)];
        ByteBuf t = Unpooled.wrappedBuffer(tail).writerIndex(pad);
        t.writeInt(next.length).writeBytes(next);
        return tail;
    }

    static OpaqueAuth mic(GSSContext gss, byte[] data) throws GSSException {
        byte[] token;
        synchronized (gss) {
            token = gss.getMIC(data, 0, data.length, new MessageProp(0, false));
        }
        return OpaqueAuth.of(AuthFlavor.RPCSEC_GSS, token);
    }

    /** Whether {@code token} is a valid MIC of {@code data}. */
    static boolean verifyMic(GSSContext gss, byte[] token, byte[] data) {
        try {
            synchronized (gss) {
                gss.verifyMIC(token, 0, token.length, data, 0, data.length, new MessageProp(0, false));
            }
            return true;
        } catch (GSSException | RuntimeException e) {
            // RuntimeException: the mechanism's parser tripped over a malformed token.
            return false;
        }
    }

    /**
     * {@code seq} and {@code body} (every DDP item inline: an integrity or privacy body is never reduced, RFC 8166
     * §8.2.2) protected by {@code service} into a new payload; releases {@code body}. NONE returns {@code body}.
     */
    static XdrPayload wrap(GSSContext gss, RpcGssService service, int seq, XdrPayload body, ByteBufAllocator alloc)
            throws GSSException {
        if (service == RpcGssService.NONE) {
            return body;
        }
        byte[] data;
        try {
            data = new byte[4 + body.inlineLength()];
            ByteBuf plain = Unpooled.wrappedBuffer(data).writerIndex(0);
            plain.writeInt(seq);
            body.writeInline(plain);
        } finally {
            body.release();
        }
        // The protected body is not copied again (RFC 8166 §8.2.2 sends it whole, inline or as a Long Call or
        // Reply, so the transport copies it once into its own buffers anyway): the payload wraps the arrays.
        if (service == RpcGssService.INTEGRITY) {
            byte[] mic;
            synchronized (gss) {
                mic = gss.getMIC(data, 0, data.length, new MessageProp(0, false));
            }
            // rpc_gss_integ_data
            return XdrPayload.wrap(alloc, Unpooled.wrappedBuffer(
                    Unpooled.wrappedBuffer(intBytes(data.length)), Unpooled.wrappedBuffer(data),
                    Unpooled.wrappedBuffer(opaqueTail(data.length, mic))));
        }
        byte[] sealed;
        MessageProp prop = new MessageProp(0, true);
        synchronized (gss) {
            sealed = gss.wrap(data, 0, data.length, prop);
        }
        if (!prop.getPrivacy()) {
            // The context has no confidentiality (its initiator did not ask for it): never send in clear.
            throw new GSSException(GSSException.UNAVAILABLE, 0, "the GSS context cannot encrypt");
        }
        // rpc_gss_priv_data: the wrap token as the opaque
        return XdrPayload.wrap(alloc, Unpooled.wrappedBuffer(
                Unpooled.wrappedBuffer(intBytes(sealed.length)), Unpooled.wrappedBuffer(sealed),
                Unpooled.wrappedBuffer(new byte[(4 - (sealed.length & 3)) & 3])));
    }

    /**
     * The body {@code in} carries under {@code service} unprotected, checked against {@code seq}: a new buffer the
     * caller releases (NONE: null, read {@code in} as it is). Lengths are bounded by the bytes received.
     *
     * @throws XdrException malformed, a checksum or seal that does not verify, or another sequence number
     */
    static ByteBuf unwrap(GSSContext gss, RpcGssService service, int seq, XdrReader in) throws XdrException {
        if (service == RpcGssService.NONE) {
            return null;
        }
        byte[] data;
        if (service == RpcGssService.INTEGRITY) {
            data = in.readOpaque(in.readableBytes());
            byte[] mic = in.readOpaque(MAX_MIC);
            if (!verifyMic(gss, mic, data)) {
                throw new XdrException("the rpc_gss_integ_data checksum does not verify");
            }
        } else {
            byte[] sealed = in.readOpaque(in.readableBytes());
            MessageProp prop = new MessageProp(0, true);
            try {
                synchronized (gss) {
                    data = gss.unwrap(sealed, 0, sealed.length, prop);
                }
            } catch (GSSException | RuntimeException e) {
                throw new XdrException("the rpc_gss_priv_data does not unwrap: " + e);
            }
            if (!prop.getPrivacy()) {
                throw new XdrException("the rpc_gss_priv_data was not encrypted");
            }
        }
        if (data.length < 4) {
            throw new XdrException("a protected body of " + data.length + " bytes has no sequence number");
        }
        ByteBuf body = Unpooled.wrappedBuffer(data);
        int bodySeq = body.readInt();
        if (bodySeq != seq) {
            throw new XdrException("the protected body's sequence number " + Integer.toUnsignedString(bodySeq)
                    + " is not the credential's " + Integer.toUnsignedString(seq));
        }
        return body;
    }
}
