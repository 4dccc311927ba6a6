package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

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

    @Test
    void aCallToAPeerThatNeverAnswersTimesOutNotBeforeItsTimeout() throws Exception {
        LocalAddress address = new LocalAddress("call-timeouts-" + System.nanoTime());
        Channel server = new ServerBootstrap().group(group).channel(LocalServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg); // never answers
                    }
                }).bind(address).sync().channel();
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
}
