package dev.rpcrdma.samples.oncrpc4j;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.rpcbind.PortMapping;
import dev.rpcrdma.oncrpc.rpcbind.RpcbindClient;
import dev.rpcrdma.oncrpc4j.OncRpcBridge;
import dev.rpcrdma.samples.echo.EchoCommand;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.dcache.oncrpc4j.portmap.OncRpcbindServer;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import picocli.CommandLine;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;

/**
 * dCache oncrpc4j's own rpcbind service ({@code OncRpcbindServer}, unchanged) served over RPC-over-RDMA by the
 * oncrpc4j bridge, and asked by this project's rpcbind client: SET, GETPORT, DUMP. {@code --serve} keeps it
 * listening until stopped (Ctrl-C). Like the other samples: one-line errors naming the cause and what to do (stack
 * traces only with {@code --verbose}), exit status 0 (also when stopped by Ctrl-C), 1 failure, 2 bad usage.
 * <pre>
 *   samples/run-oncrpc4j-rpcbind [--fabric software|native] [--address A] [--port P] [--serve] [--verbose]
 * </pre>
 */
@CommandLine.Command(name = Oncrpc4jRpcbindDemo.NAME, mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = Oncrpc4jRpcbindDemo.Version.class,
        description = {"oncrpc4j's rpcbind service over RPC-over-RDMA through the oncrpc4j bridge, then asked by an"
                + " RPC-over-RDMA rpcbind client (SET, GETPORT, DUMP). See samples/README.md."})
public final class Oncrpc4jRpcbindDemo {
    /** The command's name, as {@code samples/run-oncrpc4j-rpcbind} is called. */
    static final String NAME = "run-oncrpc4j-rpcbind";
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    private static final int TIMEOUT_SECONDS = 30;

    @CommandLine.Option(names = "--fabric", paramLabel = "software|native", defaultValue = "software",
            description = "RDMA fabric: software = the in-process model (this JVM only), native = an RDMA device"
                    + " (needs --address of its interface) (default ${DEFAULT-VALUE})")
    String fabric;

    @CommandLine.Option(names = "--address", paramLabel = "A", defaultValue = "127.0.0.1",
            description = "address to listen on, one of this host's (default ${DEFAULT-VALUE})")
    String address;

    @CommandLine.Option(names = "--port", paramLabel = "N", defaultValue = "0",
            description = "port, 0..65535 (default ${DEFAULT-VALUE}: any free port)")
    int port;

    @CommandLine.Option(names = "--serve", description = "keep serving after the demo until stopped (Ctrl-C)")
    boolean serve;

    @CommandLine.Option(names = "--verbose", description = "debug logging and stack traces")
    boolean verbose;

    /** {@code --version}: the samples' version, Netty's and the JVM's. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return EchoCommand.version(NAME);
        }
    }

    /** A refusal of the command line or of the host, printed as one line. */
    static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;

