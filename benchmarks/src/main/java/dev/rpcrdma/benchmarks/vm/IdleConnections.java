package dev.rpcrdma.benchmarks.vm;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaIoHandler;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Does the event loop's cost depend on idle connections? One server loop and one client loop; an in-loop
 * Send ping-pong ({@link PingPong}, as {@code ib_send_lat}) on one connection, measured with no other connection,
 * then with {@code N} idle connections from the same client loop to the same server (so both loops carry {@code N}
 * idle queue pairs), then again after they closed. Prints p50/p90/p99 of each run and the registered memory of one
 * idle connection (its receive slab and send slab, from the options it was opened with). A measurement, not a test.
 *
 * <pre>java -cp benchmarks.jar dev.rpcrdma.benchmarks.vm.IdleConnections [N [ROUND_TRIPS [ADDRESS [SRQ_DEPTH]]]]</pre>
 * defaults: 1000 idle connections, 5000 round trips of 64 bytes, {@code $VM_RDMA_ADDR} or 127.0.0.1, no shared
 * receive queue; the fabric is native unless {@code -Ddev.rpcrdma.fabric} names another ({@code software}, or
 * {@code auto}: native where a device is usable, else software).
 * Accepted ends have 2 send slots of 1 KiB; without a shared receive queue the idle sizes below, with one
 * ({@code SRQ_DEPTH} > 0) the default receive sizes (4 KiB buffers, 16 spare) through the loop's shared queue.
 */
public final class IdleConnections {
    /** The idle connections' sizes: receive depth (posted receives), spare receive buffers, buffer sizes, send slots. */
    static final int DEPTH = 2;
    static final int SPARE = 1;
    static final int BUFFER = 1024;
    static final int SEND_DEPTH = 2;

    private IdleConnections() {
    }

    public static void main(String[] args) throws Exception {
        int idle = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int roundTrips = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        String env = System.getenv("VM_RDMA_ADDR");
        String address = args.length > 2 ? args[2] : env != null ? env : "127.0.0.1";
        int srqDepth = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        EventLoopGroup serverLoop = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        EventLoopGroup clientLoop = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        ByteBuf data = ChannelEcho.pattern(64);
        List<Channel> idleChannels = new ArrayList<>(idle);
        try (ChannelEcho echo = new ChannelEcho(serverLoop, clientLoop, address, sb -> {
            sb.childOption(RdmaChannelOption.SEND_QUEUE_DEPTH, SEND_DEPTH)
                    .childOption(RdmaChannelOption.MAX_SEND_SIZE, BUFFER);
            if (srqDepth > 0) {
                sb.option(RdmaChannelOption.SHARED_RECEIVE_QUEUE_DEPTH, srqDepth);
            } else {
                sb.childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, DEPTH)
                        .childOption(RdmaChannelOption.RECEIVE_SPARE_BUFFERS, SPARE)
                        .childOption(RdmaChannelOption.RECEIVE_BUFFER_SIZE, BUFFER);
            }
        })) {
            run(echo, data, 2000); // warm-up
            report("idle=0", run(echo, data, roundTrips));
            Bootstrap b = new Bootstrap().group(clientLoop).channel(RdmaChannel.class).handler(IDLE)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 120_000)
                    .option(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, DEPTH)
                    .option(RdmaChannelOption.RECEIVE_SPARE_BUFFERS, SPARE)
                    .option(RdmaChannelOption.RECEIVE_BUFFER_SIZE, BUFFER)
                    .option(RdmaChannelOption.SEND_QUEUE_DEPTH, SEND_DEPTH)
                    .option(RdmaChannelOption.MAX_SEND_SIZE, BUFFER);
            long start = System.nanoTime();
            List<ChannelFuture> connects = new ArrayList<>(idle);
            for (int i = 0; i < idle; i++) {
                ChannelFuture f = b.connect(echo.serverAddress());
                connects.add(f);
                idleChannels.add(f.channel());
            }
            for (ChannelFuture f : connects) {
                f.sync();
            }
            System.out.printf("connected %d idle connections in %.1f s%n", idle,
                    (System.nanoTime() - start) / 1e9);
            run(echo, data, 2000);
            report("idle=" + idle, run(echo, data, roundTrips));
            for (Channel c : idleChannels) {
                c.close();
            }
            for (Channel c : idleChannels) {
                c.closeFuture().sync();
            }
            idleChannels.clear();
            run(echo, data, 2000);
            report("idle=0 (after closing them)", run(echo, data, roundTrips));
            // What RdmaEndpoint registers for one such connection end (client side; the server's child is sized by
            // the server's options: the defaults here).
            int batch = Math.max(1, Math.min(8, DEPTH / 8));
            long receive = (long) (DEPTH + batch - 1 + SPARE) * BUFFER;
            System.out.printf("registered per idle connection, client end: receive %d B, send %d B%n",
                    receive, (long) SEND_DEPTH * BUFFER);
            if (srqDepth > 0) {
                int srqBatch = Math.max(1, Math.min(8, srqDepth / 8));
                long slab = (long) (srqDepth + srqBatch - 1 + 16) * 4096;
                System.out.printf("registered per idle connection, server end: receive %d B (a %d-receive shared "
                        + "queue's slab of %d B over %d connections), send %d B%n", slab / (idle + 1), srqDepth,
                        slab, idle + 1, (long) SEND_DEPTH * BUFFER);
            } else {
                System.out.printf("registered per idle connection, server end: receive %d B, send %d B%n",
                        receive, (long) SEND_DEPTH * BUFFER);
            }
            long defaults = (64L + 8 - 1 + 16) * 4096;
            System.out.printf("for comparison, a connection end with default options: receive %d B, send %d B%n",
                    defaults, 128L * 4096);
        } finally {
            for (Channel c : idleChannels) {
                c.close();
            }
            data.release();
            clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            serverLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static final ChannelHandler IDLE = new ChannelInboundHandlerAdapter() {
        @Override
        public boolean isSharable() {
            return true;
        }
    };

    /** Round-trip times in ns of one in-loop ping-pong run. */
    private static long[] run(ChannelEcho echo, ByteBuf data, int roundTrips) throws Exception {
        long[] stamps = new long[roundTrips + 1];
        int n = echo.pingPong(data, stamps, roundTrips, TimeUnit.SECONDS.toNanos(60)).get(120, TimeUnit.SECONDS);
        long[] rtt = new long[n];
        for (int i = 0; i < n; i++) {
            rtt[i] = stamps[i + 1] - stamps[i];
        }
        return rtt;
    }

    private static void report(String what, long[] rtt) {
        long[] s = rtt.clone();
        Arrays.sort(s);
        System.out.printf("pingpong_64B %-28s n=%d p50=%.2f us p90=%.2f us p99=%.2f us%n", what, s.length,
                s[s.length / 2] / 1e3, s[(int) (s.length * 0.9)] / 1e3, s[(int) (s.length * 0.99)] / 1e3);
    }
}
