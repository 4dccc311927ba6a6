package dev.rpcrdma.handlers.responder;

import io.netty.channel.ChannelHandlerContext;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Whether a handler context's outbound events reach another context first, with nothing between them: Netty's link
 * from a context to the one before it (its package-private {@code prev}, which the pipeline changes under its lock
 * whenever a context is added or removed between the two), read where the runtime lets it be read; where not, no
 * context is ever adjacent and every reply goes through the pipeline. Any thread.
 */
final class OutboundAdjacency {
    /** Netty's {@code AbstractChannelHandlerContext}, or null if it cannot be read. */
    private static final Class<?> CONTEXT;
    /** Its {@code volatile AbstractChannelHandlerContext prev}, or null. */
    private static final VarHandle PREV;

    static {
        Class<?> type = null;
        VarHandle prev = null;
        try {
            type = Class.forName("io.netty.channel.AbstractChannelHandlerContext", false,
                    ChannelHandlerContext.class.getClassLoader());
            prev = MethodHandles.privateLookupIn(type, MethodHandles.lookup()).findVarHandle(type, "prev", type);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            type = null;
            prev = null;
        }
        CONTEXT = type;
        PREV = prev;
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
}
