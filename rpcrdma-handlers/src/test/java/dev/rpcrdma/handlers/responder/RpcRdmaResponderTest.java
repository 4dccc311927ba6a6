package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.RpcRdmaLimits;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The responder against hand-made transport headers over an {@code EmbeddedChannel}: one test per class of bad
 * input the Linux server checks, each answered as RFC 8166 §4.5 prescribes (ERR_VERS, ERR_CHUNK, silent discard)
 * or with a clean close, counted, and nothing leaked (paranoid leak detection fails the class otherwise).
 */
class RpcRdmaResponderTest {

    static final int XID = 0x0badcafe;
    static final int PROG = 0x20000123;

    final RpcRdmaStats stats = new RpcRdmaStats();
    final RpcStats rpcStats = new RpcStats();
    EmbeddedChannel ch = channel(RpcRdmaConfig.DEFAULT.withGrantBounds(1, 8));

    EmbeddedChannel channel(RpcRdmaConfig config) {
        return new EmbeddedChannel(new RpcRdmaResponder(ResponderSetup.of(config,
                new InlineThresholds(4096, 4096, false), stats, rpcStats)));
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    /** An RPC call (AUTH_NONE) with {@code argBytes} zero bytes of arguments. */
    static ByteBuf rpcCall(int xid, int argBytes) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(xid).writeInt(0).writeInt(2).writeInt(PROG).writeInt(1).writeInt(1);
        b.writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        b.writeZero(argBytes);
        return b;
    }

    static void fixed(ByteBuf b, int xid, int vers, int credits, int proc) {
        b.writeInt(xid).writeInt(vers).writeInt(credits).writeInt(proc);
    }

    void receive(Consumer<ByteBuf> header, ByteBuf rpc) {
        ByteBuf b = Unpooled.directBuffer();
        header.accept(b);
        if (rpc != null) {
            b.writeBytes(rpc);
            rpc.release();
        }
        ch.writeInbound(new RdmaReceive(b, false, 0));
    }

    void receive(RpcRdmaHeader header, ByteBuf rpc) {
        receive(b -> RpcRdmaHeaderEncoder.encode(header, b), rpc);
    }

    /** The next Send the responder wrote, decoded; the rest of it (the RPC message) is returned through out. */
    RpcRdmaHeader sent() throws Exception {
        Object o = ch.readOutbound();
        assertNotNull(o, "the responder sent something");
        ByteBuf b = assertInstanceOf(ByteBuf.class, o);
        try {
            return new RpcRdmaHeaderDecoder().decode(b);
        } finally {
            b.release();
        }
    }

    RpcRdmaHeader errChunk() throws Exception {
        RpcRdmaHeader h = sent();
        assertEquals(RdmaProcedure.RDMA_ERROR, h.procedure());
        assertEquals(RdmaErrorCode.ERR_CHUNK, h.errorCode());
        assertEquals(XID, h.xid());
        assertNull(ch.readInbound(), "nothing reaches the RPC layer");
        assertEquals(1, stats.errorsSent());
        assertTrue(ch.isOpen());
        return h;
    }

    static RdmaSegment seg(int length) {
        return new RdmaSegment(0x1234, length, 0x10000);
    }

    @Test
    void inlineCallReachesTheRpcLayerAndItsReplyIsRdmaMsg() throws Exception {
        receive(RpcRdmaHeader.msg(XID, 32), rpcCall(XID, 8));
        InboundRpcMessage m = ch.readInbound();
        assertNotNull(m);
        try {
            assertEquals(XID, m.header().xid());
            assertInstanceOf(RpcCall.class, m.header());
            assertEquals(8, m.body().readableBytes());
        } finally {
            m.release();
        }
        XdrPayload results = XdrPayload.newPayload(ch.alloc());
        results.writer().writeInt(42);
        ChannelFuture f = ch.writeOneOutbound(new OutboundRpcMessage(RpcReply.success(XID), results));
        ch.flushOutbound();
        Object o = ch.readOutbound();
        ByteBuf b = assertInstanceOf(ByteBuf.class, o);
        try {
            RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(b);
            assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
            assertEquals(XID, h.xid());
            assertEquals(8, h.credits(), "the grant follows the request within the bounds 1..8");
            assertEquals(XID, b.readInt(), "RPC reply follows inline");
        } finally {
            b.release();
        }
        assertTrue(f.isSuccess());
    }

    @Test
    void truncatedHeaderIsSilentlyDiscarded() {
        receive(b -> {
            fixed(b, XID, 1, 1, 0);
            b.writeInt(0).writeInt(0); // 24 bytes
        }, null);
        assertNull(ch.readOutbound());
        assertNull(ch.readInbound());
        assertEquals(1, stats.discardedMessages());
        assertTrue(ch.isOpen());
    }

