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
 * The requester's commonest messages as raw XDR words: the Send of a call (a plain RDMA_MSG header, RFC 8166 §4.1,
 * and an RPC call header with AUTH_NONE credential and verifier, RFC 5531 §9) stored in one pass, and the headers of
 * its reply (the same RDMA_MSG header and a MSG_ACCEPTED SUCCESS reply header with an AUTH_NONE verifier) checked in
 * one pass, each after one room check instead of one bounds and accessibility check per word.
 */
final class PlainWords {

    /** Bytes of a common call's two headers: the transport header's seven words and the call header's ten. */
    static final int CALL_HEADERS = RpcRdmaHeader.MIN_MSG_LENGTH + 40;
    /** Bytes of a common reply's two headers: seven words and six. */
    static final int REPLY_HEADERS = RpcRdmaHeader.MIN_MSG_LENGTH + 24;

    private static final int CALL = MsgType.CALL.intValue();
    private static final int REPLY = MsgType.REPLY.intValue();
    private static final int RDMA_MSG = RdmaProcedure.RDMA_MSG.intValue();
    /** Raw 64-bit loads and stores at any address (else the buffers' own reads and writes). */
    private static final boolean RAW = PlatformDependent.hasUnsafe() && PlatformDependent.isUnaligned();

    private PlainWords() {
    }

    /** Whether {@code call}'s header is the common one: RPC version 2, AUTH_NONE credential and verifier, empty. */
    static boolean isCommonCall(RpcCall call) {
        return call.rpcvers() == RpcCall.RPC_VERSION && isNone(call.credential()) && isNone(call.verifier());
    }

    private static boolean isNone(OpaqueAuth auth) {
        return auth == OpaqueAuth.NONE || auth.flavor().intValue() == 0 && auth.bodyLength() == 0;
    }

    /**
     * Writes the {@link #CALL_HEADERS} bytes of a common call ({@link #isCommonCall}) requesting {@code credits} at
     * the writer index of {@code out}, as {@link RpcRdmaHeaderEncoder#encodePlainMsg} and
     * {@link RpcMessageCodec#encodeHeader} write them.
     */
    static void writeCall(int credits, RpcCall call, ByteBuf out) {
        int at = out.writerIndex();
        if (!RAW || !out.hasMemoryAddress() || out.capacity() - at < CALL_HEADERS) {
            RpcRdmaHeaderEncoder.encodePlainMsg(call.xid(), credits, out);
            RpcMessageCodec.encodeHeader(call, out);
            return;
        }
        int xid = call.xid();
        long a = out.memoryAddress() + at;
        put(a, words(xid, RpcRdmaHeader.VERSION_1));
        put(a + 8, words(credits, RDMA_MSG));
        put(a + 16, 0); // Read list and Write list: empty
        put(a + 24, words(0, xid)); // no Reply chunk; the RPC message's xid
        put(a + 32, words(CALL, RpcCall.RPC_VERSION));
        put(a + 40, words(call.program(), call.version()));
        put(a + 48, words(call.procedure(), 0)); // the credential's flavor: AUTH_NONE
        put(a + 56, 0); // its length 0; the verifier's flavor AUTH_NONE
        PlatformDependent.putInt(a + 64, 0); // its length 0
        out.writerIndex(at + CALL_HEADERS);
    }

    /**
     * The memory address of the headers at the reader index of {@code in} when they are a common reply's: a plain
     * RDMA_MSG header (version 1, no chunk lists) followed by an RPC REPLY with rdma_xid as its xid, MSG_ACCEPTED, an
     * empty AUTH_NONE verifier and SUCCESS ({@link #REPLY_HEADERS} bytes); else 0, having read nothing that matters.
     */
    static long commonReply(ByteBuf in) {
        int at = in.readerIndex();
        if (!RAW || in.writerIndex() - at < REPLY_HEADERS || !in.hasMemoryAddress()) {
            return 0;
        }
        long a = in.memoryAddress() + at;
        long w0 = get(a); // rdma_xid, rdma_vers
        int xid = (int) (w0 >>> 32);
        return (int) w0 == RpcRdmaHeader.VERSION_1
                && (int) get(a + 8) == RDMA_MSG // rdma_credit, rdma_proc
                && get(a + 16) == 0 // Read list and Write list: empty
                && get(a + 24) == words(0, xid) // no Reply chunk; the RPC message's xid
                && get(a + 32) == words(REPLY, 0) // MSG_ACCEPTED
                && get(a + 40) == 0 // the verifier: AUTH_NONE, length 0
                && PlatformDependent.getInt(a + 48) == 0 // SUCCESS
                ? a : 0;
    }

    /** The rdma_xid of the common reply at {@code address} ({@link #commonReply}). */
    static int xid(long address) {
        return (int) (get(address) >>> 32);
    }

    /** The rdma_credit of the common reply at {@code address} ({@link #commonReply}). */
    static int credits(long address) {
        return (int) (get(address + 8) >>> 32);
    }

    private static void put(long address, long bigEndian) {
        PlatformDependent.putLong(address, PlatformDependent.BIG_ENDIAN_NATIVE_ORDER ? bigEndian
                : Long.reverseBytes(bigEndian));
    }

    private static long get(long address) {
        long v = PlatformDependent.getLong(address);
        return PlatformDependent.BIG_ENDIAN_NATIVE_ORDER ? v : Long.reverseBytes(v);
    }

    /** Two XDR words as one big-endian long: {@code first} then {@code second}. */
    private static long words(int first, int second) {
        return (long) first << 32 | second & 0xffffffffL;
    }
}
