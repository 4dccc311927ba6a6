package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.RdmaBindWindow;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the transport suites share, run once per fabric by one-line subclasses ({@link TestFabric}): the fabric,
 * one event loop group per test, servers and clients, echo and collecting handlers, and the resource baseline.
 */
abstract class RdmaTransportFixture extends FabricSuite {
    static final long TIMEOUT = 10;

    EventLoopGroup group;
    final List<Channel> channels = new ArrayList<>();

    RdmaTransportFixture(TestFabric testFabric) {
        super(testFabric);
    }

    /**
     * Makes the device take {@code millis} to flush a queue pair that went to error, until the result is closed;
     * false where the fabric cannot be slowed (a real device flushes when it flushes).
     */
    boolean slowFlushes(long millis) {
        return testFabric.slowFlushes(millis);
    }

    /**
     * Makes {@code ibv_destroy_qp} sleep {@code millis} before destroying, until reset with 0; false where the fabric
     * cannot be made to.
     */
    boolean slowQueuePairDestroys(long millis) {
        return testFabric.slowQueuePairDestroys(millis);
    }

    /** Waits (bounded: teardown on the peer's loop may still be finishing) until the counts equal {@code before}. */
    void assertResourcesBackTo(Map<String, Integer> before) throws InterruptedException {
        RdmaResources.assertBackTo(before, this::resources, TIMEOUT);
    }

    @BeforeEach
    void startLoop() {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(fabric())));
    }

    @AfterEach
    void stopLoop() throws Exception {
        for (Channel c : channels) {
            c.close().await(TIMEOUT, TimeUnit.SECONDS);
        }
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT, TimeUnit.SECONDS));
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    static byte[] bytes(ByteBuf buf) {
        byte[] b = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), b);
        return b;
    }

    /** Starts a server whose child pipelines get {@code child}; returns its address. */
    InetSocketAddress server(Consumer<ServerBootstrap> options, ChannelHandler child) throws Exception {
        ServerBootstrap b = new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(child);
        options.accept(b);
        Channel s = b.bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(s);
        return (InetSocketAddress) s.localAddress();
    }

    ChannelFuture connect(InetSocketAddress to, Consumer<Bootstrap> options, ChannelHandler handler) {
        return connect(group, to, options, handler);
    }

    /** Connects a channel registered with {@code loops} (e.g. one given loop). */
    ChannelFuture connect(EventLoopGroup loops, InetSocketAddress to, Consumer<Bootstrap> options,
                          ChannelHandler handler) {
        Bootstrap b = new Bootstrap().group(loops).channel(RdmaChannel.class).handler(handler);
        options.accept(b);
        ChannelFuture f = b.connect(to);
        channels.add(f.channel());
        return f;
    }

    /**
     * Whether the fabric's device speaks iWARP, learnt from a connection to a throwaway server (a channel knows its
     * device once connected): for tests whose setup must differ, e.g. the receives a server posts (no RNR retry).
     */
    boolean iwarpDevice() throws Exception {
        InetSocketAddress at = server(b -> { }, new ChannelInboundHandlerAdapter());
        Channel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        boolean iwarp = ((RdmaChannel) c).iwarp();
        c.close().sync();
        return iwarp;
    }

    /** Echoes every received Send back as a Send. */
    @ChannelHandler.Sharable
    static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            RdmaReceive r = (RdmaReceive) msg;
            ctx.write(r.content());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Queues the content of every received Send (retained: the test releases). */
    static final class Collect extends ChannelInboundHandlerAdapter {
        final BlockingQueue<RdmaReceive> received = new LinkedBlockingQueue<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received.add((RdmaReceive) msg);
        }

        RdmaReceive take() throws InterruptedException {
            RdmaReceive r = received.poll(TIMEOUT, TimeUnit.SECONDS);
            assertNotNull(r, "nothing received within " + TIMEOUT + " s");
            return r;
        }

        void releaseAll() {
            RdmaReceive r;
            while ((r = received.poll()) != null) {
                r.release();
            }
        }
    }

    /** What an {@link Exposer} advertises: the address and rkey of its memory (a 12-byte Send). */
    record Advert(long address, int rkey) {
        static Advert take(Collect collect) throws InterruptedException {
            RdmaReceive r = collect.take();
            try {
                return new Advert(r.content().readLong(), r.content().readInt());
            } finally {
                r.release();
            }
        }
    }

    /** Server side of the one-sided tests: registers 64 KiB and advertises (address, rkey) in a Send. */
    static final class Exposer extends ChannelInboundHandlerAdapter {
        final int access;
        final boolean window;
        final CompletableFuture<RdmaMemory> memory = new CompletableFuture<>();
        final CompletableFuture<RdmaMemoryWindow> windowFuture = new CompletableFuture<>();
        final BlockingQueue<RdmaReceive> received = new LinkedBlockingQueue<>();

        Exposer(int access, boolean window) {
            this.access = access;
            this.window = window;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            RdmaChannel ch = (RdmaChannel) ctx.channel();
            ByteBuf buf = ctx.alloc().directBuffer(65536);
            buf.writeZero(65536);
            RdmaMemory m = ch.registerMemory(buf, access);
            buf.release(); // the registration holds its own reference
            memory.complete(m);
            long address = m.address();
            int rkey = m.rkey();
            if (window) {
                RdmaMemoryWindow w;
                try {
                    w = ch.allocateMemoryWindow();
                } catch (IOException e) {
                    windowFuture.completeExceptionally(e); // a device without windows (siw: max_mw 0)
                    return;
                }
                RdmaBindWindow bind = new RdmaBindWindow(w, m, 4096, 8192,
                        AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
                ctx.write(bind);
                windowFuture.complete(w);
                address = bind.address();
                rkey = bind.rkey();
            }
            ctx.writeAndFlush(ctx.alloc().buffer(12).writeLong(address).writeInt(rkey));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received.add((RdmaReceive) msg);
        }
    }
}
