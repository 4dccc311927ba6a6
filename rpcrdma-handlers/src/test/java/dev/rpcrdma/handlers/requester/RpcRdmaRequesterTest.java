package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.FakeRdmaConnection;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcCallFailedEvent;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcClientHandler;
import dev.rpcrdma.oncrpc.client.RpcConnectionClosedException;
import dev.rpcrdma.oncrpc.client.RpcTimeoutException;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The requester over an {@code EmbeddedChannel}: inline framing, credits (queueing, writability, grant 0, grants
 * above the maximum), RDMA_ERROR as a typed failure, and replies that must be silently discarded (RFC 8166 §4.5).
 */
class RpcRdmaRequesterTest {
    /** Replies that fit the 1024-byte threshold: these tests' calls offer no Reply chunk unless they say so. */
    static final int INLINE_REPLIES = 512;

    static final int XID = 0x11223344;
    static final int PROG = 0x20000123;

    final RpcRdmaStats stats = new RpcRdmaStats();
    final RpcStats rpcStats = new RpcStats();
    final FakeRdmaConnection connection = new FakeRdmaConnection();
    final RpcRdmaRequester requester = new RpcRdmaRequester(RequesterSetup.of(RpcRdmaConfig.DEFAULT
                .withMaxRequests(16).withMaxReplySize(INLINE_REPLIES), stats, rpcStats)
            .withThresholds(new InlineThresholds(1024, 1024, true)).withConnection(connection));
    /** User events fired up the pipeline by the requester. */
    final List<Object> events = new ArrayList<>();
    final EmbeddedChannel ch = new EmbeddedChannel(requester, new ChannelInboundHandlerAdapter() {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            events.add(evt);
        }
    });

    {
        connection.attach(ch);
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    ChannelFuture call(int xid, int argBytes) {
        XdrPayload args = XdrPayload.newPayload(ch.alloc());
        args.writer().writeFixedOpaque(new byte[argBytes]);
        ChannelFuture f = ch.writeOneOutbound(new OutboundRpcMessage(new RpcCall(xid, PROG, 1, 1, OpaqueAuth.NONE),
                args));
        ch.flushOutbound();
        return f;
    }

    /** The next call Send: its header; checks that the RPC message follows inline with the same xid. */
    RpcRdmaHeader sentCall() throws Exception {
        ByteBuf b = assertInstanceOf(ByteBuf.class, ch.readOutbound(), "a Send was written");
        try {
            RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(b);
            assertEquals(h.xid(), b.readInt(), "the RPC call follows inline with the same xid");
            return h;
        } finally {
            b.release();
        }
    }

    static ByteBuf rpcReply(int xid) {
        return Unpooled.buffer().writeInt(xid).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0)
                .writeInt(77);
    }

    void receive(Consumer<ByteBuf> header, ByteBuf rpc) {
        receive(header, rpc, false, 0);
    }

    void receive(Consumer<ByteBuf> header, ByteBuf rpc, boolean invalidated, int rkey) {
        ByteBuf b = Unpooled.directBuffer();
        header.accept(b);
        if (rpc != null) {
            b.writeBytes(rpc);
            rpc.release();
        }
        ch.writeInbound(new RdmaReceive(b, invalidated, rkey));
    }

    void receive(RpcRdmaHeader header, ByteBuf rpc) {
        receive(b -> RpcRdmaHeaderEncoder.encode(header, b), rpc);
    }

    void expectReplyDelivered(int xid) {
        InboundRpcMessage m = ch.readInbound();
        assertNotNull(m, "the reply reaches the RPC layer");
        try {
            assertEquals(xid, m.header().xid());
            assertInstanceOf(RpcReply.class, m.header());
        } finally {
            m.release();
        }
    }

    @Test
    void inlineCallIsRdmaMsgAskingForMaxRequests() throws Exception {
        ChannelFuture f = call(XID, 100);
        RpcRdmaHeader h = sentCall();
        assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
        assertEquals(1, h.version());
        assertEquals(16, h.credits());
        assertFalse(h.hasChunks());
        assertTrue(f.isSuccess(), "the write promise completes when the Send is written, not at the reply");
        receive(RpcRdmaHeader.msg(XID, 4), rpcReply(XID));
        expectReplyDelivered(XID);
        assertTrue(f.isSuccess());
        assertEquals(4, requester.creditGrant());
    }

    /**
     * The commonest reply (plain RDMA_MSG, MSG_ACCEPTED SUCCESS with an AUTH_NONE verifier), recognised in one pass
     * over both headers, goes up as the message the general decoder makes of the same RPC bytes; a reply that is
     * not quite it (another accept_stat) takes the checked path and goes up too.
     */
    @Test
    void aCommonReplyGoesUpAsTheGeneralDecoderMakesIt() throws Exception {
        call(XID, 8);
        sentCall();
        receive(RpcRdmaHeader.msg(XID, 3), rpcReply(XID));
        InboundRpcMessage m = ch.readInbound();
        InboundRpcMessage expected = RpcMessageCodec.decode(rpcReply(XID));
        try {
            assertNotNull(m, "the reply reaches the RPC layer");
            assertEquals(expected.header().toString(), m.header().toString());
            assertEquals(expected.size(), m.size(), "the RPC message's bytes, its header included");
            assertEquals(4, m.body().readableBytes());
            assertEquals(77, m.body().readInt(), "the results follow the header");
        } finally {
            m.release();
            expected.release();
        }
        assertEquals(3, requester.creditGrant());
        assertEquals(0, requester.outstandingCalls());
        call(XID + 1, 8);
        sentCall();
        ByteBuf garbage = Unpooled.buffer().writeInt(XID + 1).writeInt(1).writeInt(0).writeInt(0).writeInt(0)
                .writeInt(4); // GARBAGE_ARGS
        receive(RpcRdmaHeader.msg(XID + 1, 5), garbage);
        InboundRpcMessage g = ch.readInbound();
        try {
            assertNotNull(g, "the reply reaches the RPC layer");
            assertFalse(((RpcReply) g.header()).isSuccess());
        } finally {
            g.release();
        }
        assertEquals(5, requester.creditGrant());
    }

    @Test
    void callsBeyondTheGrantQueueAndTheChannelIsNotWritable() throws Exception {
        ChannelFuture first = call(XID, 8);
        ChannelFuture second = call(XID + 1, 8);
        sentCall();
        assertNull(ch.readOutbound(), "one credit before the first reply (RFC 8166 §3.3.3)");
        assertEquals(1, requester.queuedCalls());
        assertFalse(second.isDone(), "queued for a credit: not written");
        assertFalse(ch.isWritable(), "no credit: not writable");
        receive(RpcRdmaHeader.msg(XID, 0), rpcReply(XID));
        expectReplyDelivered(XID);
        assertTrue(first.isSuccess());
        assertEquals(1, requester.creditGrant(), "a grant of 0 counts as 1: no stall");
        assertEquals(XID + 1, sentCall().xid(), "the queued call went out");
        assertTrue(second.isSuccess(), "written once it went out");
        receive(RpcRdmaHeader.msg(XID + 1, 0xffff_ffff), rpcReply(XID + 1));
        expectReplyDelivered(XID + 1);
        assertEquals(16, requester.creditGrant(), "a grant above what we asked for is clamped");
        assertTrue(ch.isWritable());
        assertEquals(List.of(false, true), connection.writabilityChanges,
                "writability through RdmaConnection.setUpperLayerWritable, once per change");
    }

    @Test
    void rdmaErrorFailsTheCallWithATypedException() throws Exception {
        ChannelFuture f = call(XID, 8);
        sentCall();
        receive(RpcRdmaHeader.errVers(XID, 1, 3, 1, 1), null);
        assertTrue(f.isSuccess(), "the call was written; its RDMA_ERROR is not a write failure");
        assertEquals(1, events.size(), "RDMA_ERROR is reported once, as the call's failure");
        RpcCallFailedEvent failed = assertInstanceOf(RpcCallFailedEvent.class, events.get(0));
        assertEquals(XID, failed.xid());
        RpcRdmaErrorException e = assertInstanceOf(RpcRdmaErrorException.class, failed.cause());
        assertEquals(RdmaErrorCode.ERR_VERS, e.code());
        assertEquals(1, e.lowVersion());
        assertEquals(1, e.highVersion());
        assertEquals(XID, e.xid());
        assertEquals(1, stats.errorsReceived());
        assertEquals(3, requester.creditGrant());
        assertEquals(0, requester.outstandingCalls());
    }

    /** A reply that must be discarded: the call stays outstanding and nothing reaches the RPC layer. */
    void expectDiscarded(ChannelFuture f, long discards) {
        assertNull(ch.readInbound());
        assertTrue(f.isSuccess(), "written");
        assertTrue(events.isEmpty(), "the call is still outstanding: not failed");
        assertEquals(discards, stats.discardedMessages());
        assertEquals(1, requester.outstandingCalls());
        assertTrue(ch.isOpen());
    }

    @Test
    void badRepliesAreSilentlyDiscarded() throws Exception {
        ChannelFuture f = call(XID, 8);
        sentCall();
        // Truncated header.
        receive(b -> b.writeInt(XID).writeInt(1).writeInt(1).writeInt(0), null);
        expectDiscarded(f, 1);
        // Bad version.
        receive(b -> b.writeInt(XID).writeInt(2).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0),
                rpcReply(XID));
        expectDiscarded(f, 2);
        // A reply carrying a Read list.
        receive(RpcRdmaHeader.msg(XID, 1, List.of(new ReadSegment(0, new RdmaSegment(1, 8, 0))), List.of(), null),
                rpcReply(XID));
        expectDiscarded(f, 3);
        // A Write chunk the call did not provide.
        receive(RpcRdmaHeader.msg(XID, 1, List.of(), List.of(WriteChunk.of(new RdmaSegment(1, 8, 0))), null),
                rpcReply(XID));
        expectDiscarded(f, 4);
        // A Reply chunk the call did not provide.
        receive(RpcRdmaHeader.nomsg(XID, 1, List.of(), List.of(), WriteChunk.of(new RdmaSegment(1, 8, 0))), null);
        expectDiscarded(f, 5);
        // rdma_xid and the RPC xid differ.
        receive(RpcRdmaHeader.msg(XID, 1), rpcReply(XID + 5));
        expectDiscarded(f, 6);
        // A reply to no call.
        receive(RpcRdmaHeader.msg(XID + 9, 1), rpcReply(XID + 9));
        expectDiscarded(f, 7);
        // Unknown procedure.
        receive(b -> b.writeInt(XID).writeInt(1).writeInt(1).writeInt(8).writeInt(0).writeInt(0).writeInt(0),
                rpcReply(XID));
        expectDiscarded(f, 8);
        // Finally the good reply completes the call.
        receive(RpcRdmaHeader.msg(XID, 2), rpcReply(XID));
        expectReplyDelivered(XID);
        assertTrue(f.isSuccess());
    }

    @Test
    void sendWithInvalidateOfAForeignKeyClosesTheConnection() throws Exception {
        ChannelFuture f = call(XID, 8);
        sentCall();
        // The inline-only call exposed no key at all: invalidating anything is a protocol violation.
        receive(b -> RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(XID, 1), b), rpcReply(XID), true, 0x4242);
        assertFalse(ch.isOpen());
        assertNull(ch.readInbound());
        assertTrue(f.isSuccess(), "written; the RPC layer fails the call when the connection goes");
    }

    @Test
    void callTooLargeForInlineWithoutRdmaFailsAtOnce() {
        ChannelFuture f = call(XID, 2000);
        assertTrue(f.isDone());
        assertFalse(f.isSuccess());
        assertNull(ch.readOutbound());
        assertEquals(0, requester.outstandingCalls(), "the credit was not consumed");
    }

    @Test
    void closingFailsOutstandingAndQueuedCalls() {
        ChannelFuture first = call(XID, 8);
        ChannelFuture second = call(XID + 1, 8);
        ch.close();
        assertTrue(first.isSuccess(), "the outstanding call was written; the RPC layer fails it on close");
        assertInstanceOf(ClosedChannelException.class, second.cause(), "the queued call was never written");
    }

    // ---- with the RPC layer on top: what RpcClient.call(...) reports ---------------------------------------

    /** A requester with an {@code RpcClientHandler} above it, and below it {@code lower} (if not null). */
    static final class WithClient implements AutoCloseable {
        final RpcRdmaStats stats = new RpcRdmaStats();
        final RpcStats rpcStats = new RpcStats();
        final RpcRdmaRequester requester = new RpcRdmaRequester(RequesterSetup.of(RpcRdmaConfig.DEFAULT
                .withMaxRequests(16).withMaxReplySize(INLINE_REPLIES), stats, rpcStats)
                .withThresholds(new InlineThresholds(1024, 1024, true)));
        final EmbeddedChannel ch;
        final RpcClient client;

        WithClient(ChannelHandler lower) {
            ch = new EmbeddedChannel();
            if (lower != null) {
                ch.pipeline().addLast(lower);
            }
            ch.pipeline().addLast(requester, new RpcClientHandler(rpcStats, Duration.ofSeconds(30)));
            client = RpcClient.of(ch);
        }

        CompletableFuture<Integer> call(CallOptions options) {
            XdrPayload args = client.newPayload();
            args.writer().writeInt(5);
            CompletableFuture<Integer> f = client.call(PROG, 1, 1, args, r -> r.readInt(), options);
            ch.runPendingTasks();
            return f;
        }

        /** The xid of the next call Send. */
        int sent() throws Exception {
            ByteBuf b = assertInstanceOf(ByteBuf.class, ch.readOutbound(), "a Send was written");
            try {
                return new RpcRdmaHeaderDecoder().decode(b).xid();
            } finally {
                b.release();
            }
        }

        void receive(RpcRdmaHeader header, ByteBuf rpc) {
            ByteBuf b = Unpooled.directBuffer();
            RpcRdmaHeaderEncoder.encode(header, b);
            if (rpc != null) {
                b.writeBytes(rpc);
                rpc.release();
            }
            ch.writeInbound(new RdmaReceive(b, false, 0));
        }

        @Override
        public void close() {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void callsMadeWhileABatchOfRepliesIsHandledGoOutInOneFlushAtItsEnd() throws Exception {
        List<Integer> flushes = new ArrayList<>();
        ChannelOutboundHandlerAdapter counter = new ChannelOutboundHandlerAdapter() {
            @Override
            public void flush(ChannelHandlerContext ctx) {
                flushes.add(1);
                ctx.flush();
            }
        };
        try (WithClient c = new WithClient(counter)) {
            c.call(CallOptions.DEFAULT);
            int first = c.sent();
            c.receive(RpcRdmaHeader.msg(first, 4), rpcReply(first)); // the first reply grants 4 credits
            flushes.clear();
            CompletableFuture<Integer> a = c.call(CallOptions.DEFAULT);
            CompletableFuture<Integer> b = c.call(CallOptions.DEFAULT);
            int xa = c.sent();
            int xb = c.sent();
            assertEquals(2, flushes.size(), "outside a batch a call is flushed at once");
            // Each answer's callback makes the next call, as a closed-loop client does.
            List<CompletableFuture<Integer>> next = new ArrayList<>();
            a.thenRun(() -> next.add(c.call(CallOptions.DEFAULT)));
            b.thenRun(() -> next.add(c.call(CallOptions.DEFAULT)));
            // One poll brought both replies: two receives, then one channelReadComplete.
            for (int xid : new int[] {xa, xb}) {
                ByteBuf r = Unpooled.directBuffer();
                RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(xid, 4), r);
                ByteBuf rpc = rpcReply(xid);
                r.writeBytes(rpc);
                rpc.release();
                c.ch.pipeline().fireChannelRead(new RdmaReceive(r, false, 0));
            }
            assertEquals(2, next.size(), "both replies handled, both next calls written");
            assertNull(c.ch.readOutbound(), "not flushed before the batch ends");
            assertEquals(2, flushes.size());
            c.ch.pipeline().fireChannelReadComplete();
            assertEquals(3, flushes.size(), "one flush for the batch");
            c.sent();
            c.sent();
            assertEquals(2, c.requester.outstandingCalls());
        }
    }

    @Test
    void aBatchEndedByAnErrorOrACloseInsteadOfChannelReadCompletePostsTheCallItDeferred() throws Exception {
        for (boolean byError : new boolean[] {true, false}) {
            try (WithClient c = new WithClient(null)) {
                CompletableFuture<Integer> first = c.call(CallOptions.DEFAULT);
                int xid = c.sent();
                List<CompletableFuture<Integer>> next = new ArrayList<>();
                first.thenRun(() -> next.add(c.call(CallOptions.DEFAULT)));
                // The reply arrives and its callback makes the next call; no channelReadComplete follows.
                ByteBuf r = Unpooled.directBuffer();
                RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(xid, 4), r);
                ByteBuf rpc = rpcReply(xid);
                r.writeBytes(rpc);
                rpc.release();
                c.ch.pipeline().fireChannelRead(new RdmaReceive(r, false, 0));
                assertEquals(1, next.size());
                assertNull(c.ch.readOutbound(), "deferred to the end of the batch");
                if (byError) {
                    c.ch.pipeline().fireExceptionCaught(new IOException("test"));
                } else {
                    c.ch.close();
                }
                c.sent(); // posted, not failed with the close
                assertFalse(c.ch.isOpen());
            }
        }
    }

    static Throwable failure(CompletableFuture<?> f) {
        assertTrue(f.isDone(), "the call is over");
        return assertThrows(ExecutionException.class, () -> f.get(1, TimeUnit.SECONDS)).getCause();
    }

    @Test
    void rdmaErrorFailsTheRpcClientCallWithTheTypedExceptionItself() throws Exception {
        try (WithClient c = new WithClient(null)) {
            CompletableFuture<Integer> vers = c.call(CallOptions.DEFAULT);
            int xidVers = c.sent();
            c.receive(RpcRdmaHeader.errVers(xidVers, 1, 4, 1, 1), null);
            RpcRdmaErrorException e = assertInstanceOf(RpcRdmaErrorException.class, failure(vers),
                    "RpcRdmaErrorException itself, not a wrapped connection failure");
            assertEquals(RdmaErrorCode.ERR_VERS, e.code());
            assertEquals(1, e.lowVersion());
            assertEquals(1, e.highVersion());
            assertEquals(xidVers, e.xid());

            CompletableFuture<Integer> chunk = c.call(CallOptions.DEFAULT);
            int xidChunk = c.sent();
            c.receive(RpcRdmaHeader.errChunk(xidChunk, 4), null);
            assertEquals(RdmaErrorCode.ERR_CHUNK, assertInstanceOf(RpcRdmaErrorException.class, failure(chunk))
                    .code());
            assertEquals(2, c.stats.errorsReceived());
            assertEquals(0, c.requester.outstandingCalls());
            assertEquals(0, c.client.handler().pendingCalls());
            assertTrue(c.ch.isOpen(), "RDMA_ERROR fails one RPC, not the connection");
        }
    }

    @Test
    void aCallWhoseSendFailedReportsAConnectionFailureAndGivesItsCreditBack() throws Exception {
        IOException linkDown = new IOException("send queue flushed");
        try (WithClient c = new WithClient(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(linkDown);
            }
        })) {
            CompletableFuture<Integer> f = c.call(CallOptions.DEFAULT);
            // The client writes its calls with the void promise: the failure reaches the pipeline, and the
            // connection closes with it as the RDMA channel's own failed Send does; every call fails with the cause.
            RpcConnectionClosedException e = assertInstanceOf(RpcConnectionClosedException.class, failure(f));
            assertSame(linkDown, e.getCause(), "the transport's reason is the cause");
            assertFalse(c.ch.isOpen(), "a failed Send breaks the connection");
            assertEquals(0, c.requester.outstandingCalls(), "the credit of a call never sent is not held");
            assertEquals(0, c.client.handler().pendingCalls());
        }
    }

    @Test
    void aTimedOutCallKeepsItsCreditUntilItsLateReplyOrRdmaError() throws Exception {
        try (WithClient c = new WithClient(null)) {
            CallOptions shortTimeout = CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200));
            CompletableFuture<Integer> first = c.call(shortTimeout);
            int xid1 = c.sent();
            // Grant 1 before the first reply (RFC 8166 §3.3.3): the second call queues behind the first.
            CompletableFuture<Integer> second = c.call(shortTimeout);
            assertEquals(1, c.requester.queuedCalls());
            c.ch.advanceTimeBy(300, TimeUnit.MILLISECONDS);
            c.ch.runScheduledPendingTasks();
            assertInstanceOf(RpcTimeoutException.class, failure(first));
            assertInstanceOf(RpcTimeoutException.class, failure(second), "queued, and timed out too");
            assertEquals(1, c.requester.outstandingCalls(),
                    "the responder may still answer (and use the chunks): the credit stays consumed");
            assertNull(c.ch.readOutbound(), "no credit, nothing more sent");
            // The late reply returns the credit; the RPC layer drops it as a reply to no pending call.
            c.receive(RpcRdmaHeader.msg(xid1, 2), rpcReply(xid1));
            assertEquals(1, c.rpcStats.unknownXidReplies());
            int xid2 = c.sent();
            assertEquals(1, c.requester.outstandingCalls(), "the queued call went out with the freed credit");
            // A late RDMA_ERROR for the timed-out queued call frees its credit too and fails nothing else.
            c.receive(RpcRdmaHeader.errChunk(xid2, 2), null);
            assertEquals(0, c.requester.outstandingCalls());
            assertEquals(1, c.stats.errorsReceived());
            assertTrue(c.ch.isOpen());
            CompletableFuture<Integer> third = c.call(CallOptions.DEFAULT);
            int xid3 = c.sent();
            c.receive(RpcRdmaHeader.msg(xid3, 2), rpcReply(xid3));
            assertEquals(77, third.get(1, TimeUnit.SECONDS));
        }
    }

    // ---- pooled call objects (issue 17): reused only once nothing can reach them ----------------------------

    /** Holds every Send's write promise until the test completes it, as a send queue not yet reaped does. */
    static final class HeldSends extends ChannelOutboundHandlerAdapter {
        final List<ChannelPromise> promises = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            promises.add(promise);
            ctx.write(msg, ctx.voidPromise());
        }

        void completeAll() {
            for (ChannelPromise p : promises) {
                p.trySuccess();
            }
            promises.clear();
        }
    }

    static ByteBuf rpcReply(int xid, int result) {
        return Unpooled.buffer().writeInt(xid).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0)
                .writeInt(result);
    }

    @Test
    void aCallObjectIsReusedOnlyAfterItsReplyAndItsSendCompletion() throws Exception {
        HeldSends sends = new HeldSends();
        try (WithClient c = new WithClient(sends)) {
            // A call written with a promise of its own (not the RPC client's void one): its listener holds it.
            int xid1 = 0x5151;
            ChannelPromise written = c.ch.newPromise();
            c.ch.writeAndFlush(OutboundRpcMessage.newCall(xid1, PROG, 1, 1, OpaqueAuth.NONE, new int[0], 0,
                    XdrPayload.empty()), written);
            assertEquals(xid1, c.sent());
            // RDMA: the reply may arrive before the Send's completion is reaped.
            c.receive(RpcRdmaHeader.msg(xid1, 4), rpcReply(xid1, 1));
            assertEquals(0, c.requester.freeCalls(), "its Send's promise still reaches it");
            sends.completeAll();
            assertTrue(written.isSuccess());
            assertEquals(1, c.requester.freeCalls(), "nothing reaches it any more");

            // The RPC client's calls: nothing listens to their void promise, so the reply alone lets go.
            CompletableFuture<Integer> second = c.call(CallOptions.DEFAULT);
            int xid2 = c.sent();
            assertEquals(0, c.requester.freeCalls(), "reused for the next call");
            assertEquals(0, c.requester.freeCalls(), "the reply did not arrive: still outstanding");
            c.receive(RpcRdmaHeader.msg(xid2, 4), rpcReply(xid2, 2));
            assertEquals(2, second.get(1, TimeUnit.SECONDS));
            assertEquals(1, c.requester.freeCalls());
        }
    }

    @Test
    void manyCallsWithTimeoutsErrorsAndACloseNeverShareACallObject() throws Exception {
        HeldSends sends = new HeldSends();
        WithClient c = new WithClient(sends);
        try {
            CallOptions shortTimeout = CallOptions.DEFAULT.withTimeout(Duration.ofMillis(100));
            List<CompletableFuture<Integer>> lateOnes = new ArrayList<>();
            List<Integer> lateXids = new ArrayList<>();
            // Grant 1 before the first reply (RFC 8166 §3.3.3); 5 after it: four calls and one timed out.
            CompletableFuture<Integer> prime = c.call(CallOptions.DEFAULT);
            int xid0 = c.sent();
            c.receive(RpcRdmaHeader.msg(xid0, 5), rpcReply(xid0, 0));
            assertEquals(0, prime.get(1, TimeUnit.SECONDS));
            for (int round = 0; round < 50; round++) {
                // Four calls at a time: one answered, one RDMA_ERROR, one timing out (answered late, in
                // the next round, after its object could have been reused were it recycled too early), one answered
                // before its Send completed.
                List<CompletableFuture<Integer>> f = new ArrayList<>();
                List<Integer> xids = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    f.add(c.call(i == 2 ? shortTimeout : CallOptions.DEFAULT));
                    xids.add(c.sent());
                }
                for (int i = 0; i < lateXids.size(); i++) {
                    int late = lateXids.get(i);
                    c.receive(RpcRdmaHeader.msg(late, 5), rpcReply(late, -1));
                    assertInstanceOf(RpcTimeoutException.class, failure(lateOnes.get(i)));
                }
                lateOnes.clear();
                lateXids.clear();
                if (round % 2 == 0) {
                    sends.completeAll();
                }
                c.receive(RpcRdmaHeader.msg(xids.get(0), 5), rpcReply(xids.get(0), round));
                c.receive(RpcRdmaHeader.errChunk(xids.get(1), 5), null);
                c.ch.advanceTimeBy(200, TimeUnit.MILLISECONDS);
                c.ch.runScheduledPendingTasks();
                c.receive(RpcRdmaHeader.msg(xids.get(3), 5), rpcReply(xids.get(3), round + 1000));
                sends.completeAll();
                assertEquals(round, f.get(0).get(1, TimeUnit.SECONDS));
                assertInstanceOf(RpcRdmaErrorException.class, failure(f.get(1)));
                assertEquals(round + 1000, f.get(3).get(1, TimeUnit.SECONDS));
                lateOnes.add(f.get(2));
                lateXids.add(xids.get(2));
                assertEquals(1, c.requester.outstandingCalls(), "only the timed-out call keeps its credit");
                assertTrue(c.requester.freeCalls() <= 16, "bounded by maxRequests");
            }
            assertEquals(49, c.rpcStats.unknownXidReplies(), "each late reply was dropped by the RPC layer");
            // Close with calls outstanding (five, four of them with their Sends not completed) and queued ones.
            int before = c.requester.freeCalls();
            for (int i = 0; i < 8; i++) {
                c.call(CallOptions.DEFAULT);
            }
            c.ch.close();
            sends.completeAll();
            assertEquals(0, c.requester.queuedCalls());
            // Every object came back, once: the free ones, the late call's and those made for the close phase.
            assertEquals(Math.min(16, Math.max(before + 1, 9)), c.requester.freeCalls());
            assertEquals(0, c.client.handler().pendingCalls());
        } finally {
            c.close();
        }
    }
}
