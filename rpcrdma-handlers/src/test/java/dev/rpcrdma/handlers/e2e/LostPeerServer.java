package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;

/**
 * An RPC-over-RDMA server in a JVM of its own over the native fabric, for the test that kills a server process
 * ({@code kill -9}) under a client's pending calls ({@link RpcRdmaReliabilitySuite}). It serves {@link EchoService}
 * and HOLD (never answered), prints {@code LISTENING <port>} once bound and {@code HELD} for every HOLD call it
 * received, and exits when its standard input ends (the test JVM went away).
 */
final class LostPeerServer {
    static final String LISTENING = "LISTENING ";
    static final String HELD = "HELD";

    private LostPeerServer() {
    }

    /** {@code args[0]}: the address to listen on (the RDMA device's). */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.US_ASCII);
        Queue<RpcCallContext> held = new ConcurrentLinkedQueue<>();
        RpcProgramRegistry registry = EchoService.registry()
                .register(PROG, VERS, RpcRdmaReliabilitySuite.HOLD, (call, a) -> {
                    held.add(call); // never answered
                    out.println(HELD);
                });
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(Fabrics.findNative())));
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(new RpcDispatcher(registry, new RpcStats()),
                RpcRdmaConfig.DEFAULT, new RpcRdmaStats());
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(init)
                .bind(new InetSocketAddress(InetAddress.getByName(args[0]), 0)).sync().channel();
        out.println(LISTENING + ((InetSocketAddress) server.localAddress()).getPort());
        InputStream in = System.in;
        while (in.read() != -1) {
            // the test JVM holds our stdin open while it lives
        }
        group.shutdownGracefully();
        System.exit(0);
    }

    /**
     * Starts this server in a new JVM on the test's class path and JVM options ({@code -XX:} ones: the VM stage's
     * JIT settings), its standard error inherited (its stdout is the protocol above).
     */
    static Process start(InetAddress address) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-XX:") && !arg.startsWith("-XX:ErrorFile")
                    || arg.startsWith("-Djava.util.logging.config.file=")) {
                command.add(arg);
            }
        }
        command.add("-cp");
        command.add(classPath());
        command.add(LostPeerServer.class.getName());
        command.add(address.getHostAddress());
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /**
     * The test's class path: the URLs of the class loaders that loaded this class (the JUnit console launcher of the
     * VM stage loads the tests through one of its own; {@code java.class.path} is only its jar there), then
     * {@code java.class.path} (Surefire's booter jar names the rest in its manifest).
     */
    private static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader l = LostPeerServer.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader) {
                for (URL u : ((URLClassLoader) l).getURLs()) {
                    try {
                        entries.add(Path.of(u.toURI()).toString());
                    } catch (URISyntaxException | IllegalArgumentException e) {
                        // not a file: not for a class path
                    }
                }
            }
        }
        entries.addAll(Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
        return String.join(File.pathSeparator, entries);
    }
}
