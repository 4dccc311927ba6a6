package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcCallSecurity;
import dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The security of a session's callbacks, chosen from what the client offers in CREATE_SESSION's csa_sec_parms
 * (RFC 5661 §18.36.3) or BACKCHANNEL_CTL's bca_sec_parms (§18.33): the server MUST put one of them in the RPC
 * header of its callbacks. An RPCSEC_GSS offer ({@code gss_cb_handles4}, §2.10.8.2) is preferred: callbacks then
 * run on the client's context under its back handle and service; else the first AUTH_SYS credential offered,
 * exactly as the client gave it (the Linux callback service accepts nothing weaker for CB_COMPOUND); else
 * AUTH_NONE if offered; else none: a session without a usable credential gets no delegations (nothing would recall
 * them). Immutable; the GSS security keeps the callbacks' sequence.
 */
final class CallbackSecurity {

    private static final int MAX_PARMS = 16;
    private static final int MAX_GSS_HANDLE = 1024;
    /**
     * Room for a Kerberos V5 MIC as verifier (RFC 4121 §4.2.6.1: a 16-byte header and a checksum of at most 24
     * bytes with the AES and Camellia enctypes).
     */
    private static final int GSS_VERIFIER = 64;
    /** Room for the integrity or privacy framing of the body (lengths, sequence number, MIC or wrap token). */
    private static final int GSS_BODY = 96;

    static final CallbackSecurity NONE = new CallbackSecurity(OpaqueAuth.NONE, null, 0);

    private final OpaqueAuth credential;
    private final RpcCallSecurity gss;
    private final int headerSize;

    private CallbackSecurity(OpaqueAuth credential, RpcCallSecurity gss, int headerSize) {
        this.credential = credential;
        this.gss = gss;
        this.headerSize = headerSize != 0 ? headerSize : 6 * 4 + 8 + ((credential.bodyLength() + 3) & ~3) + 8;
    }

    /**
     * Decodes {@code callback_sec_parms4<>} and returns the security callbacks will carry, or null if none of the
     * offered ones is usable. A flavor other than AUTH_NONE, AUTH_SYS or RPCSEC_GSS, or an unknown gcbp_service, is
     * INVAL; an RPCSEC_GSS handle this server did not make (or no longer has) is NOENT (§18.36.3); {@code gss} is
     * the server's authenticator, null when the export has no Kerberos flavor.
     */
    static CallbackSecurity decode(XdrReader in, RpcGssAuthenticator gss) throws XdrException, Nfs4Exception {
        int n = in.readArrayLength(MAX_PARMS, 4);
        CallbackSecurity chosen = null;
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
                int serviceValue = in.readInt();
                byte[] fromServer = in.readOpaque(MAX_GSS_HANDLE);
                byte[] fromClient = in.readOpaque(MAX_GSS_HANDLE);
                RpcGssService service = RpcGssService.valueOf(serviceValue);
                if (service == null || fromClient.length == 0 || fromClient.length > OpaqueAuth.MAX_BODY - 20) {
                    throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL, "gss_cb_handles4: service " + serviceValue
                            + ", back handle of " + fromClient.length + " bytes");
                }
                RpcCallSecurity security = gss != null ? gss.callbackSecurity(fromServer, fromClient, service) : null;
                if (security == null) {
                    throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT, "no RPCSEC_GSS context of the offered handle");
                }
                if (chosen == null) {
                    int cred = 20 + ((fromClient.length + 3) & ~3);
                    chosen = new CallbackSecurity(null, security, 6 * 4 + 8 + cred + 8 + GSS_VERIFIER
                            + (service == RpcGssService.NONE ? 0 : GSS_BODY));
                }
            } else if (flavor == AuthFlavor.AUTH_NONE.intValue()) {
                none = true;
            } else {
                throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL, "callback flavor " + flavor);
            }
        }
        if (chosen != null) {
            return chosen;
        }
        return sys != null ? new CallbackSecurity(sys, null, 0) : none ? NONE : null;
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

    /** {@code base} with this security. */
    CallOptions options(CallOptions base) {
        return gss != null ? base.withSecurity(gss) : base.withCredential(credential);
    }

    /** The largest call header (and body protection) callbacks add to their arguments. */
    int headerSize() {
        return headerSize;
    }

    @Override
    public String toString() {
        return gss != null ? gss.toString() : credential.flavor().toString();
    }
}
