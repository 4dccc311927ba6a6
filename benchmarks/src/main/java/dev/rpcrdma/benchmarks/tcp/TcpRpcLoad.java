package dev.rpcrdma.benchmarks.tcp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Loopback TCP load program: our ONC RPC stack (rpc-codec on Netty) against dCache oncrpc4j 3.4.2.
 *
 * <p>Each stack serves program {@code 0x2004F001} version 1 on 127.0.0.1 (procedure 0 NULL, procedure 1 ECHO:
 * {@code opaque<>} in, the same {@code opaque<>} out) and is driven by its own client library: our clients against
 * our server, oncrpc4j's client against oncrpc4j's server. Three stacks:
 * <ul>
 *   <li>{@code ours(T)}: our server and our asynchronous {@code RpcClient} (the caller hands each call to a
 *       client event loop and waits on its future), over Netty transport T;</li>
 *   <li>{@code ours-blocking(T)}: the same server and our {@code BlockingRpcClient} (the calling thread runs its
 *       connection's I/O on a Netty {@code ManualIoEventLoop}: no hand-off to another thread);</li>
 *   <li>{@code oncrpc4j}: its server and its synchronous client.</li>
 * </ul>
 * Four measurements per stack:
 * <ul>
 *   <li>NULL and 1 KiB ECHO, 1 client, one call at a time: median (p50) round-trip time;</li>
 *   <li>NULL and 1 KiB ECHO, 8 concurrent clients (8 connections, one thread and one outstanding call each):
 *       completed calls per second.</li>
 * </ul>
 * Every client is a thread of its own that opens its connection, is released with the others, calls until told
 * to stop, and closes its connection (connection set-up is never measured). Runs are interleaved (each round
 * measures every stack, in rotating order, each after a short unmeasured settle) after a warm-up; the program
 * prints the median over the rounds and the ratios to oncrpc4j. Server handlers run on the I/O threads in all
 * stacks (Netty event loop; oncrpc4j's same-thread I/O strategy). Bounded in time: about
 * {@code 3 stacks x 4 measurements x rounds x seconds} plus warm-up.
 *
 * <p>Usage (from the repository root, after {@code mvn -B -pl benchmarks -am package -DskipTests}, which writes the
 * uber-jar {@code benchmarks/target/benchmarks.jar}):
 * <pre>
 *   java -cp benchmarks/target/benchmarks.jar \
 *       dev.rpcrdma.benchmarks.tcp.TcpRpcLoad [--rounds 5] [--seconds 1.0] [--transport nio|epoll]
 * </pre>
 * {@code --transport} selects the Netty transport for our stacks; oncrpc4j always uses Grizzly NIO.
 * Loopback only; on a shared machine the absolute numbers move, the interleaved ratios are what to read.
 */
public final class TcpRpcLoad {

    static final int PROG = 0x2004F001;
    static final int VERS = 1;
    static final int PROC_NULL = 0;
    static final int PROC_ECHO = 1;
    static final int ECHO_SIZE = 1024;
    static final int CONCURRENT_CLIENTS = 8;

    /** One RPC stack: a server plus connections of its own client. */
    interface Stack {
        String name();

        /** Stops the server and its threads. */
        void shutdown() throws Exception;

        /** Opens a new client connection to this stack's server, used only by the calling thread. */
        Caller connect() throws Exception;
    }

    /** A synchronous client connection. */
    interface Caller {
        void callNull() throws Exception;

        /** Closes the connection. */
        void shutdown() throws Exception;

        byte[] echo(byte[] data) throws Exception;
    }

    private enum Op {
        NULL, ECHO_1K
    }

    private TcpRpcLoad() {
    }

    /** Runs the load; see the class documentation for the arguments. */
    public static void main(String[] args) throws Exception {
        int rounds = 5;
        double seconds = 1.0;
        String transport = "nio";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds":
                    rounds = Integer.parseInt(args[++i]);
                    break;
                case "--seconds":
                    seconds = Double.parseDouble(args[++i]);
                    break;
                case "--transport":
                    transport = args[++i];
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        long measureNanos = (long) (seconds * 1e9);
        boolean epoll = "epoll".equals(transport);
        List<Stack> stacks = new ArrayList<>();
        try {
            stacks.add(new RpcCodecStack(epoll, false));
            stacks.add(new RpcCodecStack(epoll, true));
            stacks.add(new Oncrpc4jStack());
            int n = stacks.size();
            for (Stack stack : stacks) {
                verify(stack);
            }
            // [stack][metric][round]; metrics: 0 NULL p50 us, 1 ECHO p50 us, 2 NULL calls/s, 3 ECHO calls/s.
            double[][][] results = new double[n][4][rounds];
            System.out.printf(Locale.ROOT, "warm-up (%s transport for ours)...%n", transport);
            for (Stack stack : stacks) {
                latencyP50(stack, Op.ECHO_1K, measureNanos);
                throughput(stack, Op.NULL, measureNanos);
            }
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < n; k++) {
                    int s = (r + k) % n;
                    Stack stack = stacks.get(s);
                    // Let the stack's threads settle after the other stack ran (not measured).
                    latencyP50(stack, Op.NULL, measureNanos / 5);
                    results[s][0][r] = latencyP50(stack, Op.NULL, measureNanos);
                    results[s][1][r] = latencyP50(stack, Op.ECHO_1K, measureNanos);
                    results[s][2][r] = throughput(stack, Op.NULL, measureNanos);
                    results[s][3][r] = throughput(stack, Op.ECHO_1K, measureNanos);
                }
                System.out.printf(Locale.ROOT, "round %d/%d done%n", r + 1, rounds);
            }
            String[] metrics = {"NULL, 1 client, p50 round trip (us)", "ECHO 1 KiB, 1 client, p50 round trip (us)",
                "NULL, 8 clients (calls/s)", "ECHO 1 KiB, 8 clients (calls/s)"};
            int theirs = n - 1;
            System.out.printf(Locale.ROOT, "%nmedian of %d interleaved rounds of %.1f s, loopback TCP%n", rounds,
                    seconds);
            StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-42s", "measurement"));
            for (Stack stack : stacks) {
                header.append(String.format(Locale.ROOT, " %20s", stack.name()));
            }
            for (int s = 0; s < theirs; s++) {
                header.append(String.format(Locale.ROOT, " %26s", stacks.get(s).name() + "/oncrpc4j"));
            }
            System.out.println(header);
            for (int m = 0; m < 4; m++) {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-42s", metrics[m]));
                for (int s = 0; s < n; s++) {
                    line.append(String.format(Locale.ROOT, " %20.1f", median(results[s][m])));
                }
                for (int s = 0; s < theirs; s++) {
                    line.append(String.format(Locale.ROOT, " %26.2f",
                            median(results[s][m]) / median(results[theirs][m])));
                }
                System.out.println(line);
            }
            System.out.println("(latency: lower is better; calls/s: higher is better)");
        } finally {
            for (Stack stack : stacks) {
                stack.shutdown();
            }
        }
    }

    /** One call of each kind, bytes checked, on a connection of its own. */
    private static void verify(Stack stack) throws Exception {
        onClientThread(stack, caller -> {
            caller.callNull();
            byte[] data = new byte[ECHO_SIZE];
            ThreadLocalRandom.current().nextBytes(data);
            if (!Arrays.equals(data, caller.echo(data))) {
                throw new IllegalStateException(stack.name() + " echo returned different bytes");
            }
            return 0;
        });
    }

    private static void once(Caller caller, Op op, byte[] data) throws Exception {
        if (op == Op.NULL) {
            caller.callNull();
        } else if (caller.echo(data).length != data.length) {
            throw new IllegalStateException("short echo");
        }
    }

    /** What a client thread does with its connection. */
    private interface ClientWork {
        double run(Caller caller) throws Exception;
    }

    /** Runs {@code work} on a new thread with a connection of its own (opened and closed outside the work). */
    private static double onClientThread(Stack stack, ClientWork work) throws Exception {
        double[] result = new double[1];
        Exception[] error = new Exception[1];
        Thread t = new Thread(() -> {
            try {
                Caller caller = stack.connect();
                try {
                    result[0] = work.run(caller);
                } finally {
                    caller.shutdown();
                }
            } catch (Exception e) {
                error[0] = e;
            }
        }, stack.name() + "-client");
        t.start();
        t.join();
        if (error[0] != null) {
            throw error[0];
        }
        return result[0];
    }

    private static double latencyP50(Stack stack, Op op, long nanos) throws Exception {
        return onClientThread(stack, caller -> {
            byte[] data = new byte[ECHO_SIZE];
            long[] samples = new long[1 << 20];
            int n = 0;
            long end = System.nanoTime() + nanos;
            long now;
            do {
                long start = System.nanoTime();
                once(caller, op, data);
                now = System.nanoTime();
                if (n < samples.length) {
                    samples[n++] = now - start;
                }
            } while (now < end);
            Arrays.sort(samples, 0, n);
            return samples[n / 2] / 1000.0;
        });
    }

    private static double throughput(Stack stack, Op op, long nanos) throws Exception {
        LongAdder calls = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(CONCURRENT_CLIENTS);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        List<Exception> errors = new ArrayList<>();
        for (int c = 0; c < CONCURRENT_CLIENTS; c++) {
            Thread t = new Thread(() -> {
                byte[] data = new byte[ECHO_SIZE];
                try {
                    Caller caller = stack.connect();
                    try {
                        ready.countDown();
                        go.await();
                        while (!stop.get()) {
                            once(caller, op, data);
                            calls.increment();
                        }
                    } finally {
                        caller.shutdown();
                    }
                } catch (Exception e) {
                    ready.countDown();
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            }, stack.name() + "-client-" + c);
            t.start();
            threads.add(t);
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        Thread.sleep(nanos / 1_000_000);
        long counted = calls.sum();
        long elapsed = System.nanoTime() - start;
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        if (!errors.isEmpty()) {
            throw errors.get(0);
        }
        return counted * 1e9 / elapsed;
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
