package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcConnectionClosedException;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.client.RpcReplyException;
import dev.rpcrdma.oncrpc.client.RpcTimeoutException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.testing.Await;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The caller-thread client against our server over real loopback TCP, on NIO and on epoll. */
class BlockingRpcClientTest {

    private static final int PROG = 0x2004F002;
    private static final int VERS = 1;
    private static final int ECHO = 1;
    private static final int NEVER = 2;
    private static final int CALLER_THREAD = 3;

    private final RpcStats serverStats = new RpcStats();
    private final RpcStats clientStats = new RpcStats();
    private final Queue<RpcCallContext> neverAnswered = new ConcurrentLinkedQueue<>();
    private EventLoopGroup serverGroup;
    private Channel server;

    private BlockingRpcClient start(TestTransport transport) throws Exception {
        transport.assumeAvailable();
        serverGroup = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(args.readOpaqueSlice(1 << 20));
                    call.replySuccess(results);
                })
                .register(PROG, VERS, NEVER, (call, args) -> neverAnswered.add(call));
        server = new ServerBootstrap().group(serverGroup).channel(transport.serverChannel())
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, serverStats)))
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        return connect(transport, server.localAddress());
    }

    private BlockingRpcClient connect(TestTransport transport, java.net.SocketAddress address) throws IOException {
        Bootstrap bootstrap = new Bootstrap().channel(transport.clientChannel())
                .handler(new TcpRpcClientInitializer(clientStats, TcpRpcConfig.DEFAULT, Duration.ofSeconds(20)));
        return BlockingRpcClient.connect(bootstrap, transport.ioHandlerFactory(), address, Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (RpcCallContext call : neverAnswered) {
            call.replySuccess();
        }
        if (server != null) {
            server.close().sync();
        }
        if (serverGroup != null) {
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** The NEVER call the server holds, waiting for it to arrive (a loaded machine may be slow). */
    private RpcCallContext heldCall() throws InterruptedException {
        Await.until(() -> !neverAnswered.isEmpty(), "the server holds the call");
        return neverAnswered.poll();
    }

    private static byte[] echo(BlockingRpcClient client, byte[] data) throws Exception {
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(data);
        return client.call(PROG, VERS, ECHO, args, r -> r.readOpaque(1 << 20));
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void callsRunOnTheCallingThreadAndReturnTheResults(TestTransport transport) throws Exception {
        try (BlockingRpcClient client = start(transport)) {
            client.callNull(PROG, VERS);
            for (int size : new int[] {0, 1, 1024, 100_000, 1 << 20}) {
                byte[] data = new byte[size];
                ThreadLocalRandom.current().nextBytes(data);
                assertArrayEquals(data, echo(client, data), "echo of " + size + " bytes");
            }
            // The decoder runs on the caller's thread: the client's I/O is ours, no event-loop thread exists.
            Thread[] decodedOn = new Thread[1];
            client.call(PROG, VERS, 0, client.newPayload(), r -> {
                decodedOn[0] = Thread.currentThread();
                return null;
            });
            assertSame(Thread.currentThread(), decodedOn[0]);
            assertTrue(client.channel().eventLoop().inEventLoop(), "the caller owns the connection's loop");
        }
        assertEquals(0, clientStats.unknownXidReplies());
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void aCallWithoutReplyTimesOutAndTheConnectionStaysUsable(TestTransport transport) throws Exception {
        try (BlockingRpcClient client = start(transport)) {
            long start = System.nanoTime();
            RpcTimeoutException e = assertThrows(RpcTimeoutException.class, () -> client.call(PROG, VERS, NEVER,
                    client.newPayload(), RpcReplyDecoder.VOID, CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200))));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(200), "waited the timeout");
            assertTrue(e.getMessage().contains("within"), e.getMessage());
            // Late answer to the timed-out call, written before the next call is sent (so it precedes that call's
            // reply on the stream): dropped and counted by the next call's I/O, which still succeeds.
            assertTrue(heldCall().replySuccess().await(10, TimeUnit.SECONDS));
            byte[] data = {1, 2, 3, 4, 5};
            assertArrayEquals(data, echo(client, data));
            assertEquals(1, clientStats.unknownXidReplies());
        }
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void rejectedCallsThrowTheReplyException(TestTransport transport) throws Exception {
        try (BlockingRpcClient client = start(transport)) {
            RpcReplyException e = assertThrows(RpcReplyException.class,
                    () -> client.call(PROG, VERS, 99, client.newPayload(), RpcReplyDecoder.VOID));
            assertEquals(AcceptStat.PROC_UNAVAIL, e.reply().acceptStat());
        }
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void anotherThreadIsRefusedAndItsArgumentsReleased(TestTransport transport) throws Exception {
        try (BlockingRpcClient client = start(transport)) {
            XdrPayload args = client.newPayload();
            args.writer().writeInt(42);
            CompletableFuture<Throwable> refused = CompletableFuture.supplyAsync(() -> {
                try {
                    client.call(PROG, VERS, 0, args, RpcReplyDecoder.VOID);
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Throwable t = refused.get(10, TimeUnit.SECONDS);
            assertInstanceOf(IllegalStateException.class, t);
            assertTrue(t.getMessage().contains("confined"), t.getMessage());
            assertEquals(0, args.refCnt(), "arguments released");
            client.callNull(PROG, VERS);
        }
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void serverCloseFailsThePendingCallAndLaterCalls(TestTransport transport) throws Exception {
        try (BlockingRpcClient client = start(transport)) {
            client.callNull(PROG, VERS);
            // The server closes the connection while our call waits for a reply that never comes.
            CompletableFuture.runAsync(() -> {
                try {
                    heldCall().channel().close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThrows(RpcConnectionClosedException.class, () -> client.call(PROG, VERS, NEVER,
                    client.newPayload(), RpcReplyDecoder.VOID));
            assertFalse(client.channel().isActive());
            assertThrows(RpcConnectionClosedException.class, () -> client.callNull(PROG, VERS));
        }
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void connectingToNothingThrowsAnIoExceptionNamingTheAddress(TestTransport transport) throws Exception {
        transport.assumeAvailable();
        InetSocketAddress nothing;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            nothing = (InetSocketAddress) s.getLocalSocketAddress();
        }
        IOException e = assertThrows(IOException.class, () -> connect(transport, nothing));
        assertTrue(String.valueOf(e.getMessage()).contains(String.valueOf(nothing.getPort())), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void closeIsIdempotent(TestTransport transport) throws Exception {
        BlockingRpcClient client = start(transport);
        client.callNull(PROG, VERS);
        client.close();
        client.close();
        assertFalse(client.channel().isOpen());
        assertTrue(client.channel().eventLoop().isTerminated(), "the client's loop ended with it");
    }
}