    @Test
    void badVersionGetsErrVersOneToOne() throws Exception {
        receive(b -> {
            fixed(b, XID, 2, 1, 0);
            b.writeInt(0).writeInt(0).writeInt(0);
        }, rpcCall(XID, 0));
        // Decoded by hand: our decoder (rightly) refuses a header of version 2 even inside an error.
        ByteBuf b = assertInstanceOf(ByteBuf.class, ch.readOutbound());
        try {
            assertEquals(28, b.readableBytes());
            assertEquals(XID, b.readInt());
            assertEquals(2, b.readInt(), "rdma_vers repeats the failing request's (RFC 8166 §4.5)");
            b.readInt(); // credits
            assertEquals(RdmaProcedure.RDMA_ERROR.intValue(), b.readInt());
            assertEquals(RdmaErrorCode.ERR_VERS.intValue(), b.readInt());
            assertEquals(1, b.readInt(), "rdma_vers_low");
            assertEquals(1, b.readInt(), "rdma_vers_high");
        } finally {
            b.release();
        }
        assertNull(ch.readInbound());
    }

    @Test
    void unknownProcedureGetsErrChunk() throws Exception {
        receive(b -> {
            fixed(b, XID, 1, 1, 9);
            b.writeInt(0).writeInt(0).writeInt(0);
        }, rpcCall(XID, 0));
        errChunk();
    }

    @Test
    void msgpAndDoneGetErrChunk() throws Exception {
        for (int proc : new int[] {2, 3}) {
            receive(b -> {
                fixed(b, XID, 1, 1, proc);
                b.writeInt(0).writeInt(0).writeInt(0);
            }, null);
            RpcRdmaHeader h = sent();
            assertEquals(RdmaErrorCode.ERR_CHUNK, h.errorCode(), "proc " + proc);
        }
    }

    @Test
    void readListPastTheBufferGetsErrChunk() throws Exception {
        receive(b -> {
            fixed(b, XID, 1, 1, 0);
            b.writeInt(1).writeInt(0).writeInt(7).writeInt(100);
        }, null);
        errChunk();
    }

    @Test
    void misalignedReadPositionGetsErrChunk() throws Exception {
        receive(b -> {
            fixed(b, XID, 1, 1, 0);
            b.writeInt(1).writeInt(42).writeInt(7).writeInt(100).writeLong(0);
            b.writeInt(0).writeInt(0).writeInt(0);
        }, rpcCall(XID, 8));
        errChunk();
    }

    @Test
    void overlappingReadPositionsGetErrChunk() throws Exception {
        // Two chunks whose positions in the reduced stream overlap: 40 then 44, the first 100 bytes long.
        receive(RpcRdmaHeader.msg(XID, 1, List.of(new ReadSegment(40, seg(100)), new ReadSegment(44, seg(8))),
                List.of(), null), rpcCall(XID, 8));
        errChunk();
    }

    @Test
    void readPositionPastTheBodyGetsErrChunk() throws Exception {
        receive(RpcRdmaHeader.msg(XID, 1, List.of(new ReadSegment(400, seg(100))), List.of(), null),
                rpcCall(XID, 8));
        errChunk();
    }

    @Test
    void nomsgCallWithoutPositionZeroAndMsgWithPositionZeroGetErrChunk() throws Exception {
        receive(RpcRdmaHeader.nomsg(XID, 1, List.of(new ReadSegment(8, seg(100))), List.of(), null), null);
        errChunk();
        receive(RpcRdmaHeader.msg(XID, 1, List.of(new ReadSegment(0, seg(100))), List.of(), null),
                rpcCall(XID, 8));
        RpcRdmaHeader h = sent();
        assertEquals(RdmaErrorCode.ERR_CHUNK, h.errorCode());
    }

    @Test
    void zeroSegmentCountGetsErrChunk() throws Exception {
        receive(b -> {
            fixed(b, XID, 1, 1, 0);
            b.writeInt(0).writeInt(0);
            b.writeInt(1).writeInt(0); // reply chunk, segcount 0
        }, rpcCall(XID, 0));
        errChunk();
    }

    @Test
    void oversizedSegmentGetsErrChunk() throws Exception {
        receive(RpcRdmaHeader.msg(XID, 1, List.of(), List.of(WriteChunk.of(seg(0xffff_fff0))), null),
                rpcCall(XID, 0));
        errChunk();
    }

    @Test
    void tooManyWriteChunksGetErrChunk() throws Exception {
        ch.finishAndReleaseAll();
        ch = channel(RpcRdmaConfig.DEFAULT.withLimits(new RpcRdmaLimits(8, 1, 8, 1 << 20), 1 << 20));
        receive(RpcRdmaHeader.msg(XID, 1, List.of(), List.of(WriteChunk.of(seg(8)), WriteChunk.of(seg(8))), null),
                rpcCall(XID, 0));
        errChunk();
    }

