package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

/**
 * RFC 2203 §5.2.3.1 {@code rpc_gss_init_res}: the result of an INIT or CONTINUE_INIT call (context handle, GSS
 * major and minor status, sequence window, output token). The token is bounded by the caller's limit.
 */
final class RpcGssInitRes {

    /** GSS_S_COMPLETE and GSS_S_CONTINUE_NEEDED (RFC 2744 §3.9.1). */
    static final int GSS_S_COMPLETE = 0;
    static final int GSS_S_CONTINUE_NEEDED = 1;

    final byte[] handle;
    final int major;
    final int minor;
    final int window;
    final byte[] token;

    RpcGssInitRes(byte[] handle, int major, int minor, int window, byte[] token) {
        this.handle = handle;
        this.major = major;
        this.minor = minor;
        this.window = window;
        this.token = token;
    }

    void encode(XdrWriter out) {
        out.writeOpaque(handle).writeInt(major).writeInt(minor).writeInt(window).writeOpaque(token);
    }

    /** Decodes a result, the handle bounded like a credential's and the token by {@code maxToken}. */
    static RpcGssInitRes decode(XdrReader in, int maxToken) throws XdrException {
        byte[] handle = in.readOpaque(OpaqueAuth.MAX_BODY - 20);
        int major = in.readInt();
        int minor = in.readInt();
        int window = in.readInt();
        byte[] token = in.readOpaque(maxToken);
        return new RpcGssInitRes(handle, major, minor, window, token);
    }

    /**
     * The RFC 2744 routine-error major status (bits 16-23) of a JDK {@link org.ietf.jgss.GSSException#getMajor()}
     * (whose numbering differs).
     */
    static int rfc2744Major(int jdkMajor) {
        int routine;
        switch (jdkMajor) {
            case org.ietf.jgss.GSSException.BAD_MECH: routine = 1; break;
            case org.ietf.jgss.GSSException.BAD_NAME: routine = 2; break;
            case org.ietf.jgss.GSSException.BAD_NAMETYPE: routine = 3; break;
            case org.ietf.jgss.GSSException.BAD_BINDINGS: routine = 4; break;
            case org.ietf.jgss.GSSException.BAD_STATUS: routine = 5; break;
            case org.ietf.jgss.GSSException.BAD_MIC: routine = 6; break;
            case org.ietf.jgss.GSSException.NO_CRED: routine = 7; break;
            case org.ietf.jgss.GSSException.NO_CONTEXT: routine = 8; break;
            case org.ietf.jgss.GSSException.DEFECTIVE_TOKEN: routine = 9; break;
            case org.ietf.jgss.GSSException.DEFECTIVE_CREDENTIAL: routine = 10; break;
            case org.ietf.jgss.GSSException.CREDENTIALS_EXPIRED: routine = 11; break;
            case org.ietf.jgss.GSSException.CONTEXT_EXPIRED: routine = 12; break;
            case org.ietf.jgss.GSSException.BAD_QOP: routine = 14; break;
            case org.ietf.jgss.GSSException.UNAUTHORIZED: routine = 15; break;
            case org.ietf.jgss.GSSException.UNAVAILABLE: routine = 16; break;
            case org.ietf.jgss.GSSException.DUPLICATE_ELEMENT: routine = 17; break;
            case org.ietf.jgss.GSSException.NAME_NOT_MN: routine = 18; break;
            default: routine = 13; // GSS_S_FAILURE
        }
        return routine << 16;
    }
}
