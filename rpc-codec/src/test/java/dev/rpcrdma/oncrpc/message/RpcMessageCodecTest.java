package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RpcMessageCodecTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private static InboundRpcMessage roundTrip(RpcMessage header, XdrPayload body) throws XdrException {
        OutboundRpcMessage out = new OutboundRpcMessage(header, body);
        ByteBuf wire = RpcMessageCodec.encodeInline(ALLOC, out);
        out.release();
        return RpcMessageCodec.decode(wire);
    }

    @Test
    void callWithAuthSysRoundTripsAndHintsStayLocal() throws XdrException {
        AuthSysCredential sys = new AuthSysCredential(17, "host.example", 1000, 100, 4, 24, 27);
        RpcCall call = new RpcCall(0x80000001, 100003, 3, 6, sys.toOpaqueAuth()).withReplyHints(65536, 70000);
        XdrPayload args = XdrPayload.newPayload(ALLOC);
        args.writer().writeString("args");
        // 6 words, AUTH_SYS cred (8 + 44 bytes), AUTH_NONE verf (8).
        assertEquals(6 * 4 + 8 + 44 + 8, RpcMessageCodec.headerLength(call));
        InboundRpcMessage in = roundTrip(call, args);
        try {
            RpcCall decoded = assertInstanceOf(RpcCall.class, in.header());
            assertEquals(0x80000001, decoded.xid());
            assertEquals(2, decoded.rpcvers());
            assertEquals(100003, decoded.program());
            assertEquals(3, decoded.version());
            assertEquals(6, decoded.procedure());
            assertEquals(sys, AuthSysCredential.decode(decoded.credential()));
            assertEquals(OpaqueAuth.NONE, decoded.verifier());
            assertNull(decoded.authError());
            // The hints are never on the wire.
            assertEquals(0, decoded.maxDdpReplyItem());
            assertEquals(0, decoded.maxReplySize());
            assertEquals("args", in.body().readString(10));
        } finally {
            in.release();
        }
    }

    @Test
    void everyReplyKindRoundTrips() throws XdrException {
        RpcReply[] replies = {
            RpcReply.success(1),
            RpcReply.accepted(2, OpaqueAuth.NONE, AcceptStat.PROG_UNAVAIL),
            RpcReply.progMismatch(3, 2, 4),
            RpcReply.accepted(4, OpaqueAuth.NONE, AcceptStat.PROC_UNAVAIL),
            RpcReply.accepted(5, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS),
            RpcReply.accepted(6, OpaqueAuth.NONE, AcceptStat.SYSTEM_ERR),
            RpcReply.rpcMismatch(7, 2, 2),
            RpcReply.authError(8, AuthStat.AUTH_BADCRED),
            RpcReply.authError(9, AuthStat.AUTH_TOOWEAK),
        };
        for (RpcReply reply : replies) {
            OutboundRpcMessage probe = new OutboundRpcMessage(reply, XdrPayload.newPayload(ALLOC));
            ByteBuf bytes = RpcMessageCodec.encodeInline(ALLOC, probe, 4);
            assertEquals(RpcMessageCodec.headerLength(reply), bytes.readableBytes(), reply.toString());
            assertEquals(4, bytes.readerIndex());
            bytes.release();
            probe.release();
            InboundRpcMessage in = roundTrip(reply, XdrPayload.newPayload(ALLOC));
            try {
                RpcReply d = assertInstanceOf(RpcReply.class, in.header());
                assertEquals(reply.xid(), d.xid());
                assertEquals(reply.replyStat(), d.replyStat());
                assertEquals(reply.acceptStat(), d.acceptStat());
                assertEquals(reply.rejectStat(), d.rejectStat());
                assertEquals(reply.authStat(), d.authStat());
                assertEquals(reply.mismatchLow(), d.mismatchLow());
                assertEquals(reply.mismatchHigh(), d.mismatchHigh());
                assertEquals(0, in.body().readableBytes());
            } finally {
                in.release();
            }
        }
    }

    @Test
    void wireFormatOfADeniedReplyMatchesRfc5531() {
        OutboundRpcMessage out = new OutboundRpcMessage(RpcReply.rpcMismatch(0x1234, 2, 2),
                XdrPayload.newPayload(ALLOC));
        ByteBuf wire = RpcMessageCodec.encodeInline(ALLOC, out);
        assertEquals(wire.readableBytes(), RpcMessageCodec.headerLength(out.header()));
        out.release();
        ByteBuf expected = Unpooled.buffer();
        // xid, REPLY, MSG_DENIED, RPC_MISMATCH, low, high.
        new XdrWriter(expected).writeInt(0x1234).writeInt(1).writeInt(1).writeInt(0).writeInt(2).writeInt(2);
        assertEquals(expected, wire);
        wire.release();
        expected.release();
    }

    @Test
    void callPositionsOfDdpItemsAreMessageOffsets() {
        XdrPayload args = XdrPayload.newPayload(ALLOC);
        args.writer().writeInt(99);
        args.writeDdpOpaque(ALLOC.buffer().writeZero(4096));
        OutboundRpcMessage out = new OutboundRpcMessage(new RpcCall(5, 1, 1, 1, OpaqueAuth.NONE), args);
        XdrPayload whole = RpcMessageCodec.encode(ALLOC, out);
        try {
            // Call header with AUTH_NONE cred and verf: 10 words = 40 bytes; then int(4), length word(4).
            assertEquals(48, whole.ddpItems().get(0).position());
            assertEquals(48 + 4096, whole.inlineLength());
            assertEquals(48, whole.reducedLength());
        } finally {
            whole.release();
            out.release();
        }
    }

    @Test
    void rpcvers3IsDecodedForARejection() throws XdrException {
        ByteBuf wire = Unpooled.buffer();
        new XdrWriter(wire).writeInt(77).writeInt(0).writeInt(3).writeInt(100000).writeInt(2).writeInt(0);
        InboundRpcMessage in = RpcMessageCodec.decode(wire);
        try {
            RpcCall call = assertInstanceOf(RpcCall.class, in.header());
            assertEquals(3, call.rpcvers());
            assertEquals(77, call.xid());
        } finally {
            in.release();
        }
    }

    @Test
    void credentialOver400BytesIsFlaggedBadCredWithoutReadingIt() throws XdrException {
        ByteBuf wire = Unpooled.buffer();
        new XdrWriter(wire).writeInt(78).writeInt(0).writeInt(2).writeInt(100000).writeInt(2).writeInt(0)
                .writeInt(1).writeInt(401).buffer().writeZero(404);
        new XdrWriter(wire).writeInt(0).writeInt(0);
        InboundRpcMessage in = RpcMessageCodec.decode(wire);
        try {
            RpcCall call = assertInstanceOf(RpcCall.class, in.header());
            assertEquals(AuthStat.AUTH_BADCRED, call.authError());
        } finally {
            in.release();
        }
    }

    @Test
    void unknownMsgTypeAndTruncatedHeadersAreXdrExceptionsAndReleaseTheRecord() {
        ByteBuf type7 = Unpooled.buffer().writeInt(1).writeInt(7).writeZero(40);
        XdrException e = assertThrows(XdrException.class, () -> RpcMessageCodec.decode(type7));
        assertTrue(e.getMessage().contains("msg_type 7"), e.getMessage());
        assertEquals(0, type7.refCnt());

        ByteBuf truncated = Unpooled.buffer().writeInt(1).writeInt(0).writeInt(2).writeInt(100000);
        assertThrows(XdrException.class, () -> RpcMessageCodec.decode(truncated));
        assertEquals(0, truncated.refCnt());

        ByteBuf placed = Unpooled.buffer().writeZero(8);
        ByteBuf badReply = Unpooled.buffer().writeInt(1).writeInt(1).writeInt(5);
        assertThrows(XdrException.class, () -> RpcMessageCodec.decode(badReply, List.of(placed)));
        assertEquals(0, placed.refCnt());
    }

    @Test
    void constantsAreValueClasses() {
        assertEquals(AcceptStat.GARBAGE_ARGS, AcceptStat.valueOf(4));
        assertEquals("SYSTEM_ERR", AcceptStat.valueOf(5).name());
        assertFalse(AuthFlavor.valueOf(390003).isKnown());
        assertEquals(AuthFlavor.valueOf(390003), AuthFlavor.valueOf(390003));
        assertEquals(6, AuthFlavor.RPCSEC_GSS.intValue());
        assertEquals("UNKNOWN(7)", MsgType.valueOf(7).toString());
    }

    @Test
    void unknownCredentialFlavorIsCarriedOpaque() throws XdrException {
        OpaqueAuth gss = OpaqueAuth.of(AuthFlavor.valueOf(390004), new byte[] {1, 2, 3, 4, 5, 6});
        InboundRpcMessage in = roundTrip(new RpcCall(3, 1, 1, 1, gss), XdrPayload.newPayload(ALLOC));
        try {
            assertEquals(gss, ((RpcCall) in.header()).credential());
        } finally {
            in.release();
        }
    }

    @Test
    void authSysBoundsAreEnforced() {
        assertThrows(IllegalArgumentException.class, () -> new AuthSysCredential(0, "x".repeat(256), 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new AuthSysCredential(0, "x", 0, 0, new int[17]));
        ByteBuf body = Unpooled.buffer();
        new XdrWriter(body).writeInt(0).writeString("h").writeInt(0).writeInt(0).writeInt(17);
        body.writeZero(17 * 4);
        byte[] bytes = new byte[body.readableBytes()];
        body.readBytes(bytes);
        body.release();
        assertThrows(XdrException.class,
                () -> AuthSysCredential.decode(OpaqueAuth.of(AuthFlavor.AUTH_SYS, bytes)));
    }

    /**
     * The common headers (an AUTH_NONE call, a MSG_ACCEPTED SUCCESS reply with an AUTH_NONE verifier) are read as
     * 64-bit words: what comes out, and where the reader stops, must be what the word-by-word decoder gives, for
     * the common headers and for the ones next to them that it must leave to that decoder.
     */
    @Test
    void commonHeadersDecodeAsTheGeneralDecoderDoes() throws XdrException {
        ByteBuf call = Unpooled.buffer().writeInt(0xfedcba98).writeInt(0).writeInt(2).writeInt(100003).writeInt(4)
                .writeInt(9).writeLong(0).writeLong(0).writeInt(0x11223344);
        InboundRpcMessage m = RpcMessageCodec.decode(call);
        RpcCall c = assertInstanceOf(RpcCall.class, m.header());
        assertEquals(0xfedcba98, c.xid());
        assertEquals(2, c.rpcvers());
        assertEquals(100003, c.program());
        assertEquals(4, c.version());
        assertEquals(9, c.procedure());
        assertEquals(OpaqueAuth.NONE, c.credential());
        assertEquals(OpaqueAuth.NONE, c.verifier());
        assertNull(c.authError());
        assertEquals(4, m.body().readableBytes());
        assertEquals(0x11223344, m.body().readInt());
        m.release();

        ByteBuf reply = Unpooled.buffer().writeInt(-1).writeInt(1).writeLong(0).writeLong(0);
        m = RpcMessageCodec.decode(reply);
        RpcReply r = assertInstanceOf(RpcReply.class, m.header());
        assertEquals(-1, r.xid());
        assertTrue(r.isSuccess());
        assertEquals(OpaqueAuth.NONE, r.verifier());
        assertEquals(0, m.body().readableBytes());
        m.release();

        // A verifier of another flavor, an error status, a credential with a body: the general decoder's answers.
        ByteBuf shortVerf = Unpooled.buffer().writeInt(5).writeInt(1).writeInt(0).writeInt(1).writeInt(0)
                .writeInt(0);
        m = RpcMessageCodec.decode(shortVerf);
        r = (RpcReply) m.header();
        assertEquals(AuthFlavor.AUTH_SYS, r.verifier().flavor());
        assertTrue(r.isSuccess());
        m.release();
        ByteBuf garbage = Unpooled.buffer().writeInt(5).writeInt(1).writeLong(0).writeInt(0).writeInt(4);
        m = RpcMessageCodec.decode(garbage);
        assertEquals(AcceptStat.GARBAGE_ARGS, ((RpcReply) m.header()).acceptStat());
        m.release();
        ByteBuf withBody = Unpooled.buffer().writeInt(7).writeInt(0).writeInt(2).writeInt(1).writeInt(1)
                .writeInt(0).writeInt(0).writeInt(4).writeInt(0xabcdef01).writeLong(0);
        m = RpcMessageCodec.decode(withBody);
        c = (RpcCall) m.header();
        assertEquals(4, c.credential().bodyLength());
        assertEquals(0, m.body().readableBytes());
        m.release();
        // One byte short of the common call: truncated, as before.
        ByteBuf truncated = Unpooled.buffer().writeInt(7).writeInt(0).writeInt(2).writeInt(1).writeInt(1)
                .writeInt(0).writeLong(0).writeInt(0).writeShort(0).writeByte(0);
        assertThrows(XdrException.class, () -> RpcMessageCodec.decode(truncated));
        assertEquals(0, truncated.refCnt());
    }

    /** The paired-word encoder writes the bytes RFC 5531 §9 lays out, word by word. */
    @Test
    void headersEncodeWordByWord() {
        ByteBuf out = Unpooled.buffer();
        RpcMessageCodec.encodeHeader(new RpcCall(0x01020304, 100003, 4, 1, OpaqueAuth.of(AuthFlavor.AUTH_SYS,
                new byte[] {1, 2, 3, 4, 5})), out);
        ByteBuf expected = Unpooled.buffer().writeInt(0x01020304).writeInt(0).writeInt(2).writeInt(100003)
                .writeInt(4).writeInt(1).writeInt(1).writeInt(5).writeBytes(new byte[] {1, 2, 3, 4, 5, 0, 0, 0})
                .writeInt(0).writeInt(0);
        assertEquals(expected, out);
        out.clear();
        RpcMessageCodec.encodeHeader(RpcReply.success(9), out);
        assertEquals(Unpooled.buffer().writeInt(9).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0),
                out);
        out.clear();
        RpcMessageCodec.encodeHeader(RpcReply.progMismatch(9, 2, 3), out);
        assertEquals(Unpooled.buffer().writeInt(9).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(2)
                .writeInt(2).writeInt(3), out);
        out.clear();
        RpcMessageCodec.encodeHeader(RpcReply.authError(9, AuthStat.AUTH_TOOWEAK), out);
        assertEquals(Unpooled.buffer().writeInt(9).writeInt(1).writeInt(1).writeInt(1).writeInt(5), out);
    }
}
