package dev.rpcrdma.benchmarks.transport;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.RdmaFabric;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
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

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Transport-level echo round trips over the in-process software fabric: no RPC, just {@code RdmaChannel} Sends.
 * One invocation runs {@value #ROUND_TRIPS} back-to-back round trips driven entirely by the two event loops (the
 * client's handler sends the next message when the echo arrives), with pooled buffers and
 * {@code ctx.voidPromise()} writes, so that with {@code -prof gc} {@code gc.alloc.rate.norm} is the bytes the
 * transport (both channels and the fabric model) allocates per round trip: the target is 0 in steady state.
 * {@code java -jar benchmarks/target/benchmarks.jar TransportEchoBenchmark -prof gc}.
 *
 * <p>Every round trip is real: the client Sends a retained duplicate of a pooled direct buffer (64 bytes go inline,
 * 1024 through a registered send slot), the server's channel copies the received bytes into a fresh pooled buffer
 * and fires a (pooled) {@code RdmaReceive}, and the server writes that content back and releases the receive.
 *
 * <p>The fork runs with {@code -Dio.netty.leakDetection.level=disabled}, as Netty's own microbenchmarks do: at
 * the default level the leak detector tracks a sample of the buffers allocated (here the one per receive), with a
 * stack trace per sampled buffer and access, about 12 bytes per round trip per side on average. That is a debugging
 * facility's cost, the same for every Netty transport, not the transport's; override with
 * {@code -jvmArgsAppend -Dio.netty.leakDetection.level=simple} to see it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
public class TransportEchoBenchmark {
    static final int ROUND_TRIPS = 1000;

    /** Send size: 64 bytes go inline, 1024 through a registered send slot. */
    @Param({"64", "1024"})
    public int size;

    private EventLoopGroup group;
    private Channel server;
    private Channel client;
    private ByteBuf payload;
    private Pinger pinger;

    /**
     * Echoes every receive back with a void promise: the content goes to the write (retained), the receive is
     * released (back to the channel's pool).
     */
    @ChannelHandler.Sharable
    static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            RdmaReceive r = (RdmaReceive) msg;
            ctx.write(r.content().retain(), ctx.voidPromise());
            r.release();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Sends the next message when the echo of the last one arrives, {@code remaining} times. */
    static final class Pinger extends ChannelInboundHandlerAdapter {
        private final ByteBuf payload;
        /** The round trips of the next {@link #start}; read by {@link #startTask} on the event loop. */
        private volatile int requested;
        /** Runs one batch on the event loop (one instance: starting a batch allocates nothing). */
        private final Runnable startTask = () -> {
            remaining = requested;
            send();
        };
        private ChannelHandlerContext ctx;
        private int remaining;
        private volatile boolean done = true;

        Pinger(ByteBuf payload) {
            this.payload = payload;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        void start(int n) {
            done = false;
            requested = n;
            ctx.executor().execute(startTask);
        }

        private void send() {
            ctx.writeAndFlush(payload.retainedDuplicate(), ctx.voidPromise());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((RdmaReceive) msg).release();
            if (--remaining > 0) {
                send();
            } else {
                done = true;
            }
        }

        void await() {
            while (!done) {
                Thread.onSpinWait();
            }
        }
    }

    @Setup
    public void setUp() throws Exception {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(RdmaFabric.SOFTWARE)));
        server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new Echo())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        payload = PooledByteBufAllocator.DEFAULT.directBuffer(size);
        for (int i = 0; i < size; i++) {
            payload.writeByte(i * 7 + 1);
        }
        pinger = new Pinger(payload);
        client = new Bootstrap().group(group).channel(RdmaChannel.class)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .handler(pinger).connect(server.localAddress()).sync().channel();
        pinger.start(100);
        pinger.await();
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        client.close().sync();
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        payload.release();
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public void echo() {
        pinger.start(ROUND_TRIPS);
        pinger.await();
    }
}
