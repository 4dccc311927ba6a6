package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.RdmaBindWindow;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaConnectionRejectedException;
import dev.rpcrdma.channel.RdmaException;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import dev.rpcrdma.channel.RdmaRead;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaSend;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.RdmaWorkRequestException;
import dev.rpcrdma.channel.RdmaWrite;
import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.testing.Await;
import dev.rpcrdma.testing.LeakDetectionExtension;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The RDMA transport test suite, run once per fabric by its subclasses ({@link SoftwareFabricTransportTest} in
 * {@code mvn verify}, {@link NativeFabricTransportTest} on Soft-RoCE in the VM stage).
 */
abstract class RdmaTransportSuite {
    static final long TIMEOUT = 10;

    EventLoopGroup group;
    final List<Channel> channels = new ArrayList<>();

    /** The fabric under test. */
    abstract Fabric fabric();

    /** The address servers listen on. */
    abstract InetAddress address();

    /** Live device objects per kind (the software fabric's counts, or {@code rdma resource show} on a device). */
    abstract Map<String, Integer> resources();

    /**
     * Makes the device take {@code millis} to flush a queue pair that went to error, until the result is closed;
     * false where the fabric cannot be slowed (a real device flushes when it flushes).
     */
    boolean slowFlushes(long millis) {
        return false;
    }