    @Test
    void totalReadLengthOverTheMessageLimitGetsErrChunk() throws Exception {
        ch.finishAndReleaseAll();
        ch = channel(RpcRdmaConfig.DEFAULT.withLimits(new RpcRdmaLimits(8, 8, 8, 1 << 20), 1 << 20));
        // Each chunk is within the per-chunk bound; together they exceed the 1 MiB message limit.
        receive(RpcRdmaHeader.msg(XID, 1, List.of(new ReadSegment(40, seg(1 << 20)),
                new ReadSegment(44, seg(1 << 20))), List.of(), null), rpcCall(XID, 8));
        errChunk();
    }

    @Test
    void transportXidDifferentFromRpcXidGetsErrChunk() throws Exception {
        receive(RpcRdmaHeader.msg(XID, 1), rpcCall(XID + 1, 0));
        errChunk();
    }

    @Test
    void undecodableRpcMessageGetsErrChunkAndIsCounted() throws Exception {
        ByteBuf garbage = Unpooled.buffer().writeInt(XID).writeInt(7); // msg_type 7
        receive(RpcRdmaHeader.msg(XID, 1), garbage);
        errChunk();
        assertEquals(1, rpcStats.malformedMessages());
    }

    @Test
    void replyLargerThanInlineWithoutReplyChunkGetsErrChunk() throws Exception {
        receive(RpcRdmaHeader.msg(XID, 1), rpcCall(XID, 0));
        InboundRpcMessage m = ch.readInbound();
        m.release();
        XdrPayload results = XdrPayload.newPayload(ch.alloc());
        results.writer().writeOpaque(new byte[5000]);
        ChannelFuture f = ch.writeOneOutbound(new OutboundRpcMessage(RpcReply.success(XID), results));
        ch.flushOutbound();
        errChunk();
        assertFalse(f.isSuccess(), "the dispatcher learns the reply was not sent");
    }

    @Test
    void errorMessagesSentToAResponderAreDiscarded() {
        receive(RpcRdmaHeader.errChunk(XID, 1), null);
        assertNull(ch.readOutbound());
        assertEquals(1, stats.discardedMessages());
    }

    @Test
    void creditRequestOfZeroStillGetsAGrantAndHugeRequestsAreBounded() throws Exception {
        for (int requested : new int[] {0, 0xffff_ffff}) {
            receive(RpcRdmaHeader.msg(XID, requested), rpcCall(XID, 0));
            InboundRpcMessage m = ch.readInbound();
            m.release();
            ch.writeOneOutbound(new OutboundRpcMessage(RpcReply.success(XID), XdrPayload.newPayload(ch.alloc())));
            ch.flushOutbound();
            RpcRdmaHeader h = sent();
            assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
            assertTrue(h.credits() >= 1 && h.credits() <= 8, "requested " + Integer.toUnsignedString(requested)
                    + " granted " + h.credits());
        }
    }

    @Test
    void requesterExceedingItsGrantIsDisconnected() {
        receive(RpcRdmaHeader.msg(XID, 8), rpcCall(XID, 0));
        InboundRpcMessage first = ch.readInbound();
        first.release();
        // Only one credit was ever granted (RFC 8166 §3.3.3), yet a second call arrives before the first reply.
        receive(RpcRdmaHeader.msg(XID + 1, 8), rpcCall(XID + 1, 0));
        assertNull(ch.readInbound(), "the excess call is not processed");
        assertFalse(ch.isOpen(), "the connection is closed");
        assertEquals(1, stats.creditViolations());
    }

    @Test
    void duplicateXidInProgressGetsErrChunk() throws Exception {
        receive(RpcRdmaHeader.msg(XID, 8), rpcCall(XID, 0));
        InboundRpcMessage first = ch.readInbound();
        first.release();
        ch.writeOneOutbound(new OutboundRpcMessage(RpcReply.success(XID), XdrPayload.newPayload(ch.alloc())));
        ch.flushOutbound();
        sent();
        // Now two credits are allowed: the first call of the pair is taken, the duplicate refused.
        receive(RpcRdmaHeader.msg(XID, 8), rpcCall(XID, 0));
        InboundRpcMessage again = ch.readInbound();
        again.release();
        receive(RpcRdmaHeader.msg(XID, 8), rpcCall(XID, 0));
        errChunk();
    }

    @Test
    void singleHandleDecidesRemoteInvalidation() {
        RpcRdmaHeader one = RpcRdmaHeader.msg(XID, 1, List.of(new ReadSegment(8, seg(4))),
                List.of(WriteChunk.of(seg(8))), WriteChunk.of(seg(16)));
        assertEquals(0x1234, ReplyPlacement.singleHandle(one));
        RpcRdmaHeader two = RpcRdmaHeader.msg(XID, 1, List.of(), List.of(WriteChunk.of(seg(8))),
                WriteChunk.of(new RdmaSegment(0x99, 8, 0)));
        assertEquals(0, ReplyPlacement.singleHandle(two));
        assertEquals(0, ReplyPlacement.singleHandle(RpcRdmaHeader.msg(XID, 1)));
    }

