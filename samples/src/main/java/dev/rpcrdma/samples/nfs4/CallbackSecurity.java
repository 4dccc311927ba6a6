package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The callback security a client offers in CREATE_SESSION's csa_sec_parms (RFC 5661 §18.36.3) and
 * BACKCHANNEL_CTL's bca_sec_parms (§18.33): the server MUST put one of them in the RPC header of its callbacks.
 * This server cannot make RPCSEC_GSS calls, so it picks the first AUTH_SYS credential offered, exactly as the
 * client gave it (the Linux callback service accepts nothing weaker for CB_COMPOUND), else AUTH_NONE if offered,
 * else nothing: a session without a usable credential gets no delegations (nothing would recall them).
 * Stateless.
 */
final class CallbackSecurity {
    private CallbackSecurity() {
    }

    private static final int MAX_PARMS = 16;
    private static final int MAX_GSS_HANDLE = 1024;

    /**
     * Decodes {@code callback_sec_parms4<>} and returns the credential callbacks will carry, or null if none of
     * the offered ones is usable. A flavor other than AUTH_NONE, AUTH_SYS or RPCSEC_GSS is INVAL.
     */
    static OpaqueAuth decode(XdrReader in) throws XdrException, Nfs4Exception {
        int n = in.readArrayLength(MAX_PARMS, 4);
        OpaqueAuth sys = null;
        boolean none = false;
        for (int i = 0; i < n; i++) {
            int flavor = in.readInt();
            if (flavor == AuthFlavor.AUTH_SYS.intValue()) {
                OpaqueAuth cred = authSys(in);
                if (sys == null) {
                    sys = cred;
                }
            } else if (flavor == AuthFlavor.RPCSEC_GSS.intValue()) {
                in.readInt(); // gcbp_service
                in.skipOpaque(MAX_GSS_HANDLE);
                in.skipOpaque(MAX_GSS_HANDLE);
            } else if (flavor == AuthFlavor.AUTH_NONE.intValue()) {
                none = true;
            } else {
                throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL, "callback flavor " + flavor);
            }
        }
        return sys != null ? sys : none ? OpaqueAuth.NONE : null;
    }

    /** {@code authsys_parms} (RFC 5531 Appendix A), re-encoded byte for byte as the body of an AUTH_SYS credential. */
    private static OpaqueAuth authSys(XdrReader in) throws XdrException {
        int stamp = in.readInt();
        byte[] machine = in.readOpaque(255);
        int uid = in.readInt();
        int gid = in.readInt();
        int[] gids = new int[in.readArrayLength(16, 4)];
        for (int g = 0; g < gids.length; g++) {
            gids[g] = in.readInt();
        }
        ByteBuf body = Unpooled.buffer(20 + machine.length + 4 * gids.length);
        XdrWriter w = new XdrWriter(body);
        w.writeInt(stamp).writeOpaque(machine).writeInt(uid).writeInt(gid).writeInt(gids.length);
        for (int g : gids) {
            w.writeInt(g);
        }
        byte[] bytes = new byte[body.readableBytes()];
        body.readBytes(bytes);
        return OpaqueAuth.of(AuthFlavor.AUTH_SYS, bytes);
    }

    /** The encoded size of a call header carrying {@code cred} and an AUTH_NONE verifier (RFC 5531 §9). */
    static int callHeaderSize(OpaqueAuth cred) {
        return 6 * 4 + 8 + ((cred.bodyLength() + 3) & ~3) + 8;
    }
}
