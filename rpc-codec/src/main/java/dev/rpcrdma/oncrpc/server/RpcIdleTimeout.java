package dev.rpcrdma.oncrpc.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * Fires {@link IdleStateEvent#FIRST_ALL_IDLE_STATE_EVENT} (then {@link IdleStateEvent#ALL_IDLE_STATE_EVENT} every
 * idle period more) when a connection has neither read nor written for the idle time: Netty's
 * {@code IdleStateHandler} for all-idle, without its cost per message. That handler listens to every write's
 * promise, so it turns a void promise into a new one (one object per reply), and reads the clock per read and per
 * write; this one only counts reads and writes as they are issued, and its {@link IdleTimer} reads the clock
 * {@value IdleTimer#CHECKS} times per idle period and sees whether the count moved. So the event comes never before
 * the idle time and at most 1/{@value IdleTimer#CHECKS} of it later, which is what an idle timeout of minutes needs.
 * Event loop only.
 */
final class RpcIdleTimeout extends IdleTimer {

    /** Looks per idle period. */
    static final int CHECKS = IdleTimer.CHECKS;

    /** Reads and writes issued, counted without reading the clock. */
    private int activity;

    RpcIdleTimeout(long idleNanos) {
        super(idleNanos);
    }

    @Override
    int uses() {
        return activity;
    }

    @Override
    void idle(ChannelHandlerContext ctx, IdleStateEvent event) {
        ctx.fireUserEventTriggered(event);
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
}
