package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.RdmaBindWindow;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.testing.Await;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.ReferenceCountUtil;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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

    static int[] sendSizes() {
        return new int[] {0, 1, 2, 7, 63, 64, 65, 100, 255, 256, 1000, 1024, 4000, 4095, 4096};
    }

    static List<String> bufferKinds() {
        return List.of("heap", "direct", "composite");
    }

    static ByteBuf buffer(String kind, byte[] data) {
        switch (kind) {
            case "heap":
                return Unpooled.wrappedBuffer(data);
            case "direct":
                return ByteBufAllocator.DEFAULT.directBuffer(data.length).writeBytes(data);
            default: {
                CompositeByteBuf c = ByteBufAllocator.DEFAULT.compositeDirectBuffer();
                int half = data.length / 2;
                c.addComponent(true, ByteBufAllocator.DEFAULT.directBuffer(half).writeBytes(data, 0, half));
                c.addComponent(true, ByteBufAllocator.DEFAULT.directBuffer(data.length - half)
                        .writeBytes(data, half, data.length - half));
                return c;
            }
        }
    }

    /**
     * A channel on {@code loop} echoing a 64 B Send back and forth with the server at {@code at} (started by writing
     * one), counting its round trips until {@code stop}.
     */
    Channel pingPong(io.netty.channel.EventLoop loop, InetSocketAddress at, AtomicLong roundTrips, AtomicBoolean stop)
            throws InterruptedException {
        return connect(loop, at, o -> { }, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
                roundTrips.incrementAndGet();
                if (!stop.get()) {
                    ctx.writeAndFlush(Unpooled.directBuffer(64).writeBytes(pattern(64, 1)));
                }
            }
        }).sync().channel();
    }

    /** The ping-pong still moves; then it stops, every channel closes and the resources are back to {@code before}. */
    void endPingPong(AtomicLong roundTrips, AtomicBoolean stop, Map<String, Integer> before) throws Exception {
        long after = roundTrips.get();
        Await.until(() -> roundTrips.get() >= after + 50, "the ping-pong keeps moving after the close");
        stop.set(true);
        for (Channel c : channels) {
            c.close().sync();
        }
        assertResourcesBackTo(before);
    }

    /**
     * A server sizes each accepted connection from the client's private data (byte 0: receive buffer KiB, byte 1:
     * receive queue depth), as an RPC-over-RDMA server sizes its receives to the negotiated inline threshold.
     */
    static void sizeFromRequest(RdmaChannel ch) {
        byte[] request = ch.peerPrivateData();
        int size = (request[0] & 0xff) * 1024;
        ch.config().setOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, size);
        ch.config().setOption(RdmaChannelOption.MAX_SEND_SIZE, size);
        ch.config().setOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, request[1] & 0xff);
    }

    /** Sends {@code n} bytes, expects them echoed; the server's child options alone would make that a length error. */
    void assertSizedByTheServer(InetSocketAddress at, AtomicReference<RdmaChannel> child) throws Exception {
        Collect collect = new Collect();
        Channel c = connect(at, b -> b.option(RdmaChannelOption.PRIVATE_DATA, new byte[] {8, 12})
                .option(RdmaChannelOption.MAX_SEND_SIZE, 8192)
                .option(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 8192), collect).sync().channel();
        try {
            byte[] big = pattern(8000, 5);
            c.writeAndFlush(Unpooled.wrappedBuffer(big)).sync();
            RdmaReceive r = collect.take();
            try {
                assertArrayEquals(big, bytes(r.content()), "an 8000-byte Send fits the receive buffer chosen at accept");
            } finally {
                r.release();
            }
            RdmaChannel accepted = child.get();
            assertNotNull(accepted);
            CompletableFuture<Integer> posted = new CompletableFuture<>();
            accepted.eventLoop().execute(() -> posted.complete(accepted.postedReceives()));
            assertEquals(12, posted.get(TIMEOUT, TimeUnit.SECONDS), "receive queue depth chosen at accept");
        } finally {
            collect.releaseAll();
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

    /** A server whose accepted channels keep every receive (Collect) and report themselves. */
    InetSocketAddress keepingServer(Consumer<ServerBootstrap> options, Collect atServer,
                                    AtomicReference<RdmaChannel> child) throws Exception {
        return server(options, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                child.set((RdmaChannel) ch);
                ch.pipeline().addLast(atServer);
            }
        });
    }

    /** A receive lent in place has the receive buffer's fixed capacity; a copy comes from the allocator. */
    static boolean lentInPlace(RdmaReceive r, int receiveBufferSize) {
        return r.content().maxCapacity() == receiveBufferSize;
    }

    /**
     * 40 messages of 300 bytes through 4 + 2 receive buffers of 1 KiB, each read past a 28-byte header with
     * {@link RdmaReceive#retainedReadable}, the one of message {@code held} kept until the end: the distinct buffer
     * objects (past Netty's leak-detector wrapper) that carried them.
     */
    java.util.Set<ByteBuf> bytesPastAFixedHeader(int held) throws Exception {
        Collect atServer = new Collect();
        AtomicReference<RdmaChannel> child = new AtomicReference<>();
        InetSocketAddress at = keepingServer(b -> b.childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 4)
                .childOption(RdmaChannelOption.RECEIVE_SPARE_BUFFERS, 2)
                .childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 1024), atServer, child);
        Channel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        ByteBuf kept = null;
        try {
            java.util.Set<ByteBuf> views = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (int i = 0; i < 40; i++) {
                c.writeAndFlush(Unpooled.wrappedBuffer(pattern(300, i))).sync();
                RdmaReceive r = atServer.take();
                ByteBuf content = r.content().skipBytes(28); // a fixed-length header, as RPC-over-RDMA's plain one
                ByteBuf tail = RdmaReceive.retainedReadable(content);
                r.release();
                assertEquals(0, tail.readerIndex());
                assertArrayEquals(java.util.Arrays.copyOfRange(pattern(300, i), 28, 300), bytes(tail),
                        "message " + i + " past its header, still readable after its receive was released");
                // past Netty's leak-detector wrapper, if any
                ByteBuf view = tail.getClass().getSimpleName().contains("LeakAware") ? tail.unwrap() : tail;
                assertEquals(272, view.readableBytes(), "the bytes past the header: " + view);
                views.add(view);
                if (i == held) {
                    kept = tail; // kept: its receive buffer must not be posted again while it is held
                } else {
                    tail.release();
                }
            }
            assertArrayEquals(java.util.Arrays.copyOfRange(pattern(300, held), 28, 300), bytes(kept),
                    "a held view keeps its receive buffer from being reposted");
            assertEquals(4, child.get().postedReceives());
            ByteBuf plain = Unpooled.buffer().writeZero(40).skipBytes(12);
            ByteBuf slice = RdmaReceive.retainedReadable(plain);
            assertEquals(0, slice.readerIndex());
            assertEquals(28, slice.readableBytes(), "any other buffer: a retained slice");
            slice.release();
            assertEquals(1, plain.refCnt());
            plain.release();
            return views;
        } finally {
            if (kept != null) {
                kept.release();
            }
            atServer.releaseAll();
        }
    }
}
