package dev.rpcrdma.samples.echo;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Serves the {@link EchoProgram} over TCP or RPC-over-RDMA on every address it is given, to any number of
 * clients at once, until {@link #close() closed} (or, from the command line, until Ctrl-C).
 *
 * <pre>
 *   EchoServer [--transport rdma|tcp] [--fabric auto|native|software] [--address A[,B..]] [--port 20049] ...
 * </pre>
 * See {@code --help} and {@code samples/README.md}.
 */
public final class EchoServer implements AutoCloseable {

    private final EchoTransport transport;
    private final EventLoopGroup group;
    private final List<Channel> listeners;
    private final RpcStats stats;

    private EchoServer(EchoTransport transport, EventLoopGroup group, List<Channel> listeners, RpcStats stats) {
        this.transport = transport;
        this.group = group;
        this.listeners = listeners;
        this.stats = stats;
    }

    /**
     * Starts a server with the given command-line options (see {@code --help}); throws an
     * {@link IllegalStateException} whose message says what to do when it cannot listen.
     */
    public static EchoServer start(String... args) {
        try {
            return start(EchoOptions.parse(EchoOptions.Role.SERVER, args));
        } catch (UserError e) {
            throw new IllegalStateException(e.getMessage(), e.getCause());
        }
    }

    /** Starts a server as {@code options} say: binds every address, or fails with a {@link UserError}. */
    static EchoServer start(EchoOptions options) {
        return start(EchoTransport.select(options), options.addresses, options.port, options.threads);
    }

    static EchoServer start(EchoTransport transport, List<String> addresses, int port, int threads) {
        RpcStats stats = new RpcStats();
        RpcDispatcher dispatcher = new RpcDispatcher(EchoProgram.register(new RpcProgramRegistry()), stats);
        EventLoopGroup group = transport.newGroup(threads);
        List<Channel> listeners = new ArrayList<>();
        boolean started = false;
        try {
            ServerBootstrap bootstrap = transport.serverBootstrap(group, dispatcher);
            int nextPort = port;
            for (String host : addresses) {
                InetSocketAddress address = new InetSocketAddress(resolve(host), nextPort);
                ChannelFuture f = bootstrap.bind(address).awaitUninterruptibly();
                if (!f.isSuccess()) {
                    throw Diagnosis.bindFailure(transport, address, f.cause());
                }
                listeners.add(f.channel());
                // With port 0, every further address listens on the port the first one got.
                nextPort = ((InetSocketAddress) f.channel().localAddress()).getPort();
            }
            started = true;
            return new EchoServer(transport, group, Collections.unmodifiableList(listeners), stats);
        } finally {
            if (!started) {
                for (Channel c : listeners) {
                    c.close().awaitUninterruptibly();
                }
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            }
        }
    }

    static InetAddress resolve(String host) {
        try {
            return InetAddress.getByName(host.trim());
        } catch (UnknownHostException e) {
            throw new UserError("unknown host '" + host.trim() + "': give an IP address or a resolvable name", e);
        }
    }

    /** The addresses the server listens on (with the actual port when 0 was asked for). */
    public List<InetSocketAddress> localAddresses() {
        return listeners.stream().map(c -> (InetSocketAddress) c.localAddress()).collect(Collectors.toList());
    }

    /** The transport in use, e.g. {@code tcp (epoll)}. */
    public String transportDescription() {
        return transport.description();
    }

    /** The server's protocol error counters (malformed messages, oversized records...). */
    public RpcStats stats() {
        return stats;
    }

    /** Stops listening, closes every connection and the event loops. */
    @Override
    public void close() {
        for (Channel c : listeners) {
            c.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Command line: serves until Ctrl-C; exit code 1 with a one-line message when it cannot start. */
    public static void main(String[] args) {
        int code = CommandLine.execute(EchoOptions.Role.SERVER, args, System.out, System.err, (options, out) -> {
            CommandLine.configureLogging(options.verbose, java.util.logging.Level.WARNING);
            serve(options, out, new CountDownLatch(1));
        });
        if (code != CommandLine.OK) {
            System.exit(code);
        }
    }

    /** Starts, prints where it listens, and serves until {@code stop} opens or the JVM is asked to exit. */
    static void serve(EchoOptions options, PrintStream out, CountDownLatch stop) throws InterruptedException {
        EchoServer server = start(options);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                stopped.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "echo-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.println("echo server: program 0x2004F001 version 1 over " + server.transportDescription());
            if (server.transport.note() != null) {
                out.println("  note: " + server.transport.note());
            }
            for (InetSocketAddress a : server.localAddresses()) {
                out.println("  listening on " + (a.getAddress().isAnyLocalAddress()
                        ? "every address, port " + a.getPort() : Diagnosis.hostPort(a)));
                String note = server.transport.listenNote(a);
                if (note != null) {
                    out.println("  note: " + note);
                }
            }
            out.println("  Ctrl-C stops it");
            out.flush();
            stop.await();
        } finally {
            server.close();
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it waits for 'stopped'.
            }
        }
    }
}
