package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.Xdr;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;

/**
 * RFC 5531 §9 {@code rpc_msg} encoding and decoding as plain functions, independent of any pipeline: the TCP
 * handlers call them on a reassembled record, the RPC-over-RDMA handlers on a reassembled inline stream plus
 * the data placed by chunks.
 */
public final class RpcMessageCodec {

    /** Bytes of the smallest valid message (a reply with MSG_DENIED AUTH_ERROR: 5 words). */
    public static final int MIN_MESSAGE = 20;
    /** No reply hints on a decoded call. */
    private static final int[] NO_ITEMS = new int[0];
    private static final int CALL = 0;
    private static final int REPLY = 1;
    /** Bytes of a version-2 call header with AUTH_NONE credential and verifier (xid to the verifier's length). */
    private static final int CALL_COMMON = 40;
    /** Bytes of a MSG_ACCEPTED SUCCESS reply header with an AUTH_NONE verifier. */
    private static final int REPLY_COMMON = 24;

    private RpcMessageCodec() {
    }

    /**
     * Decodes one RPC message. Takes ownership of {@code record} and of every buffer in {@code placed} (the data
     * of DDP-eligible items already placed by an RDMA transport: one slot per item in stream order, an empty buffer
     * for an item that was not placed and is inline, see {@link XdrReader#readDdpOpaque(int)}; empty over TCP):
     * they belong to
     * the returned message, or are released here if decoding fails.
     *
     * @throws XdrException the header cannot be decoded (truncated, unknown msg_type / reply_stat /
     *                      accept_stat / reject_stat). The caller logs, counts and drops the message.
     */
    public static InboundRpcMessage decode(ByteBuf record, Collection<ByteBuf> placed) throws XdrException {
        // Nothing placed (every inline RPC-over-RDMA message): no deque, as over TCP.
        return placed.isEmpty() ? decode(record, null, null) : decode(record, new ArrayDeque<>(placed), placed);
    }

    /**
     * The message of a MSG_ACCEPTED SUCCESS reply to {@code xid} with an empty AUTH_NONE verifier, for a transport
     * that has already read and checked its header (six words: {@code xid}, REPLY, MSG_ACCEPTED, AUTH_NONE, 0,
     * SUCCESS; e.g. together with its own header in one pass): {@code record} (owned) holds the whole message at its
     * reader index, and the returned message is what {@link #decode(ByteBuf)} returns for it, without reading the
     * header again.
     */
    public static InboundRpcMessage successReply(int xid, ByteBuf record) {
        InboundRpcMessage message = InboundRpcMessage.pooled(record, null);
        try {
            record.skipBytes(REPLY_COMMON);
        } catch (RuntimeException e) {
            message.discard(); // fewer bytes than the header the caller said it checked: the record stays its own
            throw e;
        }
        return message.header(reply(true, xid, ReplyStat.MSG_ACCEPTED, OpaqueAuth.NONE, AcceptStat.SUCCESS, null,
                null, 0, 0));
    }

    /** {@link #decode(ByteBuf, Collection)} without placed data (TCP): no deque is allocated. */
    public static InboundRpcMessage decode(ByteBuf record) throws XdrException {
        return decode(record, null, null);
    }

    private static InboundRpcMessage decode(ByteBuf record, Deque<ByteBuf> deque, Collection<ByteBuf> placed)
            throws XdrException {
        InboundRpcMessage message = InboundRpcMessage.pooled(record, deque);
        try {
            return message.header(decodeHeader(message.body(), true));
        } catch (XdrException | RuntimeException e) {
            message.discard();
            record.release();
            if (placed != null) {
                for (ByteBuf b : placed) {
                    b.release();
                }
            }
            throw e;
        }
    }

    /**
     * Decodes an rpc_msg header, leaving {@code in} at the first byte of the arguments or results. A call with
     * rpcvers != 2 is returned with only xid and rpcvers set (RFC 5531 §9: the rest may differ). A call whose
     * credential or verifier body exceeds 400 bytes is returned with {@link RpcCall#authError()} set to
     * AUTH_BADCRED / AUTH_BADVERF, the body not read. The result is an immutable value.
     */
    public static RpcMessage decodeHeader(XdrReader in) throws XdrException {
        return decodeHeader(in, false);
    }

