package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.DirectSends;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;
import static dev.rpcrdma.handlers.e2e.EchoService.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The RDMA channel's direct send lane under the drop-in initializers: with their own pipelines every inline call
 * and every inline reply goes straight from the requester and the responder into the channel's send queue; with a
 * user's outbound handler first in either pipeline none does on that side, and that handler sees every Send.
 */
abstract class DirectSendLaneSuite extends RpcRdmaFixture {
    private static final int CALLS = 50;

    DirectSendLaneSuite(TestFabric testFabric) {
        super(testFabric);
    }

    /** Counts the writes that pass it, and passes them on. */
    @ChannelHandler.Sharable
    static final class CountingWrites extends ChannelOutboundHandlerAdapter {
        final AtomicInteger writes = new AtomicInteger();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            writes.incrementAndGet();
            ctx.write(msg, promise);
        }
    }

    /** The server's accepted channel and our client's, with {@code first} (if any) first in both pipelines. */
    private RdmaChannel[] connect(ChannelHandler first) throws Exception {
        CompletableFuture<RdmaChannel> accepted = new CompletableFuture<>();
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(
                new RpcDispatcher(EchoService.registry(), new RpcStats()), RpcRdmaConfig.DEFAULT,
                new RpcRdmaStats());
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(init); // runs at once: the channel is registered
                        if (first != null) {
                            ch.pipeline().addFirst(first);
                        }
                        accepted.complete((RdmaChannel) ch);
                    }
                }).bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(server);
        RpcRdmaClientInitializer clientInit = new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT,
                new RpcRdmaStats(), Duration.ofSeconds(TIMEOUT));
        Channel c = new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(clientInit);
                        if (first != null) {
                            ch.pipeline().addFirst(first);
                        }
                    }
                }).connect(server.localAddress()).sync().channel();
        channels.add(c);
        client = RpcClient.of(c);
        return new RdmaChannel[] {accepted.get(TIMEOUT, TimeUnit.SECONDS), (RdmaChannel) c};
    }

    private void calls() throws Exception {
        for (int i = 0; i < CALLS; i++) {
            if (i % 2 == 0) {
                get(client.callNull(PROG, VERS));
            } else {
                byte[] data = pattern(100 + i, i);
                // A reply known to fit inline: no chunk, so no Bind is written ahead of the call's Send.
                assertArrayEquals(data, get(echo(data, hints(200, 612))));
            }
        }
    }

    @Test
    void everyInlineCallAndReplyTakesTheLane() throws Exception {
        RdmaChannel[] ch = connect(null);
        calls();
        assertEquals(CALLS, DirectSends.count(ch[1]), "the requester's calls");
        assertEquals(CALLS, DirectSends.count(ch[0]), "the responder's replies");
    }

    @Test
    void noneTakesItBehindAUsersOutboundHandler() throws Exception {
        CountingWrites user = new CountingWrites();
        RdmaChannel[] ch = connect(user);
        calls();
        assertEquals(0, DirectSends.count(ch[1]), "the requester's calls");
        assertEquals(0, DirectSends.count(ch[0]), "the responder's replies");
        assertEquals(2 * CALLS, user.writes.get(), "the user's handler saw every call and every reply");
    }
}