    // ---- pooled call objects (issue 17) ------------------------------------------------------------------------

    RpcRdmaResponder responder() {
        return ch.pipeline().get(RpcRdmaResponder.class);
    }

    /** Answers {@code xid} with {@code result}; returns the reply's transport header, checking the RPC xid. */
    RpcRdmaHeader reply(int xid, int result) throws Exception {
        XdrPayload results = XdrPayload.newPayload(ch.alloc());
        results.writer().writeInt(result);
        ChannelFuture f = ch.writeOneOutbound(new OutboundRpcMessage(RpcReply.success(xid), results));
        ch.flushOutbound();
        assertTrue(f.isSuccess());
        ByteBuf b = assertInstanceOf(ByteBuf.class, ch.readOutbound());
        try {
            RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(b);
            assertEquals(xid, b.readInt(), "the RPC reply follows inline with its xid");
            return h;
        } finally {
            b.release();
        }
    }

    void expectCall(int xid) {
        InboundRpcMessage m = ch.readInbound();
        assertNotNull(m);
        try {
            assertEquals(xid, m.header().xid());
        } finally {
            m.release();
        }
    }

    @Test
    void callObjectsAreReusedOnlyOnceAnsweredAndKeepEachCallsXidAndCredits() throws Exception {
        // RFC 8166 §3.3.3: one call until a grant was sent; then up to 8.
        receive(RpcRdmaHeader.msg(XID - 1, 8), rpcCall(XID - 1, 8));
        expectCall(XID - 1);
        assertEquals(8, reply(XID - 1, 0).credits());
        assertEquals(1, responder().freeCalls(), "answered: back on the free list");
        for (int round = 0; round < 20; round++) {
            int plain = XID + 2 * round;
            int chunked = plain + 1;
            receive(RpcRdmaHeader.msg(plain, 3), rpcCall(plain, 8));            // the fast path: no header object
            receive(RpcRdmaHeader.msg(chunked, 5, List.of(), List.of(), WriteChunk.of(seg(4096))),
                    rpcCall(chunked, 8));                                             // the full decoder
            expectCall(plain);
            expectCall(chunked);
            assertEquals(2, responder().outstandingCalls());
            assertEquals(0, responder().freeCalls(), "both calls are in progress");
            // A second call with an xid in progress is refused; the call in progress is not disturbed.
            receive(RpcRdmaHeader.msg(plain, 3), rpcCall(plain, 8));
            RpcRdmaHeader refused = sent();
            assertEquals(RdmaErrorCode.ERR_CHUNK, refused.errorCode());
            assertEquals(plain, refused.xid());
            // Answered out of order: each reply carries its own call's xid and grant.
            RpcRdmaHeader h = reply(chunked, 1);
            assertEquals(chunked, h.xid());
            assertEquals(5, h.credits());
            assertEquals(1, responder().freeCalls());
            h = reply(plain, 2);
            assertEquals(plain, h.xid());
            assertEquals(3, h.credits());
            assertEquals(2, responder().freeCalls());
            assertEquals(0, responder().outstandingCalls());
        }
        assertEquals(20, stats.errorsSent());
        assertTrue(ch.isOpen());
    }

    /** Counts the flushes that reach the transport. */
    static final class Flushes extends ChannelOutboundHandlerAdapter {
        int count;

        @Override
        public void flush(ChannelHandlerContext ctx) {
            count++;
            ctx.flush();
        }
    }

    @Test
    void aReplyIsFlushedOnceAndOtherWritesAsTheirWritersFlush() throws Exception {
        Flushes flushes = new Flushes();
        ch.pipeline().addFirst(flushes);
        receive(RpcRdmaHeader.msg(XID, 8), rpcCall(XID, 8));
        expectCall(XID);
        assertEquals(0, flushes.count);
        ch.writeAndFlush(new OutboundRpcMessage(RpcReply.success(XID), XdrPayload.empty())).sync();
        assertEquals(1, flushes.count, "the reply's Send is flushed once, not again by the writeAndFlush");
        assertEquals(XID, sent().xid());
        assertEquals(0, responder().outstandingCalls());

        // A message the responder passes on, then a flush: the flush passes too.
        ByteBuf other = Unpooled.buffer().writeInt(7);
        ch.write(other);
        assertEquals(1, flushes.count);
        ch.flush();
        assertEquals(2, flushes.count, "a flush after a write passed on reaches the transport");
        assertEquals(other, ch.readOutbound());
        other.release();
        ch.flush();
        assertEquals(3, flushes.count, "a flush after no reply passes on");
    }
}
