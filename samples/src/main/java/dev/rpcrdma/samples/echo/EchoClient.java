package dev.rpcrdma.samples.echo;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Calls an echo server (or, with {@code --embedded-server}, one it starts in the same JVM): NULL once, then
 * {@code --count} ECHO calls of {@code --size} bytes with {@code --concurrency} calls in flight, verifying every
 * echoed byte; prints the transport, what the connection negotiated and a latency summary (p50/p99 µs, ops/s).
 *
 * <pre>
 *   samples/run-echo client [--transport rdma|tcp] [--address 127.0.0.1] [--port 20049] [--size 4096]
 *                           [--count 10000] [--concurrency 1] [--embedded-server] ...
 * </pre>
 * Exit code 0 when every call succeeded and every byte matched; otherwise 1 with a one-line message that says how
 * many calls completed. Used from one thread; its load runs on the connections' event loops.
 */
public final class EchoClient {

    /**
     * System property: when {@code true}, the report also prints the measured calls' window on the
     * {@link System#nanoTime()} clock ({@code CLOCK_MONOTONIC} on Linux), so that a profile recorded on that clock
     * ({@code perf record -k CLOCK_MONOTONIC}) can be cut to the measured calls (tools/vm/run-benchmarks
     * --requester-perf).
     */
    static final String PRINT_WINDOW = "dev.rpcrdma.samples.echo.printWindow";

    private EchoClient() {
    }

    /** What a client run measured. */
    static final class Report {
        final String transport;
        final String negotiated;
        final InetSocketAddress server;
        final EchoLoad.Result result;
        final LatencyHistogram latencies;

        Report(String transport, String negotiated, InetSocketAddress server, EchoLoad.Result result,
               LatencyHistogram latencies) {
            this.transport = transport;
            this.negotiated = negotiated;
            this.server = server;
            this.result = result;
            this.latencies = latencies;
        }
    }

    /** Command line: {@code samples/run-echo client ...} (see {@link EchoCommand}). */
    public static void main(String[] args) {
        EchoCommand.main(EchoCommand.prepend(EchoOptions.Role.CLIENT.command, args));
    }

