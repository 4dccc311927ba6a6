package dev.rpcrdma.handlers.responder;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The responder's direct link to the handler right above it: that handler is adopted when it writes straight into
 * the responder, and calls then go straight into its {@code channelRead} while its context is still the next one.
 * Event loop only.
 */
final class UpperEntry {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(UpperEntry.class);

    /** The handlers this link adopts (the dispatcher, or any inbound handler above the byte framing). */
    private final Class<? extends ChannelHandler> adoptable;
    /** The adopted handler's context and the handler; null until a direct write adopted them. */
    private ChannelHandlerContext upper;
    private ChannelInboundHandler upperHandler;
    /** Calls handed straight up (for tests). */
    private int calls;

    UpperEntry(Class<? extends ChannelHandler> adoptable) {
        this.adoptable = adoptable;
    }

    /**
     * {@code from}, which just wrote straight into the responder at {@code own} (the next outbound context from it,
     * the caller on the loop), becomes the context calls are handed to, if its handler is adoptable and runs on
     * the responder's executor.
     */
    void adopt(ChannelHandlerContext own, ChannelHandlerContext from) {
        if (from != upper && adoptable.isInstance(from.handler()) && from.handler() instanceof ChannelInboundHandler
                && from.executor() == own.executor()) {
            upper = from;
            upperHandler = (ChannelInboundHandler) from.handler();
        }
    }

    /**
     * Hands {@code message} up as {@code ctx.fireChannelRead(message)} does: straight into the adopted handler's
     * {@code channelRead} while its context is still the next one after {@code ctx} (a handler added between them
     * changes Netty's link, and the message then goes through the pipeline); what it throws goes to its
     * {@code exceptionCaught}, as the pipeline does.
     */
    void fire(ChannelHandlerContext ctx, Object message) {
        ChannelInboundHandler h = upperHandler;
        ChannelHandlerContext u = upper;
        if (h == null || !OutboundAdjacency.isNextInbound(ctx, u)) {
            ctx.fireChannelRead(message);
            return;
        }
        calls++;
        try {
            h.channelRead(u, message);
        } catch (Throwable t) {
            try {
                h.exceptionCaught(u, t);
            } catch (Throwable error) {
                logger.warn("{} an exception was thrown by {}'s exceptionCaught() while handling {}", ctx.channel(),
                        h, t, error);
            }
        }
    }

    int calls() {
        return calls;
    }
}
