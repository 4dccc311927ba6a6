package dev.rpcrdma.channel;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.lang.annotation.Annotation;
import java.util.concurrent.RejectedExecutionException;

/**
 * Fires a channel's {@code channelRead} and {@code channelReadComplete} straight at its pipeline's first handler when
 * that is provably what the pipeline would do, else through the pipeline. Event loop only.
 *
 * <p>The pipeline's head passes both events on to the first context whose handler does not skip them (Netty's
 * {@code @Skip}: the adapters' forwarding methods), after {@code channelReadComplete} asks for a read if auto-read is
 * on, and calls the handler in place when its executor is the channel's loop and its {@code handlerAdded} has run,
 * catching what it throws into that handler's {@code exceptionCaught}. Netty's generic path does this with a
 * megamorphic call shared by every handler of the JVM; this one calls the first handler from a call site of its own.
 * It is taken only when:
 * <ul>
 * <li>the pipeline's first context (the head's next) is the one adopted, checked per event (a handler added before
 * it, or its removal or replacement, changes the head's next);</li>
 * <li>the adopted handler handles the event (does not skip it), runs on the channel's loop, and leak detection is off
 * (the pipeline then touches nothing);</li>
 * <li>its {@code handlerAdded} has run: a context is adopted only by a task of the loop queued after the pipeline
 * linked it (under the pipeline's lock), so after the task that Netty queues to call {@code handlerAdded} when the
 * handler is added from another thread.</li>
 * </ul>
 * Anything else (the first event of a connection, the events after a change until the adoption task has run) goes
 * through the pipeline.
 */
final class InboundEntry {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(InboundEntry.class);
    /** Netty's {@code ChannelHandlerMask.Skip}, or null if it cannot be found (then nothing is adopted). */
    private static final Class<? extends Annotation> SKIP = skipAnnotation();

    private final Channel channel;
    private final ChannelPipeline pipeline;
    /** As the pipeline decided when it was made: with leak detection on it touches each message per hop. */
    private final boolean touching = ResourceLeakDetector.isEnabled();
    /** The adopted first context, or null. */
    private ChannelHandlerContext first;
    /** Its handler where it handles the event, else null (the event goes through the pipeline). */
    private ChannelInboundHandler reads;
    private ChannelInboundHandler readsComplete;
    private boolean adopting;

    InboundEntry(Channel channel) {
        this.channel = channel;
        this.pipeline = channel.pipeline();
    }

    /** The adopted first context, or null; for tests. */
    ChannelHandlerContext adopted() {
        return first;
    }

    /** {@code pipeline.fireChannelRead(msg)}. */
    void fireChannelRead(Object msg) {
        ChannelInboundHandler h = reads;
        ChannelHandlerContext ctx = first;
        if (h != null && pipeline.firstContext() == ctx) {
            try {
                h.channelRead(ctx, msg);
            } catch (Throwable t) {
                exceptionCaught(h, ctx, t);
            }
            return;
        }
        pipeline.fireChannelRead(msg);
        check();
    }

    /** {@code pipeline.fireChannelReadComplete()}. */
    void fireChannelReadComplete() {
        ChannelInboundHandler h = readsComplete;
        ChannelHandlerContext ctx = first;
        if (h != null && pipeline.firstContext() == ctx) {
            try {
                h.channelReadComplete(ctx);
            } catch (Throwable t) {
                exceptionCaught(h, ctx, t);
            }
            // What the head does after passing the event on (DefaultChannelPipeline.HeadContext.readIfIsAutoRead).
            if (channel.config().isAutoRead()) {
                channel.read();
            }
            return;
        }
        pipeline.fireChannelReadComplete();
        check();
    }

    /** As Netty's {@code AbstractChannelHandlerContext.invokeExceptionCaught} on an added handler. */
    private static void exceptionCaught(ChannelInboundHandler h, ChannelHandlerContext ctx, Throwable cause) {
        try {
            h.exceptionCaught(ctx, cause);
        } catch (Throwable error) {
            if (logger.isDebugEnabled()) {
                logger.debug("An exception was thrown by a user handler's exceptionCaught() method while handling "
                        + "the following exception:", cause);
            } else if (logger.isWarnEnabled()) {
                logger.warn("An exception '{}' [enable DEBUG level for full stacktrace] was thrown by a user "
                        + "handler's exceptionCaught() method while handling the following exception:", error, cause);
            }
        }
    }

    /**
     * After an event that went through the pipeline: if its first context is not the adopted one, queues its adoption
     * (one task at a time; a loop that no longer takes tasks leaves every event on the pipeline's path).
     */
    private void check() {
        if (adopting || touching || SKIP == null) {
            return;
        }
        ChannelHandlerContext now = pipeline.firstContext();
        if (now == null || now == first) {
            return; // nothing to adopt, or adopted and skipping the event
        }
        ChannelHandlerContext observed;
        synchronized (pipeline) { // the pipeline links a context (and queues its handlerAdded) under this lock
            observed = pipeline.firstContext();
        }
        if (observed == null || observed == first) {
            return;
        }
        adopting = true;
        try {
            channel.eventLoop().execute(() -> adopt(observed));
        } catch (RejectedExecutionException e) {
            logger.debug("{}: the loop takes no more tasks; events go through the pipeline", channel);
        }
    }

    /**
     * Adopts {@code observed} if it is still the first context: its {@code handlerAdded}, on the loop, came before
     * this task (see the class documentation). Loop thread.
     */
    private void adopt(ChannelHandlerContext observed) {
        adopting = false;
        ChannelHandlerContext now;
        synchronized (pipeline) {
            now = pipeline.firstContext();
        }
        if (now != observed || observed.isRemoved()) {
            return; // the next event through the pipeline looks again
        }
        ChannelHandler handler = observed.handler();
        // A handler on an executor of its own is adopted as one that takes neither event: no new adoption per event.
        ChannelInboundHandler in = handler instanceof ChannelInboundHandler && observed.executor() == channel.eventLoop()
                ? (ChannelInboundHandler) handler : null;
        reads = in != null && handles(handler.getClass(), "channelRead", ChannelHandlerContext.class, Object.class)
                ? in : null;
        readsComplete = in != null && handles(handler.getClass(), "channelReadComplete", ChannelHandlerContext.class)
                ? in : null;
        first = observed;
    }

    /** Whether Netty's pipeline passes the event to such a handler: its method is not marked {@code @Skip}. */
    static boolean handles(Class<?> type, String method, Class<?>... parameters) {
        if (SKIP == null) {
            return false;
        }
        try {
            return !type.getMethod(method, parameters).isAnnotationPresent(SKIP);
        } catch (NoSuchMethodException e) {
            return true; // as Netty's ChannelHandlerMask: not skippable
        } catch (SecurityException e) {
            return false; // not adopted
        }
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Annotation> skipAnnotation() {
        try {
            Class<?> c = Class.forName("io.netty.channel.ChannelHandlerMask$Skip", false,
                    ChannelHandler.class.getClassLoader());
            return c.isAnnotation() ? (Class<? extends Annotation>) c : null;
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }
}
