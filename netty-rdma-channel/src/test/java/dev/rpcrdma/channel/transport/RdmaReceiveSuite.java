package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.testing.LeakDetectionExtension;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Receives: lent in place while spare buffers are free, else copied; views past a fixed header; auto-read off as
 * back-pressure; a lent receive outliving its channel; a leaked one reported.
 */
abstract class RdmaReceiveSuite extends RdmaTransportFixture {
    RdmaReceiveSuite(TestFabric testFabric) {
        super(testFabric);
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
