package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * RFC 2203 §5 {@code rpc_gss_cred_t} version 1: the body of an RPCSEC_GSS credential (gss_proc, seq_num, service,
 * context handle). Decoded from an {@link OpaqueAuth} body (at most 400 bytes, RFC 5531 §8.2), so every length in
 * it is bounded before anything is allocated. Immutable.
 */
final class RpcGssCred {

    /** {@code RPCSEC_GSS_VERS_1}. */
    static final int VERSION = 1;
    /** {@code rpc_gss_proc_t}. */
    static final int DATA = 0;
    static final int INIT = 1;
    static final int CONTINUE_INIT = 2;
    static final int DESTROY = 3;
    /** RFC 2203 §5.3.3.1: sequence numbers above this are refused (RPCSEC_GSS_CTXPROBLEM). */
    static final long MAXSEQ = 0x80000000L;

    private static final byte[] NO_HANDLE = new byte[0];

    final int proc;
    final int seq;
    final RpcGssService service;
    final byte[] handle;

    RpcGssCred(int proc, int seq, RpcGssService service, byte[] handle) {
        this.proc = proc;
        this.seq = seq;
        this.service = service;
        this.handle = handle;
    }

    /**
     * Decodes a credential body.
     *
     * @throws XdrException truncated, trailing bytes, a version other than 1, an unknown gss_proc or service
     */
    static RpcGssCred decode(byte[] body) throws XdrException {
        XdrReader in = new XdrReader(Unpooled.wrappedBuffer(body));
        int version = in.readInt();
        if (version != VERSION) {
            throw new XdrException("RPCSEC_GSS credential version " + version + " (only 1)");
        }
        int proc = in.readInt();
        if (proc < DATA || proc > DESTROY) {
            throw new XdrException("unknown gss_proc " + proc);
        }
        int seq = in.readInt();
        int serviceValue = in.readInt();
        RpcGssService service = RpcGssService.valueOf(serviceValue);
        if (service == null) {
            throw new XdrException("unknown rpc_gss_service " + serviceValue);
        }
        byte[] handle = in.readOpaque(OpaqueAuth.MAX_BODY);
        if (in.readableBytes() != 0) {
            throw new XdrException(in.readableBytes() + " bytes after the RPCSEC_GSS credential");
        }
        return new RpcGssCred(proc, seq, service, handle.length == 0 ? NO_HANDLE : handle);
    }

    /** This credential as an RPCSEC_GSS {@code opaque_auth}. */
    OpaqueAuth toOpaqueAuth() {
        ByteBuf out = Unpooled.buffer(20 + handle.length + 3);
        out.writeInt(VERSION).writeInt(proc).writeInt(seq).writeInt(service.intValue()).writeInt(handle.length)
                .writeBytes(handle).writeZero(-handle.length & 3);
        byte[] body = new byte[out.readableBytes()];
        out.readBytes(body);
        return OpaqueAuth.of(AuthFlavor.RPCSEC_GSS, body);
    }

    static String procName(int proc) {
        switch (proc) {
            case DATA:
                return "DATA";
            case INIT:
                return "INIT";
            case CONTINUE_INIT:
                return "CONTINUE_INIT";
            case DESTROY:
                return "DESTROY";
            default:
                return "proc(" + proc + ')';
        }
    }

    @Override
    public String toString() {
        return "RpcGssCred(" + procName(proc) + ", seq=" + Integer.toUnsignedString(seq) + ", " + service
                + ", handle=" + handle.length + " bytes)";
    }
}
