package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.Ticker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Timeouts on a loop that runs on the system clock: deadlines in ticks of a {@link TimeoutSweeper} driven here
 * with a clock of the test's own (no sweeper thread), no task scheduled in the loop, sweeps asked for through the
 * loop's task queue.
 */
class CallTimeoutsSweeperTest {

    private static final long TICK = TimeUnit.MILLISECONDS.toNanos(10);

    private long now = 1_000_000_000L;
    private final TimeoutSweeper sweeper = new TimeoutSweeper(() -> now, TICK, false);
    private final RpcStats stats = new RpcStats();
    private final RpcClientHandler handler = new RpcClientHandler(stats, Duration.ofSeconds(5), sweeper);
    private final EmbeddedChannel ch = EmbeddedChannel.builder().ticker(Ticker.systemTicker()).handlers(handler)
            .build();
    private final RpcClient client = RpcClient.of(ch);

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
    }

    /** The clock moves on by {@code millis} and the sweeper makes one pass; the loop runs what it was asked. */
    private void pass(long millis) {
        now += TimeUnit.MILLISECONDS.toNanos(millis);
        sweeper.pass();
        ch.runPendingTasks();
    }

    private int sentXid() {
        OutboundRpcMessage call = assertInstanceOf(OutboundRpcMessage.class, ch.readOutbound());
        try {
            return call.header().xid();
        } finally {
            call.release();
        }
    }

    private void reply(int xid) throws Exception {
        OutboundRpcMessage out = new OutboundRpcMessage(RpcReply.success(xid), XdrPayload.empty());
        ByteBuf wire = RpcMessageCodec.encodeInline(ch.alloc(), out);
        out.release();
        ch.writeInbound(RpcMessageCodec.decode(wire, List.of()));
    }

    private static Throwable cause(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(1, TimeUnit.SECONDS));
        return e.getCause();
    }

    private boolean loopHasScheduledTask() {
        return ch.runScheduledPendingTasks() != -1; // the delay to the next scheduled task, -1 with none
    }

    @Test
    void aCallTimesOutAfterItsTimeoutNeverBeforeAndTheLoopSchedulesNothing() throws Exception {
        assertSame(Ticker.systemTicker(), ((AbstractScheduledEventExecutor) ch.eventLoop()).ticker());
        CompletableFuture<Void> f = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofMillis(25)));
        sentXid();
        assertFalse(loopHasScheduledTask(), "no scheduled task for the timeout");
        // 25 ms at 10 ms a tick: 3 ticks, and 1 more as the first tick may come at once.
        pass(10);
        pass(10);
        pass(10);
        assertFalse(f.isDone(), "30 ms: the first tick may have come right after the call, so it waits one more");
        pass(10);
        assertInstanceOf(RpcTimeoutException.class, cause(f));
        assertEquals(0, handler.pendingCalls());
    }

    @Test
    void aStarvedSweeperMakesCallsLateNeverEarly() {
        CompletableFuture<Void> f = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofMillis(25)));
        // Each pass came 100 ms late: each counts one tick, not ten.
        pass(100);
        pass(100);
        pass(100);
        assertFalse(f.isDone());
        pass(100);
        assertTrue(f.isCompletedExceptionally());
    }

    @Test
    void answeredCallsCostNoSweepUntilThePublishedDeadlineAndThenOneSweepRepublishes() throws Exception {
        CallOptions options = CallOptions.DEFAULT.withTimeout(Duration.ofMillis(25));
        CompletableFuture<Void> first = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, options);
        reply(sentXid());
        assertTrue(first.isDone());
        pass(10);
        pass(10);
        // A call sent later: its deadline is later than the one published, which stays.
        CompletableFuture<Void> second = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, options);
        int xid = sentXid();
        pass(10);
        pass(10); // the first call's deadline: one sweep, which finds nothing due and publishes the second's
        assertFalse(second.isDone());
        assertTrue(sweeper.pass(), "the second call's deadline is published");
        reply(xid);
        assertTrue(second.isDone());
        pass(10);
        pass(10); // the second's deadline came: the sweep finds nothing and publishes none
        assertFalse(sweeper.pass(), "nothing published: the sweeper may park");
        assertFalse(second.isCompletedExceptionally());
    }

    @Test
    void aShorterTimeoutMovesThePublishedDeadlineEarlier() {
        CompletableFuture<Void> slow = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(1)));
        CompletableFuture<Void> fast = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofMillis(5)));
        pass(10);
        assertFalse(fast.isDone());
        pass(10);
        assertInstanceOf(RpcTimeoutException.class, cause(fast));
        assertFalse(slow.isDone());
        assertEquals(1, handler.pendingCalls());
    }

    @Test
    void closingForgetsTheConnection() {
        client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, CallOptions.DEFAULT);
        assertEquals(1, sweeper.registeredCount());
        ch.close();
        assertEquals(0, sweeper.registeredCount());
        assertFalse(sweeper.pass());
    }

    @Test
    void ticksForNeverUndercounts() {
        assertEquals(0, sweeper.ticksFor(0));
        assertEquals(1, sweeper.ticksFor(1));
        assertEquals(1, sweeper.ticksFor(TICK));
        assertEquals(2, sweeper.ticksFor(TICK + 1));
    }

    @Test
    void withLongTimeoutsTheSweeperSleepsASecondAtATimeAndCallsStillNeverTimeOutEarly() throws Exception {
        CallOptions options = CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(30));
        client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, options);
        sentXid();
        pass(10);
        assertEquals(TimeoutSweeper.MAX_JUMP, TimeoutSweeper.jumpOf(sweeper.clock()),
                "30 s / 16 is more than a second: the longest jump");
        assertEquals(TimeoutSweeper.MAX_JUMP, sweeper.sleepTicks(), "the thread sleeps a second");
        // A call made now may see its tick counted a whole jump late: it adds the jump.
        long start = now;
        CompletableFuture<Void> f = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, options);
        sentXid();
        while (now - start < TimeUnit.SECONDS.toNanos(30)) {
            assertFalse(f.isDone(), "timed out " + (now - start) + " ns after the call, before its 30 s");
            pass(1000);
        }
        for (int i = 0; i < 3 && !f.isDone(); i++) {
            pass(1000);
        }
        assertInstanceOf(RpcTimeoutException.class, cause(f), "at most about two jumps late");
    }

    @Test
    void aStarvedSweeperWithLongJumpsMakesCallsLateNeverEarly() {
        CallOptions options = CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(30));
        client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, options);
        pass(10);
        long start = now;
        CompletableFuture<Void> f = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, options);
        // Each pass comes 10 s late: it counts one jump (1 s), not 10 s.
        for (int i = 0; i < 30; i++) {
            pass(10_000);
            assertFalse(f.isDone(), "timed out " + (now - start) + " ns after the call");
        }
        pass(10_000);
        pass(10_000);
        assertTrue(f.isCompletedExceptionally());
    }

    @Test
    void aShorterTimeoutShortensTheJumpAndTheSleep() {
        client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(30)));
        pass(10);
        assertEquals(TimeoutSweeper.MAX_JUMP, TimeoutSweeper.jumpOf(sweeper.clock()));
        CompletableFuture<Void> fast = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofMillis(320)));
        // The call read the long jump: its deadline counts it (late, never early); the next pass plans 32 / 16.
        pass(10);
        assertEquals(2, TimeoutSweeper.jumpOf(sweeper.clock()));
        assertEquals(2, sweeper.sleepTicks());
        for (int i = 0; i < 30; i++) {
            pass(10);
        }
        assertFalse(fast.isDone(), "320 ms after the call");
        for (int i = 0; i < 110 && !fast.isDone(); i++) {
            pass(10);
        }
        assertInstanceOf(RpcTimeoutException.class, cause(fast));
    }
}