        Refusal(int status, String message, Throwable cause) {
            super(message, cause);
            this.status = status;
        }
    }

    public static void main(String[] args) {
        EchoCommand.exitZeroWhenStoppedBySignal();
        System.exit(run(args, System.out, System.err, new CountDownLatch(1), true));
    }

    /**
     * Parses {@code args}, prints the help or version when asked, else runs the demo (and with {@code --serve}
     * serves until {@code stop} opens or the JVM is asked to exit); returns the exit status. Never throws.
     */
    static int run(String[] args, PrintStream out, PrintStream err, CountDownLatch stop, boolean configureLogging) {
        Oncrpc4jRpcbindDemo demo = new Oncrpc4jRpcbindDemo();
        CommandLine line = new CommandLine(demo);
        PrintWriter writer = new PrintWriter(out, true);
        line.setOut(writer);
        line.setErr(new PrintWriter(err, true));
        try {
            if (CommandLine.printHelpIfRequested(line.parseArgs(args))) {
                writer.flush();
                return OK;
            }
            demo.check();
        } catch (CommandLine.ParameterException e) {
            err.println(NAME + ": " + EchoCommand.usageMessage(e));
            return USAGE;
        } catch (Refusal e) {
            err.println(NAME + ": " + e.getMessage());
            return e.status;
        }
        if (configureLogging) {
            EchoCommand.configureLogging(demo.verbose, Level.WARNING);
        }
        try {
            demo.call(out, stop);
            return OK;
        } catch (Refusal e) {
            err.println(NAME + ": " + e.getMessage());
            if (demo.verbose && e.getCause() != null) {
                e.getCause().printStackTrace(err);
            }
            return e.status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(NAME + ": interrupted");
            return FAILED;
        } catch (Exception | Error e) {
            err.println(NAME + ": unexpected error: " + firstLine(e) + " (run with --verbose for the stack trace)");
            if (demo.verbose) {
                e.printStackTrace(err);
            }
            return FAILED;
        }
    }

    /** The values picocli cannot check: the fabric, the port's range, an address this host has. */
    void check() throws Refusal {
        if (!fabric.equals("software") && !fabric.equals("native")) {
            throw new Refusal(USAGE, "--fabric: software or native, not " + fabric + " (see " + NAME + " --help)",
                    null);
        }
        if (port < 0 || port > 65535) {
            throw new Refusal(USAGE, "--port must be in 0..65535: " + port, null);
        }
        InetAddress ip;
        try {
            ip = InetAddress.getByName(address.trim());
        } catch (UnknownHostException e) {
            throw new Refusal(USAGE, "--address " + address + ": unknown host: give one of this host's addresses"
                    + " (ip -br addr), e.g. 127.0.0.1", e);
        }
        if (!ip.isAnyLocalAddress() && !hasInterface(ip)) {
            throw new Refusal(USAGE, "--address " + address + ": no interface of this host has that address: give"
                    + " one of its addresses (ip -br addr), e.g. 127.0.0.1", null);
        }
        if (fabric.equals("native") && !Rdma.isAvailable()) {
            throw new Refusal(USAGE, EchoCommand.nativeRefusal("use --fabric software (the demo within one JVM)"),
                    null);
        }
        if (fabric.equals("native") && ip.isLoopbackAddress()) {
            throw new Refusal(USAGE, "--address " + address + " is a loopback address, which is on no RDMA device:"
                    + " with --fabric native give the address of the device's interface", null);
        }
    }

    private static boolean hasInterface(InetAddress ip) {
        try {
            return NetworkInterface.getByInetAddress(ip) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    void call(PrintStream out, CountDownLatch stop) throws Exception {
        RdmaFabric rdmaFabric = fabric.equals("native") ? RdmaFabric.NATIVE : RdmaFabric.SOFTWARE;
        ExecutorService executor = Executors.newFixedThreadPool(2);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(rdmaFabric)));
        try {
            OncRpcBridge bridge = OncRpcBridge.of(Map.of(new OncRpcProgram(100000, 2), new OncRpcbindServer()),
                    executor);
            ChannelFuture bound = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(bridge.rdma()).bind(new InetSocketAddress(address, port)).awaitUninterruptibly();
            if (!bound.isSuccess()) {
                throw new Refusal(FAILED, "cannot listen on " + address + ":" + port + " (" + fabric + " fabric): "
                        + firstLine(bound.cause()) + ": choose another --port or --address", bound.cause());
            }
            Channel server = bound.channel();
            InetSocketAddress local = (InetSocketAddress) server.localAddress();
            out.println("oncrpc4j OncRpcbindServer over RPC-over-RDMA (" + fabric + " fabric) at "
                    + local.getAddress().getHostAddress() + ":" + local.getPort());
            if (rdmaFabric == RdmaFabric.SOFTWARE) {
                out.println("  note: the software fabric is in-process: only clients in this JVM can connect"
                        + " (--fabric native --address <the RDMA device's IP> serves other hosts)");
            }
            Channel c = connect(group, local);
            RpcbindClient rpcbind = new RpcbindClient(RpcClient.of(c));
            PortMapping mapping = new PortMapping(0x20000099, 1, PortMapping.IPPROTO_TCP, 20099);
            out.println("SET     " + mapping + ": " + rpcbind.pmapSet(mapping).get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            out.println("GETPORT 0x20000099 v1 tcp: " + rpcbind.pmapGetPort(0x20000099, 1, PortMapping.IPPROTO_TCP)
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            out.println("DUMP:");
            for (PortMapping m : rpcbind.pmapDump().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                out.println("  " + m);
            }
            c.close().sync();
            if (serve) {
                serve(out, stop, server);
            }
            server.close().sync();
        } catch (TimeoutException e) {
            throw new Refusal(FAILED, "no answer from the rpcbind service within " + TIMEOUT_SECONDS + " s", e);
        } catch (ExecutionException e) {
            throw new Refusal(FAILED, "the rpcbind call failed: " + firstLine(e.getCause()), e.getCause());
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            executor.shutdown();
        }
    }

    private static Channel connect(EventLoopGroup group, InetSocketAddress server) throws Refusal {
        ChannelFuture f = new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer()).connect(server).awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new Refusal(FAILED, "cannot connect to " + server.getAddress().getHostAddress() + ":"
                    + server.getPort() + ": " + firstLine(f.cause()), f.cause());
        }
        return f.channel();
    }

    /** Serves until {@code stop} opens or the JVM is asked to exit (then exits with 0, see EchoCommand). */
    private static void serve(PrintStream out, CountDownLatch stop, Channel server) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = EchoCommand.exitOnSignal(stop, stopped, "rpcbind-demo-shutdown");
        try {
            out.println("serving until stopped (Ctrl-C)");
            out.flush();
            server.closeFuture().addListener(f -> stop.countDown());
            stop.await();
        } finally {
            server.close().awaitUninterruptibly();
            out.println("rpcbind demo stopped");
            out.flush();
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it waits for 'stopped'.
            }
        }
    }

    private static String firstLine(Throwable t) {
        if (t == null) {
            return "unknown cause";
        }
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            return t.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
