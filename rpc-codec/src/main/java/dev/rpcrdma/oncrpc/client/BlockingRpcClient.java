package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ManualIoEventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.ObjectUtil;

import java.io.IOException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * A synchronous ONC RPC client whose connection's I/O runs on the calling thread: the connection lives on a Netty
 * {@link ManualIoEventLoop} owned by the thread that connected it, and each {@link #call} writes the call and drives
 * that loop until the reply is decoded, without a hand-off to another thread (a command-line tool, a benchmark, a
 * worker per connection; for many calls in flight use {@link RpcClient}). The pipeline is {@link RpcClient}'s; pass
 * a {@link Bootstrap} and the {@link IoHandlerFactory} of its transport, whose group is replaced by the client's loop.
 *
 * <p>Confined to the thread that connected it: other threads get {@link IllegalStateException}. Between calls nobody
 * drives the loop (a peer's close is seen at the next call); the waiting caller enforces the timeout, interrupts do
 * not end the wait, and a pipeline handler's scheduled task makes the loop poll instead of block while it waits.
 */
public final class BlockingRpcClient implements AutoCloseable {

    private final ManualIoEventLoop loop;
    private final Channel channel;
    private final RpcClient client;

    private BlockingRpcClient(ManualIoEventLoop loop, Channel channel) {
        this.loop = loop;
        this.channel = channel;
        this.client = RpcClient.of(channel);
    }

    /**
     * Connects to {@code remote} on the calling thread, which then owns the client.
     *
     * @param bootstrap        channel class, options and handler (whose pipeline ends with an
     *                         {@link RpcClientHandler}); not modified (a clone is used)
     * @param ioHandlerFactory the transport's handler factory, e.g. {@code EpollIoHandler.newFactory()}
     * @throws IOException the connection could not be made within {@code connectTimeout} (the transport's failure
     *                     is the cause)
     */
    public static BlockingRpcClient connect(Bootstrap bootstrap, IoHandlerFactory ioHandlerFactory,
                                            SocketAddress remote, Duration connectTimeout) throws IOException {
        ObjectUtil.checkNotNull(bootstrap, "bootstrap");
        ObjectUtil.checkNotNull(ioHandlerFactory, "ioHandlerFactory");
        ObjectUtil.checkNotNull(remote, "remote");
        ObjectUtil.checkNotNull(connectTimeout, "connectTimeout");
        ManualIoEventLoop loop = new ManualIoEventLoop(Thread.currentThread(), ioHandlerFactory);
        ChannelFuture connected;
        try {
            connected = bootstrap.clone(loop).connect(remote);
            drive(loop, connected, System.nanoTime() + connectTimeout.toNanos());
        } catch (RuntimeException e) {
            terminate(loop);
            throw e;
        }
        if (!connected.isSuccess()) {
            Throwable cause = connected.cause();
            connected.channel().close();
            terminate(loop);
            if (cause == null) {
                throw new IOException("connect to " + remote + " timed out after " + connectTimeout);
            }
            throw cause instanceof IOException ? (IOException) cause
                    : new IOException("connect to " + remote + " failed: " + cause, cause);
        }
        try {
            return new BlockingRpcClient(loop, connected.channel());
        } catch (IllegalArgumentException e) {
            connected.channel().close();
            terminate(loop);
            throw e;
        }
    }

    /** Runs {@code loop} until {@code future} is done or {@code deadline} (System.nanoTime) passes. */
    private static void drive(ManualIoEventLoop loop, Future<?> future, long deadline) {
        while (!future.isDone()) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return;
            }
            loop.run(remaining);
        }
    }

    private static void terminate(ManualIoEventLoop loop) {
        loop.shutdownGracefully(0, 0, TimeUnit.NANOSECONDS);
        while (!loop.isTerminated()) {
            loop.run(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private void checkThread() {
        if (!loop.inEventLoop()) {
            throw new IllegalStateException("BlockingRpcClient of " + channel + " is confined to the thread that "
                    + "connected it; called from " + Thread.currentThread().getName());
        }
    }

    /** The connection (for its addresses and attributes; do not write to it directly). */
    public Channel channel() {
        return channel;
    }

    /** A new empty payload for arguments. */
    public XdrPayload newPayload() {
        return client.newPayload();
    }

    /** Calls procedure NULL (0) of {@code prog}/{@code vers}. */
    public void callNull(int prog, int vers) throws RpcException, XdrException, IOException {
        call(prog, vers, 0, newPayload(), RpcReplyDecoder.VOID, CallOptions.NULL_CALL);
    }

    /** Calls with AUTH_NONE and the default timeout. Takes ownership of {@code args}. */
    public <T> T call(int prog, int vers, int proc, XdrPayload args, RpcReplyDecoder<T> decoder)
            throws RpcException, XdrException, IOException {
        return call(prog, vers, proc, args, decoder, CallOptions.DEFAULT);
    }

    /**
     * Sends a call and returns its decoded results, running the connection's I/O on this thread meanwhile. Takes
     * ownership of {@code args}. Fails as {@link RpcClient#call} does, with the same exceptions thrown rather than
     * delivered through a future: {@link RpcReplyException}, {@link RpcTimeoutException} (nothing arrived within
     * the call's timeout; a late reply is dropped and counted as an unknown xid), {@link
     * RpcConnectionClosedException}, the decoder's {@link XdrException}, or the transport's own {@link IOException}
     * (e.g. RPC-over-RDMA's RDMA_ERROR).
     */
    public <T> T call(int prog, int vers, int proc, XdrPayload args, RpcReplyDecoder<T> decoder, CallOptions options)
            throws RpcException, XdrException, IOException {
        ObjectUtil.checkNotNull(args, "args");
        try {
            checkThread();
            ObjectUtil.checkNotNull(decoder, "decoder");
            ObjectUtil.checkNotNull(options, "options");
        } catch (RuntimeException e) {
            args.release();
            throw e;
        }
        // Written on this thread (the loop's owner) before start() returns; the timeout is ours to enforce.
        PendingCall<T> call = client.start(prog, vers, proc, args, decoder, options, false);
        CompletableFuture<T> future = call.future;
        long deadline = System.nanoTime() + call.timeoutDuration.toNanos();
        while (!future.isDone()) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                call.timedOut();
                break;
            }
            loop.run(remaining);
        }
        return result(future);
    }

    private static <T> T result(CompletableFuture<T> future) throws RpcException, XdrException, IOException {
        try {
            return future.getNow(null);
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RpcException) {
                throw (RpcException) cause;
            }
            if (cause instanceof XdrException) {
                throw (XdrException) cause;
            }
            if (cause instanceof IOException) {
                throw (IOException) cause;
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

    /** Closes the connection and ends the client's loop; on the owning thread. Idempotent. */
    @Override
    public void close() {
        checkThread();
        if (loop.isTerminated()) {
            return;
        }
        ChannelFuture closed = channel.close();
        drive(loop, closed, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        terminate(loop);
    }

    @Override
    public String toString() {
        return "BlockingRpcClient(" + channel + ')';
    }
}
