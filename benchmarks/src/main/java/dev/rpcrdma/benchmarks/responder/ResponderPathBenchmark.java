package dev.rpcrdma.benchmarks.responder;

import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.responder.ResponderSetup;
import dev.rpcrdma.handlers.responder.RpcRdmaResponder;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Ticker;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The responder's path alone, one NULL call per operation, over a fake transport: the server's pipeline as
 * {@code RpcRdmaServerInitializer} builds it ({@link RpcRdmaResponder} under the {@link RpcDispatcher}) on an
 * {@code EmbeddedChannel} on the system clock. Each operation hands the responder a plain RDMA_MSG call (RFC 8166
 * §4.1) as the RDMA channel would (an {@link RdmaReceive}, reused) and takes the Send it wrote. With {@code between}
 * true a pass-through handler of the user's sits between the two, so every call and reply goes through Netty's
 * pipeline hops (the responder's direct entries are not taken): the difference bounds what those entries save (the
 * pass-through handler's own invocation included). What the transport does (posting, polling, waking) is not here.
 *
 * <p>The calls run on a Netty thread ({@code FastThreadLocalThread}), {@value #BATCH} per hand-off, so that pooled
 * objects are reused as on an event loop.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar ResponderPathBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class ResponderPathBenchmark {

    private static final int PROG = 0x2004F001;
    private static final int VERS = 1;
    static final int BATCH = 1000;

    @Param({"false", "true"})
    public boolean between;

    private ExecutorService loopThread;
    private EmbeddedChannel channel;
    /** The call, reused: transport header (7 words) and RPC call (10 words); the xid is patched per call. */
    private ByteBuf callBytes;
    private RdmaReceive call;
    private int xid;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        loopThread = Executors.newSingleThreadExecutor(new DefaultThreadFactory("responder-path"));
        loopThread.submit(this::build).get();
    }

    private void build() {
        RpcStats rpcStats = new RpcStats();
        RpcRdmaResponder responder = new RpcRdmaResponder(ResponderSetup.of(RpcRdmaConfig.DEFAULT,
                new InlineThresholds(1024, 1024, false), new RpcRdmaStats(), rpcStats));
        RpcDispatcher dispatcher = new RpcDispatcher(new RpcProgramRegistry().registerNull(PROG, VERS), rpcStats);
        channel = between
                ? EmbeddedChannel.builder().ticker(Ticker.systemTicker())
                        .handlers(responder, new ChannelDuplexHandler(), dispatcher).build()
                : EmbeddedChannel.builder().ticker(Ticker.systemTicker()).handlers(responder, dispatcher).build();
        callBytes = Unpooled.directBuffer(128);
        callBytes.writeInt(0).writeInt(1).writeInt(32).writeInt(0).writeInt(0).writeInt(0).writeInt(0) // RDMA_MSG
                .writeInt(0).writeInt(0).writeInt(2).writeInt(PROG).writeInt(VERS).writeInt(0) // CALL, NULL
                .writeInt(0).writeInt(0).writeInt(0).writeInt(0); // AUTH_NONE, AUTH_NONE
        call = new RdmaReceive(callBytes, false, 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        loopThread.submit(() -> {
            channel.finishAndReleaseAll();
            call.release();
        }).get();
        loopThread.shutdown();
    }

    /** One NULL call handed to the responder and the Send it wrote. */
    private int nullCall() {
        int x = ++xid;
        callBytes.setInt(0, x).setInt(28, x).readerIndex(0);
        call.retain(); // the responder releases it: it stays ours
        channel.pipeline().fireChannelRead(call).fireChannelReadComplete(); // a poll batch of one
        ByteBuf send = channel.readOutbound();
        int replied = send.getInt(send.readerIndex() + 28);
        send.release();
        if (replied != x) {
            throw new IllegalStateException("reply to xid " + replied + ", expected " + x);
        }
        return replied;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long nullCalls() throws Exception {
        return loopThread.submit(() -> {
            long sum = 0;
            for (int i = 0; i < BATCH; i++) {
                sum += nullCall();
            }
            return sum;
        }).get();
    }
}
