package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcConnectionClosedException;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.client.RpcReplyException;
import dev.rpcrdma.oncrpc.client.RpcTimeoutException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.testing.Await;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Our client against our server over real loopback TCP, on NIO and on epoll. */
class TcpRoundTripTest {

    static final int PROG = 0x2004F001;
    static final int VERS = 1;
    static final int ECHO = 1;
    static final int ASYNC_ECHO = 2;
    static final int NEVER = 3;
    static final int WHOAMI = 4;
    /** Small fragments so that medium messages already span many fragments both ways. */
    static final int FRAGMENT = 16 * 1024;

    private final RpcStats serverStats = new RpcStats();
    private final RpcStats clientStats = new RpcStats();
    private final ScheduledExecutorService async = Executors.newSingleThreadScheduledExecutor();
    private final Queue<RpcCallContext> neverAnswered = new ConcurrentLinkedQueue<>();
    private EventLoopGroup group;
    private Channel server;
    private Channel clientChannel;
    private RpcClient client;

    private void start(TestTransport transport) throws InterruptedException {
        transport.assumeAvailable();
        group = new MultiThreadIoEventLoopGroup(2, transport.ioHandlerFactory());
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, args) -> {
                    ByteBuf data = args.readOpaqueSlice(8 << 20);
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(data);
                    call.replySuccess(results);
                })
                .register(PROG, VERS, ASYNC_ECHO, (call, args) -> {
                    byte[] data = args.readOpaque(1 << 20);
                    // Answer later, from a thread that is not the event loop.
                    async.schedule(() -> {
                        XdrPayload results = call.newPayload();
                        results.writer().writeOpaque(data);
                        call.replySuccess(results);
                    }, 50, TimeUnit.MILLISECONDS);
                })
                .register(PROG, VERS, NEVER, (call, args) -> neverAnswered.add(call))
                .register(PROG, VERS, WHOAMI, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    results.writer().writeInt(call.authSys().uid()).writeString(call.authSys().machineName());
                    call.replySuccess(results);
                });
        TcpRpcConfig config = new TcpRpcConfig(16 << 20, FRAGMENT);
        server = new ServerBootstrap().group(group).channel(transport.serverChannel())
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, serverStats), config))
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        clientChannel = new Bootstrap().group(group).channel(transport.clientChannel())
                .handler(new TcpRpcClientInitializer(clientStats, config, Duration.ofSeconds(20)))
                .connect(server.localAddress()).sync().channel();
        client = RpcClient.of(clientChannel);
    }

    @AfterEach
    void stop() throws InterruptedException {
        async.shutdownNow();
        if (clientChannel != null) {
            clientChannel.close().sync();
        }
        if (server != null) {
            server.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private CompletableFuture<byte[]> echo(int proc, byte[] data) {
        XdrPayload args = client.newPayload();
        args.writeDdpOpaque(client.alloc().buffer(data.length).writeBytes(data));
        return client.call(PROG, VERS, proc, args, r -> r.readOpaque(8 << 20));
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void nullProcedure(TestTransport transport) throws Exception {
        start(transport);
        client.callNull(PROG, VERS).get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void echoOfVariousSizesIncludingMultiFragmentRecords(TestTransport transport) throws Exception {
        start(transport);
        int[] sizes = {0, 1, 3, 4, 5, 1023, 1024, FRAGMENT - 100, FRAGMENT, 3 * FRAGMENT + 7, 1 << 20,
            (4 << 20) + 1};
        List<CompletableFuture<byte[]>> futures = new ArrayList<>();
        List<byte[]> sent = new ArrayList<>();
        for (int size : sizes) {
            byte[] data = new byte[size];
            ThreadLocalRandom.current().nextBytes(data);
            sent.add(data);
            futures.add(echo(ECHO, data));
        }
        for (int i = 0; i < sizes.length; i++) {
            assertArrayEquals(sent.get(i), futures.get(i).get(20, TimeUnit.SECONDS), "size " + sizes[i]);
        }
        assertEquals(0, serverStats.malformedMessages() + serverStats.oversizedRecords());
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void asynchronousProcedureAndConcurrentCallers(TestTransport transport) throws Exception {
        start(transport);
        List<CompletableFuture<byte[]>> futures = new ArrayList<>();
        List<byte[]> sent = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 25; i++) {
                    byte[] data = new byte[ThreadLocalRandom.current().nextInt(2048)];
                    ThreadLocalRandom.current().nextBytes(data);
                    CompletableFuture<byte[]> f = echo(ASYNC_ECHO, data);
                    synchronized (futures) {
                        futures.add(f);
                        sent.add(data);
                    }
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        for (int i = 0; i < futures.size(); i++) {
            assertArrayEquals(sent.get(i), futures.get(i).get(20, TimeUnit.SECONDS));
        }
        assertEquals(100, futures.size());
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void authSysCredentialTravels(TestTransport transport) throws Exception {
        start(transport);
        AuthSysCredential cred = new AuthSysCredential(1, "client.example", 1234, 100, 10, 20);
        String answer = client.call(PROG, VERS, WHOAMI, client.newPayload(),
                r -> r.readInt() + "@" + r.readString(255),
                CallOptions.DEFAULT.withCredential(cred.toOpaqueAuth())).get(10, TimeUnit.SECONDS);
        assertEquals("1234@client.example", answer);
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void unavailableProcedureAndVersion(TestTransport transport) throws Exception {
        start(transport);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> client.call(PROG, VERS, 77, client.newPayload(), RpcReplyDecoder.VOID)
                        .get(10, TimeUnit.SECONDS));
        assertEquals(AcceptStat.PROC_UNAVAIL, ((RpcReplyException) e.getCause()).reply().acceptStat());
        e = assertThrows(ExecutionException.class, () -> client.callNull(PROG, 9).get(10, TimeUnit.SECONDS));
        RpcReplyException mismatch = (RpcReplyException) e.getCause();
        assertEquals(AcceptStat.PROG_MISMATCH, mismatch.reply().acceptStat());
        assertEquals(VERS, mismatch.reply().mismatchLow());
        assertEquals(VERS, mismatch.reply().mismatchHigh());
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void timeoutThenLateReplyIsCountedAsUnknownXid(TestTransport transport) throws Exception {
        start(transport);
        CompletableFuture<Void> f = client.call(PROG, VERS, NEVER, client.newPayload(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withTimeout(Duration.ofMillis(200)));
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertInstanceOf(RpcTimeoutException.class, e.getCause());
        // The server answers late: the client drops and counts it.
        Await.until(() -> !neverAnswered.isEmpty(), "the server holds the call");
        neverAnswered.poll().replySuccess().sync();
        Await.until(() -> clientStats.unknownXidReplies() == 1, "the late reply is dropped and counted");
        // The connection is still fine.
        client.callNull(PROG, VERS).get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void serverClosingFailsEveryPendingCall(TestTransport transport) throws Exception {
        start(transport);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pending.add(client.call(PROG, VERS, NEVER, client.newPayload(), RpcReplyDecoder.VOID));
        }
        Await.until(() -> neverAnswered.size() == 5, "the server holds the five calls");
        neverAnswered.peek().channel().close().sync();
        for (CompletableFuture<Void> f : pending) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            assertInstanceOf(RpcConnectionClosedException.class, e.getCause());
        }
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> client.callNull(PROG, VERS).get(10, TimeUnit.SECONDS));
        assertInstanceOf(RpcConnectionClosedException.class, e.getCause());
        // Replies to a closed connection go nowhere and leak nothing.
        for (RpcCallContext call : neverAnswered) {
            call.replySuccess().await();
        }
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void recordOverTheServersMaximumClosesTheConnection(TestTransport transport) throws Exception {
        transport.assumeAvailable();
        group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        RpcProgramRegistry registry = new RpcProgramRegistry().register(PROG, VERS, ECHO, (call, args) -> {
            call.replySuccess();
        });
        server = new ServerBootstrap().group(group).channel(transport.serverChannel())
                .childHandler(new TcpRpcServerInitializer(new RpcDispatcher(registry, serverStats),
                        new TcpRpcConfig(4096, 4096)))
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        clientChannel = new Bootstrap().group(group).channel(transport.clientChannel())
                .handler(new TcpRpcClientInitializer(clientStats, new TcpRpcConfig(1 << 20, 1024),
                        Duration.ofSeconds(20)))
                .connect(server.localAddress()).sync().channel();
        client = RpcClient.of(clientChannel);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> echo(ECHO, new byte[8192]).get(10, TimeUnit.SECONDS));
        assertInstanceOf(RpcConnectionClosedException.class, e.getCause());
        assertEquals(1, serverStats.oversizedRecords());
    }


}
