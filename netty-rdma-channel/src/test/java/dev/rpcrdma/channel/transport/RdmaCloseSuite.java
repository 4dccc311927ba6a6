package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaRead;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaWorkRequestException;
import dev.rpcrdma.channel.RdmaWrite;
import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Close: work in flight failed and drained, the peer closing mid-transfer, a sleeping queue pair destroy that must
 * not stall the loop, a group shut down with connections open; resources back at their baseline.
 */
abstract class RdmaCloseSuite extends RdmaTransportFixture {
    RdmaCloseSuite(TestFabric testFabric) {
        super(testFabric);
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
}