    /** {@link #decodeHeader(XdrReader)} into a pooled header (for a pooled message) or a value. */
    private static RpcMessage decodeHeader(XdrReader in, boolean pooled) throws XdrException {
        RpcMessage common = decodeCommon(in.buffer(), pooled);
        if (common != null) {
            return common;
        }
        int xid = in.readInt();
        MsgType type = MsgType.valueOf(in.readEnum());
        if (MsgType.CALL.equals(type)) {
            return decodeCall(xid, in, pooled);
        }
        if (MsgType.REPLY.equals(type)) {
            return decodeReply(xid, in, pooled);
        }
        throw new XdrException("unknown msg_type " + type.intValue() + " (xid " + Integer.toUnsignedString(xid)
                + ')');
    }

    /**
     * The two headers nearly every message has, read as whole 64-bit words (one bounds check each, not one per XDR
     * word): a version-2 call with an AUTH_NONE credential and verifier (10 words), and a MSG_ACCEPTED SUCCESS reply
     * with an AUTH_NONE verifier (6 words). Null, having read nothing, for anything else (including too few bytes):
     * the general decoder then reads it word by word and gives every other answer. What is returned is what the
     * general decoder returns for the same bytes.
     */
    private static RpcMessage decodeCommon(ByteBuf buf, boolean pooled) {
        int at = buf.readerIndex();
        int readable = buf.writerIndex() - at;
        if (readable < REPLY_COMMON) {
            return null;
        }
        long w0 = buf.getLong(at); // xid, msg_type
        int xid = (int) (w0 >>> 32);
        int type = (int) w0;
        if (type == CALL && readable >= CALL_COMMON) {
            long w1 = buf.getLong(at + 8); // rpcvers, prog
            // cred (flavor, length) and verf (flavor, length): AUTH_NONE = 0, empty
            if ((int) (w1 >>> 32) != RpcCall.RPC_VERSION || buf.getLong(at + 24) != 0 || buf.getLong(at + 32) != 0) {
                return null;
            }
            long w2 = buf.getLong(at + 16); // vers, proc
            buf.readerIndex(at + CALL_COMMON);
            return call(pooled, xid, RpcCall.RPC_VERSION, (int) w1, (int) (w2 >>> 32), (int) w2, OpaqueAuth.NONE,
                    OpaqueAuth.NONE, null);
        }
        // reply_stat MSG_ACCEPTED (0), verf flavor AUTH_NONE (0); verf length 0, accept_stat SUCCESS (0)
        if (type != REPLY || buf.getLong(at + 8) != 0 || buf.getLong(at + 16) != 0) {
            return null;
        }
        buf.readerIndex(at + REPLY_COMMON);
        return reply(pooled, xid, ReplyStat.MSG_ACCEPTED, OpaqueAuth.NONE, AcceptStat.SUCCESS, null, null, 0, 0);
    }

    private static RpcMessage decodeCall(int xid, XdrReader in, boolean pooled) throws XdrException {
        int rpcvers = in.readInt();
        if (rpcvers != RpcCall.RPC_VERSION) {
            return call(pooled, xid, rpcvers, 0, 0, 0, OpaqueAuth.NONE, OpaqueAuth.NONE, null);
        }
        int prog = in.readInt();
        int vers = in.readInt();
        int proc = in.readInt();
        OpaqueAuth cred = decodeAuth(in);
        if (cred == null) {
            return call(pooled, xid, rpcvers, prog, vers, proc, OpaqueAuth.NONE, OpaqueAuth.NONE,
                    AuthStat.AUTH_BADCRED);
        }
        OpaqueAuth verf = decodeAuth(in);
        if (verf == null) {
            return call(pooled, xid, rpcvers, prog, vers, proc, cred, OpaqueAuth.NONE, AuthStat.AUTH_BADVERF);
        }
        return call(pooled, xid, rpcvers, prog, vers, proc, cred, verf, null);
    }

    private static RpcCall call(boolean pooled, int xid, int rpcvers, int prog, int vers, int proc, OpaqueAuth cred,
                                OpaqueAuth verf, AuthStat authError) {
        return pooled ? RpcCall.pooled(xid, rpcvers, prog, vers, proc, cred, verf, authError, NO_ITEMS, 0)
                : new RpcCall(xid, rpcvers, prog, vers, proc, cred, verf, authError, 0, 0);
    }

