package dev.rpcrdma.oncrpc.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.Future;

import java.util.concurrent.TimeUnit;

/**
 * Fires {@link IdleStateEvent#FIRST_ALL_IDLE_STATE_EVENT} (then {@link IdleStateEvent#ALL_IDLE_STATE_EVENT}) when a
 * connection has neither read nor written for the idle time: Netty's {@code IdleStateHandler} for all-idle, without
 * its cost per write. That handler listens to every write's promise, so it turns a void promise into a new one
 * (one object per reply); this one counts a write when it is issued, which is what an idle timeout of minutes
 * needs. One timer per connection, re-armed once per idle period, not per message. Event loop only.
 */
final class RpcIdleTimeout extends ChannelDuplexHandler {

    private final long idleNanos;
    private final Runnable check = this::check;
    private ChannelHandlerContext ctx;
    private long lastActivity;
    private boolean firstEvent = true;
    private Future<?> timer;

    RpcIdleTimeout(long idleNanos) {
        this.idleNanos = idleNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
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
        active();
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        active();
        ctx.write(msg, promise);
    }

    private void active() {
        lastActivity = System.nanoTime();
        firstEvent = true;
    }

    private void start() {
        if (timer == null) {
            lastActivity = System.nanoTime();
            arm(idleNanos);
        }
    }

    private void stop() {
        Future<?> t = timer;
        timer = null;
        if (t != null) {
            t.cancel(false);
        }
    }

    private void arm(long delayNanos) {
        timer = ctx.executor().schedule(check, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check() {
        if (timer == null || !ctx.channel().isOpen()) {
            return;
        }
        long left = idleNanos - (System.nanoTime() - lastActivity);
        if (left > 0) {
            arm(left);
            return;
        }
        arm(idleNanos);
        IdleStateEvent event = firstEvent ? IdleStateEvent.FIRST_ALL_IDLE_STATE_EVENT
                : IdleStateEvent.ALL_IDLE_STATE_EVENT;
        firstEvent = false;
        ctx.fireUserEventTriggered(event);
    }
}
