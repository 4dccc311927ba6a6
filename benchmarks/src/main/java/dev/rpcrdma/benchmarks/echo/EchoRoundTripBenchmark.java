package dev.rpcrdma.benchmarks.echo;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.samples.echo.EchoProgram;
import dev.rpcrdma.samples.echo.EchoServer;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
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

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One ECHO round trip of the samples' echo program (one call in flight), server and client in this JVM:
 * {@code rdma} = RPC-over-RDMA Version 1 over the in-process software fabric (so the numbers are the cost of the
 * protocol stack and the fabric model, not of a NIC), {@code tcp} = loopback TCP (epoll if available) for
 * comparison. Every echoed byte is verified. With {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes
 * allocated per round trip by all threads (client, server, fabric engine).
 * {@code java -jar benchmarks/target/benchmarks.jar EchoRoundTripBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EchoRoundTripBenchmark {

    @Param({"rdma", "tcp"})
    public String transport;

    /** ECHO payload in bytes: 1 KiB goes inline over RDMA; 64 KiB in a Read chunk and a Write chunk. */
    @Param({"1024", "65536"})
    public int size;

    private EchoServer server;
    private EventLoopGroup group;
    private Channel channel;
    private RpcClient client;
    private ByteBuf payload;

    @Setup
    public void setUp() throws Exception {
        server = EchoServer.start("--transport", transport, "--fabric", "software", "--address", "127.0.0.1",
                "--port", "0", "--threads", "1");
        Bootstrap b;
        if ("rdma".equals(transport)) {
            group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                    .fabric(RdmaFabric.SOFTWARE)));
            b = new Bootstrap().group(group).channel(RdmaChannel.class).handler(new RpcRdmaClientInitializer(
                    new RpcStats(), RpcRdmaConfig.DEFAULT, new RpcRdmaStats(), Duration.ofSeconds(30)));
        } else {
            boolean epoll = Epoll.isAvailable();
            group = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory()
                    : NioIoHandler.newFactory());
            b = new Bootstrap().group(group).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .handler(new TcpRpcClientInitializer(new RpcStats(), new TcpRpcConfig(8 << 20, 1 << 20),
                            Duration.ofSeconds(30)));
        }
        channel = b.connect(server.localAddresses().get(0)).sync().channel();
        client = RpcClient.of(channel);
        EchoProgram.callNull(client).get(30, TimeUnit.SECONDS);
        payload = PooledByteBufAllocator.DEFAULT.directBuffer(size);
        for (int i = 0; i < size; i++) {
            payload.writeByte(i * 7 + 1);
        }
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        channel.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        server.close();
        payload.release();
    }

    @Benchmark
    public boolean echo() throws Exception {
        boolean same = EchoProgram.callEcho(client, payload.retainedDuplicate(), CallOptions.DEFAULT)
                .get(30, TimeUnit.SECONDS);
        if (!same) {
            throw new IllegalStateException("echoed bytes differ");
        }
        return same;
    }
}
