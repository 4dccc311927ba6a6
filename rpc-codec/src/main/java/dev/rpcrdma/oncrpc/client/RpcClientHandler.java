package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Client side of RFC 5531 on one connection: XID allocation, the table of pending calls, per-call timeouts,
 * matching replies ({@link InboundRpcMessage} from the TCP codec or an RPC-over-RDMA handler) to calls, and
 * failing every pending call with {@link RpcConnectionClosedException} when the connection closes, and failing one
 * call when the transport fires an {@link RpcCallFailedEvent} for it. Replies with
 * an unknown xid are logged, counted ({@link RpcStats#unknownXidReplies()}) and dropped; CALLs arriving at a
 * client are counted as unexpected and dropped. Use through {@link RpcClient}. Not sharable.
 */
public final class RpcClientHandler extends ChannelInboundHandlerAdapter {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcClientHandler.class);

    private final Map<Integer, PendingCall<?>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextXid = new AtomicInteger(ThreadLocalRandom.current().nextInt());
    private final RpcStats stats;
    private final Duration defaultTimeout;
    private volatile boolean closed;

    /** A handler with the given counters and default call timeout. */
    public RpcClientHandler(RpcStats stats, Duration defaultTimeout) {
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.defaultTimeout = ObjectUtil.checkNotNull(defaultTimeout, "defaultTimeout");
    }

    /** The counters. */
    public RpcStats stats() {
        return stats;
    }

    Duration defaultTimeout() {
        return defaultTimeout;
    }

    /** Number of calls waiting for a reply. */
    public int pendingCalls() {
        return pending.size();
    }

    /** Allocates an xid not in use by a pending call (RFC 5531 §9: the client chooses it). */
    int allocateXid() {
        for (;;) {
            int xid = nextXid.getAndIncrement();
            if (!pending.containsKey(xid)) {
                return xid;
            }
        }
    }

    /**
     * Registers a pending call. Returns false (after failing it) if the connection already closed: the caller
     * must then not send.
     */
    <T> boolean register(PendingCall<T> call, EventExecutor executor, Duration timeout) {
        if (pending.putIfAbsent(call.xid, call) != null) {
            call.future.completeExceptionally(new IllegalStateException("xid in use: " + call.xid));
            return false;
        }
        if (closed) {
            fail(call.xid, new RpcConnectionClosedException("connection closed before the call was sent"));
            return false;
        }
        call.timeout = executor.schedule(() -> fail(call.xid, new RpcTimeoutException(
                "no reply to xid " + Integer.toUnsignedString(call.xid) + " within " + timeout)),
                timeout.toNanos(), TimeUnit.NANOSECONDS);
        return true;
    }

    /** Removes and fails a pending call (write failure, timeout, transport event); false if none was pending. */
    boolean fail(int xid, Throwable cause) {
        PendingCall<?> call = pending.remove(xid);
        if (call == null) {
            return false;
        }
        call.cancelTimeout();
        call.future.completeExceptionally(cause);
        return true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof InboundRpcMessage)) {
            ctx.fireChannelRead(msg);
            return;
        }
        InboundRpcMessage message = (InboundRpcMessage) msg;
        try {
            if (!(message.header() instanceof RpcReply)) {
                stats.recordUnexpectedMessage();
                logger.warn("{} dropped a CALL received by a client: {}", ctx.channel(), message.header());
                return;
            }
            RpcReply reply = (RpcReply) message.header();
            PendingCall<?> call = pending.remove(reply.xid());
            if (call == null) {
                stats.recordUnknownXidReply();
                logger.warn("{} dropped a reply to no pending call: {}", ctx.channel(), reply);
                return;
            }
            call.cancelTimeout();
            call.complete(reply, message);
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    /**
     * Handles {@link RpcCallFailedEvent}: the call fails with the event's cause as is. The event is consumed; other
     * events pass on.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (!(evt instanceof RpcCallFailedEvent)) {
            super.userEventTriggered(ctx, evt);
            return;
        }
        RpcCallFailedEvent failed = (RpcCallFailedEvent) evt;
        if (!fail(failed.xid(), failed.cause())) {
            logger.debug("{} ignored a failure of xid {} (no pending call, e.g. timed out): {}", ctx.channel(),
                    Integer.toUnsignedString(failed.xid()), failed.cause().toString());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        failAll(new RpcConnectionClosedException("connection " + ctx.channel() + " closed"));
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        logger.warn("{} closing after an error: {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        failAll(new RpcConnectionClosedException("RPC client handler removed from " + ctx.channel()));
    }

    private void failAll(RpcConnectionClosedException cause) {
        closed = true;
        for (Integer xid : pending.keySet()) {
            fail(xid, cause);
        }
    }

    boolean isClosed() {
        return closed;
    }

    static final class PendingCall<T> {
        final int xid;
        final RpcReplyDecoder<T> decoder;
        final CompletableFuture<T> future;
        volatile ScheduledFuture<?> timeout;

        PendingCall(int xid, RpcReplyDecoder<T> decoder, CompletableFuture<T> future) {
            this.xid = xid;
            this.decoder = decoder;
            this.future = future;
        }

        void cancelTimeout() {
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
        }

        void complete(RpcReply reply, InboundRpcMessage message) {
            if (!reply.isSuccess()) {
                future.completeExceptionally(new RpcReplyException(reply));
                return;
            }
            try {
                future.complete(decoder.decode(message.body()));
            } catch (Throwable t) {
                // Whatever the decoder throws (XdrException, a bug, an assertion) ends this call, never hangs it.
                future.completeExceptionally(t);
            }
        }
    }
}
