package dev.rpcrdma.benchmarks.vm;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcCallListener;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator;
import dev.rpcrdma.oncrpc.gss.RpcGssClientContext;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
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
import org.ietf.jgss.GSSCredential;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The RPCSEC_GSS cases of tools/vm/run-icount: our client calling our server (NULL and a 1 MiB ECHO) with sys,
 * krb5, krb5i and krb5p over RPC-over-RDMA on the device and over TCP on the same address, in two processes the
 * harness pins to their own vCPUs, so the icount plugin's per-vCPU counts are each side's. The client drives its
 * calls as the other icount cases' requesters do: one call in flight, each sent on the connection's event loop from
 * the previous one's completion ({@link CallChain}, the listener form of {@link RpcClient#call}), while the main
 * thread sleeps; it counts the calls and sets the plugin's marks itself ({@code $VM_ICOUNT_MARK}) around windows of
 * calls, reading the plugin's log ({@code $VM_ICOUNT_LOG}) until two windows in a row agree within 5% (the JIT has
 * settled).
 *
 * <pre>
 *   java -cp benchmarks.jar dev.rpcrdma.benchmarks.vm.GssIcount server ADDRESS TCP_PORT RDMA_PORT DIR
 *   java -cp benchmarks.jar dev.rpcrdma.benchmarks.vm.GssIcount client ADDRESS TCP_PORT RDMA_PORT DIR WINDOW_S
 *        MAX_WINDOWS FIRST_MARK CASE...        (CASE: rdma|tcp:sys|krb5|krb5i|krb5p:null|echo)
 * </pre>
 * The server starts a throwaway MIT KDC ({@link Krb5Realm}) and leaves the client's keytab and {@code krb5.conf} in
 * DIR. RDMA on the fabric {@code -Ddev.rpcrdma.fabric} selects (default native). Each client case prints {@code gss_TRANSPORT_FLAVOR_PROC - CALLS U0 K0 U1 K1 PCALLS PU0 PK0 PU1 PK1}: the
 * settled window's calls and instructions per call (vCPU 0 user, kernel; vCPU 1 user, kernel), then the window
 * before (run-icount's results format).
 */
public final class GssIcount {
    static final int PROG = 0x2004F0C8;
    static final int VERS = 1;
    static final int ECHO = 1;
    static final int SIZE = 1 << 20;
    static final String SERVER = "nfs/localhost";
    static final String USER = "alice";
    /**
     * NULL calls before the first window (the harness lowers C2's threshold to 1000 invocations): 1,500 left the JIT
     * compiling through eight windows on a loaded host (run T2 took 5,000).
     */
    static final int WARM_NULL_CALLS = Integer.getInteger("gss.icount.warmNullCalls", 5000);

    private GssIcount() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 5 && args[0].equals("server")) {
            server(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Path.of(args[4]));
        } else if (args.length >= 9 && args[0].equals("client")) {
            client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Path.of(args[4]),
                    Integer.parseInt(args[5]), Integer.parseInt(args[6]), Integer.parseInt(args[7]),
                    List.of(args).subList(8, args.length));
        } else {
            System.err.println("usage: GssIcount server ADDRESS TCP_PORT RDMA_PORT DIR | client ADDRESS TCP_PORT"
                    + " RDMA_PORT DIR WINDOW_S MAX_WINDOWS FIRST_MARK CASE...");
            System.exit(2);
        }
    }

    static EventLoopGroup tcpGroup() {
        return new MultiThreadIoEventLoopGroup(1,
                Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    static EventLoopGroup rdmaGroup() {
        return new MultiThreadIoEventLoopGroup(1,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.select())));
    }

    static void server(String address, int tcpPort, int rdmaPort, Path dir) throws Exception {
        Krb5Realm realm = Krb5Realm.start();
        Runtime.getRuntime().addShutdownHook(new Thread(realm::close, "krb5-realm-close"));
        Path serverKeytab = realm.addPrincipal(SERVER);
        Files.createDirectories(dir);
        Files.copy(realm.addPrincipal(USER), dir.resolve(USER + ".keytab"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(realm.krb5Conf(), dir.resolve("krb5.conf"), StandardCopyOption.REPLACE_EXISTING);
        GSSCredential acceptor = Krb5Credentials.acceptor(Krb5Realm.name(SERVER), serverKeytab);
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, in) -> {
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(in.readDdpOpaque(SIZE));
                    call.replySuccess(results);
                });
        RpcGssAuthenticator gss = new RpcGssAuthenticator(acceptor);
        RpcDispatcher dispatcher = new RpcDispatcher(registry, new RpcStats()).withAuthenticator(gss);
        TcpRpcConfig tcpConfig = new TcpRpcConfig(SIZE + 65536, TcpRpcConfig.DEFAULT_MAX_FRAGMENT_SIZE);
        EventLoopGroup tcp = tcpGroup();
        Channel tcpServer = new ServerBootstrap().group(tcp)
                .channel(Epoll.isAvailable() ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childHandler(new TcpRpcServerInitializer(dispatcher, tcpConfig))
                .bind(new InetSocketAddress(address, tcpPort)).sync().channel();
        EventLoopGroup rdma = rdmaGroup();
        Channel rdmaServer = new ServerBootstrap().group(rdma).channel(RdmaServerChannel.class)
                .childHandler(new RpcRdmaServerInitializer(dispatcher, RpcRdmaConfig.DEFAULT, new RpcRdmaStats()))
                .bind(new InetSocketAddress(address, rdmaPort)).sync().channel();
        System.out.println("gss icount server: tcp " + tcpServer.localAddress() + ", rdma " + rdmaServer.localAddress()
                + "; client keytab and krb5.conf in " + dir);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("gss icount server: " + gss.stats()),
                "gss-stats"));
        tcpServer.closeFuture().sync();
    }

    static void client(String address, int tcpPort, int rdmaPort, Path dir, int windowSeconds, int maxWindows,
                       int firstMark, List<String> cases) throws Exception {
        System.setProperty("java.security.krb5.conf", dir.resolve("krb5.conf").toString());
        GSSCredential alice = Krb5Credentials.initiator(Krb5Realm.name(USER), dir.resolve(USER + ".keytab"));
        Marks marks = new Marks(System.getenv("VM_ICOUNT_MARK"), System.getenv("VM_ICOUNT_LOG"), firstMark);
        byte[] data = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            data[i] = (byte) (i * 7 + 1);
        }
        overhead(marks);
        int status = 0;
        for (String c : cases) {
            String[] p = c.split(":");
            String transport = p[0];
            String flavor = p[1];
            boolean echo = p[2].equals("echo");
            EventLoopGroup group = transport.equals("rdma") ? rdmaGroup() : tcpGroup();
            RpcClient client = connect(group, transport, new InetSocketAddress(address,
                    transport.equals("rdma") ? rdmaPort : tcpPort));
            try {
                CallChain chain = new CallChain(client, options(client, flavor, alice, echo), echo ? data : null);
                String name = "gss_" + transport + "_" + flavor + "_" + p[2];
                // Warm-up: at least a window and enough calls for the JIT (-XX:CompileThreshold of the harness).
                if (!measure(name, chain, marks, windowSeconds, maxWindows, echo ? 100 : WARM_NULL_CALLS)) {
                    status = 1;
                }
            } finally {
                client.channel().close().sync();
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
        System.exit(status);
    }

    static RpcClient connect(EventLoopGroup group, String transport, InetSocketAddress server) throws Exception {
        if (transport.equals("rdma")) {
            return RpcClient.of(new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, new RpcRdmaStats(),
                            Duration.ofSeconds(60)))
                    .connect(server).sync().channel());
        }
        TcpRpcConfig config = new TcpRpcConfig(SIZE + 65536, TcpRpcConfig.DEFAULT_MAX_FRAGMENT_SIZE);
        return RpcClient.of(new Bootstrap().group(group)
                .channel(Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(new RpcStats(), config, Duration.ofSeconds(60)))
                .connect(server).sync().channel());
    }

    /**
     * The case's options: its credential (a fresh RPCSEC_GSS context for krb5, krb5i, krb5p); an ECHO's reply hints
     * (a 1 MiB DDP-eligible item, RFC 8166 §4.3.2); a NULL's a 512-byte largest reply, as
     * {@link CallOptions#NULL_CALL}'s, so that over RDMA it offers no chunk (with the ECHO's hints, as before, each
     * NULL provisioned a 1 MiB Write chunk and a Reply chunk).
     */
    static CallOptions options(RpcClient client, String flavor, GSSCredential alice, boolean echo) throws Exception {
        CallOptions options;
        if (flavor.equals("sys")) {
            options = CallOptions.DEFAULT.withCredential(new AuthSysCredential(1, "bench", 0, 0).toOpaqueAuth());
        } else {
            RpcGssService service = switch (flavor) {
                case "krb5" -> RpcGssService.NONE;
                case "krb5i" -> RpcGssService.INTEGRITY;
                case "krb5p" -> RpcGssService.PRIVACY;
                default -> throw new IllegalArgumentException("flavor " + flavor);
            };
            options = RpcGssClientContext.establish(client, PROG, VERS, alice,
                    Krb5Credentials.principalName(Krb5Realm.name(SERVER)), service).callOptions();
        }
        options = options.withTimeout(Duration.ofSeconds(60));
        return echo ? options.withReplyHints(SIZE, SIZE + 65536) : options.withMaxReplySize(512);
    }

    /**
     * A case's calls, one in flight: each is sent on the connection's event loop from the previous one's completion
     * (the listener form of {@link RpcClient#call}: one listener and one decoder, kept for every call), until the
     * caller asks it to stop; the calling thread only starts a run and waits for its end, blocked, so that no caller's
     * wait or hand-off to the loop is in a window's count. An ECHO's reply is compared byte for byte with what was
     * sent.
     */
    static final class CallChain implements RpcCallListener<Boolean>, RpcReplyDecoder<Boolean> {
        private final RpcClient client;
        private final CallOptions options;
        private final byte[] data;
        private final ByteBuf expected;
        private volatile boolean stopping;
        // minCalls: written by the caller before it hands the run to the loop; calls and failure: written on the
        // loop, read by the caller once done is counted down. The executor's hand-off and the latch order them.
        private long minCalls;
        private long calls;
        private Throwable failure;
        private CountDownLatch done;

        /** {@code data} null: NULL calls; otherwise ECHO calls of it. */
        CallChain(RpcClient client, CallOptions options, byte[] data) {
            this.client = client;
            this.options = options;
            this.data = data;
            this.expected = data == null ? null : Unpooled.wrappedBuffer(data).asReadOnly();
        }

        /**
         * Makes calls for {@code seconds} and at least {@code atLeast} of them, then returns how many completed; a
         * failed call fails the run.
         */
        long run(int seconds, long atLeast) throws Exception {
            minCalls = atLeast;
            calls = 0;
            failure = null;
            stopping = false;
            done = new CountDownLatch(1);
            client.channel().eventLoop().execute(this::next);
            done.await(seconds, TimeUnit.SECONDS);
            stopping = true;
            done.await();
            if (failure != null) {
                throw new IllegalStateException("call " + (calls + 1) + " failed", failure);
            }
            return calls;
        }

        /** On the event loop: the next call, or the end of the run. */
        private void next() {
            if (stopping && calls >= minCalls) {
                done.countDown();
                return;
            }
            try {
                if (data == null) {
                    client.call(PROG, VERS, 0, XdrPayload.empty(), this, options, this);
                } else {
                    XdrPayload args = client.newPayload();
                    args.writeDdpOpaque(Unpooled.wrappedBuffer(data));
                    client.call(PROG, VERS, ECHO, args, this, options, this);
                }
            } catch (Throwable t) {
                onFailure(t);
            }
        }

        @Override
        public Boolean decode(XdrReader results) throws XdrException {
            if (data == null) {
                return Boolean.TRUE;
            }
            ByteBuf echoed = results.readDdpOpaque(SIZE);
            try {
                return ByteBufUtil.equals(expected, echoed);
            } finally {
                echoed.release();
            }
        }

        @Override
        public void onResult(Boolean same) {
            if (!same) {
                onFailure(new IllegalStateException("the echoed bytes are not the ones sent"));
                return;
            }
            calls++;
            next();
        }

        @Override
        public void onFailure(Throwable cause) {
            failure = cause;
            done.countDown();
        }
    }

    /**
     * Warm-up of {@code windowSeconds} and at least {@code warmCalls} calls, then windows of calls ({@code
     * windowSeconds} each) between two marks, until two in a row agree within 5% on every vCPU's user-space
     * instructions per call.
     */
    static boolean measure(String name, CallChain chain, Marks marks, int windowSeconds, int maxWindows,
                           int warmCalls) throws Exception {
        long warm = chain.run(windowSeconds, warmCalls);
        System.out.println(name + ": " + warm + " warm-up calls");
        double[] previous = null;
        double[] current = null;
        for (int w = 1; w <= maxWindows; w++) {
            int idA = marks.fire();
            long calls = chain.run(windowSeconds, 1);
            int idB = marks.fire();
            // The plugin's log is read after the window: nothing but the calls (and one start of the mark
            // binary, see overhead()) runs between the two marks.
            long[] a = marks.totals(idA);
            long[] b = marks.totals(idB);
            current = new double[1 + a.length];
            current[0] = calls;
            for (int i = 0; i < a.length; i++) {
                current[1 + i] = (b[i] - a[i]) / (double) calls;
            }
            System.out.println(name + " window " + w + ": " + format(current));
            if (previous != null && agree(previous, current)) {
                System.out.println("RESULT " + name + " - " + format(current) + " " + format(previous));
                return true;
            }
            if (w < maxWindows) {
                previous = current;
            }
        }
        System.out.println(name + ": NOT settled after " + maxWindows + " windows (the last two are reported)");
        System.out.println("RESULT " + name + " - " + format(current) + " "
                + format(previous == null ? current : previous));
        return false;
    }

    /**
     * What a window holds besides its calls: two marks with nothing between them (the tail of one start of the mark
     * binary and the head of the next), three times; printed, not subtracted.
     */
    static void overhead(Marks marks) throws Exception {
        for (int i = 0; i < 3; i++) {
            int a = marks.fire();
            int b = marks.fire();
            long[] x = marks.totals(a);
            long[] y = marks.totals(b);
            StringBuilder s = new StringBuilder("mark overhead (an empty window, instructions per vCPU, user kernel):");
            for (int v = 0; v < x.length; v++) {
                s.append(' ').append(y[v] - x[v]);
            }
            System.out.println(s);
        }
    }

    /** User-space figures (odd indexes after the call count) within 5% of each other. */
    static boolean agree(double[] x, double[] y) {
        if (x.length < 3) {
            return false;
        }
        for (int i = 1; i < x.length; i += 2) {
            double m = Math.max(x[i], y[i]);
            if (m > 0 && Math.abs(x[i] - y[i]) / m > 0.05) {
                return false;
            }
        }
        return true;
    }

    static String format(double[] v) {
        StringBuilder s = new StringBuilder();
        for (double d : v) {
            s.append(s.length() == 0 ? "" : " ").append(String.format("%.0f", d));
        }
        return s.toString();
    }

    /**
     * The icount plugin's marks: runs the mark binary with the next ID and reads the totals the plugin logs for it
     * ({@code icount mark ID print vcpus N v0 USER KERNEL v1 USER KERNEL}). Without the plugin (outside
     * {@code VM_ICOUNT=1}), zeros: the windows then count calls only.
     */
    static final class Marks {
        private final String binary;
        private final Path log;
        private int next;

        Marks(String binary, String log, int first) {
            this.binary = binary;
            this.log = log == null ? null : Path.of(log);
            this.next = first;
        }

        /** Sets the next mark (runs the mark binary) and returns its ID. */
        int fire() throws IOException, InterruptedException {
            int id = next++;
            if (binary == null || log == null) {
                return id;
            }
            if (id > 1023) {
                throw new IllegalStateException("mark IDs are 0..1023");
            }
            Process p = new ProcessBuilder(binary, Integer.toString(id), "print").inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IOException("mark " + id + " failed: " + p.exitValue());
            }
            return id;
        }

        /** The totals the plugin logged for mark {@code id}: per vCPU, user then kernel instructions. */
        long[] totals(int id) throws IOException, InterruptedException {
            if (binary == null || log == null) {
                return new long[4];
            }
            String prefix = "icount mark " + id + " ";
            for (int i = 0; i < 400; i++) {
                for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
                    if (line.startsWith(prefix)) {
                        // icount mark ID OP vcpus N v0 U K v1 U K ...
                        String[] f = line.trim().split("\\s+");
                        int n = Integer.parseInt(f[5]);
                        long[] totals = new long[2 * n];
                        for (int v = 0; v < n; v++) {
                            totals[2 * v] = Long.parseLong(f[7 + 3 * v]);
                            totals[2 * v + 1] = Long.parseLong(f[8 + 3 * v]);
                        }
                        return totals;
                    }
                }
                Thread.sleep(50);
            }
            throw new IOException("mark " + id + " never reached " + log);
        }
    }
}
