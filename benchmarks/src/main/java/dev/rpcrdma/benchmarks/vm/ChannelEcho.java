package dev.rpcrdma.benchmarks.vm;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaServerChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * netty-rdma-channel alone: a client {@link RdmaChannel} sends a Send of {@code size} bytes, the server's child
 * channel sends the received bytes back as a Send, the client checks them. No RPC, no RPC-over-RDMA header: the
 * transport's own round trip, to compare with perftest's {@code ib_send_lat} (a Send ping-pong). Two ways to drive it:
 * <ul>
 *   <li>{@link #echo}: one {@link CompletableFuture} per round trip, the send handed to the client's loop as a task
 *   (what an application calling through futures, or blocking on them, sees);</li>
 *   <li>{@link #pingPong}: a {@link PingPong} run entirely inside the client's loop, the next Send posted from the
 *   previous echo's {@code channelRead}, as {@code ib_send_lat} posts from its polling loop.</li>
 * </ul>
 */
final class ChannelEcho implements AutoCloseable {

    private final Channel server;
    private final Channel client;
    private final Pending pending = new Pending();

    ChannelEcho(EventLoopGroup serverGroup, EventLoopGroup clientGroup, String address) throws InterruptedException {
        this(serverGroup, clientGroup, address, b -> { });
    }

    /** With server (and child) options set by {@code serverOptions}. */
    ChannelEcho(EventLoopGroup serverGroup, EventLoopGroup clientGroup, String address,
                Consumer<ServerBootstrap> serverOptions) throws InterruptedException {
        ServerBootstrap sb = new ServerBootstrap().group(serverGroup).channel(RdmaServerChannel.class)
                .childHandler(new Echo());
        serverOptions.accept(sb);
        server = sb.bind(new InetSocketAddress(address, 0)).sync().channel();
        client = new Bootstrap().group(clientGroup).channel(RdmaChannel.class).handler(pending)
                .connect(server.localAddress()).sync().channel();
    }

    /** Sends {@code data} (not consumed: a retained duplicate is written) and completes when the same bytes came back; fails if they differ. */
    CompletableFuture<Void> echo(ByteBuf data) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        client.eventLoop().execute(() -> {
            pending.expect(data, f);
            client.writeAndFlush(data.retainedDuplicate()).addListener(w -> {
                if (!w.isSuccess()) {
                    f.completeExceptionally(w.cause());
                }
            });
        });
        return f;
    }

    /**
     * Starts an in-loop ping-pong of {@code data} (not consumed) on the client's loop: at most {@code maxRoundTrips}
     * round trips, none started after {@code durationNanos}; {@code stamps} as in {@link PingPong}. The returned
     * future completes on the client's loop with the number of round trips. No {@link #echo} may be outstanding.
     */
    CompletableFuture<Integer> pingPong(ByteBuf data, long[] stamps, int maxRoundTrips, long durationNanos) {
        PingPong run = new PingPong(data, stamps, maxRoundTrips, System.nanoTime() + durationNanos);
        client.eventLoop().execute(() -> pending.start(run));
        return run.done;
    }

    /** The echo server's address (other clients may connect to it too). */
    InetSocketAddress serverAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    @Override
    public void close() throws InterruptedException {
        client.close().sync();
        server.close().sync();
    }

    /**
     * A direct buffer of {@code size} bytes with a pattern; the caller releases it. Pooled, so that its
     * {@code retainedDuplicate()}s are recycled rather than allocated.
     */
    static ByteBuf pattern(int size) {
        return pattern(PooledByteBufAllocator.DEFAULT, size);
    }

    /** {@link #pattern(int)} from {@code alloc} (e.g. a connection's registered memory pool: zero-copy chunks). */
    static ByteBuf pattern(ByteBufAllocator alloc, int size) {
        ByteBuf b = alloc.directBuffer(size);
        for (int i = 0; i < size; i++) {
            b.writeByte(i * 7 + 3);
        }
        return b;
    }

    /** Server side: every received Send goes back as a Send (the content's ownership passes to the write). */
    @ChannelHandler.Sharable
    static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(((RdmaReceive) msg).content());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /**
     * Client side: completes the oldest outstanding echo with each received Send (FIFO on a reliable QP), or, while
     * a {@link PingPong} run is active, hands each received Send to it. Confined to the client's event loop.
     */
    static final class Pending extends ChannelInboundHandlerAdapter {
        private final ArrayDeque<Object[]> outstanding = new ArrayDeque<>();
        private ChannelHandlerContext ctx;
        private PingPong run;

        void expect(ByteBuf sent, CompletableFuture<Void> f) {
            if (run != null) {
                f.completeExceptionally(new IllegalStateException("a ping-pong run is active"));
                return;
            }
            outstanding.add(new Object[] {sent, f});
        }

        void start(PingPong p) {
            if (run != null || !outstanding.isEmpty() || ctx == null || !ctx.channel().isActive()) {
                p.fail(new IllegalStateException("cannot start a ping-pong: channel busy or not active"));
                return;
            }
            run = p;
            p.start(ctx);
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            RdmaReceive r = (RdmaReceive) msg;
            if (run != null) {
                if (run.echoed(ctx, r)) {
                    run = null;
                }
                return;
            }
            try {
                Object[] next = outstanding.poll();
                if (next == null) {
                    throw new IllegalStateException("a Send arrived that nobody expected");
                }
                ByteBuf sent = (ByteBuf) next[0];
                CompletableFuture<Void> f = (CompletableFuture<Void>) next[1];
                if (ByteBufUtil.equals(sent, r.content())) {
                    f.complete(null);
                } else {
                    f.completeExceptionally(new IllegalStateException("echoed bytes differ"));
                }
            } finally {
                r.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (run != null) {
                run.fail(cause);
                run = null;
            } else {
                ctx.fireExceptionCaught(cause);
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public void channelInactive(ChannelHandlerContext ctx) {
            IllegalStateException closed = new IllegalStateException("the client channel closed");
            if (run != null) {
                run.fail(closed);
                run = null;
            }
            for (Object[] next; (next = outstanding.poll()) != null; ) {
                ((CompletableFuture<Void>) next[1]).completeExceptionally(closed);
            }
            ctx.fireChannelInactive();
        }
    }
}
