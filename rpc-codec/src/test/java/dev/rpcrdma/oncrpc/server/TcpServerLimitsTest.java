package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.tcp.TestTransport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import dev.rpcrdma.testing.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RpcServerLimits} over TCP: a connection beyond the maximum is closed at once and counted, an idle one is
 * closed after the timeout, and calls beyond the maximum in flight wait (reading paused) until replies go out.
 */
class TcpServerLimitsTest {

    static final int PROG = 0x20000777;

    EventLoopGroup group;
    final List<Channel> channels = new ArrayList<>();
    /** Calls the HOLD procedure has not answered yet. */
    final ConcurrentLinkedQueue<RpcCallContext> held = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void start() {
        group = new MultiThreadIoEventLoopGroup(1, TestTransport.NIO.ioHandlerFactory());
    }

    @AfterEach
    void stop() throws Exception {
        for (Channel c : channels) {
            c.close().sync();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    TcpRpcServerInitializer server(RpcServerLimits limits) throws Exception {
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, 1)
                .register(PROG, 1, 1, (call, args) -> held.add(call));
        TcpRpcServerInitializer init = new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats()))
                .withLimits(limits);
        channels.add(new ServerBootstrap().group(group).channel(TestTransport.NIO.serverChannel())
                .childHandler(init).bind("127.0.0.1", 0).sync().channel());
        return init;
    }

    Channel connect() throws Exception {
        Channel c = new Bootstrap().group(group).channel(TestTransport.NIO.clientChannel())
                .handler(new TcpRpcClientInitializer()).connect(channels.get(0).localAddress())
                .sync().channel();
        channels.add(c);
        return c;
    }

    @Test
    void aConnectionBeyondTheMaximumIsClosedAtOnceAndCounted() throws Exception {
        TcpRpcServerInitializer init = server(RpcServerLimits.DEFAULT.withMaxConnections(2));
        Channel a = connect();
        Channel b = connect();
        RpcClient.of(a).callNull(PROG, 1).get(10, TimeUnit.SECONDS);
        RpcClient.of(b).callNull(PROG, 1).get(10, TimeUnit.SECONDS);
        Channel c = connect();
        assertTrue(c.closeFuture().await(10, TimeUnit.SECONDS), "the third connection is closed by the server");
        assertEquals(1, init.guard().refusedConnections());
        assertEquals(2, init.guard().connections());
        // Once one closes, a new connection is admitted.
        a.close().sync();
        Await.until(() -> init.guard().connections() == 1, "condition");
        RpcClient.of(connect()).callNull(PROG, 1).get(10, TimeUnit.SECONDS);
        assertTrue(b.isActive());
    }

    @Test
    void anIdleConnectionIsClosedAfterTheTimeoutButNotWhileACallIsInProgress() throws Exception {
        TcpRpcServerInitializer init = server(RpcServerLimits.DEFAULT.withIdleTimeout(Duration.ofMillis(300)));
        Channel idle = connect();
        Channel busy = connect();
        CompletableFuture<Void> pending = RpcClient.of(busy).call(PROG, 1, 1, RpcClient.of(busy).newPayload(),
                r -> null);
        assertTrue(idle.closeFuture().await(10, TimeUnit.SECONDS), "closed after the idle timeout");
        assertEquals(1, init.guard().idleConnectionsClosed());
        Thread.sleep(600);
        assertTrue(busy.isActive(), "a call in progress keeps its connection");
        held.poll().replySuccess();
        pending.get(10, TimeUnit.SECONDS);
        assertTrue(busy.closeFuture().await(10, TimeUnit.SECONDS), "idle again once answered");
        assertEquals(2, init.guard().idleConnectionsClosed());
    }

    @Test
    void callsBeyondTheMaximumInFlightWaitUntilRepliesGoOut() throws Exception {
        TcpRpcServerInitializer init = server(RpcServerLimits.DEFAULT.withMaxCallsInFlight(2));
        Channel c = connect();
        RpcClient client = RpcClient.of(c);
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            calls.add(client.call(PROG, 1, 1, client.newPayload(), r -> null));
        }
        Await.until(() -> held.size() == 2, "condition");
        Thread.sleep(300);
        assertEquals(2, held.size(), "no more than 2 calls reach the procedure");
        assertEquals(1, init.guard().readPauses());
        int answered = 0;
        while (answered < 6) {
            Await.until(() -> !held.isEmpty(), "condition");
            assertTrue(held.size() <= 2);
            held.poll().replySuccess();
            answered++;
        }
        for (CompletableFuture<Void> f : calls) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertFalse(calls.stream().anyMatch(CompletableFuture::isCompletedExceptionally));
        // Reading resumed: a NULL call goes through at once.
        client.callNull(PROG, 1).get(10, TimeUnit.SECONDS);
    }
}
