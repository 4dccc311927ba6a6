package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.channel.Channel;
import io.netty.util.internal.logging.InternalLogger;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs calls answered GARBAGE_ARGS: at most one warning per interval (JVM-wide), naming the procedure and what did
 * not decode (the decoder's message: for an argument over its bound, the bound and the declared size), and how many
 * more were answered so since the last warning; the others at debug level. A peer that sends garbage in a loop
 * cannot flood the log. Thread-safe.
 */
final class GarbageArgsLog {
    private final InternalLogger logger;
    private final long intervalNanos;
    private final AtomicLong nextNanos = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    GarbageArgsLog(InternalLogger logger, long intervalNanos) {
        this.logger = logger;
        this.intervalNanos = intervalNanos;
    }

    /** One call's arguments did not decode. */
    void warn(Channel channel, RpcCall call, XdrException e) {
        long now = System.nanoTime();
        long next = nextNanos.get();
        if ((next == Long.MIN_VALUE || now - next >= 0) && nextNanos.compareAndSet(next, now + intervalNanos)) {
            long more = suppressed.getAndSet(0);
            logger.warn("{} answered GARBAGE_ARGS: the arguments of program 0x{} version {} procedure {} did not"
                    + " decode: {}{}", channel, Integer.toHexString(call.program()), call.version(), call.procedure(),
                    e.getMessage(), more > 0 ? " (and " + more + " more such calls since the last warning)" : "");
        } else {
            suppressed.incrementAndGet();
            if (logger.isDebugEnabled()) {
                logger.debug("{} answered GARBAGE_ARGS for {}: {}", channel, call, e.getMessage());
            }
        }
    }
}
