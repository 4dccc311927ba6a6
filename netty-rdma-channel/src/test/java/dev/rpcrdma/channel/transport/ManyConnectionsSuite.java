package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many idle connections to one server (issue 17, "a completion path that scales with connections"): they all
 * connect, the loops share a handful of completion queues and one protection domain per device among them (not one
 * per connection), an active connection's ping-pong still works beside them, and everything closes back to the
 * baseline. {@value #DEFAULT_CONNECTIONS} connections by default ({@code -Drdma.test.idleConnections}).
 */
abstract class ManyConnectionsSuite extends FabricSuite {
    static final int DEFAULT_CONNECTIONS = 1000;
    static final int CONNECTIONS = Integer.getInteger("rdma.test.idleConnections", DEFAULT_CONNECTIONS);
    static final int LOOPS = 2;
    static final long TIMEOUT = 120;

    ManyConnectionsSuite(TestFabric testFabric) {
        super(testFabric);
    }

    /** Small idle connections: 2 receives of 1 KiB (plus one spare), 2 send slots of 1 KiB. */
    static void idleSizes(BiConsumer<ChannelOption<Integer>, Integer> option) {
        option.accept(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 2);
        option.accept(RdmaChannelOption.RECEIVE_SPARE_BUFFERS, 1);
        option.accept(RdmaChannelOption.RECEIVE_BUFFER_SIZE, 1024);
        option.accept(RdmaChannelOption.SEND_QUEUE_DEPTH, 2);
        option.accept(RdmaChannelOption.MAX_SEND_SIZE, 1024);
    }

    /** The count of {@code kind} objects over all devices ({@code "qp"}, or {@code "rxe0 qp"} on a device). */
    static int count(Map<String, Integer> counts, String kind) {
        int n = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            if (e.getKey().equals(kind) || e.getKey().endsWith(' ' + kind)) {
                n += e.getValue();
            }
        }
        return n;
    }

    @Test
    void idleConnectionsShareTheLoopsCompletionQueuesAndAnActiveOneStillWorks() throws Exception {
        idleConnections(false);
    }

    /**
     * The same with {@link RdmaChannelOption#SHARED_RECEIVE_QUEUE_DEPTH}: the accepted ends (default receive sizes)
     * share one receive queue and slab per loop, so a server end registers its send slab only, and the receive
     * memory per idle connection is a share of {@value #SRQ_DEPTH} buffers per loop; the active connection's
     * ping-pong goes through the shared queue several times round; each end's credits are at least 1.
     */
    @Test
    void idleConnectionsShareOneReceiveQueuePerLoopOnTheServer() throws Exception {
        idleConnections(true);
    }

    static final int SRQ_DEPTH = 256;

    private void idleConnections(boolean srq) throws Exception {
        Map<String, Integer> before = resources();
        List<RdmaChannel> children = new java.util.concurrent.CopyOnWriteArrayList<>();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(LOOPS,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(fabric())));
        List<Channel> clients = new ArrayList<>(CONNECTIONS + 1);
        CountDownLatch accepted = new CountDownLatch(CONNECTIONS + 1);
        try {
            ServerBootstrap sb = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            children.add((RdmaChannel) ctx.channel());
                            accepted.countDown();
                            ctx.fireChannelActive();
                        }

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.writeAndFlush(((RdmaReceive) msg).content()); // echo
                        }

                        @Override
                        public boolean isSharable() {
                            return true;
                        }
                    });
            if (srq) {
                sb.option(RdmaChannelOption.SHARED_RECEIVE_QUEUE_DEPTH, SRQ_DEPTH)
                        .childOption(RdmaChannelOption.SEND_QUEUE_DEPTH, 2)
                        .childOption(RdmaChannelOption.MAX_SEND_SIZE, 1024);
            } else {
                idleSizes(sb::childOption);
            }
            Channel server = sb.bind(new InetSocketAddress(address(), 0)).sync().channel();
            InetSocketAddress at = (InetSocketAddress) server.localAddress();

            Bootstrap idle = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) TimeUnit.SECONDS.toMillis(TIMEOUT))
                    .handler(IDLE);
            idleSizes(idle::option);
            List<ChannelFuture> connects = new ArrayList<>(CONNECTIONS);
            for (int i = 0; i < CONNECTIONS; i++) {
                ChannelFuture f = idle.connect(at);
                clients.add(f.channel());
                connects.add(f);
            }
            for (ChannelFuture f : connects) {
                assertTrue(f.await(TIMEOUT, TimeUnit.SECONDS), "connect did not complete");
                assertTrue(f.isSuccess(), () -> "connect failed: " + f.cause());
            }

            // An active connection beside them, default sizes: a ping-pong of Sends.
            Collector pongs = new Collector();
            Channel active = new Bootstrap().group(group).channel(RdmaChannel.class).handler(pongs)
                    .connect(at).sync().channel();
            clients.add(active);
            assertTrue(accepted.await(TIMEOUT, TimeUnit.SECONDS), "all connections accepted");

            Map<String, Integer> during = resources();
            int qps = count(during, "qp") - count(before, "qp");
            assertEquals(2 * (CONNECTIONS + 1), qps, "a queue pair per connection end: " + during);
            // One PD per loop and device (client and server ends share the two loops), not one per connection (on
            // a device librdmacm also holds one PD per device while ids use it); the completion queues double in
            // size as they are added, so a loop has a handful.
            assertTrue(count(during, "pd") - count(before, "pd") <= LOOPS + 1, "PDs: " + before + " -> " + during);
            assertTrue(count(during, "cq") - count(before, "cq") <= LOOPS * 8, "CQs: " + before + " -> " + during);
            int ends = CONNECTIONS + 1;
            if (srq) {
                assertTrue(count(during, "srq") - count(before, "srq") <= LOOPS, "SRQs: " + during);
                // A client end registers its receive and send slabs, a server end its send slab only.
                int mrs = count(during, "mr") - count(before, "mr");
                assertTrue(mrs <= 3 * ends + LOOPS, "MRs: " + before + " -> " + during);
                for (RdmaChannel child : children) {
                    int credits = child.postedReceives();
                    assertTrue(credits >= 1 && credits <= 64, "credits of " + child + ": " + credits);
                }
            } else {
                assertEquals(4 * ends, count(during, "mr") - count(before, "mr"), "MRs: " + during);
            }

            for (int i = 0; i < (srq ? 3 * SRQ_DEPTH : 200); i++) {
                byte[] ping = {(byte) i, (byte) (i >> 8), 42};
                active.writeAndFlush(Unpooled.wrappedBuffer(ping));
                RdmaReceive pong = pongs.take(TIMEOUT);
                try {
                    byte[] got = new byte[pong.content().readableBytes()];
                    pong.content().getBytes(pong.content().readerIndex(), got);
                    assertArrayEquals(ping, got, "echo " + i);
                } finally {
                    pong.release();
                }
            }
            for (Channel c : clients) {
                c.close();
            }
            for (Channel c : clients) {
                assertTrue(c.closeFuture().await(TIMEOUT, TimeUnit.SECONDS), "closed");
            }
            server.close().sync();
        } finally {
            for (Channel c : clients) {
                if (c.isRegistered()) {
                    c.close();
                }
            }
            assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT, TimeUnit.SECONDS));
        }
        RdmaResources.assertBackTo(before, this::resources, 30);
    }

    /** The idle clients' handler (nothing arrives). */
    private static final ChannelInboundHandlerAdapter IDLE = new ChannelInboundHandlerAdapter() {
        @Override
        public boolean isSharable() {
            return true;
        }
    };

    /** Keeps received Sends for the test (which releases them). */
    static final class Collector extends ChannelInboundHandlerAdapter {
        private final java.util.concurrent.BlockingQueue<RdmaReceive> received =
                new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received.add((RdmaReceive) msg);
        }

        RdmaReceive take(long seconds) throws InterruptedException {
            RdmaReceive r = received.poll(seconds, TimeUnit.SECONDS);
            assertTrue(r != null, "nothing received within " + seconds + " s");
            return r;
        }
    }
}
