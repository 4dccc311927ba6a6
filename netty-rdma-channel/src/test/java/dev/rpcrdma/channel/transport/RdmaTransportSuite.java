package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import dev.rpcrdma.channel.RdmaRead;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaSend;
import dev.rpcrdma.channel.RdmaWorkRequestException;
import dev.rpcrdma.channel.RdmaWrite;
import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data path: Sends of every size and buffer kind, RDMA Read and Write, Send With Invalidate, writability,
 * chains, cancelled and oversized writes, one loop shared by many channels.
 */
abstract class RdmaTransportSuite extends RdmaTransportFixture {
    RdmaTransportSuite(TestFabric testFabric) {
        super(testFabric);
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
}
