package dev.rpcrdma.handlers;

import dev.rpcrdma.channel.RdmaReceive;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The inbound skeleton the requester and the responder share, as {@code SimpleChannelInboundHandler} is for
 * inbound-only handlers: an {@link RdmaReceive} is handed to {@link #received} and released afterwards whatever
 * happens (the handler owns it for the call only: it retains, e.g. with {@code retainedSlice}, what it keeps);
 * anything else passes on unchanged. A {@link Throwable} escaping {@link #received} is a bug or a broken invariant,
 * never a peer's bad message (those are answered or discarded by RFC 8166 §4.5 rules inside): it is logged and the
 * connection closed through {@link #receiveFailed}. Subclasses are event-loop confined like every connection handler.
 */
public abstract class RdmaReceiveHandler extends ChannelDuplexHandler {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaReceiveHandler.class);

    protected RdmaReceiveHandler() {
    }

    @Override
    public final void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RdmaReceive)) {
            ctx.fireChannelRead(msg);
            return;
        }
        RdmaReceive receive = (RdmaReceive) msg;
        try {
            received(ctx, receive);
        } catch (Throwable t) {
            logger.warn("{} closing after an unexpected error in {}", ctx.channel(), getClass().getSimpleName(), t);
            receiveFailed(ctx);
        } finally {
            receive.release();
        }
    }

    /** Handles one received Send; {@code receive} is released when this returns. */
    protected abstract void received(ChannelHandlerContext ctx, RdmaReceive receive) throws Exception;

    /** After an unexpected error in {@link #received}: closes the connection. */
    protected void receiveFailed(ChannelHandlerContext ctx) {
        ctx.close();
    }
}
