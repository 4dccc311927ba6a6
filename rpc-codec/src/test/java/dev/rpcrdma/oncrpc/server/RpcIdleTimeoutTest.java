package dev.rpcrdma.oncrpc.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The idle timeout on the loop's own clock (an {@code EmbeddedChannel}'s, frozen and moved by the test): the event
 * comes never before the idle time since the last read or write, at most an eighth of it later, then again every
 * idle period; reads and writes are counted without a clock read.
 */
class RpcIdleTimeoutTest {

    private static final long IDLE_MS = 800;

    /** Collects the idle events. */
    private static final class Events extends ChannelInboundHandlerAdapter {
        final List<Object> seen = new ArrayList<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            seen.add(evt);
        }
    }

    private static void advance(EmbeddedChannel ch, long millis) {
        for (long t = 0; t < millis; t += 10) { // in steps, as a loop's clock moves
            ch.advanceTimeBy(10, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
        }
    }

    @Test
    void firesNeverBeforeTheIdleTimeAndAtMostAnEighthLater() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        Events events = new Events();
        ch.pipeline().addLast(new RpcIdleTimeout(TimeUnit.MILLISECONDS.toNanos(IDLE_MS)), events);

        advance(ch, IDLE_MS - 10);
        assertEquals(List.of(), events.seen, "not before the idle time since the start");
        advance(ch, 10);
        assertEquals(List.of(IdleStateEvent.FIRST_ALL_IDLE_STATE_EVENT), events.seen, "at the idle time");

        // A read at t, then quiet: nothing before t + idle, the first event again by t + idle + idle / 8.
        ch.writeInbound("call");
        ch.readInbound();
        advance(ch, IDLE_MS - 10);
        assertEquals(1, events.seen.size(), "not before the idle time since the read: " + events.seen);
        advance(ch, 10 + IDLE_MS / RpcIdleTimeout.CHECKS);
        assertEquals(List.of(IdleStateEvent.FIRST_ALL_IDLE_STATE_EVENT, IdleStateEvent.FIRST_ALL_IDLE_STATE_EVENT),
                events.seen);

        // Still quiet: the next event one idle period later, not the first any more.
        advance(ch, IDLE_MS);
        assertEquals(IdleStateEvent.ALL_IDLE_STATE_EVENT, events.seen.get(2));

        // Writes keep the connection busy as reads do.
        int before = events.seen.size();
        for (int i = 0; i < 5; i++) {
            ch.writeOutbound("reply");
            ch.readOutbound();
            advance(ch, IDLE_MS / 2);
        }
        assertEquals(before, events.seen.size(), "a write every half idle period: never idle");
        ch.finishAndReleaseAll();
    }
}
