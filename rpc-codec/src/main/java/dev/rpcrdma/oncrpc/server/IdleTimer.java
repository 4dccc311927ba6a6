package dev.rpcrdma.oncrpc.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Ticker;

import java.util.concurrent.TimeUnit;

/**
 * The timer of an all-idle timeout: looks {@value #CHECKS} times per idle period whether a use count moved, and calls
 * {@link #idle} when it has not for the idle time (then every idle period more). It reads the clock only when it
 * looks, never per message; a subclass that does not intercept reads and writes costs Netty's pipeline no hop per
 * message. One timer per connection. Event loop only.
 */
abstract class IdleTimer extends ChannelDuplexHandler {

    /** Looks per idle period. */
    static final int CHECKS = 8;

    private final long idleNanos;
    private final long stepNanos;
    private final Runnable check = this::check;
    private ChannelHandlerContext ctx;
    private Ticker ticker;
    /** {@link #uses()} at the last look. */
    private int seen;
    /** When the last look that found activity ran (the activity was at or before it); the start's time at first. */
    private long quietSince;
    private boolean firstEvent = true;
    private Future<?> timer;

    IdleTimer(long idleNanos) {
        this.idleNanos = idleNanos;
        this.stepNanos = Math.max(1, idleNanos / CHECKS);
    }

    /** A count that moves whenever the connection reads or writes a message. */
    abstract int uses();

    /** The connection has been idle for the idle time ({@code event}: the first such event since it was used). */
    abstract void idle(ChannelHandlerContext ctx, IdleStateEvent event);

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        // The loop's own clock: the system's on every real loop, a test's on an EmbeddedChannel.
        ticker = ctx.executor() instanceof AbstractScheduledEventExecutor
                ? ((AbstractScheduledEventExecutor) ctx.executor()).ticker() : Ticker.systemTicker();
        if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    private void start() {
        if (timer == null) {
            seen = uses();
            quietSince = ticker.nanoTime();
            arm();
        }
    }

    private void stop() {
        Future<?> t = timer;
        timer = null;
        if (t != null) {
            t.cancel(false);
        }
    }

    private void arm() {
        timer = ctx.executor().schedule(check, stepNanos, TimeUnit.NANOSECONDS);
    }

    private void check() {
        if (timer == null || !ctx.channel().isOpen()) {
            return;
        }
        long now = ticker.nanoTime();
        arm();
        int uses = uses();
        if (uses != seen) {
            seen = uses;
            quietSince = now;
            firstEvent = true;
            return;
        }
        if (now - quietSince < idleNanos) {
            return;
        }
        quietSince = now; // the next event one idle period from now
        IdleStateEvent event = firstEvent ? IdleStateEvent.FIRST_ALL_IDLE_STATE_EVENT
                : IdleStateEvent.ALL_IDLE_STATE_EVENT;
        firstEvent = false;
        idle(ctx, event);
    }
}