    /** Runs {@code run-echo client} with {@code args} and the given streams; returns the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err, boolean configureLogging) {
        return EchoCommand.run(EchoCommand.prepend(EchoOptions.Role.CLIENT.command, args), out, err,
                role -> EchoCommand.command(role, configureLogging));
    }

    /** Runs the client as {@code options} say and prints its report; a {@link UserError} on any failure. */
    static Report run(EchoOptions options, PrintStream out) throws InterruptedException {
        EchoTransport transport = EchoTransport.select(options);
        EchoServer embedded = null;
        EventLoopGroup group = null;
        List<Channel> channels = new ArrayList<>();
        try {
            InetSocketAddress server;
            if (options.embeddedServer) {
                embedded = EchoServer.start(transport, options.addresses, options.port, options.threads);
                server = embedded.localAddresses().get(0);
                out.println("embedded echo server listening on " + Diagnosis.hostPort(server));
                if (transport.note() != null) {
                    out.println("note: " + transport.note());
                }
            } else {
                server = new InetSocketAddress(EchoServer.resolve(options.addresses.get(0)), options.port);
            }
            Duration timeout = Duration.ofSeconds(options.timeoutSeconds);
            group = transport.newGroup(options.threads);
            Bootstrap bootstrap = transport.clientBootstrap(group, new RpcStats(), timeout);
            List<RpcClient> clients = new ArrayList<>();
            for (int i = 0; i < options.connections; i++) {
                ChannelFuture f = bootstrap.connect(server);
                if (!f.awaitUninterruptibly(timeout.toMillis() + 1000)) {
                    f.channel().close();
                    throw new UserError("no connection to " + Diagnosis.hostPort(server) + " within "
                            + options.timeoutSeconds + " s: check --address and --port, or raise --timeout");
                }
                if (!f.isSuccess()) {
                    throw Diagnosis.connectFailure(transport, server, f.cause());
                }
                channels.add(f.channel());
                clients.add(RpcClient.of(f.channel()));
            }
            out.println("echo client: " + transport.description() + ", " + options.connections
                    + " connection(s) to " + Diagnosis.hostPort(server));
            if (transport.note() != null && !options.embeddedServer) {
                out.println("note: " + transport.note());
            }
            await(server, "NULL", EchoProgram.callNull(clients.get(0)), options.timeoutSeconds);
            // After the first reply: over RDMA it carried the server's first credit grant.
            String negotiated = transport.negotiated(channels.get(0));
            out.println("negotiated: " + negotiated);
            out.println("NULL: ok");

            CallOptions callOptions = CallOptions.DEFAULT.withTimeout(timeout);
            EchoLoad load = new EchoLoad(clients, options.procedure, options.size, callOptions, options.concurrency);
            String what = options.procedure == EchoOptions.Procedure.NULL ? "NULL"
                    : "ECHO of " + options.size + " B";
            long total = (long) options.warmup + options.count;
            // The warm-up runs in rounds of at most EchoLoad.WARMUP_ROUND calls, each started, recorded, ended and
            // checked as the measured run is: a branch the JIT never saw taken is compiled as a trap, and hitting it
            // at the measured run's start would deoptimize the whole loop. Taken every round, those branches are
            // compiled in, and the measured run is one more round.
            LatencyHistogram scratch = new LatencyHistogram();
            long warmed = 0;
            while (warmed < options.warmup) {
                long calls = Math.min(EchoLoad.WARMUP_ROUND, options.warmup - warmed);
                scratch.reset();
                EchoLoad.Result warm = load.run(calls, scratch);
                check(server, what, warm, warmed, total);
                warmed += calls;
            }
            LatencyHistogram latencies = new LatencyHistogram();
            EchoLoad.Result result = load.run(options.count, latencies);
            check(server, what, result, warmed, total);
            Report report = new Report(transport.description(), negotiated, server, result, latencies);
            print(out, options, what, report);
            String counters = transport.counters();
            if (counters != null) {
                out.println(counters);
            }
            return report;
        } finally {
            for (Channel c : channels) {
                c.close().awaitUninterruptibly();
            }
            if (group != null) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            }
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    private static void await(InetSocketAddress server, String procedure, java.util.concurrent.Future<?> f,
                              int timeoutSeconds) throws InterruptedException {
        try {
            f.get(timeoutSeconds + 5L, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw Diagnosis.callFailure(server, procedure, e.getCause());
        } catch (TimeoutException e) {
            throw Diagnosis.callFailure(server, procedure, e);
        }
    }

    /** Fails with what went wrong and how many of the {@code total} calls completed ({@code before} + this run's). */
    private static void check(InetSocketAddress server, String what, EchoLoad.Result r, long before, long total) {
        String progress = (before + r.completed) + " of " + total + " calls completed";
        if (r.failure != null) {
            throw Diagnosis.loadFailure(server, what, r.failure, progress);
        }
        if (r.mismatches != 0) {
            throw new UserError("the server at " + Diagnosis.hostPort(server) + " echoed different bytes than were"
                    + " sent (" + r.mismatches + " call(s); " + progress + "): this is a bug, please report it with"
                    + " --verbose output");
        }
    }

    private static void print(PrintStream out, EchoOptions o, String what, Report r) {
        EchoLoad.Result res = r.result;
        LatencyHistogram h = r.latencies;
        double seconds = res.elapsedNanos / 1e9;
        double ops = res.completed / seconds;
        out.printf(Locale.ROOT, "%s x %d calls, %d in flight over %d connection(s): all replies ok%s%n", what,
                res.completed, Math.min(o.concurrency, o.count), o.connections,
                o.procedure == EchoOptions.Procedure.ECHO ? ", every byte verified" : "");
        out.printf(Locale.ROOT, "latency (us): p50 %.1f  p90 %.1f  p99 %.1f  max %.1f  mean %.1f%n",
                h.percentile(50) / 1e3, h.percentile(90) / 1e3, h.percentile(99) / 1e3, h.max() / 1e3,
                h.mean() / 1e3);
        out.printf(Locale.ROOT, "throughput: %.0f ops/s", ops);
        if (o.procedure == EchoOptions.Procedure.ECHO) {
            out.printf(Locale.ROOT, ", %.1f MB/s each way", ops * o.size / 1e6);
        }
        out.printf(Locale.ROOT, " (%.2f s)%n", seconds);
        if (Boolean.getBoolean(PRINT_WINDOW)) {
            out.printf(Locale.ROOT, "measured window (System.nanoTime, ns): %d %d%n", res.startNanos,
                    res.startNanos + res.elapsedNanos);
        }
        out.flush();
    }
}