    /** Returns null when the body length exceeds 400 (RFC 5531 §8.2), without reading the body. */
    private static OpaqueAuth decodeAuth(XdrReader in) throws XdrException {
        if (in.readableBytes() < 8) {
            throw new XdrException("truncated opaque_auth");
        }
        ByteBuf buf = in.buffer();
        long length = buf.getUnsignedInt(buf.readerIndex() + 4);
        if (length > OpaqueAuth.MAX_BODY) {
            return null;
        }
        return OpaqueAuth.decode(in);
    }

    private static RpcReply decodeReply(int xid, XdrReader in, boolean pooled) throws XdrException {
        ReplyStat stat = ReplyStat.valueOf(in.readEnum());
        if (ReplyStat.MSG_ACCEPTED.equals(stat)) {
            OpaqueAuth verf = OpaqueAuth.decode(in);
            AcceptStat accept = AcceptStat.valueOf(in.readEnum());
            if (!accept.isKnown()) {
                throw new XdrException("unknown accept_stat " + accept.intValue());
            }
            if (AcceptStat.PROG_MISMATCH.equals(accept)) {
                return reply(pooled, xid, stat, verf, accept, null, null, in.readInt(), in.readInt());
            }
            return reply(pooled, xid, stat, verf, accept, null, null, 0, 0);
        }
        if (ReplyStat.MSG_DENIED.equals(stat)) {
            RejectStat reject = RejectStat.valueOf(in.readEnum());
            if (RejectStat.RPC_MISMATCH.equals(reject)) {
                return reply(pooled, xid, stat, null, null, reject, null, in.readInt(), in.readInt());
            }
            if (RejectStat.AUTH_ERROR.equals(reject)) {
                return reply(pooled, xid, stat, null, null, reject, AuthStat.valueOf(in.readEnum()), 0, 0);
            }
            throw new XdrException("unknown reject_stat " + reject.intValue());
        }
        throw new XdrException("unknown reply_stat " + stat.intValue());
    }

    private static RpcReply reply(boolean pooled, int xid, ReplyStat stat, OpaqueAuth verf, AcceptStat accept,
                                  RejectStat reject, AuthStat auth, int low, int high) {
        return pooled ? RpcReply.pooled(xid, stat, verf, accept, reject, auth, low, high)
                : RpcReply.value(xid, stat, verf, accept, reject, auth, low, high);
    }

    /** Number of bytes {@link #encodeHeader} writes for {@code header}. */
    public static int headerLength(RpcMessage header) {
        if (header instanceof RpcCall) {
            RpcCall call = (RpcCall) header;
            return 6 * 4 + authLength(call.credential()) + authLength(call.verifier());
        }
        RpcReply reply = (RpcReply) header;
        if (ReplyStat.MSG_ACCEPTED.equals(reply.replyStat())) {
            return 4 * 4 + authLength(reply.verifier())
                    + (AcceptStat.PROG_MISMATCH.equals(reply.acceptStat()) ? 8 : 0);
        }
        return 4 * 4 + (RejectStat.RPC_MISMATCH.equals(reply.rejectStat()) ? 8 : 4);
    }

    private static int authLength(OpaqueAuth auth) {
        return 8 + (int) Xdr.padded(auth.bodyLength());
    }

    /** Encodes an rpc_msg header (everything before the arguments / results). */
    public static void encodeHeader(RpcMessage header, XdrWriter out) {
        encodeHeader(header, out.buffer());
    }

    /**
     * Encodes an rpc_msg header at the writer index of {@code out} (exactly {@link #headerLength} bytes), without
     * allocating.
     */
    public static void encodeHeader(RpcMessage header, ByteBuf out) {
        // XDR words in pairs where they are fixed (big-endian, as XDR): one bounds check per two words.
        out.writeLong(words(header.xid(), header.msgType().intValue()));
        if (header instanceof RpcCall) {
            RpcCall call = (RpcCall) header;
            out.writeLong(words(call.rpcvers(), call.program()));
            out.writeLong(words(call.version(), call.procedure()));
            encodeAuth(call.credential(), out);
            encodeAuth(call.verifier(), out);
            return;
        }
        RpcReply reply = (RpcReply) header;
        if (ReplyStat.MSG_ACCEPTED.equals(reply.replyStat())) {
            OpaqueAuth verifier = reply.verifier();
            byte[] body = verifier.bodyUnsafe();
            if (body.length == 0) {
                out.writeLong(words(reply.replyStat().intValue(), verifier.flavor().intValue()));
                out.writeLong(words(0, reply.acceptStat().intValue()));
            } else {
                out.writeInt(reply.replyStat().intValue());
                encodeAuth(verifier, out);
                out.writeInt(reply.acceptStat().intValue());
            }
            if (AcceptStat.PROG_MISMATCH.equals(reply.acceptStat())) {
                out.writeInt(reply.mismatchLow()).writeInt(reply.mismatchHigh());
            }
        } else {
            out.writeInt(reply.replyStat().intValue());
            out.writeInt(reply.rejectStat().intValue());
            if (RejectStat.RPC_MISMATCH.equals(reply.rejectStat())) {
                out.writeInt(reply.mismatchLow()).writeInt(reply.mismatchHigh());
            } else {
                out.writeInt(reply.authStat().intValue());
            }
        }
    }

