package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.RdmaBindWindow;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaMemoryPool;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import dev.rpcrdma.channel.RdmaRead;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.RdmaWorkRequestException;
import dev.rpcrdma.channel.RdmaWrite;
import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.channel.transport.RdmaTransportFixture.Advert;
import dev.rpcrdma.channel.transport.RdmaTransportFixture.Collect;
import dev.rpcrdma.testing.LeakDetectionExtension;
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
import io.netty.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static dev.rpcrdma.channel.transport.RdmaTransportFixture.TIMEOUT;
import static dev.rpcrdma.channel.transport.RdmaTransportFixture.bytes;
import static dev.rpcrdma.channel.transport.RdmaTransportFixture.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The registered memory pool ({@link RdmaMemoryPool}) on a real connection, run once per fabric by its subclasses
 * ({@link SoftwareFabricMemoryPoolTest} in {@code mvn verify}, {@link NativeFabricMemoryPoolTest} on Soft-RoCE in the
 * VM stage): registration by whole slabs only, accounting back to zero, exposure through a window over one piece
 * (the slab's own keys grant nothing remotely), exhaustion that waits instead of failing, and close with pieces out.
 */
abstract class MemoryPoolSuite extends FabricSuite {
    private static final int SLAB = 64 * 1024;

    EventLoopGroup group;
    final List<Channel> channels = new ArrayList<>();

    MemoryPoolSuite(TestFabric testFabric) {
        super(testFabric);
    }

    @BeforeEach
    void startLoop() {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(fabric())));
    }

    /**
     * How long the loops may take to shut down once every channel was asked to close. On rxe a connection whose
     * responder side failed an access check (the slab-key write) is torn down only after the RDMA-CM gives up on the
     * peer's disconnect, about 51 s later.
     */
    long shutdownSeconds() {
        return testFabric.isNative() ? 120 : 3L * TIMEOUT;
    }

    @AfterEach
    void stopLoop() throws Exception {
        for (Channel c : channels) {
            c.close().await(TIMEOUT, TimeUnit.SECONDS);
        }
        // Bounded by the close backstop: rxe may leave a receive queue unflushed for 5 s per channel.
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(shutdownSeconds(), TimeUnit.SECONDS),
                "the loops shut down");
    }

    InetSocketAddress server(ChannelHandler child) throws Exception {
        Channel s = new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(child)
                .childOption(RdmaChannelOption.MEMORY_POOL_SLAB_SIZE, SLAB)
                .bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(s);
        return (InetSocketAddress) s.localAddress();
    }

    RdmaChannel connect(InetSocketAddress to, Consumer<Bootstrap> options, ChannelHandler handler)
            throws InterruptedException {
        Bootstrap b = new Bootstrap().group(group).channel(RdmaChannel.class).handler(handler)
                .option(RdmaChannelOption.MEMORY_POOL_SLAB_SIZE, SLAB);
        options.accept(b);
        ChannelFuture f = b.connect(to);
        channels.add(f.channel());
        return (RdmaChannel) f.sync().channel();
    }

    /** Runs {@code task} on the channel's loop and returns its result. */
    static <T> T onLoop(Channel c, Callable<T> task) throws Exception {
        Future<T> f = c.eventLoop().submit(task);
        assertTrue(f.await(TIMEOUT, TimeUnit.SECONDS));
        if (!f.isSuccess()) {
            throw new AssertionError("task on the loop failed", f.cause());
        }
        return f.getNow();
    }

    @Test
    void piecesComeFromWholeSlabsAndTheAccountingReturnsToZero() throws Exception {
        InetSocketAddress at = server(new ChannelInboundHandlerAdapter());
        RdmaChannel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter());
        RdmaMemoryPool pool = c.memoryPool();
        assertEquals(0, pool.registeredBytes(), "nothing is registered before it is needed");
        List<ByteBuf> pieces = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            pieces.add(pool.allocator().directBuffer(1000 + i)); // 4 KiB class: one 64 KiB slab holds 16
        }
        assertEquals(1, pool.slabCount());
        assertEquals(SLAB, pool.registeredBytes());
        assertEquals(16 * 4096, pool.usedBytes());
        ByteBuf big = pool.tryAllocate(20000); // 32 KiB class: a slab of its own class
        assertNotNull(big);
        assertEquals(2, pool.slabCount());
        assertEquals(32768, big.capacity());
        assertEquals(32768, big.maxCapacity(), "a piece never grows beyond itself (into unregistered memory)");
        assertThrows(IndexOutOfBoundsException.class, () -> big.writerIndex(0).writeZero(32769));
        assertThrows(UnsupportedOperationException.class, () -> big.capacity(65536));
        ByteBuf huge = pool.tryAllocate(100_000); // larger than a slab: a 128 KiB slab of its own
        assertNotNull(huge);
        assertEquals(131072, huge.capacity());
        assertEquals(SLAB * 2 + 131072, pool.registeredBytes());

        for (ByteBuf b : pieces) {
            RdmaMemory m = pool.memoryOf(b.writeZero(8));
            assertNotNull(m, "a piece is in a registered slab");
            assertEquals(0, m.access() & (AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE),
                    "the slab grants nothing remotely");
            assertTrue(b.memoryAddress() >= m.address() && b.memoryAddress() + 4096 <= m.address() + m.length());
            assertSame(m, pool.memoryOf(b.slice(2, 4)), "derived buffers are found too");
            b.release();
        }
        big.release();
        huge.release();
        assertEquals(0, pool.usedBytes(), "every released piece is back");
        ByteBuf again = pool.allocator().directBuffer(4096);
        assertEquals(SLAB * 2 + 131072, pool.registeredBytes(), "freed pieces are reused: no new registration");
        ByteBuf other = c.alloc().directBuffer(8).writeZero(8);
        assertNull(pool.memoryOf(other), "a buffer of another allocator is not pool memory");
        other.release();
        again.release();
        assertEquals(0, pool.usedBytes());
    }

    /**
     * A pool piece exposed to the peer moves bytes both ways while the slab's own key grants nothing: through a type-2
     * window where the device has windows; where it has none (siw: {@code max_mw} 0), allocating a window fails and
     * the piece is exposed through a memory region over exactly the piece, the scheme the transport uses there
     * (docs/providers.md, "Exposure schemes"), with the same guarantee.
     */
    @Test
    void aPieceExposedThroughAWindowMovesBytesWhileTheSlabKeysGrantNothing() throws Exception {
        CompletableFuture<ByteBuf> piece = new CompletableFuture<>();
        CompletableFuture<Integer> slabRkey = new CompletableFuture<>();
        CompletableFuture<Throwable> windowRefused = new CompletableFuture<>();
        CompletableFuture<byte[]> atClose = new CompletableFuture<>();
        InetSocketAddress at = server(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) throws Exception {
                RdmaChannel ch = (RdmaChannel) ctx.channel();
                ByteBuf b = ch.memoryPool().tryAllocate(8192);
                b.writeZero(8192);
                piece.complete(b);
                RdmaMemory m = ch.memoryPool().memoryOf(b);
                slabRkey.complete(m.rkey());
                long address;
                int rkey;
                if (ch.memoryWindowsSupported()) {
                    RdmaMemoryWindow w = ch.allocateMemoryWindow();
                    RdmaBindWindow bind = new RdmaBindWindow(w, m, (int) (b.memoryAddress() - m.address()), 8192,
                            AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
                    ctx.write(bind);
                    address = bind.address();
                    rkey = bind.rkey();
                } else {
                    try {
                        ch.allocateMemoryWindow().close();
                        windowRefused.complete(null);
                    } catch (IOException e) {
                        windowRefused.complete(e);
                    }
                    RdmaMemory region = ch.registerMemory(b, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
                    address = region.address();
                    rkey = region.rkey();
                }
                ctx.writeAndFlush(ctx.alloc().buffer(12).writeLong(address).writeInt(rkey));
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) throws Exception {
                ByteBuf b = piece.getNow(null);
                atClose.complete(b == null ? null : bytes(b.slice(0, 8192)));
                ctx.fireChannelInactive();
            }
        });
        Collect collect = new Collect();
        RdmaChannel c = connect(at, b -> { }, collect);
        Advert advert = Advert.take(collect);
        if (!c.memoryWindowsSupported()) {
            assertInstanceOf(IOException.class, windowRefused.get(TIMEOUT, TimeUnit.SECONDS),
                    "a device without memory windows refuses to allocate one");
        }
        ByteBuf local = c.memoryPool().tryAllocate(16384);
        try {
            exposeAndMove(c, local, advert, piece, slabRkey);
            assertArrayEquals(pattern(8192, 5), atClose.get(TIMEOUT, TimeUnit.SECONDS),
                    "nothing reached the piece through the slab's key");
        } finally {
            local.release();
            if (piece.isDone()) {
                piece.get().release();
            }
        }
    }

    private static void exposeAndMove(RdmaChannel c, ByteBuf local, Advert advert, CompletableFuture<ByteBuf> piece,
                                      CompletableFuture<Integer> slabRkey) throws Exception {
        local.writeBytes(pattern(8192, 5)).writeZero(8192);
        RdmaMemory mine = c.memoryPool().memoryOf(local);
        int offset = (int) (local.memoryAddress() - mine.address());
        c.writeAndFlush(new RdmaWrite(mine, offset, 8192, advert.address(), advert.rkey())).sync();
        ByteBuf theirs = piece.get(TIMEOUT, TimeUnit.SECONDS);
        assertArrayEquals(pattern(8192, 5), bytes(theirs.slice(0, 8192)), "RDMA Write from pool memory landed");
        if (c.readSinkNeedsRemoteWrite()) {
            // iWARP: the Read Response is aimed at the sink's STag (RFC 5040 §4.4), which needs remote write
            // access: the sink is registered on its own, never through the slab (docs/providers.md, "Read sinks").
            RdmaMemory sink = c.registerMemory(local.slice(8192, 8192), AccessFlags.REMOTE_WRITE);
            c.writeAndFlush(new RdmaRead(sink, 0, 8192, advert.address(), advert.rkey())).sync();
            assertTrue(sink.deregister().await(TIMEOUT, TimeUnit.SECONDS));
        } else {
            c.writeAndFlush(new RdmaRead(mine, offset + 8192, 8192, advert.address(), advert.rkey())).sync();
        }
        assertArrayEquals(pattern(8192, 5), bytes(local.slice(8192, 8192)), "RDMA Read into pool memory");

        local.setBytes(offset, pattern(8, 6));
        ChannelFuture bySlabKey = c.writeAndFlush(new RdmaWrite(mine, offset, 8, advert.address(),
                slabRkey.get(TIMEOUT, TimeUnit.SECONDS)));
        assertTrue(bySlabKey.await(TIMEOUT, TimeUnit.SECONDS));
        assertRemoteAccessRefused(c, bySlabKey, "the slab's own rkey grants no remote access");
    }

    /**
     * An RDMA Write with a key that grants nothing failed remotely, and the connection ends. IB: the responder's NAK
     * fails the Write with {@code IBV_WC_REM_ACCESS_ERR}. iWARP: a Write is complete at the requester once it was
     * sent (RFC 5040 §5); the responder answers the bad STag with a TERMINATE (RFC 5040 §7.4), which ends the
     * connection, so only the close (and the bytes that did not land, which the callers check) shows it.
     */
    static void assertRemoteAccessRefused(RdmaChannel c, ChannelFuture write, String what)
            throws InterruptedException {
        if (c.iwarp()) {
            assertTrue(write.isSuccess() || write.cause() instanceof RdmaWorkRequestException,
                    what + ": " + write.cause());
        } else {
            assertEquals(WcStatus.REM_ACCESS_ERR,
                    assertInstanceOf(RdmaWorkRequestException.class, write.cause()).status(), what);
        }
        assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS), what + ": the connection ends");
    }

    /** Server side of the window tests: exposes one pool piece through one window, rebinding it when asked. */
    static final class WindowExposer extends ChannelInboundHandlerAdapter {
        final java.util.concurrent.BlockingQueue<RdmaReceive> received = new java.util.concurrent.LinkedBlockingQueue<>();
        volatile RdmaChannel channel;
        volatile ByteBuf piece;
        volatile RdmaMemoryWindow window;
        volatile ChannelHandlerContext ctx;

        /** Without windows: the region exposing the piece, and the refusal of the window. */
        volatile RdmaMemory region;
        final CompletableFuture<Throwable> windowRefused = new CompletableFuture<>();
        final CompletableFuture<byte[]> atClose = new CompletableFuture<>();

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            this.ctx = ctx;
            channel = (RdmaChannel) ctx.channel();
            piece = channel.memoryPool().tryAllocate(8192).writeZero(8192);
            if (!channel.memoryWindowsSupported()) {
                try {
                    channel.allocateMemoryWindow().close();
                    windowRefused.complete(null);
                } catch (IOException e) {
                    windowRefused.complete(e);
                }
                registerAndAdvertise();
                return;
            }
            window = channel.allocateMemoryWindow();
            bindAndAdvertise();
        }

        /**
         * Without windows: deregisters the region exposing the piece (its key is dead once {@code ibv_dereg_mr}
         * returned), registers a new one over the piece and advertises it. Event loop.
         */
        int registerAndAdvertise() throws IOException {
            RdmaMemory old = region;
            if (old != null) {
                io.netty.util.concurrent.Future<Void> gone = old.deregister();
                if (!gone.isSuccess() || old.isRegistered()) {
                    throw new IllegalStateException("the old region is not deregistered at once: " + gone.cause());
                }
            }
            RdmaMemory m = channel.registerMemory(piece, AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
            region = m;
            ctx.writeAndFlush(ctx.alloc().buffer(12).writeLong(m.address()).writeInt(m.rkey()));
            return m.rkey();
        }

        /** Binds the window over the piece (a work request) and advertises (address, rkey). Event loop. */
        int bindAndAdvertise() {
            RdmaMemory m = channel.memoryPool().memoryOf(piece);
            RdmaBindWindow bind = new RdmaBindWindow(window, m, (int) (piece.memoryAddress() - m.address()), 8192,
                    AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
            ctx.write(bind);
            ctx.writeAndFlush(ctx.alloc().buffer(12).writeLong(bind.address()).writeInt(bind.rkey()));
            return bind.rkey();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received.add((RdmaReceive) msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (piece != null) {
                atClose.complete(bytes(piece.slice(0, 8)));
                piece.release();
            }
        }
    }

    /** Writes 8 bytes with {@code rkey} and returns the completion status. */
    static int writeWith(RdmaChannel c, RdmaMemory mine, int offset, Advert advert) throws InterruptedException {
        ChannelFuture f = c.writeAndFlush(new RdmaWrite(mine, offset, 8, advert.address(), advert.rkey()));
        assertTrue(f.await(TIMEOUT, TimeUnit.SECONDS));
        return f.isSuccess() ? WcStatus.SUCCESS
                : assertInstanceOf(RdmaWorkRequestException.class, f.cause()).status();
    }

    /**
     * The window life cycle without system calls: a window invalidated by the peer's Send With Invalidate is bound
     * again (a work request) under the next rkey, and the old rkey fails remotely; then it is invalidated locally:
     * by {@code IBV_WR_LOCAL_INV} where the device takes it (the rkey fails, the window binds again), and on
     * Soft-RoCE (or the software fabric made to behave like it) the channel refuses the Local Invalidate and the
     * window is closed (deallocated) instead, which ends the binding too.
     */
    @Test
    void aWindowIsBoundAgainOnlyAfterItsLastRkeyWasInvalidated() throws Exception {
        WindowExposer exposer = new WindowExposer();
        InetSocketAddress at = server(exposer);
        Collect collect = new Collect();
        RdmaChannel c = connect(at, b -> { }, collect);
        Advert first = Advert.take(collect);
        ByteBuf local = c.memoryPool().tryAllocate(64).writeZero(64);
        RdmaMemory mine = c.memoryPool().memoryOf(local);
        int offset = (int) (local.memoryAddress() - mine.address());
        if (!c.memoryWindowsSupported()) {
            try {
                aRegionIsRegisteredAgainOnlyAfterItsKeyIsDead(c, exposer, collect, first, local, mine, offset);
            } finally {
                local.release();
            }
            return;
        }
        try {
            assertEquals(WcStatus.SUCCESS, writeWith(c, mine, offset, first));
            c.writeAndFlush(dev.rpcrdma.channel.RdmaSend.withInvalidate(c.alloc().buffer(4).writeInt(1),
                    first.rkey())).sync();
            RdmaReceive r = exposer.received.poll(TIMEOUT, TimeUnit.SECONDS);
            assertNotNull(r);
            assertEquals(first.rkey(), r.invalidatedRkey());
            r.release();
            RdmaChannel server = exposer.channel;
            assertFalse(onLoop(server, () -> exposer.window.isBound()), "remote invalidation ended the binding");
            int second = onLoop(server, exposer::bindAndAdvertise);
            Advert again = Advert.take(collect);
            assertEquals(second, again.rkey());
            assertTrue(second != first.rkey(), "the window is bound again under the next rkey");
            assertEquals(first.rkey() >>> 8, second >>> 8, "the same window (same index)");
            assertEquals(WcStatus.SUCCESS, writeWith(c, mine, offset, again), "the new binding works");

            if (server.localInvalidateSupported()) {
                ChannelFuture inv = onLoop(server, () -> server.writeAndFlush(
                        new dev.rpcrdma.channel.RdmaLocalInvalidate(exposer.window, second)));
                assertTrue(inv.await(TIMEOUT, TimeUnit.SECONDS));
                assertTrue(inv.isSuccess(), () -> "Local Invalidate: " + inv.cause());
                assertFalse(onLoop(server, () -> exposer.window.isBound()), "local invalidation ended the binding");
                int third = onLoop(server, exposer::bindAndAdvertise);
                Advert last = Advert.take(collect);
                assertEquals(third, last.rkey());
                assertEquals(WcStatus.SUCCESS, writeWith(c, mine, offset, last), "bound again after LOCAL_INV");
                assertEquals(WcStatus.REM_ACCESS_ERR, writeWith(c, mine, offset, again),
                        "the invalidated rkey fails remotely");
            } else {
                ChannelFuture inv = onLoop(server, () -> server.writeAndFlush(
                        new dev.rpcrdma.channel.RdmaLocalInvalidate(exposer.window, second)));
                assertTrue(inv.await(TIMEOUT, TimeUnit.SECONDS));
                assertInstanceOf(UnsupportedOperationException.class, inv.cause(),
                        "the channel refuses LOCAL_INV where it would oops the kernel");
                assertTrue(server.isActive(), "the refusal posted nothing");
                CountDownLatch closed = new CountDownLatch(1);
                server.eventLoop().execute(() -> {
                    exposer.window.close();
                    closed.countDown();
                });
                assertTrue(closed.await(TIMEOUT, TimeUnit.SECONDS));
                assertEquals(WcStatus.REM_ACCESS_ERR, writeWith(c, mine, offset, again),
                        "deallocating the window ended its binding");
            }
        } finally {
            local.release();
        }
    }

    /**
     * The windowless scheme's life cycle (siw): a device without windows refuses to allocate one; the piece is exposed
     * through a region of its own; to expose it again, the region is deregistered first (the key is dead when
     * {@code ibv_dereg_mr} returns) and a new one registered under another key, which works; the old key then reaches
     * nothing: it fails remotely and its bytes do not land.
     */
    private static void aRegionIsRegisteredAgainOnlyAfterItsKeyIsDead(RdmaChannel c, WindowExposer exposer,
            Collect collect, Advert first, ByteBuf local, RdmaMemory mine, int offset) throws Exception {
        assertInstanceOf(IOException.class, exposer.windowRefused.get(TIMEOUT, TimeUnit.SECONDS),
                "a device without memory windows refuses to allocate one");
        assertEquals(WcStatus.SUCCESS, writeWith(c, mine, offset, first));
        RdmaChannel server = exposer.channel;
        int second = onLoop(server, exposer::registerAndAdvertise);
        Advert again = Advert.take(collect);
        assertEquals(second, again.rkey());
        assertTrue(second != first.rkey(), "the piece is exposed again under another key");
        assertEquals(WcStatus.SUCCESS, writeWith(c, mine, offset, again), "the new region works");
        local.setBytes(offset, pattern(8, 4));
        ChannelFuture dead = c.writeAndFlush(new RdmaWrite(mine, offset, 8, first.address(), first.rkey()));
        assertTrue(dead.await(TIMEOUT, TimeUnit.SECONDS));
        assertRemoteAccessRefused(c, dead, "the deregistered region's key fails remotely");
        assertArrayEquals(new byte[8], exposer.atClose.get(TIMEOUT, TimeUnit.SECONDS),
                "nothing reached the piece through the dead key");
    }

    @Test
    void exhaustionWaitsForAReleasedPieceInsteadOfFailing() throws Exception {
        InetSocketAddress at = server(new ChannelInboundHandlerAdapter());
        RdmaChannel c = connect(at, b -> b.option(RdmaChannelOption.MEMORY_POOL_MAX_BYTES, 2L * SLAB),
                new ChannelInboundHandlerAdapter());
        RdmaMemoryPool pool = c.memoryPool();
        List<ByteBuf> held = new ArrayList<>();
        ByteBuf b;
        while ((b = pool.tryAllocate(SLAB / 2)) != null) {
            held.add(b);
        }
        assertEquals(4, held.size(), "two slabs of two pieces");
        assertEquals(1, pool.exhaustions());
        assertThrows(IllegalStateException.class, () -> pool.allocator().directBuffer(SLAB / 2),
                "the allocator view fails rather than handing out unregistered memory");
        assertThrows(IllegalArgumentException.class, () -> pool.tryAllocate(4 * SLAB),
                "a piece larger than the limit could never come");
        CompletableFuture<ByteBuf> waited = new CompletableFuture<>();
        CountDownLatch registered = new CountDownLatch(1);
        c.eventLoop().execute(() -> {
            pool.whenAvailable(new Runnable() {
                @Override
                public void run() {
                    try {
                        ByteBuf got = pool.tryAllocate(SLAB / 2);
                        if (got == null) {
                            pool.whenAvailable(this);
                        } else {
                            waited.complete(got);
                        }
                    } catch (Exception e) {
                        waited.completeExceptionally(e);
                    }
                }
            });
            registered.countDown();
        });
        assertTrue(registered.await(TIMEOUT, TimeUnit.SECONDS));
        assertFalse(waited.isDone(), "nothing was released yet");
        held.remove(0).release();
        ByteBuf got = waited.get(TIMEOUT, TimeUnit.SECONDS);
        assertEquals(2L * SLAB, pool.registeredBytes(), "the waiter got the released piece, nothing more registered");
        got.release();
        held.forEach(ByteBuf::release);
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void whollyFreeSlabsOfAnotherClassAreGivenBackUnderPressure() throws Exception {
        InetSocketAddress at = server(new ChannelInboundHandlerAdapter());
        RdmaChannel c = connect(at, b -> b.option(RdmaChannelOption.MEMORY_POOL_MAX_BYTES, 2L * SLAB),
                new ChannelInboundHandlerAdapter());
        RdmaMemoryPool pool = c.memoryPool();
        ByteBuf small = onLoop(c, () -> pool.tryAllocate(4096));
        ByteBuf half = onLoop(c, () -> pool.tryAllocate(SLAB / 2));
        assertEquals(2L * SLAB, pool.registeredBytes());
        small.release();
        ByteBuf quarter = onLoop(c, () -> pool.tryAllocate(SLAB / 4));
        assertNotNull(quarter, "the free 4 KiB slab was deregistered to make room");
        assertEquals(2L * SLAB, pool.registeredBytes());
        assertEquals(2, pool.slabCount());
        half.release();
        quarter.release();
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void closingWithPiecesOutDeregistersTheSlabsAndKeepsThePiecesReadable() throws Exception {
        Map<String, Integer> before = resources();
        InetSocketAddress at = server(new ChannelInboundHandlerAdapter());
        RdmaChannel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter());
        RdmaMemoryPool pool = c.memoryPool();
        ByteBuf kept = pool.tryAllocate(100).writeBytes(pattern(100, 8));
        ByteBuf returned = pool.tryAllocate(100);
        returned.release();
        c.close().sync();
        for (Channel s : channels) {
            s.close().sync();
        }
        channels.clear();
        RdmaResources.assertBackTo(before, this::resources, TIMEOUT);
        assertEquals(0, pool.registeredBytes(), "the slabs are deregistered with the connection");
        assertThrows(IllegalStateException.class, () -> pool.tryAllocate(1));
        assertArrayEquals(pattern(100, 8), bytes(kept), "a piece the application holds stays readable");
        assertTrue(kept.release());
        assertEquals(0, pool.usedBytes());
        assertThrows(IllegalStateException.class, c::memoryPool);
    }

    @Test
    void aLeakedPieceIsReportedByNettysLeakDetector() throws Exception {
        InetSocketAddress at = server(new ChannelInboundHandlerAdapter());
        RdmaChannel c = connect(at, b -> { }, new ChannelInboundHandlerAdapter());
        leakOnePiece(c.memoryPool());
        c.close().sync();
        // The leaked piece keeps its slab's memory from being freed after close: that slab is reported too once
        // both are collected.
        List<String> piece = new ArrayList<>();
        List<String> slab = new ArrayList<>();
        List<String> others = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT);
        while ((piece.isEmpty() || slab.isEmpty()) && System.nanoTime() < deadline) {
            for (String leak : LeakDetectionExtension.collectLeaks()) {
                (leak.contains("PoolAllocator.leakAware") ? piece : leak.contains("RdmaMemoryPool.grow") ? slab
                        : others).add(leak);
            }
        }
        assertTrue(others.isEmpty(), "other leaks: " + others);
        assertEquals(1, piece.size(), "the dropped piece is reported, with where it was allocated: " + piece);
        assertEquals(1, slab.size(), "and the slab it kept: " + slab);
    }

    private static void leakOnePiece(RdmaMemoryPool pool) throws Exception {
        // Dropped without a release. The hint makes this record unique: Netty reports an identical leak only once
        // per JVM, and every subclass of the suite leaks from here.
        pool.tryAllocate(64).touch("leaked by the test at " + System.nanoTime()).writeInt(1);
    }
}
