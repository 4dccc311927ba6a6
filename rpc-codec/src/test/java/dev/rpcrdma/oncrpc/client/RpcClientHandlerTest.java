package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.RpcWire;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Client XIDs, pending table, timeouts and close, through the real TCP pipeline on an EmbeddedChannel. */
class RpcClientHandlerTest {

    private final RpcStats stats = new RpcStats();
    private EmbeddedChannel ch;
    private RpcClient client;

    @BeforeEach
    void setUp() {
        ch = new EmbeddedChannel(new TcpRpcClientInitializer(stats, TcpRpcConfig.DEFAULT, Duration.ofSeconds(5)));
        client = RpcClient.of(ch);
    }

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
    }

    private RpcCall sentCall() throws XdrException {
        InboundRpcMessage sent = RpcWire.readReply(ch);
        try {
            return assertInstanceOf(RpcCall.class, sent.header());
        } finally {
            sent.release();
        }
    }

    private void receive(RpcReply reply, XdrPayload results) {
        OutboundRpcMessage out = new OutboundRpcMessage(reply, results);
        ByteBuf wire = RpcMessageCodec.encodeInline(ch.alloc(), out);
        out.release();
        ch.writeInbound(RpcWire.record(wire));
    }

    private static Throwable cause(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(1, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void replyCompletesTheMatchingCall() throws Exception {
        CompletableFuture<Integer> a = client.call(100, 1, 1, client.newPayload(), r -> r.readInt());
        CompletableFuture<Integer> b = client.call(100, 1, 1, client.newPayload(), r -> r.readInt());
        RpcCall callA = sentCall();
        RpcCall callB = sentCall();
        assertNotEquals(callA.xid(), callB.xid());
        assertEquals(2, client.handler().pendingCalls());
        XdrPayload rb = client.newPayload();
        rb.writer().writeInt(22);
        receive(RpcReply.success(callB.xid()), rb);
        XdrPayload ra = client.newPayload();
        ra.writer().writeInt(11);
        receive(RpcReply.success(callA.xid()), ra);
        assertEquals(11, a.get(1, TimeUnit.SECONDS));
        assertEquals(22, b.get(1, TimeUnit.SECONDS));
        assertEquals(0, client.handler().pendingCalls());
    }

    @Test
    void nonSuccessReplyFailsWithTheReply() throws Exception {
        CompletableFuture<Void> f = client.callNull(100, 7);
        receive(RpcReply.progMismatch(sentCall().xid(), 2, 4), client.newPayload());
        RpcReplyException e = assertInstanceOf(RpcReplyException.class, cause(f));
        assertEquals(AcceptStat.PROG_MISMATCH, e.reply().acceptStat());
        assertEquals(4, e.reply().mismatchHigh());
    }

    @Test
    void replyToACallNeverSentIsCountedAndDropped() throws Exception {
        CompletableFuture<Void> f = client.callNull(100, 1);
        int xid = sentCall().xid();
        receive(RpcReply.success(xid + 12345), client.newPayload());
        assertEquals(1, stats.unknownXidReplies());
        assertFalse(f.isDone());
        receive(RpcReply.success(xid), client.newPayload());
        assertTrue(f.isDone());
        // A duplicate reply is now unknown too.
        receive(RpcReply.success(xid), client.newPayload());
        assertEquals(2, stats.unknownXidReplies());
    }

    @Test
    void undecodableResultsFailTheCall() throws Exception {
        CompletableFuture<byte[]> f = client.call(100, 1, 1, client.newPayload(), r -> r.readOpaque(16));
        XdrPayload results = client.newPayload();
        results.writer().writeInt(1000);
        receive(RpcReply.success(sentCall().xid()), results);
        assertInstanceOf(XdrException.class, cause(f));
    }

    /** Records the outcomes a listener receives, in order. */
    private static final class Outcomes implements RpcCallListener<Object> {
        final java.util.List<Object> seen = new java.util.ArrayList<>();

        @Override
        public void onResult(Object result) {
            seen.add(result);
        }

        @Override
        public void onFailure(Throwable cause) {
            seen.add(cause);
        }
    }

    @Test
    void oneListenerServesManyCallsAndTheirStateIsReused() throws Exception {
        Outcomes outcomes = new Outcomes();
        for (int i = 0; i < 3; i++) {
            XdrPayload args = client.newPayload();
            args.writer().writeInt(i);
            client.call(100, 1, 1, args, r -> r.readInt(), CallOptions.DEFAULT, outcomes);
            XdrPayload results = client.newPayload();
            results.writer().writeInt(10 + i);
            receive(RpcReply.success(sentCall().xid()), results);
        }
        client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, CallOptions.DEFAULT, outcomes);
        receive(RpcReply.progMismatch(sentCall().xid(), 2, 4), XdrPayload.empty());
        assertEquals(4, outcomes.seen.size(), outcomes.seen.toString());
        assertEquals(java.util.List.of(10, 11, 12), outcomes.seen.subList(0, 3));
        assertInstanceOf(RpcReplyException.class, outcomes.seen.get(3));
        assertEquals(0, client.handler().pendingCalls());
    }

    /**
     * A listener call made on the event loop takes its call object from the loop's own free list and gives it back
     * there (callers on other threads: {@code CallTimeoutsRealLoopTest}).
     */
    @Test
    void listenerCallObjectsAreReusedOnTheLoop() throws Exception {
        RpcClientHandler handler = client.handler();
        Outcomes outcomes = new Outcomes();
        client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, CallOptions.DEFAULT, outcomes);
        receive(RpcReply.success(sentCall().xid()), XdrPayload.empty());
        PendingCall<?> first = handler.takeFree();
        assertTrue(first != null, "the finished call was kept for reuse");
        handler.giveBack(first);
        client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, CallOptions.DEFAULT, outcomes);
        assertEquals(null, handler.takeFree(), "the next call took the kept object");
        receive(RpcReply.success(sentCall().xid()), XdrPayload.empty());
        assertSame(first, handler.takeFree(), "and it came back");
        assertEquals(2, outcomes.seen.size(), outcomes.seen.toString());
    }

    @Test
    void deadlinesExpireInTheirOrderWhateverTheOrderOfTheCalls() throws Exception {
        Outcomes outcomes = new Outcomes();
        // Sent 300 ms, 100 ms, 200 ms, 5 s (the client's default): one timer serves them all.
        client.call(100, 1, 0, XdrPayload.empty(), r -> "300", CallOptions.DEFAULT.withTimeout(
                Duration.ofMillis(300)), outcomes);
        client.call(100, 1, 0, XdrPayload.empty(), r -> "100", CallOptions.DEFAULT.withTimeout(
                Duration.ofMillis(100)), outcomes);
        CompletableFuture<Void> f200 = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200)));
        CompletableFuture<Void> longer = client.callNull(100, 1);
        int x300 = sentCall().xid();
        int x100 = sentCall().xid();
        sentCall();
        int xLonger = sentCall().xid();
        ch.advanceTimeBy(150, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertEquals(1, outcomes.seen.size());
        assertInstanceOf(RpcTimeoutException.class, outcomes.seen.get(0));
        assertFalse(f200.isDone());
        receive(RpcReply.success(x300), XdrPayload.empty()); // answered in time: never times out
        assertEquals("300", outcomes.seen.get(1));
        ch.advanceTimeBy(100, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertInstanceOf(RpcTimeoutException.class, cause(f200));
        ch.advanceTimeBy(1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertEquals(2, outcomes.seen.size());
        assertFalse(longer.isDone());
        assertEquals(1, client.handler().pendingCalls());
        receive(RpcReply.success(xLonger), XdrPayload.empty());
        assertTrue(longer.isDone());
        receive(RpcReply.success(x100), XdrPayload.empty());
        assertEquals(1, stats.unknownXidReplies(), "the reply to the call that timed out is dropped");
    }

    @Test
    void callTimesOutAndTheLateReplyIsDropped() throws Exception {
        CompletableFuture<Void> f = client.call(100, 1, 0, client.newPayload(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200)));
        int xid = sentCall().xid();
        ch.advanceTimeBy(300, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertInstanceOf(RpcTimeoutException.class, cause(f));
        assertEquals(0, client.handler().pendingCalls());
        receive(RpcReply.success(xid), client.newPayload());
        assertEquals(1, stats.unknownXidReplies());
    }

    @Test
    void closeFailsEveryPendingCallAndLaterCallsFailAtOnce() throws Exception {
        CompletableFuture<Void> a = client.callNull(100, 1);
        CompletableFuture<Void> b = client.callNull(100, 1);
        ch.close();
        assertInstanceOf(RpcConnectionClosedException.class, cause(a));
        assertInstanceOf(RpcConnectionClosedException.class, cause(b));
        CompletableFuture<Void> c = client.callNull(100, 1);
        assertInstanceOf(RpcConnectionClosedException.class, cause(c));
    }

    @Test
    void callReceivedByClientIsCountedAndDropped() {
        ch.writeInbound(RpcWire.record(RpcWire.call(1, 2, 100, 1, 0)));
        assertEquals(1, stats.unexpectedMessages());
        assertTrue(ch.isOpen());
    }

    @Test
    void truncatedReplyRecordIsDropped() {
        ch.writeInbound(RpcWire.record(Unpooled.buffer().writeInt(5).writeInt(1)));
        assertEquals(1, stats.malformedMessages());
    }

    @Test
    void aTransportFailureEventFailsOnlyThatCallWithItsOwnCause() throws Exception {
        CompletableFuture<Void> a = client.callNull(100, 1);
        CompletableFuture<Integer> b = client.call(100, 1, 1, client.newPayload(), r -> r.readInt());
        int xidA = sentCall().xid();
        int xidB = sentCall().xid();
        IOException typed = new IOException("the transport's own typed failure of this call");
        // Fired by a handler below the client that knows nothing of it (the first handler of the pipeline).
        ch.pipeline().firstContext().fireUserEventTriggered(new RpcCallFailedEvent(xidA, typed));
        assertSame(typed, cause(a), "the cause itself, not wrapped");
        assertEquals(1, client.handler().pendingCalls());
        assertFalse(b.isDone());
        // An event for a call no longer pending (answered, timed out) is ignored.
        ch.pipeline().firstContext().fireUserEventTriggered(new RpcCallFailedEvent(xidA, typed));
        assertTrue(ch.isOpen());
        XdrPayload results = client.newPayload();
        results.writer().writeInt(7);
        receive(RpcReply.success(xidB), results);
        assertEquals(7, b.get(1, TimeUnit.SECONDS));
    }

    @Test
    void aCallWhoseWriteFailedReportsAConnectionFailureWithTheTransportCause() throws Exception {
        IOException linkDown = new IOException("link down");
        ch.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(linkDown);
            }
        });
        CompletableFuture<Void> f = client.callNull(100, 1);
        RpcConnectionClosedException e = assertInstanceOf(RpcConnectionClosedException.class, cause(f));
        assertSame(linkDown, e.getCause());
        assertEquals(0, client.handler().pendingCalls());
    }

    @Test
    void severalDdpReplyItemHintsReachTheCallAndSingleItemHintsStillWork() throws Exception {
        int[] sizes = {0, 65536, 100};
        CallOptions options = CallOptions.DEFAULT.withReplyDdpItems(sizes).withMaxReplySize(9000);
        sizes[1] = 1;
        assertArrayEquals(new int[] {0, 65536, 100}, options.replyDdpItems(), "copied");
        assertEquals(65536, options.maxDdpReplyItem());
        assertEquals(9000, options.maxReplySize());
        assertThrows(IllegalArgumentException.class, () -> CallOptions.DEFAULT.withReplyDdpItems(10, -1));
        assertArrayEquals(new int[] {4096}, CallOptions.DEFAULT.withReplyHints(4096, 0).replyDdpItems());
        assertArrayEquals(new int[0], options.withReplyHints(0, 100).replyDdpItems());
        RpcCall call = new RpcCall(1, 100, 1, 0, OpaqueAuth.NONE).withReplyHints(options.replyDdpItems(), 9000);
        assertArrayEquals(new int[] {0, 65536, 100}, call.replyDdpItems());
        assertEquals(3, call.replyDdpItemCount());
        assertEquals(100, call.replyDdpItem(2));
        assertEquals(65536, call.maxDdpReplyItem());
        RpcCall single = call.withReplyHints(4096, 5000);
        assertArrayEquals(new int[] {4096}, single.replyDdpItems());
        assertEquals(4096, single.maxDdpReplyItem());
        assertArrayEquals(new int[] {0, 65536, 100}, call.withXid(2).replyDdpItems(), "withXid keeps them");
    }

    @Test
    void aDecoderThatThrowsAnErrorFailsTheCallInsteadOfLeavingItPending() throws Exception {
        AssertionError bug = new AssertionError("decoder bug");
        CompletableFuture<Integer> f = client.call(100, 1, 1, client.newPayload(), r -> {
            throw bug;
        });
        receive(RpcReply.success(sentCall().xid()), client.newPayload());
        assertSame(bug, cause(f));
        assertTrue(ch.isOpen());
    }
}
