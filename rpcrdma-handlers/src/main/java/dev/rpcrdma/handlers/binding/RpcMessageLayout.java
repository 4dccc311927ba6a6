package dev.rpcrdma.handlers.binding;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.buffer.ByteBuf;

/**
 * Where the arguments of an RPC call and the results of an RPC reply start in a whole RPC message's bytes (RFC 5531
 * §9: the call header with its credential and verifier; the accepted reply's verifier and accept_stat), read with
 * bounds checks. Stateless.
 */
public final class RpcMessageLayout {
    /** RFC 5531 §8.2: opaque_auth bodies are at most 400 bytes. */
    static final int MAX_AUTH_BODY = 400;
    /** Offset of the program number in a call. */
    public static final int PROGRAM = 12;
    /** Offset of the version number in a call. */
    public static final int VERSION = 16;
    /** Offset of the procedure number in a call. */
    public static final int PROCEDURE = 20;
    /** The shortest RPC call: six words, then two empty opaque_auth. */
    public static final int MIN_CALL = 40;

    private RpcMessageLayout() {
    }

    /** The offset of a call's arguments from the reader index (after credential and verifier). */
    public static int arguments(ByteBuf call) throws XdrException {
        XdrCursor c = new XdrCursor(call);
        c.skip(PROCEDURE + 4);
        c.readInt();
        c.skipOpaque(MAX_AUTH_BODY);
        c.readInt();
        c.skipOpaque(MAX_AUTH_BODY);
        return c.position();
    }

    /**
     * The offset of an accepted, successful reply's results from the reader index, or -1 when the reply carries no
     * results (denied, or accepted with an accept_stat other than SUCCESS).
     */
    public static int results(ByteBuf reply) throws XdrException {
        XdrCursor c = new XdrCursor(reply);
        c.skip(8); // xid, msg_type
        if (c.readInt() != 0) {
            return -1; // MSG_DENIED
        }
        c.readInt();
        c.skipOpaque(MAX_AUTH_BODY);
        return c.readInt() == 0 ? c.position() : -1;
    }
}
