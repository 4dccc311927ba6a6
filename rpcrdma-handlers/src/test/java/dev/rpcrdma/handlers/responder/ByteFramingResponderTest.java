package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcStats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The responder in byte framing over an {@code EmbeddedChannel}: whole messages up at reader index 0, replies with
 * and without record marks down, and the answers to bad input (RFC 8166 §4.5) with nothing leaked.
 */
class ByteFramingResponderTest {
    static final int XID = 0x0badcafe;

    final RpcRdmaStats stats = new RpcRdmaStats();
    final RpcStats rpcStats = new RpcStats();
    EmbeddedChannel ch = new EmbeddedChannel(new RpcRdmaResponder(ResponderSetup.of(RpcRdmaConfig.DEFAULT,
            new InlineThresholds(4096, 4096, false), stats, rpcStats)
            .withFraming(ByteFraming.DEFAULT.withRecordMarks(true))));

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    void receive(int xid, ByteBuf rpc) {
        ByteBuf b = Unpooled.directBuffer();
        RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(xid, 8), b);
        b.writeBytes(rpc);
        rpc.release();
        ch.writeInbound(new RdmaReceive(b, false, 0));
    }

    RpcRdmaHeader sent() throws Exception {
        ByteBuf b = assertInstanceOf(ByteBuf.class, ch.readOutbound());
        try {
            return new RpcRdmaHeaderDecoder().decode(b);
        } finally {
            b.release();
        }
    }

    static ByteBuf reply(int xid, boolean marked) {
        ByteBuf b = Unpooled.buffer();
        if (marked) {
            b.writeInt(0x8000_0000 | 28);
        }
        return b.writeInt(xid).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0).writeInt(42);
    }

    @Test
    void aCallGoesUpWholeAtReaderIndexZeroAndItsMarkedReplyGoesOutInline() throws Exception {
        receive(XID, RpcRdmaResponderTest.rpcCall(XID, 8));
        ByteBuf up = ch.readInbound();
        assertNotNull(up);
        assertEquals(0, up.readerIndex());
        assertEquals(48, up.readableBytes(), "the whole RPC call, no transport header");
        assertEquals(XID, up.getInt(0));
        up.release();
        ChannelFuture f = ch.writeAndFlush(reply(XID, true));
        assertTrue(f.isSuccess(), String.valueOf(f.cause()));
        ByteBuf send = ch.readOutbound();
        RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(send);
        assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
        assertEquals(28, send.readableBytes(), "the reply without its record mark");
        assertEquals(XID, send.getInt(send.readerIndex()));
        send.release();
    }

    @Test
    void aReplyAtARequesterGetsErrChunkAndNothingGoesUp() throws Exception {
        receive(XID, reply(XID, false));
        RpcRdmaHeader h = sent();
        assertEquals(RdmaErrorCode.ERR_CHUNK, h.errorCode());
        assertNull(ch.readInbound());
        assertEquals(1, rpcStats.malformedMessages());
        assertTrue(ch.isOpen());
    }

    @Test
    void aMalformedHeaderGetsRdmaErrorAsOnTheMessagePath() throws Exception {
        ByteBuf b = Unpooled.directBuffer().writeInt(XID).writeInt(7).writeInt(8).writeInt(0).writeZero(12);
        ch.writeInbound(new RdmaReceive(b, false, 0));
        RpcRdmaHeader h = sent();
        assertEquals(RdmaProcedure.RDMA_ERROR, h.procedure());
        assertEquals(RdmaErrorCode.ERR_VERS, h.errorCode());
        assertNull(ch.readInbound());
    }

    @Test
    void badRecordMarksAndRepliesToNoCallFailTheirWritesOnly() {
        receive(XID, RpcRdmaResponderTest.rpcCall(XID, 0));
        ((ByteBuf) ch.readInbound()).release();
        ChannelFuture unmarked = ch.writeAndFlush(reply(XID, false));
        assertFalse(unmarked.isSuccess());
        assertInstanceOf(IllegalArgumentException.class, unmarked.cause());
        ChannelFuture unknown = ch.writeAndFlush(reply(XID + 1, true));
        assertInstanceOf(IllegalStateException.class, unknown.cause());
        assertNull(ch.readOutbound(), "nothing sent");
        assertTrue(ch.isOpen());
        assertTrue(ch.writeAndFlush(reply(XID, true)).isSuccess(), "the call still gets its reply");
        ((ByteBuf) ch.readOutbound()).release();
    }

    @Test
    void aReplyArrivingAfterTheConnectionClosedFailsAsClosedAndIsReleased() {
        // An upper layer on its own threads (Hadoop's write-back) answers calls of a connection the client already
        // dropped: the call table went with it (RFC 8166 §4.5.4: the client retransmits on its next connection).
        receive(XID, RpcRdmaResponderTest.rpcCall(XID, 0));
        ((ByteBuf) ch.readInbound()).release();
        ch.close();
        ByteBuf late = reply(XID, true);
        ChannelFuture f = ch.pipeline().writeAndFlush(late);
        assertInstanceOf(java.nio.channels.ClosedChannelException.class, f.cause());
        assertEquals(0, late.refCnt());
        assertNull(ch.readOutbound(), "nothing sent");
    }

    @Test
    void aReplyInTwoFragmentsIsJoined() throws Exception {
        receive(XID, RpcRdmaResponderTest.rpcCall(XID, 0));
        ((ByteBuf) ch.readInbound()).release();
        ByteBuf two = Unpooled.buffer().writeInt(12).writeInt(XID).writeInt(1).writeInt(0)
                .writeInt(0x8000_0000 | 16).writeInt(0).writeInt(0).writeInt(0).writeInt(42);
        assertTrue(ch.writeAndFlush(two).isSuccess());
        ByteBuf send = ch.readOutbound();
        new RpcRdmaHeaderDecoder().decode(send);
        assertEquals(28, send.readableBytes());
        assertEquals(42, send.getInt(send.readerIndex() + 24));
        send.release();
    }
}
