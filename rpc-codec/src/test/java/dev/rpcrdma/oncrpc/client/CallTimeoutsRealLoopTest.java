package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.Ticker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Timeouts on a real event loop (Netty's local transport, a peer that never answers): they take the sweeper's path
 * (the loop runs on the system clock), fire, and never before the call's timeout.
 */
class CallTimeoutsRealLoopTest {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());

    @AfterEach
    void tearDown() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A local server that never answers. */
    private Channel silentServer(LocalAddress address) throws InterruptedException {
        return new ServerBootstrap().group(group).channel(LocalServerChannel.class)
                .childHandler(new Silent()).bind(address).sync().channel();
    }

    /** Reads and drops every call. */
    @ChannelHandler.Sharable
    private static final class Silent extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg); // never answers
        }
    }

    /**
     * A listener call made by a thread other than the loop's: its call object, finished on the loop (here by its
     * timeout), goes to the locked free list that such callers take from, not to the loop's own.
     */
    @Test
    void listenerCallObjectsOfCallersOffTheLoopComeBackToThem() throws Exception {
        LocalAddress address = new LocalAddress("call-reuse-" + System.nanoTime());
        Channel server = silentServer(address);
        Channel ch = new Bootstrap().group(group).channel(LocalChannel.class)
                .handler(new RpcClientHandler(new RpcStats(), Duration.ofSeconds(30))).connect(address).sync()
                .channel();
        try {
            RpcClient client = RpcClient.of(ch);
            CompletableFuture<Throwable> failed = new CompletableFuture<>();
            client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                    CallOptions.DEFAULT.withTimeout(Duration.ofMillis(50)), new RpcCallListener<Void>() {
                        @Override
                        public void onResult(Void result) {
                            failed.complete(null);
                        }

                        @Override
                        public void onFailure(Throwable cause) {
                            failed.complete(cause);
                        }
                    });
            assertInstanceOf(RpcTimeoutException.class, failed.get(10, TimeUnit.SECONDS));
            RpcClientHandler handler = client.handler();
            assertTrue(handler.takeFree() != null, "kept where callers off the loop take from");
            assertEquals(null, ch.eventLoop().submit(handler::takeFree).get(10, TimeUnit.SECONDS),
                    "and not also in the loop's own list");
        } finally {
            ch.close().sync();
            server.close().sync();
        }
    }

    @Test
    void aCallToAPeerThatNeverAnswersTimesOutNotBeforeItsTimeout() throws Exception {
        LocalAddress address = new LocalAddress("call-timeouts-" + System.nanoTime());
        Channel server = silentServer(address);
        Channel ch = new Bootstrap().group(group).channel(LocalChannel.class)
                .handler(new RpcClientHandler(new RpcStats(), Duration.ofSeconds(30))).connect(address).sync()
                .channel();
        try {
            assertSame(Ticker.systemTicker(), ((AbstractScheduledEventExecutor) ch.eventLoop()).ticker(),
                    "a real loop runs on the system clock: the sweeper's path");
            RpcClient client = RpcClient.of(ch);
            Duration timeout = Duration.ofMillis(150);
            long start = System.nanoTime();
            CompletableFuture<Void> f = client.call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                    CallOptions.DEFAULT.withTimeout(timeout));
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            long elapsed = System.nanoTime() - start;
            assertInstanceOf(RpcTimeoutException.class, e.getCause());
            assertTrue(elapsed >= timeout.toNanos(), "timed out after " + elapsed + " ns, before its timeout");
            assertTrue(TimeoutSweeper.instance().registeredCount() >= 1, "the connection is the sweeper's");
        } finally {
            ch.close().sync();
            server.close().sync();
        }
    }

    @Test
    void timeoutsFireOnEachConnectionsOwnLoopAndClosedConnectionsLeaveTheSweeper() throws Exception {
        EventLoopGroup clients = new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
        // A sweeper of the test's own, with its thread: the JVM-wide one is shared with other tests.
        TimeoutSweeper sweeper = new TimeoutSweeper(System::nanoTime, TimeoutSweeper.TICK_NANOS, true);
        LocalAddress address = new LocalAddress("call-timeouts-loops-" + System.nanoTime());
        Channel server = silentServer(address);
        List<Channel> channels = new ArrayList<>();
        try {
            List<CompletableFuture<Boolean>> onLoop = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Channel ch = new Bootstrap().group(clients).channel(LocalChannel.class)
                        .handler(new RpcClientHandler(new RpcStats(), Duration.ofSeconds(30), sweeper))
                        .connect(address).syncUninterruptibly().channel();
                channels.add(ch);
                CompletableFuture<Boolean> done = new CompletableFuture<>();
                onLoop.add(done);
                RpcClient.of(ch).call(100, 1, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                        CallOptions.DEFAULT.withTimeout(Duration.ofMillis(50)), new RpcCallListener<Void>() {
                            @Override
                            public void onResult(Void result) {
                                done.completeExceptionally(new AssertionError("a silent peer answered"));
                            }

                            @Override
                            public void onFailure(Throwable cause) {
                                if (cause instanceof RpcTimeoutException) {
                                    // The sweeper's thread asked; the connection's own loop failed the call.
                                    done.complete(ch.eventLoop().inEventLoop());
                                } else {
                                    done.completeExceptionally(cause);
                                }
                            }
                        });
            }
            for (CompletableFuture<Boolean> done : onLoop) {
                assertTrue(done.get(10, TimeUnit.SECONDS), "expired on the connection's event loop");
            }
            assertEquals(4, sweeper.registeredCount(), "each connection that had a deadline is the sweeper's");
            for (Channel ch : channels) {
                // Seen once channelInactive has passed the RpcClientHandler (the close promise completes before).
                CompletableFuture<Void> inactive = new CompletableFuture<>();
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        inactive.complete(null);
                    }
                });
                ch.close().sync();
                inactive.get(10, TimeUnit.SECONDS);
            }
            assertEquals(0, sweeper.registeredCount(), "closed connections are forgotten: nothing kept per client");
        } finally {
            for (Channel ch : channels) {
                ch.close().sync();
            }
            server.close().sync();
            clients.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
