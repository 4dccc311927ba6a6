package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.DirectSends;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFaults;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.testing.TestFabric;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The direct send lane ({@code RdmaConnection.sendDirect}): taken only where it does what {@code ctx.writeAndFlush}
 * would (the handler first in the pipeline, on the loop, nothing waiting in the outbound buffer), and then the
 * Send arrives, its buffer is released and its promise succeeds; not taken behind a user's outbound handler, with a
 * write waiting unflushed (order kept), off the loop or once the channel closed. Inside a completion batch a Send
 * with a void promise is posted at the batch's end.
 */
abstract class DirectSendLaneSuite extends RdmaTransportFixture {
    DirectSendLaneSuite(TestFabric testFabric) {
        super(testFabric);
    }

    /** Keeps its context: the test sends through it. */
    static final class Probe extends ChannelDuplexHandler {
        volatile ChannelHandlerContext ctx;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }
    }

    private <T> T onLoop(Channel c, Callable<T> task) throws Exception {
        return c.eventLoop().submit(task).get(TIMEOUT, TimeUnit.SECONDS);
    }

    private static ByteBuf send(int length, int seed) {
        return Unpooled.directBuffer(length).writeBytes(pattern(length, seed));
    }

    private static void assertReceived(Collect collect, int length, int seed) throws InterruptedException {
        RdmaReceive r = collect.take();
        try {
            assertArrayEquals(pattern(length, seed), bytes(r.content()), "Send " + seed);
        } finally {
            r.release();
        }
    }

    private RdmaChannel client(Collect collect, io.netty.channel.ChannelHandler... handlers) throws Exception {
        InetSocketAddress at = server(b -> { }, collect);
        return (RdmaChannel) connect(at, b -> { }, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(handlers);
            }
        }).sync().channel();
    }

    @Test
    void takenByTheFirstHandlerOnTheLoop() throws Exception {
        Collect collect = new Collect();
        Probe probe = new Probe();
        RdmaChannel c = client(collect, probe);
        try {
            for (int size : new int[] {0, 1, 100, 4000}) {
                ByteBuf b = send(size, size);
                ChannelPromise p = c.newPromise();
                assertTrue(onLoop(c, () -> c.sendDirect(probe.ctx, b, p)), "the lane is taken");
                assertTrue(p.await(TIMEOUT, TimeUnit.SECONDS) && p.isSuccess(), String.valueOf(p.cause()));
                assertEquals(0, b.refCnt(), "the Send's buffer is released once posted");
                assertReceived(collect, size, size);
            }
            assertTrue(c.isWritable());
            assertEquals(4, DirectSends.count(c));
        } finally {
            collect.releaseAll();
        }
    }

    @Test
    void notTakenBehindAnOutboundHandler() throws Exception {
        Collect collect = new Collect();
        Probe probe = new Probe();
        List<Object> seen = new CopyOnWriteArrayList<>();
        ChannelOutboundHandlerAdapter user = new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                seen.add(msg);
                ctx.write(msg, promise);
            }
        };
        RdmaChannel c = client(collect, user, probe);
        try {
            ByteBuf b = send(10, 1);
            ChannelPromise p = c.newPromise();
            assertFalse(onLoop(c, () -> c.sendDirect(probe.ctx, b, p)), "a handler between: not taken");
            assertEquals(1, b.refCnt(), "the message is untouched");
            assertFalse(p.isDone(), "the promise is untouched");
            probe.ctx.writeAndFlush(b, p);
            assertTrue(p.await(TIMEOUT, TimeUnit.SECONDS) && p.isSuccess(), String.valueOf(p.cause()));
            assertReceived(collect, 10, 1);
            assertEquals(List.of(b), seen, "the user's handler saw the write");
            assertEquals(0, DirectSends.count(c));
        } finally {
            collect.releaseAll();
        }
    }

    @Test
    void notTakenWhileAWriteWaitsUnflushedAndOrderIsKept() throws Exception {
        Collect collect = new Collect();
        Probe probe = new Probe();
        RdmaChannel c = client(collect, probe);
        try {
            ByteBuf second = send(20, 2);
            assertFalse(onLoop(c, () -> {
                probe.ctx.write(send(10, 1)); // not flushed
                return c.sendDirect(probe.ctx, second, c.voidPromise());
            }), "an unflushed write waits: not taken");
            assertEquals(1, second.refCnt());
            onLoop(c, () -> probe.ctx.writeAndFlush(second));
            assertReceived(collect, 10, 1);
            assertReceived(collect, 20, 2);
            // Flushed and posted: the lane is open again, behind them.
            ByteBuf third = send(30, 3);
            assertTrue(onLoop(c, () -> c.sendDirect(probe.ctx, third, c.voidPromise())));
            assertReceived(collect, 30, 3);
            assertEquals(1, DirectSends.count(c));
        } finally {
            collect.releaseAll();
        }
    }

    @Test
    void notTakenOffTheLoopNorOnceClosed() throws Exception {
        Collect collect = new Collect();
        Probe probe = new Probe();
        RdmaChannel c = client(collect, probe);
        ByteBuf b = send(10, 1);
        try {
            assertFalse(c.sendDirect(probe.ctx, b, c.newPromise()), "off the loop: not taken");
            c.close().sync();
            assertFalse(onLoop(c, () -> c.sendDirect(probe.ctx, b, c.newPromise())), "closed: not taken");
            assertEquals(1, b.refCnt());
        } finally {
            b.release();
            collect.releaseAll();
        }
    }

    @Test
    void repliesInsideACompletionBatchArriveInOrder() throws Exception {
        List<Boolean> taken = new CopyOnWriteArrayList<>();
        // The server answers each Send from channelRead (inside its completion batch) through the lane.
        InetSocketAddress at = server(b -> { }, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                RdmaReceive r = (RdmaReceive) msg;
                ByteBuf reply = Unpooled.directBuffer(r.content().readableBytes()).writeBytes(r.content());
                r.release();
                boolean direct = ((RdmaChannel) ctx.channel()).sendDirect(ctx, reply, ctx.voidPromise());
                taken.add(direct);
                if (!direct) {
                    ctx.writeAndFlush(reply, ctx.voidPromise());
                }
            }
        });
        Collect collect = new Collect();
        Channel c = connect(at, b -> { }, collect).sync().channel();
        try {
            int n = 40;
            for (int i = 0; i < n; i++) {
                c.write(send(i * 10, i));
            }
            c.flush();
            for (int i = 0; i < n; i++) {
                assertReceived(collect, i * 10, i);
            }
            assertEquals(n, taken.size());
            assertTrue(taken.contains(true), "the server's replies took the lane: " + taken);
        } finally {
            collect.releaseAll();
        }
    }

    @Test
    void aSendIntoAQueuePairInErrorIsReleasedOnceAndTheChannelCloses() throws Exception {
        Collect collect = new Collect();
        Probe probe = new Probe();
        RdmaChannel c = client(collect, probe);
        try {
            RdmaFaults.queuePairToError(c).get(TIMEOUT, TimeUnit.SECONDS);
            ByteBuf b = send(100, 1);
            ChannelPromise p = c.newPromise();
            boolean taken = onLoop(c, () -> c.sendDirect(probe.ctx, b, p));
            if (!taken) {
                probe.ctx.writeAndFlush(b, p); // the channel already knew: the pipeline's way
            }
            assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS), "the channel closes");
            assertTrue(p.await(TIMEOUT, TimeUnit.SECONDS), "the promise completes");
            assertEquals(0, b.refCnt(), "released exactly once (a second release would have thrown)");
        } finally {
            collect.releaseAll();
        }
    }

    @Test
    void aSendStagedInABatchIsPostedBeforeACloseInTheSameBatch() throws Exception {
        CompletableFuture<ByteBuf> replied = new CompletableFuture<>();
        CompletableFuture<Boolean> taken = new CompletableFuture<>();
        InetSocketAddress at = server(b -> { }, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((RdmaReceive) msg).release();
                ByteBuf reply = send(50, 5);
                replied.complete(reply);
                taken.complete(((RdmaChannel) ctx.channel()).sendDirect(ctx, reply, ctx.voidPromise()));
                ctx.close(); // in the same batch: the staged Send is posted first, then the close begins
            }
        });
        Collect collect = new Collect();
        Channel c = connect(at, b -> { }, collect).sync().channel();
        try {
            c.writeAndFlush(send(10, 1));
            assertTrue(taken.get(TIMEOUT, TimeUnit.SECONDS), "taken inside the batch");
            assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS), "the server's close reaches the client");
            assertEquals(0, replied.get(TIMEOUT, TimeUnit.SECONDS).refCnt(), "the staged Send was released once");
        } finally {
            collect.releaseAll();
        }
    }
}
