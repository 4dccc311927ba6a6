package dev.rpcrdma.benchmarks.vm;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RpcRdmaLimits;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.samples.echo.EchoProgram;
import dev.rpcrdma.samples.echo.EchoServer;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The in-VM load program of {@code tools/vm/run-benchmarks}: measures one stack, server and client in this JVM
 * (one single-threaded event loop group each), and prints one {@code RESULT name value unit} line per figure.
 *
 * <pre>
 *   java -cp benchmarks.jar dev.rpcrdma.benchmarks.vm.VmLoad --stack channel|paired|rpcrdma|tcp
 *        [--address 192.0.2.1] [--fabric native|software] [--warmup SECONDS] [--seconds SECONDS]
 *        [--bulk-seconds SECONDS] [--modes events,busypoll] [--drivers send_echo,pingpong,blocking_echo]
 *        [--sizes 2,64,1024] [--rounds 5] [--device rxe0]
 * </pre>
 * <ul>
 *   <li>{@code channel}: netty-rdma-channel alone on the native fabric, a Send echoed as a Send (2 B, 64 B,
 *   1 KiB), one in flight; with the loops sleeping on completion events (the default) and busy-polling; each
 *   size driven three ways:
 *   <ul>
 *     <li>{@code send_echo_<n>B}: future-driven ({@link ClosedLoop}): a {@code CompletableFuture} per round trip,
 *     the next echo issued from the previous one's completion (which runs on the client's loop) and handed to the
 *     loop as a task; all on the client's loop, plus a task hop and a few objects per round trip;</li>
 *     <li>{@code pingpong_<n>B}: the transport round trip, an in-loop ping-pong ({@link PingPong}): the next Send
 *     posted from the previous echo's {@code channelRead}, stamped as perftest stamps; comparable with
 *     {@code ib_send_lat};</li>
 *     <li>{@code blocking_echo_<n>B}: a caller thread blocking on each echo's future ({@link ClosedLoop#blocking}):
 *     caller thread &rarr; loop &rarr; caller, what a blocking application sees.</li>
 *   </ul></li>
 *   <li>{@code paired}: the {@code pingpong} driver and perftest's {@code ib_send_lat} (run by this program) in
 *   turns, {@code --rounds} times per size and mode, with each round's ratio and the median ratio (see
 *   {@link #paired()}); then RPC NULL and {@code ib_send_lat} 64 B the same way (see {@link #pairedNull}).</li>
 *   <li>{@code rpcrdma}: the samples' echo program over RPC-over-RDMA (rpcrdma-handlers): NULL and 1 KiB ECHO
 *   round trips, one in flight; 1 MiB ECHO (call in a Read chunk, reply in a Write chunk), 4 in flight.</li>
 *   <li>{@code tcp}: the same RPC stack over TCP (epoll), same cases.</li>
 * </ul>
 * Every echoed byte is compared with what was sent. Latencies are round trips measured from the call to the
 * completion of its future, the next call being issued from that completion (on the client's loop), except for
 * the channel's {@code pingpong} (send to send, in the loop) and {@code blocking_echo} (from a blocking thread).
 * Each latency figure is printed as {@code .p50}, {@code .p99}, {@code .mean} (microseconds) and {@code .rate}.
 */
public final class VmLoad {

    static final int BULK_SIZE = 1 << 20;
    /** Calls in flight of the 1 MiB ECHO (and JUCX's echo): 4, or {@code -Dvmload.bulkInFlight=N} for experiments. */
    static final int BULK_IN_FLIGHT = Integer.getInteger("vmload.bulkInFlight", 4);
    static final int MAX_SAMPLES = 1 << 20;

    private double warmup = 15;
    private double seconds = 4;
    private double bulkSeconds = 10;
    private String address = "192.0.2.1";
    private String fabric = "native";
    private boolean warm;
    private long[] stamps;
    private String modes = "events,busypoll";
    private String drivers = "send_echo,pingpong,blocking_echo";
    private int[] sizes = {2, 64, 1024};
    private int rounds = 5;
    private String device = System.getenv().getOrDefault("VM_RDMA_DEVICE", "rxe0");

    private VmLoad() {
    }

    /** Warm-up of the next case: twice as long for the first case of the JVM (C2 compiling under TCG). */
    private double warmup() {
        double w = warm ? warmup : 2 * warmup;
        warm = true;
        return w;
    }

    public static void main(String[] args) throws Exception {
        VmLoad load = new VmLoad();
        String stack = null;
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--stack": stack = v; i++; break;
                case "--address": load.address = v; i++; break;
                case "--fabric": load.fabric = v; i++; break;
                case "--warmup": load.warmup = Double.parseDouble(v); i++; break;
                case "--seconds": load.seconds = Double.parseDouble(v); i++; break;
                case "--bulk-seconds": load.bulkSeconds = Double.parseDouble(v); i++; break;
                case "--modes": load.modes = v; i++; break;
                case "--rounds": load.rounds = Integer.parseInt(v); i++; break;
                case "--device": load.device = v; i++; break;
                case "--drivers": load.drivers = v; i++; break;
                case "--sizes":
                    load.sizes = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                    i++;
                    break;
                default:
                    System.err.println("usage: VmLoad --stack channel|paired|rpcrdma|tcp [--address A] [--fabric native|software] [--warmup S]"
                            + " [--seconds S] [--bulk-seconds S] [--modes events,busypoll]"
                            + " [--drivers send_echo,pingpong,blocking_echo] [--sizes 2,64,1024] [--rounds N]"
                            + " [--device rxe0]");
                    System.exit(2);
            }
        }
        if (stack == null) {
            System.err.println("VmLoad: --stack channel|rpcrdma|tcp is required");
            System.exit(2);
        }
        System.out.println("# VmLoad " + stack + ": " + Runtime.version() + ", " + Runtime.getRuntime()
                .availableProcessors() + " CPUs, warm-up " + load.warmup + " s, measure " + load.seconds + " s (bulk "
                + load.bulkSeconds + " s)");
        switch (stack) {
            case "channel": load.channel(); break;
            case "paired": load.paired(); break;
            case "rpcrdma": load.rpc(true); break;
            case "tcp": load.rpc(false); break;
            default:
                System.err.println("VmLoad: unknown stack " + stack);
                System.exit(2);
        }
        System.exit(0);
    }

    private void channel() throws Exception {
        if (selected(modes, "events")) {
            channel("channel", 0);
        }
        if (selected(modes, "busypoll")) {
            channel("channel_busypoll", TimeUnit.MICROSECONDS.toNanos(100));
        }
    }

    /**
     * The transport's in-loop ping-pong and perftest's {@code ib_send_lat} taken in turns, {@link #rounds} times per
     * size and mode, each of our runs right after a perftest run of the same size (polling for the busy-polling
     * loops, {@code -e} for the event-driven ones): under TCG the guest's speed drifts with the host's load, so a
     * ratio is only meaningful between figures taken back to back. Prints each round's p50 (ours), t_typical
     * (perftest, half round trip) and their ratio {@code p50 / (2 x t_typical)}, then the median ratio.
     */
    private void paired() throws Exception {
        RdmaFabric fabric = RdmaFabric.select(this.fabric);
        for (String mode : new String[] {"busypoll", "events"}) {
            if (!selected(modes, mode)) {
                continue;
            }
            boolean busy = mode.equals("busypoll");
            String name = "paired_" + mode;
            EventLoopGroup server = rdmaGroup(fabric, busy ? TimeUnit.MICROSECONDS.toNanos(100) : 0);
            EventLoopGroup client = rdmaGroup(fabric, busy ? TimeUnit.MICROSECONDS.toNanos(100) : 0);
            try (ChannelEcho echo = new ChannelEcho(server, client, address)) {
                for (int size : sizes) {
                    ByteBuf data = ChannelEcho.pattern(size);
                    try {
                        echo.pingPong(data, null, Integer.MAX_VALUE, (long) (warmup() * 1e9))
                                .get((long) warmup + 300, TimeUnit.SECONDS);
                        double[] ratios = new double[rounds];
                        for (int r = 0; r < rounds; r++) {
                            PerftestRun.Latency p = PerftestRun.sendLatency(device, address, size, 5000, !busy);
                            ClosedLoop.Result ours = pingPong(echo, data, 1);
                            double p50 = ours.quantileMicros(0.50);
                            ratios[r] = p50 / (2 * p.typical());
                            String round = ".r" + (r + 1);
                            result(name + ".ib_send_lat_" + size + "B" + round + ".t_typical", p.typical(), "us");
                            result(name + ".pingpong_" + size + "B" + round + ".p50", p50, "us");
                            result(name + ".pingpong_" + size + "B" + round + ".ratio", ratios[r], "x");
                        }
                        Arrays.sort(ratios);
                        result(name + ".pingpong_" + size + "B.median_ratio", ratios[rounds / 2], "x");
                    } finally {
                        data.release();
                    }
                }
            } finally {
                client.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
                server.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
            pairedNull(name, busy, fabric);
        }
    }

    /**
     * RPC NULL round trips (the samples' echo server and an {@link RpcClient} over RPC-over-RDMA in this JVM, calls
     * issued from the previous completion, as {@code rpcrdma.null}) and perftest's {@code ib_send_lat} 64 B in
     * turns, {@link #rounds} times, each round's ratio {@code p50 / (2 x t_typical)} and their median: the paired
     * form of the NULL latency goals in docs/benchmarks.md (event-driven loops against {@code ib_send_lat -e}, busy-polling ones
     * against polling {@code ib_send_lat}), which the single {@code rpcrdma.null} run compares with a perftest run
     * taken minutes earlier. Busy-polling: server and client loops poll 100 us before sleeping.
     */
    private void pairedNull(String name, boolean busy, RdmaFabric fabric) throws Exception {
        EventLoopGroup group = rdmaGroup(fabric, busy ? TimeUnit.MICROSECONDS.toNanos(100) : 0);
        EchoServer server = EchoServer.start("--transport", "rdma", "--fabric", this.fabric, "--address", address,
                "--port", "0", "--threads", "1", "--busy-poll", busy ? "100" : "0");
        try {
            Channel ch = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, new RpcRdmaStats(),
                            Duration.ofSeconds(60)))
                    .connect(server.localAddresses().get(0)).sync().channel();
            RpcClient client = RpcClient.of(ch);
            ClosedLoop calls = new ClosedLoop(() -> EchoProgram.callNull(client), 1);
            calls.run(warmup(), 0.5, 1);
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                PerftestRun.Latency p = PerftestRun.sendLatency(device, address, 64, 5000, !busy);
                double p50 = calls.run(1, seconds, MAX_SAMPLES).quantileMicros(0.50);
                ratios[r] = p50 / (2 * p.typical());
                String round = ".r" + (r + 1);
                result(name + ".ib_send_lat_64B" + round + ".t_typical_null", p.typical(), "us");
                result(name + ".rpc_null" + round + ".p50", p50, "us");
                result(name + ".rpc_null" + round + ".ratio", ratios[r], "x");
            }
            Arrays.sort(ratios);
            result(name + ".rpc_null.median_ratio", ratios[rounds / 2], "x");
            ch.close().sync();
        } finally {
            server.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static boolean selected(String list, String name) {
        return Arrays.asList(list.split(",")).contains(name);
    }

    private void channel(String name, long busyPollNanos) throws Exception {
        RdmaFabric fabric = RdmaFabric.select(this.fabric);
        EventLoopGroup server = rdmaGroup(fabric, busyPollNanos);
        EventLoopGroup client = rdmaGroup(fabric, busyPollNanos);
        try (ChannelEcho echo = new ChannelEcho(server, client, address)) {
            for (int size : sizes) {
                ByteBuf data = ChannelEcho.pattern(size);
                try {
                    // The transport is warm after the first driver of a size: the others warm up half as long.
                    boolean first = true;
                    if (selected(drivers, "send_echo")) {
                        ClosedLoop.Result r = new ClosedLoop(() -> echo.echo(data), 1).run(warmup(), seconds,
                                MAX_SAMPLES);
                        latency(name + ".send_echo_" + size + "B", r);
                        first = false;
                    }
                    if (selected(drivers, "pingpong")) {
                        latency(name + ".pingpong_" + size + "B", pingPong(echo, data,
                                first ? warmup() : warmup / 2));
                        first = false;
                    }
                    if (selected(drivers, "blocking_echo")) {
                        latency(name + ".blocking_echo_" + size + "B", ClosedLoop.blocking(() -> echo.echo(data),
                                first ? warmup() : warmup / 2, seconds, MAX_SAMPLES));
                    }
                } finally {
                    data.release();
                }
            }
        } finally {
            client.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            server.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** An in-loop ping-pong: a warm-up run, then a measured one into the preallocated stamps. */
    private ClosedLoop.Result pingPong(ChannelEcho echo, ByteBuf data, double warmupSeconds) throws Exception {
        if (warmupSeconds > 0) {
            echo.pingPong(data, null, Integer.MAX_VALUE, (long) (warmupSeconds * 1e9))
                    .get((long) warmupSeconds + 120, TimeUnit.SECONDS);
        }
        if (stamps == null) {
            stamps = new long[MAX_SAMPLES + 1];
        }
        int n = echo.pingPong(data, stamps, MAX_SAMPLES, (long) (seconds * 1e9))
                .get((long) seconds + 120, TimeUnit.SECONDS);
        return ClosedLoop.Result.fromStamps(stamps, n);
    }

    private static EventLoopGroup rdmaGroup(RdmaFabric fabric, long busyPollNanos) {
        RdmaIoHandlerConfig config = new RdmaIoHandlerConfig().fabric(fabric);
        if (busyPollNanos > 0) {
            config.busyPollNanos(busyPollNanos);
        }
        return new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(config));
    }

    private void rpc(boolean rdma) throws Exception {
        String name = rdma ? "rpcrdma" : "tcp";
        String host = rdma ? address : "127.0.0.1";
        Duration timeout = Duration.ofSeconds(60);
        RpcRdmaStats rdmaStats = new RpcRdmaStats();
        EventLoopGroup group;
        Bootstrap b;
        if (rdma) {
            group = rdmaGroup(RdmaFabric.select(fabric), 0);
            RpcRdmaConfig config = RpcRdmaConfig.DEFAULT
                    .withLimits(RpcRdmaLimits.DEFAULT, EchoProgram.MAX_DATA + 4096).withMaxRequests(32);
            b = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer(new RpcStats(), config, rdmaStats, timeout));
        } else {
            group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
            b = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new TcpRpcClientInitializer(new RpcStats(), new TcpRpcConfig(
                            EchoProgram.MAX_DATA + 4096, TcpRpcConfig.DEFAULT_MAX_FRAGMENT_SIZE), timeout));
        }
        EchoServer server = EchoServer.start("--transport", rdma ? "rdma" : "tcp", "--fabric", fabric,
                "--address", host, "--port", "0", "--threads", "1");
        try {
            Channel ch = b.connect(server.localAddresses().get(0)).sync().channel();
            RpcClient client = RpcClient.of(ch);
            System.out.println("# " + name + ": server " + server.transportDescription() + " on "
                    + server.localAddresses().get(0));
            latency(name + ".null", new ClosedLoop(() -> EchoProgram.callNull(client), 1)
                    .run(warmup(), seconds, MAX_SAMPLES));
            echo(name + ".echo_1KiB", client, 1024, 1, warmup(), seconds);
            blockingClient(name, b, rdma ? RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                    .fabric(RdmaFabric.select(fabric))) : EpollIoHandler.newFactory(),
                    server.localAddresses().get(0));
            long readChunks = rdmaStats.readChunks();
            long writeChunks = rdmaStats.writeChunksUsed();
            ClosedLoop.Result bulk = echo(name + ".echo_1MiB", client, BULK_SIZE, BULK_IN_FLIGHT,
                    Math.max(2, warmup / 2), bulkSeconds);
            result(name + ".echo_1MiB_x" + BULK_IN_FLIGHT + ".each_way", bulk.opsPerSecond() * BULK_SIZE
                    / (1 << 20), "MiB/s");
            if (rdma) {
                System.out.println("# " + name + ".echo_1MiB: " + (rdmaStats.readChunks() - readChunks)
                        + " read chunks, " + (rdmaStats.writeChunksUsed() - writeChunks) + " write chunks used"
                        + " for " + bulk.count() + " measured calls (plus warm-up); long calls "
                        + rdmaStats.longCalls() + ", long replies " + rdmaStats.longReplies());
            }
            ch.close().sync();
        } finally {
            server.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * NULL and 1 KiB ECHO with {@link BlockingRpcClient}: this thread runs the connection's I/O (no event-loop
     * thread, no hand-off), the way a synchronous caller would use the stack.
     */
    private void blockingClient(String name, Bootstrap bootstrap, IoHandlerFactory factory, SocketAddress server)
            throws Exception {
        ByteBuf data = ChannelEcho.pattern(1024);
        try (BlockingRpcClient client = BlockingRpcClient.connect(bootstrap, factory, server,
                Duration.ofSeconds(60))) {
            latency(name + ".null_blocking_client", ClosedLoop.direct(
                    () -> client.callNull(EchoProgram.PROGRAM, EchoProgram.VERSION), warmup(), seconds, MAX_SAMPLES));
            CallOptions hints = CallOptions.DEFAULT.withReplyHints(1024, 1024 + 512);
            latency(name + ".echo_1KiB_blocking_client", ClosedLoop.direct(() -> {
                XdrPayload args = client.newPayload().writeDdpOpaque(data.retainedDuplicate());
                boolean same = client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO, args,
                        r -> {
                            ByteBuf echoed = r.readDdpOpaque(1024);
                            try {
                                return ByteBufUtil.equals(data, echoed);
                            } finally {
                                echoed.release();
                            }
                        }, hints);
                if (!same) {
                    throw new IllegalStateException("echoed bytes differ");
                }
            }, warmup(), seconds, MAX_SAMPLES));
        } finally {
            data.release();
        }
    }

    private static ClosedLoop.Result echo(String name, RpcClient client, int size, int inFlight, double warmup,
                                          double seconds) throws Exception {
        // Over RDMA the arguments are written where a user who wants zero-copy chunks writes them: the connection's
        // registered memory pool (a DDP item there is exposed in place, RFC 8166 §3.4.5, no copy per call).
        ByteBuf data = client.channel() instanceof RdmaChannel
                ? ChannelEcho.pattern(((RdmaChannel) client.channel()).memoryPool().allocator(), size)
                : ChannelEcho.pattern(size);
        try {
            ClosedLoop.Result r = new ClosedLoop(() -> checked(EchoProgram.callEcho(client,
                    data.retainedDuplicate(), CallOptions.DEFAULT)), inFlight).run(warmup, seconds, MAX_SAMPLES);
            latency(name + (inFlight > 1 ? "_x" + inFlight : ""), r);
            return r;
        } finally {
            data.release();
        }
    }

    private static CompletableFuture<?> checked(CompletableFuture<Boolean> same) {
        return same.thenApply(ok -> {
            if (!ok) {
                throw new IllegalStateException("echoed bytes differ");
            }
            return ok;
        });
    }

    static void latency(String name, ClosedLoop.Result r) {
        result(name + ".p50", r.quantileMicros(0.50), "us");
        result(name + ".p99", r.quantileMicros(0.99), "us");
        result(name + ".mean", r.meanMicros(), "us");
        result(name + ".rate", r.opsPerSecond(), "ops/s");
        System.out.println("# " + name + ": " + r.count() + " measured round trips");
    }

    static void result(String name, double value, String unit) {
        System.out.println(String.format(Locale.ROOT, "RESULT %s %.2f %s", name, value, unit));
        System.out.flush();
    }
}
