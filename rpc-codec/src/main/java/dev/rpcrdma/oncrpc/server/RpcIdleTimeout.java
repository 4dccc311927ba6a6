package dev.rpcrdma.oncrpc.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Ticker;

import java.util.concurrent.TimeUnit;

/**
 * Fires {@link IdleStateEvent#FIRST_ALL_IDLE_STATE_EVENT} (then {@link IdleStateEvent#ALL_IDLE_STATE_EVENT} every
 * idle period more) when a connection has neither read nor written for the idle time: Netty's
 * {@code IdleStateHandler} for all-idle, without its cost per message. That handler listens to every write's
 * promise, so it turns a void promise into a new one (one object per reply), and reads the clock per read and per
 * write; this one only counts reads and writes as they are issued, and a timer that runs {@value #CHECKS} times per
 * idle period reads the clock and sees whether the count moved. So the event comes never before the idle time and at
 * most 1/{@value #CHECKS} of it later, which is what an idle timeout of minutes needs. One timer per connection, never
 * touched per message. Event loop only.
 */
final class RpcIdleTimeout extends ChannelDuplexHandler {

    /** Looks per idle period. */
    static final int CHECKS = 8;

    private final long idleNanos;
    private final long stepNanos;
    private final Runnable check = this::check;
    private ChannelHandlerContext ctx;
    private Ticker ticker;
    /** Reads and writes issued, counted without reading the clock. */
    private int activity;
    /** {@link #activity} at the last look. */
    private int seen;
    /** When the last look that found activity ran (the activity was at or before it); the start's time at first. */
    private long quietSince;
    private boolean firstEvent = true;
    private Future<?> timer;

    RpcIdleTimeout(long idleNanos) {
        this.idleNanos = idleNanos;
        this.stepNanos = Math.max(1, idleNanos / CHECKS);
    }

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

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        activity++;
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        activity++;
        ctx.write(msg, promise);
    }

    private void start() {
        if (timer == null) {
            seen = activity;
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
        if (activity != seen) {
            seen = activity;
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
        ctx.fireUserEventTriggered(event);
    }
}