    /**
     * Makes {@code ibv_destroy_qp} sleep {@code millis} before destroying, until reset with 0; false where the fabric
     * cannot be made to (on Soft-RoCE it did, for about 50 s, when the peer still had traffic for the queue pair).
     */
    boolean slowQueuePairDestroys(long millis) {
        return false;
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

    @ParameterizedTest(name = "{0}")
    @MethodSource("bufferKinds")
    void echoesSendsOfManySizes(String kind) throws Exception {
        InetSocketAddress at = server(b -> { }, new Echo());
        Collect collect = new Collect();
        Channel c = connect(at, b -> { }, collect).sync().channel();
        try {
            // 71 are posted (the depth and a reposting batch of 8, less one); a grant counts on the depth only.
            assertEquals(64, ((RdmaChannel) c).postedReceives(), "posted receives are counted up to the depth");
            int[] sizes = sendSizes();
            for (int i = 0; i < sizes.length; i++) {
                c.write(buffer(kind, pattern(sizes[i], i)));
            }
            c.flush();
            for (int i = 0; i < sizes.length; i++) {
                RdmaReceive r = collect.take();
                try {
                    assertEquals(sizes[i], r.byteLength(), "size of echo " + i);
                    assertArrayEquals(pattern(sizes[i], i), bytes(r.content()), "bytes of echo " + i);
                    assertFalse(r.hasInvalidatedRkey());
                } finally {
                    r.release();
                }
            }
            assertEquals(64, ((RdmaChannel) c).postedReceives(), "receives are reposted as they are consumed");
        } finally {
            collect.releaseAll();
        }
    }

    static List<String> bufferKinds() {
        return List.of("heap", "direct", "composite");
    }

    private static ByteBuf buffer(String kind, byte[] data) {
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
     * Closing never blocks the loop (issue: the drain used to spin the loop): a channel with Sends in flight closes
     * while another channel on the same loop runs a ping-pong. close() returns before the device flushed (the close
     * completes later, through the loop's completion polling), and where the device can be made to take its time
     * (the software fabric flushing after 300 ms), the other channel completes round trips meanwhile.
     */
    @Test
    void anotherChannelsPingPongKeepsMovingWhileAChannelWithWorkInFlightCloses() throws Exception {
        Map<String, Integer> before = resources();
        InetSocketAddress at = server(b -> { }, new Echo());
        io.netty.channel.EventLoop loop = group.next();
        AtomicLong roundTrips = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Channel a = pingPong(loop, at, roundTrips, stop);
        Channel b = connect(loop, at, o -> { }, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
            }
        }).sync().channel();
        a.writeAndFlush(Unpooled.directBuffer(64).writeBytes(pattern(64, 1)));
        Await.until(() -> roundTrips.get() >= 50, "the ping-pong runs");
        boolean slowed = slowFlushes(300);
        try {
            AtomicLong atClose = new AtomicLong();
            CompletableFuture<Long> atClosed = new CompletableFuture<>();
            boolean closedAtOnce = loop.submit(() -> {
                for (int i = 0; i < 32; i++) {
                    b.write(Unpooled.directBuffer(2000).writeBytes(pattern(2000, i)));
                }
                b.flush();
                atClose.set(roundTrips.get());
                b.close();
                b.closeFuture().addListener(f -> atClosed.complete(roundTrips.get()));
                return b.closeFuture().isDone();
            }).get(TIMEOUT, TimeUnit.SECONDS);
            assertFalse(closedAtOnce, "close() returned on the loop before the device flushed what was posted");
            long duringDrain = atClosed.get(TIMEOUT, TimeUnit.SECONDS) - atClose.get(); // the close completed
            if (slowed) {
                assertTrue(duringDrain >= 3, "the other channel on the loop completed " + duringDrain
                        + " round trips while the closing one drained");
            }
        } finally {
            slowFlushes(0);
        }
        endPingPong(roundTrips, stop, before);
    }

    /**
     * A queue pair's destroy never runs on the loop ({@code QueuePairTeardown}): while {@code ibv_destroy_qp} sleeps
     * (the software fabric made to sleep 500 ms), another channel of the same loop keeps its ping-pong going; the
     * close completes only once the queue pair is gone and the memory freed after it, and everything is released.
     */
    @Test
    void aQueuePairDestroyThatSleepsDoesNotStallTheLoop() throws Exception {
        Map<String, Integer> before = resources();
        InetSocketAddress at = server(b -> { }, new Echo());
        io.netty.channel.EventLoop loop = group.next();
        AtomicLong roundTrips = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Channel a = pingPong(loop, at, roundTrips, stop);
        Channel b = connect(loop, at, o -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        a.writeAndFlush(Unpooled.directBuffer(64).writeBytes(pattern(64, 1)));
        Await.until(() -> roundTrips.get() >= 50, "the ping-pong runs");
        boolean slowed = slowQueuePairDestroys(500);
        try {
            long atClose = roundTrips.get();
            long start = System.nanoTime();
            b.close().sync();
            long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long duringDestroy = roundTrips.get() - atClose;
            if (slowed) {
                assertTrue(closeMillis >= 450, "the close completed after " + closeMillis
                        + " ms, before the queue pair's destroy returned");
                assertTrue(duringDestroy >= 3, "the other channel on the loop completed " + duringDestroy
                        + " round trips while the queue pair's destroy slept");
            }
        } finally {
            slowQueuePairDestroys(0);
        }
        endPingPong(roundTrips, stop, before);
    }

    @Test
    void shuttingDownTheGroupWithConnectionsOpenAndWorkInFlightReleasesEverything() throws Exception {
        Map<String, Integer> before = resources();
        List<Channel> children = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<ChannelFuture> writes = new ArrayList<>();
        List<RdmaMemory> registered = new ArrayList<>();
        try (WarningLog log = WarningLog.start()) {
            // iWARP has no RNR retry (RFC 5041 §7.2): there the server posts a receive for every message in flight.
            int receives = iwarpDevice() ? 128 : 4;
            InetSocketAddress at = server(b -> b.childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, receives),
                    new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            children.add(ch);
                            ch.pipeline().addLast(new Echo());
                        }
                    });
            for (int i = 0; i < 4; i++) {
                RdmaChannel c = (RdmaChannel) connect(at, b -> { }, new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg);
                    }
                }).sync().channel();
                ByteBuf exposed = c.alloc().directBuffer(8192).writeZero(8192);
                registered.add(c.registerMemory(exposed, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE));
                exposed.release();
                for (int j = 0; j < 100; j++) {
                    writes.add(c.write(Unpooled.directBuffer(2000).writeBytes(pattern(2000, j))));
                    if (j % 10 == 9) {
                        c.flush();
                    }
                }
            }
            // Each loop shuts itself down from a task, with a zero quiet period: it then ends without another
            // prepareToDestroy() (no I/O round follows), which used to leave the closing to destroy(), when the
            // executor rejects the tasks a close needs.
            for (io.netty.util.concurrent.EventExecutor loop : group) {
                loop.execute(() -> loop.shutdownGracefully(0, TIMEOUT, TimeUnit.SECONDS));
            }
            assertTrue(group.terminationFuture().await(3 * TIMEOUT, TimeUnit.SECONDS), "the group terminates");
            for (Channel ch : channels) {
                assertTrue(ch.closeFuture().isDone(), ch + " closed");
            }
            assertEquals(4, children.size());
            for (Channel ch : children) {
                assertTrue(ch.closeFuture().isDone(), ch + " closed");
                assertFalse(ch.isRegistered(), ch + " deregistered");
            }
            for (ChannelFuture w : writes) {
                assertTrue(w.isDone(), "every write completed or failed");
            }
            for (RdmaMemory m : registered) {
                assertFalse(m.isRegistered(), "memory registered through a channel is deregistered by its close");
            }
            assertEquals(List.of(), log.records(), "nothing logged at WARNING or above while shutting down");
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

    @Test
    void anInitializerSizesTheAcceptedConnectionFromThePeersPrivateData() throws Exception {
        AtomicReference<RdmaChannel> child = new AtomicReference<>();
        InetSocketAddress at = server(b -> b.childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 1024)
                .childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 4), new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        RdmaChannel rdma = (RdmaChannel) ch;
                        sizeFromRequest(rdma);
                        child.set(rdma);
                        ch.pipeline().addLast(new Echo());
                    }
                });
        assertSizedByTheServer(at, child);
    }

    @Test
    void optionsSetBeforeAnExplicitAcceptSizeTheConnection() throws Exception {
        AtomicReference<RdmaChannel> child = new AtomicReference<>();
        InetSocketAddress at = server(b -> b.childOption(RdmaChannelOption.AUTO_ACCEPT, false)
                .childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 1024), new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRegistered(ChannelHandlerContext ctx) {
                        RdmaChannel rdma = (RdmaChannel) ctx.channel();
                        child.set(rdma);
                        ctx.pipeline().addLast(new Echo());
                        ctx.fireChannelRegistered();
                        // Later, from another thread: still before the queue pair exists.
                        CompletableFuture.runAsync(() -> {
                            sizeFromRequest(rdma);
                            rdma.accept(new byte[] {1});
                        });
                    }
                });
        assertSizedByTheServer(at, child);
    }

    /**
     * {@code MAX_INLINE_DATA} beyond what the device takes (1024: the software fabric takes 256, rxe 400 or 512) is
     * asked for by halves until the queue pair is created; the channel posts inline up to what was granted, and Sends
     * around that size, inline and from send slots, arrive intact. The default (64) is granted as asked.
     */
    @Test
    void anInlineSizeTheDeviceRefusesIsAskedForByHalves() throws Exception {
        AtomicReference<RdmaChannel> child = new AtomicReference<>();
        InetSocketAddress at = server(b -> b.childOption(RdmaChannelOption.MAX_INLINE_DATA, 1024),
                new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        child.set((RdmaChannel) ch);
                        ch.pipeline().addLast(new Echo());
                    }
                });
        Collect collect = new Collect();
        RdmaChannel c = (RdmaChannel) connect(at, b -> b.option(RdmaChannelOption.MAX_INLINE_DATA, 1024), collect)
                .sync().channel();
        RdmaChannel plain = (RdmaChannel) connect(at, b -> { }, new Collect()).sync().channel();
        try {
            int granted = c.maxInlineData();
            // rxe takes 256 or 512 (400/512 B limits), siw 64 (its limit is 80 B, SIW_MAX_INLINE).
            assertTrue(granted >= 64 && granted < 1024 && Integer.bitCount(granted) == 1,
                    "asked 1024, then halves until the device took it: " + granted);
            assertEquals(64, plain.maxInlineData(),
                    "the default is granted as asked");
            assertNotNull(child.get());
            assertEquals(granted, child.get().maxInlineData(), "the accepted side asked the same device alike");
            for (int size : new int[] {granted - 1, granted, granted + 1, 2 * granted}) {
                c.writeAndFlush(Unpooled.wrappedBuffer(pattern(size, size)));
                RdmaReceive r = collect.take();
                try {
                    assertArrayEquals(pattern(size, size), bytes(r.content()), "echo of " + size + " bytes");
                } finally {
                    r.release();
                }
            }
        } finally {
            collect.releaseAll();
        }
    }

    @Test
    void echoesWithBusyPolling() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(
                new RdmaIoHandlerConfig().fabric(fabric()).busyPollNanos(TimeUnit.MICROSECONDS.toNanos(200))));
        InetSocketAddress at = server(b -> { }, new Echo());
        Collect collect = new Collect();
        Channel c = connect(at, b -> { }, collect).sync().channel();
        try {
            for (int i = 0; i < 100; i++) {
                c.writeAndFlush(Unpooled.wrappedBuffer(pattern(i * 40, i)));
                RdmaReceive r = collect.take();
                try {
                    assertArrayEquals(pattern(i * 40, i), bytes(r.content()), "echo " + i);
                } finally {
                    r.release();
                }
            }
        } finally {
            collect.releaseAll();
        }
    }

    @Test
    void privateDataIsExchangedBeforeChannelActive() throws Exception {
        CompletableFuture<byte[]> seenByServer = new CompletableFuture<>();
        InetSocketAddress at = server(b -> { }, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRegistered(ChannelHandlerContext ctx) {
                RdmaChannel ch = (RdmaChannel) ctx.channel();
                byte[] request = ch.peerPrivateData();
                seenByServer.complete(request);
                byte[] reply = new byte[8];
                for (int i = 0; i < 8; i++) {
                    reply[i] = (byte) (request[i] + 100);
                }
                ch.config().setOption(RdmaChannelOption.PRIVATE_DATA, reply);
                ctx.fireChannelRegistered();
            }
        });
        CompletableFuture<byte[]> seenByClientWhenActive = new CompletableFuture<>();
        byte[] request = {(byte) 0xf6, (byte) 0xab, 0x17, (byte) 0xe9, 1, 0, 4, 4};
        Channel client = connect(at, b -> b.option(RdmaChannelOption.PRIVATE_DATA, request),
                new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                seenByClientWhenActive.complete(((RdmaChannel) ctx.channel()).peerPrivateData());
            }
        }).sync().channel();
        byte[] atServer = seenByServer.get(TIMEOUT, TimeUnit.SECONDS);
        byte[] atClient = seenByClientWhenActive.get(TIMEOUT, TimeUnit.SECONDS);
        if (((RdmaChannel) client).iwarp()) {
            // MPA carries the private data with its length (RFC 5044 §7.1), and RDMA-CM reports that length.
            assertEquals(8, atServer.length, "connect private data arrives as long as it was sent (MPA request)");
            assertEquals(8, atClient.length, "accept private data arrives as long as it was sent (MPA reply)");
        } else {
            // The IB CM REQ and REP carry a fixed private data field (RDMA-CM's header takes 36 of the REQ's 92).
            assertEquals(56, atServer.length, "connect private data arrives zero padded to 56 bytes (IB CM REQ)");
            assertEquals(196, atClient.length, "accept private data arrives zero padded to 196 bytes (IB CM REP)");
        }
        assertArrayEquals(request, java.util.Arrays.copyOf(atServer, 8));
        for (int i = 0; i < 8; i++) {
            assertEquals((byte) (request[i] + 100), atClient[i]);
        }
    }

    @Test
    void rejectionCarriesThePeersPrivateData() throws Exception {
        InetSocketAddress at = server(b -> b.childOption(RdmaChannelOption.AUTO_ACCEPT, false),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRegistered(ChannelHandlerContext ctx) {
                        ((RdmaChannel) ctx.channel()).reject(new byte[] {4, 2});
                    }
                });
        ChannelFuture f = connect(at, b -> { }, new ChannelInboundHandlerAdapter());
        assertTrue(f.await(TIMEOUT, TimeUnit.SECONDS));
        RdmaConnectionRejectedException e = assertInstanceOf(RdmaConnectionRejectedException.class, f.cause());
        assertEquals(4, e.privateData()[0]);
        assertEquals(2, e.privateData()[1]);
    }

    @Test
    void connectingWhereNobodyListensFailsClearly() throws Exception {
        ChannelFuture f = connect(new InetSocketAddress(address(), 1), b -> { }, new ChannelInboundHandlerAdapter());
        assertTrue(f.await(TIMEOUT, TimeUnit.SECONDS));
        ConnectException e = assertInstanceOf(ConnectException.class, f.cause());
        assertTrue(e.getMessage().contains("no RDMA listener at"), e.getMessage());
        assertTrue(f.channel().closeFuture().await(TIMEOUT, TimeUnit.SECONDS));
    }

    /**
     * What RDMA-CM cannot take fails the connect before anything starts; as with Netty's NIO channels, the channel
     * stays open (and inactive) for the caller to close.
     */
    @Test
    void anUnresolvedAddressOrOversizedPrivateDataFailsTheConnect() throws Exception {
        // Straight to the channel: Bootstrap would resolve the name first (UnknownHostException).
        Channel registered = new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new ChannelInboundHandlerAdapter()).register().sync().channel();
        channels.add(registered);
        ChannelFuture unresolved = registered.connect(InetSocketAddress.createUnresolved("rdma.invalid", 20049));
        assertTrue(unresolved.await(TIMEOUT, TimeUnit.SECONDS));
        assertInstanceOf(java.nio.channels.UnresolvedAddressException.class, unresolved.cause());
        assertFalse(registered.isActive());
        ChannelFuture foreignLocal = registered.connect(new InetSocketAddress("127.0.0.1", 20049),
                new io.netty.channel.local.LocalAddress("not-rdma"));
        assertTrue(foreignLocal.await(TIMEOUT, TimeUnit.SECONDS));
        IllegalArgumentException local = assertInstanceOf(IllegalArgumentException.class, foreignLocal.cause());
        assertTrue(local.getMessage().contains("unsupported address type: local:not-rdma"), local.getMessage());
        assertFalse(registered.isActive());

        InetSocketAddress at = server(b -> { }, new Echo());
        ChannelFuture oversized = connect(at, b -> b.option(RdmaChannelOption.PRIVATE_DATA,
                new byte[dev.rpcrdma.channel.fabric.ConnectionParameters.MAX_CONNECT_PRIVATE_DATA + 1]),
                new ChannelInboundHandlerAdapter());
        assertTrue(oversized.await(TIMEOUT, TimeUnit.SECONDS));
        IllegalArgumentException e = assertInstanceOf(IllegalArgumentException.class, oversized.cause());
        assertTrue(e.getMessage().contains("connect private data of"), e.getMessage());
        assertFalse(oversized.channel().isActive());
    }

    @Test
    void queueSizesWhoseSlabWouldNotFitFailTheConnectClearly() throws Exception {
        InetSocketAddress at = server(b -> { }, new Echo());
        Map<String, Integer> before = resources();
        // 1024 send slots of 16 MiB: 16 GiB, which an int byte count would wrap to 0.
        ChannelFuture f = connect(at, b -> b.option(RdmaChannelOption.SEND_QUEUE_DEPTH, 1024)
                .option(RdmaChannelOption.MAX_SEND_SIZE, 1 << 24), new ChannelInboundHandlerAdapter());
        assertTrue(f.await(TIMEOUT, TimeUnit.SECONDS));
        RdmaException e = assertInstanceOf(RdmaException.class, f.cause());
        assertTrue(e.getMessage().contains("send slab") && e.getMessage().contains("MAX_SEND_SIZE"), e.getMessage());
        assertTrue(f.channel().closeFuture().await(TIMEOUT, TimeUnit.SECONDS));
        ChannelFuture g = connect(at, b -> b.option(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 1 << 24)
                .option(RdmaChannelOption.RECEIVE_SPARE_BUFFERS, 100), new ChannelInboundHandlerAdapter());
        assertTrue(g.await(TIMEOUT, TimeUnit.SECONDS));
        e = assertInstanceOf(RdmaException.class, g.cause());
        assertTrue(e.getMessage().contains("receive slab") && e.getMessage().contains("RECEIVE_SPARE_BUFFERS"),
                e.getMessage());
        assertResourcesBackTo(before);
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

    @Test
    void rdmaWriteAndReadMoveBytesBothWays() throws Exception {
        Exposer exposer = new Exposer(AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE, false);
        InetSocketAddress at = server(b -> { }, exposer);
        Collect collect = new Collect();
        RdmaChannel c = (RdmaChannel) connect(at, b -> { }, collect).sync().channel();
        Advert advert = Advert.take(collect);
        long address = advert.address();
        int rkey = advert.rkey();

        byte[] data = pattern(20000, 3);
        ByteBuf local = c.alloc().directBuffer(40000).writeBytes(data).writeZero(20000);
        // iWARP: the sink of a Read needs remote write access (the Read Response is aimed at its key).
        RdmaMemory mine = c.registerMemory(local, c.readSinkNeedsRemoteWrite() ? AccessFlags.REMOTE_WRITE : 0);
        local.release();
        c.writeAndFlush(new RdmaWrite(mine, 0, 20000, address + 100, rkey)).sync();
        RdmaMemory theirs = exposer.memory.get(TIMEOUT, TimeUnit.SECONDS);
        assertArrayEquals(data, bytes(theirs.buffer().slice(100, 20000)), "RDMA Write placed the bytes");

        c.writeAndFlush(new RdmaRead(mine, 20000, 20000, address + 100, rkey)).sync();
        assertArrayEquals(data, bytes(mine.buffer().slice(20000, 20000)), "RDMA Read fetched them back");
        assertTrue(mine.deregister().await(TIMEOUT, TimeUnit.SECONDS));
        assertFalse(mine.isRegistered());
    }

    @Test
    void rdmaOutsideTheAdvertisedRangeFailsTheWriteAndClosesBothSides() throws Exception {
        Exposer exposer = new Exposer(AccessFlags.REMOTE_READ, false);
        InetSocketAddress at = server(b -> { }, exposer);
        Collect collect = new Collect();
        RdmaChannel c = (RdmaChannel) connect(at, b -> { }, collect).sync().channel();
        Advert advert = Advert.take(collect);
        long address = advert.address();
        int rkey = advert.rkey();
        ByteBuf local = c.alloc().directBuffer(16).writeZero(16);
        RdmaMemory mine = c.registerMemory(local, 0);
        local.release();
        // Write access was not granted.
        ChannelFuture w = c.writeAndFlush(new RdmaWrite(mine, 0, 16, address, rkey));
        assertTrue(w.await(TIMEOUT, TimeUnit.SECONDS));
        if (c.iwarp()) {
            // iWARP: an RDMA Write is complete at the requester once it was handed to the transport (RDMAP has no
            // delivery acknowledgement, RFC 5040 §5); the responder answers the bad STag with a TERMINATE message
            // (RFC 5040 §7.4), which ends the connection: the failure shows as the close of both sides.
            assertTrue(w.isSuccess(), String.valueOf(w.cause()));
        } else {
            RdmaWorkRequestException e = assertInstanceOf(RdmaWorkRequestException.class, w.cause());
            assertEquals(WcStatus.REM_ACCESS_ERR, e.status());
        }
        assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS));
        assertFalse(mine.isRegistered(), "closing deregisters what was registered through the channel");
        RdmaMemory theirs = exposer.memory.get(TIMEOUT, TimeUnit.SECONDS);
        assertTrue(theirs.channel().closeFuture().await(TIMEOUT, TimeUnit.SECONDS), "the peer closes too");
    }

    @Test
    void sendWithInvalidateInvalidatesTheAdvertisedWindow() throws Exception {
        Exposer exposer = new Exposer(AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.MW_BIND,
                true);
        InetSocketAddress at = server(b -> { }, exposer);
        Collect collect = new Collect();
        RdmaChannel c = (RdmaChannel) connect(at, b -> { }, collect).sync().channel();
        if (!c.memoryWindowsSupported()) {
            // siw (max_mw 0): no window to allocate, so none to invalidate; the transport exposes MRs there instead.
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> exposer.windowFuture.get(TIMEOUT, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, e.getCause(), String.valueOf(e.getCause()));
            return;
        }
        Advert advert = Advert.take(collect);
        long address = advert.address();
        int rkey = advert.rkey();
        RdmaMemory theirs = exposer.memory.get(TIMEOUT, TimeUnit.SECONDS);
        assertTrue(rkey != theirs.rkey(), "the window has its own rkey");

        byte[] data = pattern(8192, 9);
        ByteBuf local = c.alloc().directBuffer(8192).writeBytes(data);
        RdmaMemory mine = c.registerMemory(local, 0);
        local.release();
        c.writeAndFlush(new RdmaWrite(mine, 0, 8192, address, rkey)).sync();
        assertArrayEquals(data, bytes(theirs.buffer().slice(4096, 8192)));

        c.writeAndFlush(RdmaSend.withInvalidate(c.alloc().buffer(4).writeInt(7), rkey)).sync();
        RdmaReceive r = exposer.received.poll(TIMEOUT, TimeUnit.SECONDS);
        assertNotNull(r);
        try {
            assertTrue(r.hasInvalidatedRkey());
            assertEquals(rkey, r.invalidatedRkey());
            assertEquals(7, r.content().getInt(0));
        } finally {
            r.release();
        }
        RdmaMemoryWindow window = exposer.windowFuture.get(TIMEOUT, TimeUnit.SECONDS);
        CountDownLatch checked = new CountDownLatch(1);
        AtomicReference<Boolean> bound = new AtomicReference<>();
        window.channel().eventLoop().execute(() -> {
            bound.set(window.isBound());
            checked.countDown();
        });
        assertTrue(checked.await(TIMEOUT, TimeUnit.SECONDS));
        assertFalse(bound.get(), "the server saw its window invalidated");

        ChannelFuture again = c.writeAndFlush(new RdmaWrite(mine, 0, 8, address, rkey));
        assertTrue(again.await(TIMEOUT, TimeUnit.SECONDS));
        assertEquals(WcStatus.REM_ACCESS_ERR,
                assertInstanceOf(RdmaWorkRequestException.class, again.cause()).status());
    }

    /**
     * A loop whose channels are all hot (busy-polling, a ping-pong that never pauses) skips {@code epoll_wait} on
     * most rounds, but still looks at its fds often enough: a new connection on the same loop (RDMA-CM connect
     * request, established events) is set up and echoes while the ping-pong keeps running.
     */
    @Test
    void aLoopKeptBusyByAHotChannelStillHandlesConnectionEvents() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(
                new RdmaIoHandlerConfig().fabric(fabric()).busyPollNanos(TimeUnit.SECONDS.toNanos(1))));
        InetSocketAddress at = server(b -> { }, new Echo());
        AtomicLong pongs = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        Channel busy = connect(at, b -> { }, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                ctx.writeAndFlush(Unpooled.wrappedBuffer(pattern(32, 1)));
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((RdmaReceive) msg).release();
                pongs.incrementAndGet();
                if (running.get()) {
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(pattern(32, 1)));
                }
            }
        }).sync().channel();
        try {
            Await.until(() -> pongs.get() >= 20, "the ping-pong runs");
            Collect collect = new Collect();
            Channel late = connect(at, b -> { }, collect).sync().channel();
            late.writeAndFlush(Unpooled.wrappedBuffer(pattern(100, 2)));
            RdmaReceive r = collect.take();
            try {
                assertArrayEquals(pattern(100, 2), bytes(r.content()));
            } finally {
                r.release();
                collect.releaseAll();
            }
            long before = pongs.get();
            late.close().sync();
            Await.until(() -> pongs.get() > before, "the ping-pong kept running meanwhile");
        } finally {
            running.set(false);
            busy.close().sync();
        }
    }

    @Test
    void manyConnectionsShareOneLoop() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(fabric())));
        InetSocketAddress at = server(b -> b.childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 8)
                .childOption(RdmaChannelOption.SEND_QUEUE_DEPTH, 8), new Echo());
        int n = 24;
        List<Collect> collectors = new ArrayList<>();
        List<Channel> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Collect collect = new Collect();
            collectors.add(collect);
            clients.add(connect(at, b -> b.option(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 8)
                    .option(RdmaChannelOption.SEND_QUEUE_DEPTH, 8), collect).sync().channel());
        }
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < n; i++) {
                clients.get(i).writeAndFlush(Unpooled.wrappedBuffer(pattern(200 + i, round)));
            }
            for (int i = 0; i < n; i++) {
                RdmaReceive r = collectors.get(i).take();
                try {
                    assertArrayEquals(pattern(200 + i, round), bytes(r.content()), "connection " + i);
                } finally {
                    r.release();
                }
            }
        }
    }

    @Test
    void peerClosingMidTransferClosesTheChannelAndFailsOutstandingWrites() throws Exception {
        InetSocketAddress at = server(b -> { }, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
                ctx.close();
            }
        });
        Channel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        List<ChannelFuture> writes = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            writes.add(c.write(Unpooled.wrappedBuffer(pattern(1000, i))));
            if (i % 10 == 9) {
                c.flush();
            }
        }
        c.flush();
        assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS), "the client notices the disconnect");
        int failed = 0;
        for (ChannelFuture w : writes) {
            assertTrue(w.await(TIMEOUT, TimeUnit.SECONDS));
            if (!w.isSuccess()) {
                failed++;
                Throwable t = w.cause();
                assertTrue(t instanceof RdmaWorkRequestException || t instanceof ClosedChannelException, t.toString());
            }
        }
        assertTrue(failed > 0, "some writes could not have been delivered");
    }

    @Test
    void closingWithWorkInFlightFailsEveryPendingWrite() throws Exception {
        // The server never reads: its receives are not reposted, so the client's third Send waits on RNR forever,
        // and everything posted behind it with it.
        Exposer exposer = new Exposer(AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE, false);
        InetSocketAddress at = server(b -> b.childOption(ChannelOption.AUTO_READ, false)
                .childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 2), exposer);
        Collect collect = new Collect();
        RdmaChannel c = (RdmaChannel) connect(at, b -> b.option(RdmaChannelOption.SEND_QUEUE_DEPTH, 8), collect)
                .sync().channel();
        Advert advert = Advert.take(collect);
        long address = advert.address();
        int rkey = advert.rkey();
        ByteBuf local = c.alloc().directBuffer(4096).writeZero(4096);
        RdmaMemory mine = c.registerMemory(local, c.readSinkNeedsRemoteWrite() ? AccessFlags.REMOTE_WRITE : 0);
        local.release();

        List<ChannelFuture> sends = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sends.add(c.writeAndFlush(Unpooled.directBuffer(3000).writeBytes(pattern(3000, i))));
        }
        ChannelFuture write = c.writeAndFlush(new RdmaWrite(mine, 0, 2048, address, rkey));
        ChannelFuture read = c.writeAndFlush(new RdmaRead(mine, 2048, 2048, address, rkey));
        List<ChannelFuture> later = new ArrayList<>();
        for (int i = 4; i < 12; i++) { // 2 fit in the send queue (behind the Read), 6 do not
            later.add(c.writeAndFlush(Unpooled.directBuffer(3000).writeBytes(pattern(3000, i))));
        }
        Thread.sleep(50);
        c.close().sync();
        boolean iwarp = c.iwarp();
        for (int i = 0; i < sends.size(); i++) {
            ChannelFuture s = sends.get(i);
            // A Send's bytes are copied when it is posted: its promise completed then, delivered or not.
            assertTrue(s.await(TIMEOUT, TimeUnit.SECONDS));
            if (iwarp && i == 3 && s.cause() instanceof ClosedChannelException) {
                continue; // iWARP: the third Send ended the connection, possibly before this one was posted
            }
            assertTrue(s.isSuccess(), String.valueOf(s.cause()));
        }
        for (ChannelFuture w : List.of(write, read)) {
            assertTrue(w.await(TIMEOUT, TimeUnit.SECONDS));
            if (iwarp && (w.cause() instanceof ClosedChannelException || w == write && w.isSuccess())) {
                // iWARP has no RNR retry: the third Send found no receive, a fatal DDP error (RFC 5041 §7.2) that
                // the server answered with a TERMINATE. What was posted after the QP went to error is never flushed
                // by siw: the transport failed it itself once the queue pair was destroyed. A Write completes once
                // siw has handed it to TCP (RDMAP has no delivery acknowledgement, RFC 5040 §5), which can be
                // before the TERMINATE came back: then it succeeded.
                continue;
            }
            RdmaWorkRequestException e = assertInstanceOf(RdmaWorkRequestException.class, w.cause(),
                    "an RDMA Read/Write behind the stuck Send fails with its flush");
            assertTrue(e.isFlushed(), e.toString());
        }
        int flushed = 0;
        int unposted = 0;
        for (ChannelFuture w : later) {
            assertTrue(w.await(TIMEOUT, TimeUnit.SECONDS));
            assertFalse(w.isSuccess(), "a Send behind a pending Read waits for it");
            Throwable t = w.cause();
            if (t instanceof RdmaWorkRequestException) {
                assertTrue(((RdmaWorkRequestException) t).isFlushed(), t.toString());
                flushed++;
            } else {
                assertInstanceOf(ClosedChannelException.class, t);
                unposted++;
            }
        }
        if (iwarp) {
            // The connection ended with the third Send (no RNR on iWARP): the later Sends, held behind the Read,
            // were never posted, or were posted and flushed, or posted after the error and failed as closed.
            assertEquals(8, flushed + unposted);
        } else {
            assertEquals(2, flushed, "posted (held) Sends fail with a flush completion");
            assertEquals(6, unposted, "what never fit in the send queue fails as closed");
        }
        assertFalse(mine.isRegistered(), "closing deregisters, after the flush");
    }

    @Test
    void writabilityFollowsSendQueueSpace() throws Exception {
        AtomicReference<Channel> serverChild = new AtomicReference<>();
        Collect atServer = new Collect();
        int n = 40;
        // IB: a server that does not read holds the client's Sends on RNR, so its send queue stays full. iWARP has
        // no RNR retry (a Send without a posted receive ends the connection, RFC 5041 §7.2): the server posts a
        // receive for every message, and the send queue fills only with Sends not yet completed.
        boolean iwarp = iwarpDevice();
        InetSocketAddress at = server(b -> b.childOption(ChannelOption.AUTO_READ, false)
                .childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, iwarp ? 64 : 4),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        serverChild.set(ctx.channel());
                        ctx.pipeline().addLast(atServer);
                    }
                });
        List<Boolean> writabilityChanges = new java.util.concurrent.CopyOnWriteArrayList<>();
        Channel c = connect(at, b -> b.option(RdmaChannelOption.SEND_QUEUE_DEPTH, 8),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                        writabilityChanges.add(ctx.channel().isWritable());
                    }
                }).sync().channel();
        // All written in one task of the channel's loop: no completion is polled between the writes, so the send
        // queue fills whatever the device's pace (on iWARP a Send completes once transmitted, and writes handed over
        // one by one from this thread could each find room freed by the previous one's completion).
        c.eventLoop().submit(() -> {
            for (int i = 0; i < n; i++) {
                c.writeAndFlush(Unpooled.wrappedBuffer(pattern(100, i)));
            }
        }).sync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT);
        // IB: until the Sends stuck on RNR fill the queue for good (the first completions free entries for a moment).
        while ((!writabilityChanges.contains(false) || !iwarp && c.isWritable()) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(writabilityChanges.contains(false), "a full send queue makes the channel unwritable");
        if (!iwarp) {
            assertFalse(c.isWritable(), "the Sends wait on RNR: the send queue stays full");
        }
        // The passive side becomes active on RDMA_CM_EVENT_ESTABLISHED, which may come after the client's.
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT);
        while (serverChild.get() == null && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        Channel child = serverChild.get();
        assertNotNull(child, "the accepted channel became active");
        child.config().setAutoRead(true);
        try {
            for (int i = 0; i < n; i++) {
                RdmaReceive r = atServer.take();
                try {
                    assertArrayEquals(pattern(100, i), bytes(r.content()), "message " + i + " in order");
                } finally {
                    r.release();
                }
            }
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT);
            while (!c.isWritable() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(c.isWritable(), "writable again once the queue drained");
            assertTrue(writabilityChanges.contains(false) && writabilityChanges.get(writabilityChanges.size() - 1));
        } finally {
            atServer.releaseAll();
        }
    }

    @Test
    void aFlushOfManySendsIsPostedInChainsAndArrivesInOrder() throws Exception {
        // 40 Sends in one flush: posted as chains of QueuePair.MAX_POST_CHAIN (one ibv_post_send each), inline and
        // send-slot ones mixed, with an RDMA-free exchange so all complete at the post.
        Collect atServer = new Collect();
        InetSocketAddress at = server(b -> b.childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 64), atServer);
        Channel c = connect(at, b -> b.option(RdmaChannelOption.SEND_QUEUE_DEPTH, 64),
                new ChannelInboundHandlerAdapter()).sync().channel();
        int n = 40;
        List<ChannelFuture> writes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            writes.add(c.write(Unpooled.wrappedBuffer(pattern(i % 3 == 0 ? 3000 : 10 + i, i))));
        }
        c.flush();
        for (ChannelFuture w : writes) {
            assertTrue(w.await(TIMEOUT, TimeUnit.SECONDS));
            assertTrue(w.isSuccess(), String.valueOf(w.cause()));
        }
        for (int i = 0; i < n; i++) {
            RdmaReceive r = atServer.take();
            try {
                assertArrayEquals(pattern(i % 3 == 0 ? 3000 : 10 + i, i), bytes(r.content()), "Send " + i);
            } finally {
                r.release();
            }
        }
    }

    @Test
    void closingAfterUnsignalledSendsCompletedStillDrainsAndDeregisters() throws Exception {
        // Sends are signalled one in half the send queue: these three complete without a completion. Closing then
        // has to learn that they are done (the drain marker); without it, the drain would time out and leak the
        // registered memory on purpose rather than free it under the device.
        Collect atServer = new Collect();
        InetSocketAddress at = server(b -> { }, atServer);
        RdmaChannel c = (RdmaChannel) connect(at, b -> b.option(RdmaChannelOption.SEND_QUEUE_DEPTH, 64),
                new ChannelInboundHandlerAdapter()).sync().channel();
        ByteBuf local = c.alloc().directBuffer(64).writeZero(64);
        RdmaMemory mine = c.registerMemory(local, 0);
        local.release();
        int[] sizes = {100, 1000, 3000}; // inline and not
        for (int i = 0; i < 3; i++) {
            c.writeAndFlush(Unpooled.wrappedBuffer(pattern(sizes[i], i))).sync();
        }
        for (int i = 0; i < 3; i++) {
            RdmaReceive r = atServer.take(); // delivered, so the Send has completed at the client
            try {
                assertArrayEquals(pattern(sizes[i], i), bytes(r.content()));
            } finally {
                r.release();
            }
        }
        c.close().sync();
        assertFalse(mine.isRegistered(), "the drain finished: registrations released after the flush");
    }

    @Test
    void writesCancelledBeforeFlushAreSkipped() throws Exception {
        InetSocketAddress at = server(b -> { }, new Echo());
        Collect collect = new Collect();
        Channel c = connect(at, b -> { }, collect).sync().channel();
        try {
            List<ChannelFuture> kept = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                io.netty.channel.ChannelPromise p = c.newPromise();
                c.write(Unpooled.wrappedBuffer(pattern(50, i)), p);
                if (i % 3 == 1) {
                    assertTrue(p.cancel(false));
                } else {
                    kept.add(p);
                }
            }
            c.write(Unpooled.EMPTY_BUFFER);
            c.flush();
            for (ChannelFuture f : kept) {
                assertTrue(f.await(TIMEOUT, TimeUnit.SECONDS));
                assertTrue(f.isSuccess(), String.valueOf(f.cause()));
            }
            for (int i = 0; i < 30; i++) {
                if (i % 3 == 1) {
                    continue;
                }
                RdmaReceive r = collect.take();
                try {
                    assertArrayEquals(pattern(50, i), bytes(r.content()), "echo of write " + i);
                } finally {
                    r.release();
                }
            }
            RdmaReceive empty = collect.take();
            assertEquals(0, empty.byteLength());
            empty.release();
        } finally {
            collect.releaseAll();
        }
    }

    @Test
    void withAutoReadOffEachReadDeliversWhatArrivedSinceTheLastOne() throws Exception {
        AtomicReference<Channel> serverChild = new AtomicReference<>();
        Collect atServer = new Collect();
        InetSocketAddress at = server(b -> b.childOption(ChannelOption.AUTO_READ, false),
                new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(atServer);
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelActive(ChannelHandlerContext ctx) {
                                serverChild.set(ctx.channel());
                            }
                        });
                    }
                });
        Channel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        try {
            for (int i = 0; i < 3; i++) {
                c.writeAndFlush(Unpooled.wrappedBuffer(pattern(10, i))).sync();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT);
            while (serverChild.get() == null && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            RdmaChannel child = (RdmaChannel) serverChild.get();
            assertNotNull(child, "the accepted channel became active");
            Thread.sleep(50);
            assertTrue(atServer.received.isEmpty(), "nothing is delivered before read()");
            child.read();
            for (int i = 0; i < 3; i++) {
                RdmaReceive r = atServer.take();
                assertArrayEquals(pattern(10, i), bytes(r.content()));
                r.release();
            }
            c.writeAndFlush(Unpooled.wrappedBuffer(pattern(10, 3))).sync();
            Thread.sleep(50);
            assertTrue(atServer.received.isEmpty(), "one read() delivered one batch");
            child.read();
            RdmaReceive r = atServer.take();
            assertArrayEquals(pattern(10, 3), bytes(r.content()));
            r.release();
        } finally {
            atServer.releaseAll();
        }
    }

    @Test
    void oversizedSendsFailWithoutBreakingTheConnection() throws Exception {
        InetSocketAddress at = server(b -> { }, new Echo());
        Collect collect = new Collect();
        Channel c = connect(at, b -> { }, collect).sync().channel();
        ChannelFuture big = c.writeAndFlush(Unpooled.wrappedBuffer(new byte[4097]));
        assertTrue(big.await(TIMEOUT, TimeUnit.SECONDS));
        assertFalse(big.isSuccess());
        assertTrue(big.cause().getMessage().contains("MAX_SEND_SIZE"), big.cause().toString());
        c.writeAndFlush(Unpooled.wrappedBuffer(pattern(10, 1))).sync();
        RdmaReceive r = collect.take();
        assertArrayEquals(pattern(10, 1), bytes(r.content()));
        r.release();
    }

    @Test
    void aSendLargerThanThePeersReceiveBufferIsALengthError() throws Exception {
        CompletableFuture<Throwable> caughtByServer = new CompletableFuture<>();
        InetSocketAddress at = server(b -> b.childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 1024),
                new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new Echo(), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                caughtByServer.complete(cause);
                            }
                        });
                    }
                });
        CompletableFuture<Throwable> caught = new CompletableFuture<>();
        Channel c = connect(at, b -> b.option(RdmaChannelOption.MAX_SEND_SIZE, 8192),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        caught.complete(cause);
                    }
                }).sync().channel();
        ChannelFuture w = c.writeAndFlush(Unpooled.wrappedBuffer(new byte[1025]));
        assertTrue(w.await(TIMEOUT, TimeUnit.SECONDS));
        assertTrue(w.isSuccess(), "the Send was posted (copied); its failure comes later");
        if (((RdmaChannel) c).iwarp()) {
            // iWARP: the Send is complete at the requester once it was sent (RFC 5040 §5). The receive too short
            // for it fails at the responder (siw_qp_rx.c: LOC_LEN_ERR, "receive space short"), whose DDP error
            // goes back as a TERMINATE (RFC 5041 §7.2, RFC 5040 §7.4) that ends the connection at both sides.
            int atServer = assertInstanceOf(RdmaWorkRequestException.class,
                    caughtByServer.get(TIMEOUT, TimeUnit.SECONDS)).status();
            assertEquals(WcStatus.LOC_LEN_ERR, atServer, WcStatus.name(atServer));
            assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS));
            return;
        }
        // The responder NAKs the Send: IB says "invalid request" (the software fabric), rxe reports a remote
        // operational error. The write promise is long complete: the error reaches exceptionCaught.
        int status = assertInstanceOf(RdmaWorkRequestException.class, caught.get(TIMEOUT, TimeUnit.SECONDS))
                .status();
        assertTrue(status == WcStatus.REM_INV_REQ_ERR || status == WcStatus.REM_OP_ERR, WcStatus.name(status));
        assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS));
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

    @Test
    void receivesAreLentInPlaceWhileSpareBuffersAreFreeThenCopied() throws Exception {
        Collect atServer = new Collect();
        AtomicReference<RdmaChannel> child = new AtomicReference<>();
        InetSocketAddress at = keepingServer(b -> b.childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 4)
                .childOption(RdmaChannelOption.RECEIVE_SPARE_BUFFERS, 2)
                .childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 1024), atServer, child);
        Channel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        List<RdmaReceive> kept = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                c.writeAndFlush(Unpooled.wrappedBuffer(pattern(100 + i, i))).sync();
            }
            for (int i = 0; i < 4; i++) {
                RdmaReceive r = atServer.take();
                kept.add(r);
                assertArrayEquals(pattern(100 + i, i), bytes(r.content()), "bytes of receive " + i);
                assertEquals(i < 2, lentInPlace(r, 1024), "receive " + i + ": the first two are lent in place "
                        + "(2 spare buffers), later ones copied while those are held: " + r.content());
            }
            assertEquals(4, child.get().postedReceives(), "a spare was posted for each lent receive: the "
                    + "receive queue stays full while the pipeline holds buffers");
            assertEquals(1024, kept.get(0).content().capacity());
            assertThrows(UnsupportedOperationException.class, () -> kept.get(0).content().capacity(2048));

            // Releasing a lent receive (here off the event loop) gives its buffer back: the next one is lent again.
            kept.remove(1).release();
            c.writeAndFlush(Unpooled.wrappedBuffer(pattern(200, 9))).sync();
            RdmaReceive again = atServer.take();
            kept.add(again);
            assertTrue(lentInPlace(again, 1024), "lent again once a spare came back: " + again.content());
            assertArrayEquals(pattern(200, 9), bytes(again.content()));

            // Many more receives cycle through the posted buffers: none lands in a buffer still lent.
            for (int i = 0; i < 20; i++) {
                c.writeAndFlush(Unpooled.wrappedBuffer(pattern(1024, 50 + i))).sync();
                RdmaReceive r = atServer.take();
                assertArrayEquals(pattern(1024, 50 + i), bytes(r.content()));
                r.release();
            }
            assertArrayEquals(pattern(100, 0), bytes(kept.get(0).content()), "a held lent buffer is never reposted");
            assertArrayEquals(pattern(200, 9), bytes(again.content()), "a held lent buffer is never reposted");
            assertEquals(4, child.get().postedReceives());
        } finally {
            kept.forEach(RdmaReceive::release);
            atServer.releaseAll();
        }
    }

    @Test
    void aLentReceivesBytesPastAFixedHeaderComeAtIndexZeroFromAViewEachBufferReuses() throws Exception {
        // The reusable views are for leak detection off (production settings, the benchmarks): this test turns it
        // off while it runs (buffers made meanwhile are not tracked), then back on.
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try {
            java.util.Set<ByteBuf> views = bytesPastAFixedHeader(5);
            assertTrue(views.size() <= 6 + 1, views.size() + " distinct views for 40 messages through 6 receive "
                    + "buffers: each buffer reuses its own (no allocation per receive)");
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    @Test
    void withLeakDetectionOnEachLentReceivesBytesPastAFixedHeaderAreASliceOfTheirOwn() throws Exception {
        assumeTrue(ResourceLeakDetector.isEnabled(), "SKIPPED: Netty's leak detection is off in this JVM");
        java.util.Set<ByteBuf> views = bytesPastAFixedHeader(5);
        assertEquals(40, views.size(), "each hand-up an object of its own, which the leak detector follows");
    }

    /**
     * 40 messages of 300 bytes through 4 + 2 receive buffers of 1 KiB, each read past a 28-byte header with
     * {@link RdmaReceive#retainedReadable}, the one of message {@code held} kept until the end: the distinct buffer
     * objects (past Netty's leak-detector wrapper) that carried them.
     */
    private java.util.Set<ByteBuf> bytesPastAFixedHeader(int held) throws Exception {
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

    @Test
    void withoutSpareBuffersEveryReceiveIsACopy() throws Exception {
        Collect atServer = new Collect();
        AtomicReference<RdmaChannel> child = new AtomicReference<>();
        InetSocketAddress at = keepingServer(b -> b.childOption(RdmaChannelOption.RECEIVE_SPARE_BUFFERS, 0)
                .childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 1024), atServer, child);
        Channel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        for (int i = 0; i < 3; i++) {
            c.writeAndFlush(Unpooled.wrappedBuffer(pattern(1024, i))).sync();
            RdmaReceive r = atServer.take();
            try {
                assertFalse(lentInPlace(r, 1024), r.content().toString());
                assertArrayEquals(pattern(1024, i), bytes(r.content()));
            } finally {
                r.release();
            }
        }
        assertEquals(64, child.get().postedReceives());
    }

    @Test
    void aLentReceiveOutlivesItsChannelAndItsRegistration() throws Exception {
        Map<String, Integer> before = resources();
        Collect atServer = new Collect();
        AtomicReference<RdmaChannel> child = new AtomicReference<>();
        InetSocketAddress at = keepingServer(b -> b.childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 2048),
                atServer, child);
        Channel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        c.writeAndFlush(Unpooled.wrappedBuffer(pattern(2000, 3))).sync();
        RdmaReceive r = atServer.take();
        try {
            assertTrue(lentInPlace(r, 2048), r.content().toString());
            c.close().sync();
            assertTrue(child.get().closeFuture().await(TIMEOUT, TimeUnit.SECONDS), "the peer's close reached it");
            // Both connections are torn down (queue pairs destroyed, memory regions deregistered) although the
            // server's pipeline still holds one receive buffer: its memory stays valid until released.
            channels.remove(c);
            for (Channel s : channels) {
                s.close().sync();
            }
            channels.clear();
            assertResourcesBackTo(before);
            assertArrayEquals(pattern(2000, 3), bytes(r.content()), "a lent buffer is readable after its channel");
        } finally {
            assertTrue(r.release(), "the last reference ends the receive (and frees the slab)");
        }
    }

    @Test
    void aLeakedLentReceiveIsReportedByNettysLeakDetector() throws Exception {
        Collect atServer = new Collect();
        AtomicReference<RdmaChannel> child = new AtomicReference<>();
        InetSocketAddress at = keepingServer(b -> { }, atServer, child);
        Channel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter()).sync().channel();
        c.writeAndFlush(Unpooled.wrappedBuffer(pattern(10, 1))).sync();
        assertTrue(lentInPlace(atServer.take(), 4096), "lent in place"); // and dropped without a release
        c.close().sync();
        assertTrue(child.get().closeFuture().await(TIMEOUT, TimeUnit.SECONDS));
        // The leaked buffer keeps the receive slab (the memory it is part of) from being freed: that slab is
        // reported too once both are collected.
        List<String> lent = new ArrayList<>();
        List<String> slab = new ArrayList<>();
        List<String> others = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT);
        while ((lent.isEmpty() || slab.isEmpty()) && System.nanoTime() < deadline) {
            for (String leak : LeakDetectionExtension.collectLeaks()) {
                (leak.contains("ReceiveBuffers.lent(") ? lent : leak.contains("ReceiveBuffers.<init>") ? slab
                        : others).add(leak);
            }
        }
        assertTrue(others.isEmpty(), "other leaks: " + others);
        assertEquals(1, lent.size(), "the dropped receive buffer is reported as a leak, with where it was lent: "
                + lent);
        assertEquals(1, slab.size(), "and the slab it kept: " + slab);
    }
}
