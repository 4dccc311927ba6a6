package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.ThreadExecutorMap;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * An ONC RPC client on one connection, whatever transport carries it: the channel's pipeline ends with an
 * {@link RpcClientHandler} (installed by {@code TcpRpcClientInitializer} or an RDMA initializer). Thread-safe.
 *
 * <p>Futures complete on the channel's event loop: do not block in their callbacks.
 */
public final class RpcClient {

    private final Channel channel;
    private final RpcClientHandler handler;

    private RpcClient(Channel channel, RpcClientHandler handler) {
        this.channel = channel;
        this.handler = handler;
    }

    /** The client of a channel whose pipeline holds an {@link RpcClientHandler}. */
    public static RpcClient of(Channel channel) {
        ObjectUtil.checkNotNull(channel, "channel");
        RpcClientHandler handler = channel.pipeline().get(RpcClientHandler.class);
        if (handler == null) {
            throw new IllegalArgumentException("no RpcClientHandler in the pipeline of " + channel);
        }
        return new RpcClient(channel, handler);
    }

    /** The connection. */
    public Channel channel() {
        return channel;
    }

    /** The handler (pending table, counters). */
    public RpcClientHandler handler() {
        return handler;
    }

    /** Allocator for argument payloads. */
    public ByteBufAllocator alloc() {
        return channel.alloc();
    }

    /** A new empty payload for arguments. */
    public XdrPayload newPayload() {
        return XdrPayload.newPayload(channel.alloc());
    }

    /** Calls with AUTH_NONE and the default timeout. Takes ownership of {@code args}. */
    public <T> CompletableFuture<T> call(int prog, int vers, int proc, XdrPayload args, RpcReplyDecoder<T> decoder) {
        return call(prog, vers, proc, args, decoder, CallOptions.DEFAULT);
    }

    /** Calls procedure NULL (0) of {@code prog}/{@code vers}. */
    public CompletableFuture<Void> callNull(int prog, int vers) {
        return call(prog, vers, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, CallOptions.NULL_CALL);
    }

    /**
     * Sends a call and returns the decoded results. Takes ownership of {@code args}. The future fails with
     * {@link RpcReplyException} (non-SUCCESS reply), {@link RpcTimeoutException}, {@link
     * RpcConnectionClosedException} (closed, or the call could not be written: the transport's failure is the
     * cause), the decoder's {@link dev.rpcrdma.oncrpc.xdr.XdrException}, or the transport's own typed failure of this
     * call, delivered as is through an {@link RpcCallFailedEvent} (e.g. RPC-over-RDMA's RDMA_ERROR).
     */
    public <T> CompletableFuture<T> call(int prog, int vers, int proc, XdrPayload args, RpcReplyDecoder<T> decoder,
                                         CallOptions options) {
        ObjectUtil.checkNotNull(args, "args");
        ObjectUtil.checkNotNull(decoder, "decoder");
        ObjectUtil.checkNotNull(options, "options");
        return start(prog, vers, proc, args, decoder, options, true).future;
    }

    /**
     * Sends a call and hands its outcome to {@code listener} on the channel's event loop: the allocation-free form
     * of {@link #call(int, int, int, XdrPayload, RpcReplyDecoder, CallOptions)} (no future, no per-call callback
     * objects, the per-call state recycled), for callers that keep their decoder, options and listener across
     * calls. Takes ownership of {@code args}. Same failures as the future form, through
     * {@link RpcCallListener#onFailure}; a call issued on the event loop is written there and then, without a
     * task hand-off.
     */
    public <T> void call(int prog, int vers, int proc, XdrPayload args, RpcReplyDecoder<T> decoder,
                         CallOptions options, RpcCallListener<? super T> listener) {
        ObjectUtil.checkNotNull(args, "args");
        ObjectUtil.checkNotNull(decoder, "decoder");
        ObjectUtil.checkNotNull(options, "options");
        ObjectUtil.checkNotNull(listener, "listener");
        Duration timeout = options.timeout() != null ? options.timeout() : handler.defaultTimeout();
        start(PendingCall.withListener(handler, channel, prog, vers, proc, options, timeout, args, decoder,
                listener));
    }

    /**
     * The blocking form of {@link #call(int, int, int, XdrPayload, RpcReplyDecoder, CallOptions)}: waits on the
     * calling thread for the results, and throws the call's typed failure as is ({@link RpcReplyException},
     * {@link RpcTimeoutException}, {@link RpcConnectionClosedException}, {@link RpcBackchannelException}, the
     * transport's own, the decoder's {@link dev.rpcrdma.oncrpc.xdr.XdrException}). Never on an event loop (it would
     * wait for itself): from there use {@code call} and its future.
     *
     * @throws IllegalStateException on an event-loop thread
     */
    public <T> T callAndWait(int prog, int vers, int proc, XdrPayload args, RpcReplyDecoder<T> decoder,
                             CallOptions options) throws RpcException, InterruptedException {
        if (channel.eventLoop().inEventLoop() || isEventLoopThread()) {
            args.release();
            throw new IllegalStateException("callAndWait on an event-loop thread would block it: use call()");
        }
        CompletableFuture<T> future = call(prog, vers, proc, args, decoder, options);
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RpcException) {
                throw (RpcException) cause;
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw new RpcException("call failed: " + cause, cause);
        }
    }

    /** Whether this thread runs any Netty event loop (waiting there would stall that loop's channels). */
    private static boolean isEventLoopThread() {
        return ThreadExecutorMap.currentExecutor() instanceof EventLoop;
    }

    /**
     * Starts a call completing a future; with {@code armTimer} false the caller enforces the timeout itself (see
     * {@link BlockingRpcClient}: a scheduled task would keep a manually driven loop from blocking).
     */
    <T> PendingCall<T> start(int prog, int vers, int proc, XdrPayload args, RpcReplyDecoder<T> decoder,
                             CallOptions options, boolean armTimer) {
        Duration timeout = options.timeout() != null ? options.timeout() : handler.defaultTimeout();
        PendingCall<T> pending = PendingCall.withFuture(handler, channel, prog, vers, proc, options, timeout,
                armTimer, args, decoder);
        start(pending);
        return pending;
    }

    /** Hands {@code pending} to the event loop (runs it there and then when already on it). */
    private void start(PendingCall<?> pending) {
        XdrPayload args = pending.args;
        if (!channel.isActive() || handler.isClosed()) {
            args.release();
            pending.failWith(new RpcConnectionClosedException("connection " + channel + " is closed"));
            return;
        }
        EventLoop loop = channel.eventLoop();
        // The xid, the pending-table entry, the deadline and the write all happen in one event-loop task.
        if (loop.inEventLoop()) {
            pending.run();
        } else {
            try {
                loop.execute(pending);
            } catch (RejectedExecutionException e) {
                args.release();
                pending.failWith(new RpcConnectionClosedException("event loop shut down", e));
            }
        }
    }
}
