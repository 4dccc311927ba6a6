package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlainWordsTest {

    private static final int[][] CALLS = {
        {0x12345678, 100003, 4, 0, 32}, {-1, -2, -3, -4, -5}, {0, 0, 0, 0, 0}, {0x80000000, 0x7fffffff, 1, 17, 1},
    };

    /** The bytes of a plain RDMA_MSG header and {@code call}'s header, written word by word. */
    private static byte[] wordByWord(int credits, RpcCall call) {
        ByteBuf b = Unpooled.buffer();
        try {
            RpcRdmaHeaderEncoder.encodePlainMsg(call.xid(), credits, b);
            RpcMessageCodec.encodeHeader(call, b);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    @Test
    void aCommonCallIsStoredAsItIsWrittenWordByWord() {
        for (int[] c : CALLS) {
            RpcCall call = new RpcCall(c[0], c[1], c[2], c[3], OpaqueAuth.NONE);
            assertTrue(PlainWords.isCommonCall(call));
            byte[] expected = wordByWord(c[4], call);
            assertEquals(PlainWords.CALL_HEADERS, expected.length);
            // Raw stores into direct memory (at a writer index not 8-aligned), and the fallback on a heap buffer.
            for (ByteBuf out : new ByteBuf[] {Unpooled.directBuffer(128), Unpooled.buffer(128)}) {
                try {
                    out.writeBytes(new byte[] {9, 9, 9});
                    PlainWords.writeCall(c[4], call, out);
                    assertEquals(3 + PlainWords.CALL_HEADERS, out.writerIndex());
                    out.skipBytes(3);
                    assertEquals(ByteBufUtil.hexDump(expected), ByteBufUtil.hexDump(out));
                } finally {
                    out.release();
                }
            }
        }
    }

    @Test
    void aBufferWithoutRoomIsWrittenThroughItsOwnChecks() {
        RpcCall call = new RpcCall(7, 100003, 4, 0, OpaqueAuth.NONE);
        ByteBuf out = Unpooled.directBuffer(16); // grows as the word-by-word writes ask
        try {
            PlainWords.writeCall(32, call, out);
            assertEquals(ByteBufUtil.hexDump(wordByWord(32, call)), ByteBufUtil.hexDump(out));
        } finally {
            out.release();
        }
    }

    @Test
    void onlyAuthNoneWithEmptyBodiesIsCommon() {
        OpaqueAuth sys = OpaqueAuth.of(AuthFlavor.AUTH_SYS, new byte[] {0, 0, 0, 1});
        OpaqueAuth emptyNone = OpaqueAuth.of(AuthFlavor.AUTH_NONE, new byte[0]);
        assertTrue(PlainWords.isCommonCall(new RpcCall(1, 2, 2, 3, 4, emptyNone, emptyNone, null, 0, 0)));
        assertFalse(PlainWords.isCommonCall(new RpcCall(1, 2, 3, 4, sys)));
        assertFalse(PlainWords.isCommonCall(new RpcCall(1, 2, 2, 3, 4, OpaqueAuth.NONE, sys, null, 0, 0)));
        assertFalse(PlainWords.isCommonCall(new RpcCall(1, 2, 2, 3, 4, OpaqueAuth.of(AuthFlavor.AUTH_NONE,
                new byte[] {1}), OpaqueAuth.NONE, null, 0, 0)));
        assertFalse(PlainWords.isCommonCall(new RpcCall(1, 3, 2, 3, 4, OpaqueAuth.NONE, OpaqueAuth.NONE, null, 0, 0)));
    }

    /** A plain RDMA_MSG header granting {@code credits} and a MSG_ACCEPTED SUCCESS reply to {@code xid}, then 4 bytes. */
    private static ByteBuf reply(int xid, int credits) {
        ByteBuf b = Unpooled.directBuffer(128);
        RpcRdmaHeaderEncoder.encodePlainMsg(xid, credits, b);
        OutboundRpcMessage m = OutboundRpcMessage.newReply(xid, dev.rpcrdma.oncrpc.message.AcceptStat.SUCCESS,
                XdrPayload.empty());
        try {
            RpcMessageCodec.writeInline(m, b);
        } finally {
            m.release();
        }
        b.writeInt(0xabcdef01);
        return b;
    }

    @Test
    void aCommonReplyIsRecognisedInOnePass() {
        for (int[] c : CALLS) {
            ByteBuf in = reply(c[0], c[4]);
            try {
                in.readerIndex(0);
                long a = PlainWords.commonReply(in);
                assertNotEquals(0, a);
                assertEquals(c[0], PlainWords.xid(a));
                assertEquals(c[4], PlainWords.credits(a));
                assertEquals(0, in.readerIndex(), "nothing consumed");
            } finally {
                in.release();
            }
        }
    }

    @Test
    void anyOtherWordIsNotACommonReply() {
        for (int word = 0; word < PlainWords.REPLY_HEADERS / 4; word++) {
            for (int flip : new int[] {1, 0x80000000}) {
                ByteBuf in = reply(0x12345678, 32);
                try {
                    in.setInt(word * 4, in.getInt(word * 4) ^ flip);
                    long a = PlainWords.commonReply(in);
                    if (word == 2) {
                        assertNotEquals(0, a, "rdma_credit may be any value");
                    } else {
                        assertEquals(0, a, "word " + word + " changed by " + Integer.toHexString(flip));
                    }
                } finally {
                    in.release();
                }
            }
        }
        ByteBuf heap = Unpooled.buffer();
        ByteBuf direct = reply(5, 1);
        try {
            heap.writeBytes(direct, 0, PlainWords.REPLY_HEADERS);
            assertEquals(0, PlainWords.commonReply(heap), "no memory address: the checked path reads it");
            direct.writerIndex(PlainWords.REPLY_HEADERS - 1);
            assertEquals(0, PlainWords.commonReply(direct), "one byte short");
        } finally {
            heap.release();
            direct.release();
        }
    }
}
