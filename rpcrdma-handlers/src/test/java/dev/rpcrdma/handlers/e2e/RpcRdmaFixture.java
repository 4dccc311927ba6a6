package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.rpcrdma.handlers.e2e.EchoService.ECHO;
import static dev.rpcrdma.handlers.e2e.EchoService.FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the end-to-end suites share, run once per fabric by one-line subclasses ({@link TestFabric}): one event loop
 * group per test, our server and client, and calls of the echo programs.
 */
abstract class RpcRdmaFixture extends FabricSuite {
    /**
     * Generous: under QEMU/TCG with paranoid leak detection one RPC with RDMA Reads takes ~0.5 s on Soft-RoCE, and
     * queued calls wait for credits. No test here measures time.
     */
    static final long TIMEOUT = 180;

    EventLoopGroup group;
    final List<Channel> channels = new ArrayList<>();
    RpcRdmaStats serverStats;
    RpcRdmaStats clientStats;
    RpcStats serverRpcStats;
    RpcClient client;
    /** Options of the client's connection (set before {@link #start}). */
    java.util.function.Consumer<Bootstrap> clientOptions = b -> { };
    final RpcMetrics serverMetrics = new RpcMetrics("e2e-server", RpcMetrics.Role.SERVER).register(TypedEcho.PROGRAM);
    final RpcMetrics clientMetrics = new RpcMetrics("e2e-client", RpcMetrics.Role.CLIENT).register(TypedEcho.PROGRAM);
    /** Runs the typed program's blocking procedure. */
    final java.util.concurrent.ExecutorService blockingExecutor = java.util.concurrent.Executors.newFixedThreadPool(2,
            r -> new Thread(r, TypedEcho.BLOCKING_THREAD));

    RpcRdmaFixture(TestFabric testFabric) {
        super(testFabric);
    }

    @BeforeEach
    void startLoop() {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric())));
    }

    @AfterEach
    void stopLoop() throws Exception {
        blockingExecutor.shutdownNow();
        serverMetrics.close();
        clientMetrics.close();
        for (Channel c : channels) {
            c.close().await(TIMEOUT, TimeUnit.SECONDS);
        }
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT, TimeUnit.SECONDS));
    }

    /** Starts our server and connects our client with the given configurations. */
    void start(RpcRdmaConfig serverConfig, RpcRdmaConfig clientConfig) throws Exception {
        start(serverConfig, clientConfig, b -> { });
    }

    void start(RpcRdmaConfig serverConfig, RpcRdmaConfig clientConfig,
               java.util.function.Consumer<ServerBootstrap> serverOptions) throws Exception {
        serverStats = new RpcRdmaStats();
        clientStats = new RpcRdmaStats();
        serverRpcStats = new RpcStats();
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(
                new RpcDispatcher(TypedEcho.service(blockingExecutor).registerInto(EchoService.registry()),
                        serverRpcStats, serverMetrics), serverConfig, serverStats);
        serverStats.attachTo(serverMetrics);
        // No init.configure(...): the initializer sizes each accepted connection itself (accept-time sizing), so
        // every negotiation test here also proves the receive buffers match what the server advertises.
        ServerBootstrap sb = new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(init);
        serverOptions.accept(sb);
        Channel server = sb.bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(server);
        Bootstrap cb = new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer(new RpcStats(), clientConfig, clientStats,
                        Duration.ofSeconds(TIMEOUT)));
        clientOptions.accept(cb);
        Channel c = cb.connect(server.localAddress()).sync().channel();
        channels.add(c);
        client = RpcClient.of(c);
        client.handler().metrics(clientMetrics);
        clientStats.attachTo(clientMetrics);
    }

    void start() throws Exception {
        start(RpcRdmaConfig.DEFAULT, RpcRdmaConfig.DEFAULT);
    }

    RpcRdmaRequester requester() {
        return client.channel().pipeline().get(RpcRdmaRequester.class);
    }

    CompletableFuture<byte[]> echo(byte[] data, CallOptions options) {
        XdrPayload args = client.newPayload();
        args.writeDdpOpaque(client.alloc().buffer(data.length).writeBytes(data));
        return client.call(PROG, VERS, ECHO, args, EchoService::readDdpBytes, options);
    }

    CompletableFuture<byte[]> fill(int proc, int n, CallOptions options) {
        XdrPayload args = client.newPayload();
        args.writer().writeInt(n);
        return client.call(PROG, VERS, proc, args, r -> {
            if (proc == FILL) {
                ByteBuf b = r.readDdpOpaque(EchoService.MAX);
                byte[] out = new byte[b.readableBytes()];
                b.getBytes(b.readerIndex(), out);
                b.release();
                return out;
            }
            return r.readOpaque(EchoService.MAX);
        }, options);
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(TIMEOUT, TimeUnit.SECONDS);
    }

    static CallOptions hints(int maxDdp, int maxReply) {
        return CallOptions.DEFAULT.withReplyHints(maxDdp, maxReply);
    }

    <T> T onClientLoop(java.util.concurrent.Callable<T> task) throws Exception {
        return client.channel().eventLoop().submit(task).get(TIMEOUT, TimeUnit.SECONDS);
    }
}
