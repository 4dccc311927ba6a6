package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.oncrpc.message.MsgType;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

/**
 * The Send of the common call written in one pass: a plain RDMA_MSG header (RFC 8166 §4.1) and an RPC call header
 * with AUTH_NONE credential and verifier (RFC 5531 §9), 17 XDR words stored straight into the buffer's memory
 * after one room check, not written word by word through the buffer's bounds and accessibility checks.
 */
final class PlainCallSend {

    /** Bytes of the two headers: the transport header's seven words and the call header's ten. */
    static final int HEADERS = RpcRdmaHeader.MIN_MSG_LENGTH + 40;

    private static final int CALL = MsgType.CALL.intValue();
    private static final int RDMA_MSG = RdmaProcedure.RDMA_MSG.intValue();
    /** Raw 64-bit stores at any address (else the buffer's own writes, which take care of alignment). */
    private static final boolean RAW = PlatformDependent.hasUnsafe() && PlatformDependent.isUnaligned();

    private PlainCallSend() {
    }

    /** Whether {@code call}'s header is the common one: RPC version 2, AUTH_NONE credential and verifier, empty. */
    static boolean isCommon(RpcCall call) {
        return call.rpcvers() == RpcCall.RPC_VERSION && isNone(call.credential()) && isNone(call.verifier());
    }

    private static boolean isNone(OpaqueAuth auth) {
        return auth == OpaqueAuth.NONE || auth.flavor().intValue() == 0 && auth.bodyLength() == 0;
    }

    /**
     * Writes the {@link #HEADERS} bytes of a common call ({@link #isCommon}) with {@code credits} requested at the
     * writer index of {@code out}, as {@link RpcRdmaHeaderEncoder#encodePlainMsg} and
     * {@link RpcMessageCodec#encodeHeader} would.
     */
    static void write(int credits, RpcCall call, ByteBuf out) {
        int at = out.writerIndex();
        if (!RAW || !out.hasMemoryAddress() || out.capacity() - at < HEADERS) {
            RpcRdmaHeaderEncoder.encodePlainMsg(call.xid(), credits, out);
            RpcMessageCodec.encodeHeader(call, out);
            return;
        }
        int xid = call.xid();
        long a = out.memoryAddress() + at;
        put(a, words(xid, RpcRdmaHeader.VERSION_1));
        put(a + 8, words(credits, RDMA_MSG));
        put(a + 16, 0); // Read list and Write list: empty
        put(a + 24, words(0, xid)); // no Reply chunk; the call's xid
        put(a + 32, words(CALL, RpcCall.RPC_VERSION));
        put(a + 40, words(call.program(), call.version()));
        put(a + 48, words(call.procedure(), 0)); // credential: AUTH_NONE
        put(a + 56, 0); // its length 0, verifier AUTH_NONE
        PlatformDependent.putInt(a + 64, 0); // its length 0
        out.writerIndex(at + HEADERS);
    }

    private static void put(long address, long bigEndian) {
        PlatformDependent.putLong(address, PlatformDependent.BIG_ENDIAN_NATIVE_ORDER ? bigEndian
                : Long.reverseBytes(bigEndian));
    }

    /** Two XDR words as one big-endian long: {@code first} then {@code second}. */
    private static long words(int first, int second) {
        return (long) first << 32 | second & 0xffffffffL;
    }
}
