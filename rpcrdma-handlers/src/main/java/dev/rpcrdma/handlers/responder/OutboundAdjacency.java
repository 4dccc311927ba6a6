package dev.rpcrdma.handlers.responder;

import io.netty.channel.ChannelHandlerContext;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Whether a handler context's events reach another context first, with nothing between them: Netty's links between
 * contexts (their package-private {@code prev} and {@code next}, which the pipeline changes under its lock whenever a
 * context is added or removed between two), read where the runtime lets them be read; where not, no context is ever
 * adjacent and every event goes through the pipeline. Any thread.
 */
final class OutboundAdjacency {
    /** Netty's {@code AbstractChannelHandlerContext}, or null if it cannot be read. */
    private static final Class<?> CONTEXT;
    /** Its {@code volatile AbstractChannelHandlerContext prev}, or null. */
    private static final VarHandle PREV;
    /** Its {@code volatile AbstractChannelHandlerContext next}, or null. */
    private static final VarHandle NEXT;

    static {
        Class<?> type = null;
        VarHandle prev = null;
        VarHandle next = null;
        try {
            type = Class.forName("io.netty.channel.AbstractChannelHandlerContext", false,
                    ChannelHandlerContext.class.getClassLoader());
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
            prev = lookup.findVarHandle(type, "prev", type);
            next = lookup.findVarHandle(type, "next", type);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            type = null;
            prev = null;
            next = null;
        }
        CONTEXT = type;
        PREV = prev;
        NEXT = next;
    }

    private OutboundAdjacency() {
    }

    /** Whether Netty's link can be read here (else {@link #isNextOutbound} is always false). */
    static boolean available() {
        return PREV != null;
    }

    /** Whether {@code to} is the context right before {@code from} in their pipeline (its outbound next). */
    static boolean isNextOutbound(ChannelHandlerContext from, ChannelHandlerContext to) {
        VarHandle prev = PREV;
        return prev != null && CONTEXT.isInstance(from) && (Object) prev.getVolatile(from) == to;
    }

    /** Whether {@code to} is the context right after {@code from} in their pipeline (its inbound next). */
    static boolean isNextInbound(ChannelHandlerContext from, ChannelHandlerContext to) {
        VarHandle next = NEXT;
        return next != null && CONTEXT.isInstance(from) && (Object) next.getVolatile(from) == to;
    }
}