    private static void encodeAuth(OpaqueAuth auth, ByteBuf out) {
        byte[] body = auth.bodyUnsafe();
        out.writeLong(words(auth.flavor().intValue(), body.length));
        if (body.length != 0) {
            out.writeBytes(body);
            int pad = Xdr.pad(body.length);
            if (pad != 0) {
                out.writeZero(pad);
            }
        }
    }

    /** Two XDR words as one big-endian long: {@code first} then {@code second}. */
    private static long words(int first, int second) {
        return (long) first << 32 | second & 0xffffffffL;
    }

    /**
     * Bytes of {@link #writeEmptySuccess}: a MSG_ACCEPTED SUCCESS reply with an AUTH_NONE verifier and no results.
     */
    public static final int EMPTY_SUCCESS_LENGTH = 24;

    /**
     * Writes the reply a NULL call gets (RFC 5531 §9: xid, REPLY, MSG_ACCEPTED, an empty AUTH_NONE verifier,
     * SUCCESS, no results; {@value #EMPTY_SUCCESS_LENGTH} bytes) at the writer index of {@code out}: the bytes
     * {@link #writeInline} writes for {@code OutboundRpcMessage.newReply(xid, AcceptStat.SUCCESS,
     * XdrPayload.empty())}, without the message.
     */
    public static void writeEmptySuccess(int xid, ByteBuf out) {
        out.writeLong(words(xid, MsgType.REPLY.intValue()));
        out.writeLong(words(ReplyStat.MSG_ACCEPTED.intValue(), AuthFlavor.AUTH_NONE.intValue()));
        out.writeLong(words(0, AcceptStat.SUCCESS.intValue()));
    }

    /** Bytes of the fully-inline encoding of {@code message}: its header, then its body with every item inline. */
    public static int inlineLength(OutboundRpcMessage message) {
        return headerLength(message.header()) + message.body().inlineLength();
    }

    /**
     * Writes the fully-inline encoding of {@code message} ({@link #inlineLength} bytes) at the writer index of
     * {@code out}: one copy of the body, no allocation. Does not consume {@code message}.
     */
    public static void writeInline(OutboundRpcMessage message, ByteBuf out) {
        encodeHeader(message.header(), out);
        message.body().writeInline(out);
    }

    /**
     * Encodes a whole message as a new {@link XdrPayload}: header then body, DDP item positions relative to
     * the start of the message (the RFC 8166 §3.5.3 XDR position). Does not consume {@code message}; the result
     * holds its own references and the caller releases it.
     */
    public static XdrPayload encode(ByteBufAllocator alloc, OutboundRpcMessage message) {
        XdrPayload head = XdrPayload.newPayload(alloc);
        encodeHeader(message.header(), head.writer());
        return XdrPayload.concat(head, message.body().retain());
    }

    /** Encodes a whole message fully inline into a new buffer (TCP); does not consume {@code message}. */
    public static ByteBuf encodeInline(ByteBufAllocator alloc, OutboundRpcMessage message) {
        return encodeInline(alloc, message, 0);
    }

    /**
     * Encodes a whole message fully inline into a new buffer whose readable bytes start after {@code headroom}
     * writable bytes (room for a transport header such as the RFC 5531 §11 record mark). Does not consume
     * {@code message}; the caller releases the result.
     */
    public static ByteBuf encodeInline(ByteBufAllocator alloc, OutboundRpcMessage message, int headroom) {
        XdrPayload body = message.body();
        ByteBuf out = alloc.ioBuffer(headroom + headerLength(message.header()) + body.inlineLength());
        out.writerIndex(headroom).readerIndex(headroom);
        encodeHeader(message.header(), out);
        body.writeInline(out);
        return out;
    }
}
