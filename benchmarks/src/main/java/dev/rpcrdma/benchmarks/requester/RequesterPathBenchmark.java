package dev.rpcrdma.benchmarks.requester;

import dev.rpcrdma.handlers.requester.RequesterSetup;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcCallListener;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcClientHandler;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The requester's path alone, one NULL round trip per operation, over a fake transport: the client's pipeline as
 * {@code RpcRdmaClientInitializer} builds it ({@link RpcRdmaRequester} under {@link RpcClientHandler}) on an
 * {@code EmbeddedChannel} whose loop runs on the system clock (as every real loop does, so call timeouts take the
 * path they take in production). Each operation makes a call, takes the Send the requester wrote (a pooled
 * buffer), and hands the requester the reply as the RDMA channel would: an {@link RdmaReceive} holding a plain
 * RDMA_MSG reply (RFC 8166 §4.1) with the call's xid. The fake transport itself allocates nothing per call (one
 * receive and its buffer, reused), so {@code gc.alloc.rate.norm} under {@code -prof gc} is the requester's and the
 * client's own. What the transport does (posting, polling, waking) is not here: the VM's requester pair measures that.
 *
 * <p>Three ways of calling: {@code listener} ({@link RpcCallListener}: the allocation-free form), {@code future}
 * ({@link RpcClient#callNull}: a {@link CompletableFuture}), {@code sampleChain} (a chained caller: the future, then
 * {@code thenApply} and {@code whenComplete}).
 *
 * <p>The calls run on a Netty thread ({@code FastThreadLocalThread}, as an event loop's), {@value #BATCH} per
 * hand-off from the JMH thread: Netty 4.2 pools recycled objects (messages, outbound-buffer entries) only on its own
 * threads, so on JMH's thread every call would allocate what a loop reuses.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar RequesterPathBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class RequesterPathBenchmark {

    private static final int PROG = 0x2004F001;
    private static final int VERS = 1;
    static final int BATCH = 1000;

    private ExecutorService loopThread;

    private EmbeddedChannel channel;
    private RpcClient client;
    /** The reply, reused: transport header (7 words) and RPC reply (6 words); the xid is patched per call. */
    private ByteBuf replyBytes;
    private RdmaReceive reply;
    private final Counter counter = new Counter();
    private long results;

    /** Counts results (the listener form's callback, reused). */
    static final class Counter implements RpcCallListener<Void> {
        long results;
        Throwable failure;

        @Override
        public void onResult(Void result) {
            results++;
        }

        @Override
        public void onFailure(Throwable cause) {
            failure = cause;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        loopThread = Executors.newSingleThreadExecutor(new DefaultThreadFactory("requester-path"));
        loopThread.submit(this::build).get();
    }

    private void build() {
        RpcStats rpcStats = new RpcStats();
        RpcRdmaRequester requester = new RpcRdmaRequester(RequesterSetup.of(RpcRdmaConfig.DEFAULT,
                new RpcRdmaStats(), rpcStats).withThresholds(new InlineThresholds(1024, 1024, true)));
        channel = EmbeddedChannel.builder().ticker(Ticker.systemTicker())
                .handlers(requester, new RpcClientHandler(rpcStats, Duration.ofSeconds(30)).checkReplySize(true))
                .build();
        client = RpcClient.of(channel);
        replyBytes = Unpooled.directBuffer(64);
        replyBytes.writeInt(0).writeInt(1).writeInt(32).writeInt(0).writeInt(0).writeInt(0).writeInt(0) // RDMA_MSG
                .writeInt(0).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0); // REPLY, accepted, SUCCESS
        reply = new RdmaReceive(replyBytes, false, 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        loopThread.submit(() -> {
            channel.finishAndReleaseAll();
            reply.release();
        }).get();
        loopThread.shutdown();
        if (counter.failure != null) {
            throw new IllegalStateException("a call failed", counter.failure);
        }
    }

    /** Takes the call's Send and answers it as the RDMA channel would hand a receive up. */
    private void answer() {
        ByteBuf send = channel.readOutbound();
        int xid = send.getInt(send.readerIndex());
        send.release();
        replyBytes.setInt(0, xid).setInt(28, xid).readerIndex(0);
        reply.retain(); // the requester releases it: it stays ours
        channel.pipeline().fireChannelRead(reply).fireChannelReadComplete(); // a poll batch of one
    }

    /** One call through the listener form and its answer. */
    public long listenerCall() {
        client.call(PROG, VERS, 0, XdrPayload.empty(), RpcReplyDecoder.VOID, CallOptions.NULL_CALL, counter);
        answer();
        return counter.results;
    }

    /** One call through the future form and its answer. */
    public long futureCall() {
        CompletableFuture<Void> f = client.callNull(PROG, VERS);
        answer();
        return f.isDone() && !f.isCompletedExceptionally() ? 1 : 0;
    }

    /** One call as the echo sample's load made it (future, thenApply, whenComplete) and its answer. */
    public long sampleChainCall() {
        client.callNull(PROG, VERS).thenApply(v -> Boolean.TRUE).whenComplete((ok, cause) -> {
            if (cause != null) {
                counter.failure = cause;
            } else {
                results++;
            }
        });
        answer();
        return results;
    }

    private long batch(int kind) throws Exception {
        return loopThread.submit(() -> {
            long sum = 0;
            for (int i = 0; i < BATCH; i++) {
                sum += kind == 0 ? listenerCall() : kind == 1 ? futureCall() : sampleChainCall();
            }
            return sum;
        }).get();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long listener() throws Exception {
        return batch(0);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long future() throws Exception {
        return batch(1);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long sampleChain() throws Exception {
        return batch(2);
    }
}
