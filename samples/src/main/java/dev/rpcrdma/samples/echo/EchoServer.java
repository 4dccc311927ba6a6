package dev.rpcrdma.samples.echo;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProcedure;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Serves the {@link EchoProgram} over TCP or RPC-over-RDMA on every address it is given, to any number of
 * clients at once, until {@link #close() closed} (or, from the command line, until Ctrl-C). Counts the connections
 * it accepted, the calls it served and the errors, for the summary {@code samples/run-echo server} prints when it
 * stops. Thread-safe.
 *
 * <pre>
 *   samples/run-echo server [--transport rdma|tcp] [--fabric auto|native|software] [--address A[,B..]]
 *                           [--port 20049] ...
 * </pre>
 * See {@code --help} and {@code samples/README.md}.
 */
public final class EchoServer implements AutoCloseable {

    private final EchoTransport transport;
    private final EventLoopGroup group;
    private final List<Channel> listeners;
    private final RpcStats stats;
    private final Counters counters;

    private EchoServer(EchoTransport transport, EventLoopGroup group, List<Channel> listeners, RpcStats stats,
                       Counters counters) {
        this.transport = transport;
        this.group = group;
        this.listeners = listeners;
        this.stats = stats;
        this.counters = counters;
    }

    /** Connections accepted, calls served and procedures that failed; updated from the event loops. */
    @ChannelHandler.Sharable
    private static final class Counters extends ChannelInboundHandlerAdapter {
        final LongAdder connections = new LongAdder();
        final LongAdder nullCalls = new LongAdder();
        final LongAdder echoCalls = new LongAdder();
        final LongAdder failedCalls = new LongAdder();

        /** On the listening channel: each message is an accepted connection, on its way to the acceptor. */
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            connections.increment();
            ctx.fireChannelRead(msg);
        }

        RpcProcedure counting(RpcProcedure procedure, LongAdder calls) {
            return (call, args) -> {
                calls.increment();
                try {
                    procedure.call(call, args);
                } catch (RuntimeException | XdrException e) {
                    failedCalls.increment();
                    throw e;
                }
            };
        }
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
        Counters counters = new Counters();
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .register(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL,
                        counters.counting(RpcProcedure.NULL, counters.nullCalls))
                .register(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO,
                        counters.counting(EchoProgram::echo, counters.echoCalls));
        RpcDispatcher dispatcher = new RpcDispatcher(registry, stats);
        EventLoopGroup group = transport.newGroup(threads);
        List<Channel> listeners = new ArrayList<>();
        boolean started = false;
        try {
            ServerBootstrap bootstrap = transport.serverBootstrap(group, dispatcher).handler(counters);
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
            return new EchoServer(transport, group, Collections.unmodifiableList(listeners), stats, counters);
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

    /** Calls served so far (NULL and ECHO). */
    public long calls() {
        return counters.nullCalls.sum() + counters.echoCalls.sum();
    }

    /** Connections accepted so far. */
    public long connections() {
        return counters.connections.sum();
    }

    /**
     * Errors so far: procedures that failed, malformed, oversized or truncated messages, and transport errors
     * sent (RDMA_ERROR).
     */
    public long errors() {
        return counters.failedCalls.sum() + stats.malformedMessages() + stats.oversizedRecords()
                + stats.truncatedRecords() + transport.serverErrors();
    }

    /** Stops listening, closes every connection and the event loops. */
    @Override
    public void close() {
        for (Channel c : listeners) {
            c.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Command line: {@code samples/run-echo server ...} (see {@link EchoCommand}). */
    public static void main(String[] args) {
        EchoCommand.main(EchoCommand.prepend(EchoOptions.Role.SERVER.command, args));
    }

    /**
     * Refuses the software fabric unless it was asked for by name: a server on it is reachable only from this
     * JVM, which is never what {@code run-echo server} is for unless the user says so.
     */
    static void refuseInProcess(EchoOptions options, EchoTransport transport) {
        if (transport instanceof RdmaTransport && ((RdmaTransport) transport).inProcess()
                && !"software".equals(options.fabric)) {
            throw UserError.usage(EchoCommand.softwareFabricRefusal(((RdmaTransport) transport).softwareReason()));
        }
    }

    /** The line a server prints once it listens: transport, fabric, addresses and what it advertises. */
    String startLine() {
        List<String> where = new ArrayList<>();
        for (InetSocketAddress a : localAddresses()) {
            where.add(a.getAddress().isAnyLocalAddress() ? "every address, port " + a.getPort()
                    : Diagnosis.hostPort(a));
        }
        return "echo server: " + transport.description() + " on " + String.join(", ", where) + "; "
                + transport.advertised() + "; program 0x2004F001 version 1 (NULL, ECHO); Ctrl-C stops it";
    }

    /** The line a server prints when it stops: how long it served, connections, calls and errors. */
    String summary(long nanos) {
        return String.format(Locale.ROOT, "echo server stopped after %.1f s: %d connection(s), %d call(s) (%d NULL,"
                        + " %d ECHO), %d error(s)", nanos / 1e9, connections(), calls(), counters.nullCalls.sum(),
                counters.echoCalls.sum(), errors());
    }

    /** Starts, prints its start line, and serves until {@code stop} opens or the JVM is asked to exit. */
    static void serve(EchoOptions options, PrintStream out, CountDownLatch stop) throws InterruptedException {
        EchoTransport transport = EchoTransport.select(options);
        refuseInProcess(options, transport);
        EchoServer server = start(transport, options.addresses, options.port, options.threads);
        long started = System.nanoTime();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = EchoCommand.exitOnSignal(stop, stopped, "echo-server-shutdown");
        try {
            out.println(server.startLine());
            if (transport.note() != null) {
                out.println("  note: " + transport.note());
            }
            if (transport instanceof RdmaTransport && ((RdmaTransport) transport).inProcess()) {
                out.println("  note: the software fabric is in-process: only clients in this JVM can connect");
            }
            for (InetSocketAddress a : server.localAddresses()) {
                String note = transport.listenNote(a);
                if (note != null) {
                    out.println("  note: " + note);
                }
            }
            out.flush();
            stop.await();
        } finally {
            server.close();
            out.println(server.summary(System.nanoTime() - started));
            out.flush();
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it waits for 'stopped'.
            }
        }
    }
}
