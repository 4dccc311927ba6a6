package dev.rpcrdma.benchmarks.backchannel;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A backward NULL round trip (server to client, RFC 8167 backchannel: CB_NULL of program 0x40000000) next to a
 * forward NULL on the same connection, in the same run: {@code rdma} = RPC-over-RDMA over the in-process software
 * fabric, {@code tcp} = loopback TCP. One call in flight. The VM figures on Soft-RoCE come from
 * {@code samples/run-callback-demo --fabric native} in {@code tools/vm/run-benchmarks}.
 * {@code java -jar benchmarks/target/benchmarks.jar BackchannelBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class BackchannelBenchmark {
    static final int FORE = 0x2004F0C0;
    static final int CB = 0x40000000;
    static final int CREATE_SESSION = 2;

    @Param({"rdma", "tcp"})
    public String transport;

    private EventLoopGroup serverGroup;
    private EventLoopGroup clientGroup;
    private Channel server;
    private Channel channel;
    private RpcClient forward;
    private RpcClient backward;

    @Setup
    public void setUp() throws Exception {
        CompletableFuture<Channel> session = new CompletableFuture<>();
        RpcDispatcher fore = new RpcDispatcher(new RpcProgramRegistry().registerNull(FORE, 1)
                .register(FORE, 1, CREATE_SESSION, (call, args) -> {
                    call.backchannel().enable();
                    call.replySuccess();
                    session.complete(call.channel());
                }), new RpcStats());
        RpcDispatcher callbacks = new RpcDispatcher(new RpcProgramRegistry().registerNull(CB, 1), new RpcStats());
        InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
        Duration timeout = Duration.ofSeconds(30);
        if ("rdma".equals(transport)) {
            serverGroup = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                    .fabric(RdmaFabric.SOFTWARE)));
            clientGroup = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                    .fabric(RdmaFabric.SOFTWARE)));
            RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(fore, RpcRdmaConfig.DEFAULT,
                    new RpcRdmaStats()).withBackchannel(timeout);
            server = init.configure(new ServerBootstrap().group(serverGroup).channel(RdmaServerChannel.class)
                    .childHandler(init)).bind(any).sync().channel();
            channel = new Bootstrap().group(clientGroup).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, new RpcRdmaStats(),
                            timeout).withCallbacks(callbacks)).connect(server.localAddress()).sync().channel();
        } else {
            boolean epoll = Epoll.isAvailable();
            serverGroup = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory()
                    : NioIoHandler.newFactory());
            clientGroup = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory()
                    : NioIoHandler.newFactory());
            server = new ServerBootstrap().group(serverGroup)
                    .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                    .childHandler(new TcpRpcServerInitializer(fore).withBackchannel(timeout)).bind(any).sync()
                    .channel();
            channel = new Bootstrap().group(clientGroup).channel(epoll ? EpollSocketChannel.class
                    : NioSocketChannel.class).handler(new TcpRpcClientInitializer(new RpcStats(),
                    TcpRpcConfig.DEFAULT, timeout).withCallbacks(callbacks)).connect(server.localAddress()).sync()
                    .channel();
        }
        RpcBackchannel.of(channel).enable();
        forward = RpcClient.of(channel);
        forward.call(FORE, 1, CREATE_SESSION, forward.newPayload(), r -> null).get(30, TimeUnit.SECONDS);
        backward = RpcClient.of(session.get(30, TimeUnit.SECONDS));
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        channel.close().sync();
        server.close().sync();
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    /** Client to server NULL. */
    @Benchmark
    public Object forwardNull() throws Exception {
        return forward.callNull(FORE, 1).get(30, TimeUnit.SECONDS);
    }

    /** Server to client CB_NULL on the same connection. */
    @Benchmark
    public Object backwardNull() throws Exception {
        return backward.callNull(CB, 1).get(30, TimeUnit.SECONDS);
    }
}
