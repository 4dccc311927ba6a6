package dev.rpcrdma.oncrpc.server;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The idle timeout fed by a transport handler's own counts ({@link RpcServerGuard#install(io.netty.channel
 * .ChannelPipeline, RpcConnectionUse)}): on the loop's frozen clock, a connection whose use count moves stays open, one
 * idle with a call in progress stays open, one idle with none closes (counted), and no handler sees the messages.
 */
class RpcIdleCloseTest {

    private static final long IDLE_MS = 800;

    /** What the transport handler reports. */
    private static final class Use implements RpcConnectionUse {
        int uses;
        int calls;

        @Override
        public int uses() {
            return uses;
        }

        @Override
        public int callsInProgress() {
            return calls;
        }
    }

    private static void advance(EmbeddedChannel ch, long millis) {
        for (long t = 0; t < millis; t += 10) {
            ch.advanceTimeBy(10, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
        }
    }

    @Test
    void closesOnlyWhenIdleWithNoCallInProgress() {
        RpcServerGuard guard = new RpcServerGuard(RpcServerLimits.DEFAULT.withIdleTimeout(Duration.ofMillis(IDLE_MS)));
        Use use = new Use();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        guard.install(ch.pipeline(), use);
        assertNull(ch.pipeline().get("rpcLimiter"), "no limiter");

        // Used every half idle period: never idle.
        for (int i = 0; i < 6; i++) {
            use.uses++;
            advance(ch, IDLE_MS / 2);
        }
        assertTrue(ch.isOpen(), "a used connection stays open");

        // Idle with a call in progress: open.
        use.calls = 1;
        advance(ch, 3 * IDLE_MS);
        assertTrue(ch.isOpen(), "a call in progress keeps it open");
        assertEquals(0, guard.idleConnectionsClosed());

        // Answered (a use), then idle: closed one idle period later, at most an eighth more.
        use.calls = 0;
        use.uses++;
        advance(ch, IDLE_MS - 10);
        assertTrue(ch.isOpen(), "not before the idle time since the last use");
        advance(ch, 10 + IDLE_MS / IdleTimer.CHECKS + 10);
        assertFalse(ch.isOpen(), "closed once idle");
        assertEquals(1, guard.idleConnectionsClosed());

        // Messages pass with nothing counting them on the way.
        EmbeddedChannel other = new EmbeddedChannel();
        guard.install(other.pipeline(), use);
        other.writeInbound("call");
        assertEquals("call", other.readInbound());
        other.finishAndReleaseAll();
    }
}
