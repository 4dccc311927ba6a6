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
import dev.rpcrdma.oncrpc.client.RpcCallListener;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.samples.echo.EchoProgram;
import dev.rpcrdma.samples.echo.EchoServer;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One ECHO round trip of the samples' echo program (one call in flight), server and client in this JVM:
 * {@code rdma} = RPC-over-RDMA Version 1 over the in-process software fabric (so the numbers are the cost of the
 * protocol stack and the fabric model, not of a NIC), {@code tcp} = loopback TCP (epoll if available) for
 * comparison. Every echoed byte is verified. With {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes
 * allocated per round trip by all threads (client, server, fabric engine).
 * {@code java -jar benchmarks/target/benchmarks.jar EchoRoundTripBenchmark -prof gc}.
 *
 * <p>Four calls: {@code echo} and {@code nullCall} through the {@link java.util.concurrent.CompletableFuture} API
 * (what most callers write), {@code echoListener} and {@code nullListener} through the allocation-free form
 * ({@link RpcCallListener} and a decoder kept across calls; this thread parks until the event loop unparks it).
 * {@code echoFromLoop} and {@code nullFromLoop} issue {@value #CHAIN} calls per invocation on the client's event loop,
 * each from the previous one's completion (as a server's own outgoing calls, a proxy's or a callback's, are made):
 * their {@code gc.alloc.rate.norm} is the RPC stack's cost per call without the hand-off from a thread outside
 * Netty (on such a thread Netty 4.2's {@code Recycler} does not pool, so its objects are new every call).
 * {@code nullCall}/{@code nullListener}/{@code nullFromLoop} do not depend on {@code size}: run them with
 * {@code -p size=1024}. The
 * fork runs with Netty's leak detector off, as Netty's own microbenchmarks (at its default level one buffer in 128
 * records a stack trace, which is what {@code gc.alloc.rate.norm} would then mostly measure).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
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
    private CallOptions echoOptions;
    private final Waiter waiter = new Waiter();
    private final EchoCheck echoCheck = new EchoCheck();
    private final LoopChain nullChain = new LoopChain(false);
    private final LoopChain echoChain = new LoopChain(true);

    /** Calls per invocation of the {@code ...FromLoop} benchmarks. */
    static final int CHAIN = 100;

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
        echoOptions = EchoProgram.echoOptions(CallOptions.DEFAULT, size);
        echoCheck.expected = payload;
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

    @Benchmark
    public Object nullCall() throws Exception {
        return EchoProgram.callNull(client).get(30, TimeUnit.SECONDS);
    }

    @Benchmark
    public Object echoListener() throws Exception {
        XdrPayload args = client.newPayload().writeDdpOpaque(payload.retainedDuplicate());
        client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO, args, echoCheck, echoOptions,
                waiter.arm());
        if (waiter.await() != Boolean.TRUE) {
            throw new IllegalStateException("echoed bytes differ");
        }
        return Boolean.TRUE;
    }

    @Benchmark
    public Object nullListener() throws Exception {
        client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL, XdrPayload.empty(),
                RpcReplyDecoder.VOID, CallOptions.NULL_CALL, waiter.arm());
        return waiter.await();
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public Object nullFromLoop() throws Exception {
        return nullChain.start();
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public Object echoFromLoop() throws Exception {
        return echoChain.start();
    }

    /**
     * {@value #CHAIN} calls back to back on the client's event loop, each issued from the previous one's completion;
     * the benchmark thread hands the chain over once and parks until its end. Reused for every invocation.
     */
    private final class LoopChain implements Runnable, RpcCallListener<Object> {
        private final boolean echo;
        private int remaining;

        LoopChain(boolean echo) {
            this.echo = echo;
        }

        Object start() throws Exception {
            remaining = CHAIN;
            waiter.arm();
            channel.eventLoop().execute(this);
            return waiter.await();
        }

        @Override
        public void run() {
            if (remaining-- == 0) {
                waiter.onResult(Boolean.TRUE);
            } else if (echo) {
                client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO,
                        client.newPayload().writeDdpOpaque(payload.retainedDuplicate()), echoCheck, echoOptions, this);
            } else {
                client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL, XdrPayload.empty(),
                        RpcReplyDecoder.VOID, CallOptions.NULL_CALL, this);
            }
        }

        @Override
        public void onResult(Object result) {
            if (echo && result != Boolean.TRUE) {
                waiter.onFailure(new IllegalStateException("echoed bytes differ"));
                return;
            }
            run();
        }

        @Override
        public void onFailure(Throwable cause) {
            waiter.onFailure(cause);
        }
    }

    /** Decodes an ECHO reply into whether it carried exactly {@link #expected}; reused for every call. */
    private static final class EchoCheck implements RpcReplyDecoder<Boolean> {
        ByteBuf expected;

        @Override
        public Boolean decode(XdrReader results) throws XdrException {
            ByteBuf echoed = results.readDdpOpaque(expected.readableBytes());
            try {
                return ByteBufUtil.equals(expected, echoed);
            } finally {
                echoed.release();
            }
        }
    }

    /** One call's outcome handed from the event loop to the benchmark thread (park/unpark, no allocation). */
    private static final class Waiter implements RpcCallListener<Object> {
        private volatile Thread waiting;
        private volatile boolean done;
        private Object result;
        private Throwable failure;

        Waiter arm() {
            done = false;
            waiting = Thread.currentThread();
            return this;
        }

        Object await() throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!done) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("no reply within 30 s");
                }
                LockSupport.parkNanos(this, left);
            }
            if (failure != null) {
                throw new IllegalStateException("call failed", failure);
            }
            return result;
        }

        @Override
        public void onResult(Object r) {
            result = r;
            failure = null;
            done = true;
            LockSupport.unpark(waiting);
        }

        @Override
        public void onFailure(Throwable cause) {
            result = null;
            failure = cause;
            done = true;
            LockSupport.unpark(waiting);
        }
    }
}
