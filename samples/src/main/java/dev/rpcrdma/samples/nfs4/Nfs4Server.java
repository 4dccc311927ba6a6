package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;

import javax.security.auth.kerberos.KerberosPrincipal;
import javax.security.auth.kerberos.KeyTab;
import javax.security.auth.login.LoginException;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A small NFSv4.1 server (RFC 5661) on this project's RPC stack: one {@link RpcDispatcher} with the NFS program
 * (NULL and {@link CompoundProcessor COMPOUND}) served over TCP ({@link TcpRpcServerInitializer} with a
 * backchannel for callbacks) and/or RPC-over-RDMA ({@link RdmaListener}), a file tree in memory or from a host
 * directory, leases checked every second. Start with {@link #start(Nfs4Options)} or {@code samples/run-nfs-server};
 * thread-safe; {@link #close()} stops everything and releases all buffers it holds.
 */
public final class Nfs4Server implements AutoCloseable {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(Nfs4Server.class);

    private final Nfs4State state;
    private final Nfs4FileSystem fs;
    private final ExportSecurity security;
    /** Compounds refused with NFS4ERR_WRONGSEC (RFC 5661 §2.6.3.1). */
    final java.util.concurrent.atomic.LongAdder wrongSecCount = new java.util.concurrent.atomic.LongAdder();
    /** Checks RPCSEC_GSS calls when the export has a Kerberos flavor, else null. */
    private RpcGssAuthenticator gss;
    private final RpcStats rpcStats = new RpcStats();
    private final RpcRdmaStats rdmaStats = new RpcRdmaStats();
    /** Calls per procedure and errors, for the shutdown summary. */
    private final RpcMetrics metrics = new RpcMetrics("nfs4", RpcMetrics.Role.SERVER)
            .register(Nfs4.PROGRAM, Nfs4.VERSION, 0, "NULL")
            .register(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, "COMPOUND");
    private final List<EventLoopGroup> groups = new ArrayList<>(2);
    private final List<Channel> listeners = new ArrayList<>(2);
    private InetSocketAddress tcpAddress;
    private InetSocketAddress rdmaAddress;
    private ScheduledFuture<?> leaseTimer;
    /** Runs every COMPOUND: the state lock and file I/O never hold up an event loop. */
    private final ExecutorService compounds = Executors.newSingleThreadExecutor(
            new DefaultThreadFactory("nfs4-compound", true));

    private Nfs4Server(Nfs4State state, Nfs4FileSystem fs, ExportSecurity security) {
        this.state = state;
        this.fs = fs;
        this.security = security;
        state.callbacks = new Callbacks(state);
        state.fs = fs;
    }

    Nfs4State state() {
        return state;
    }

    Nfs4FileSystem fileSystem() {
        return fs;
    }

    /** The export's security flavors. */
    ExportSecurity security() {
        return security;
    }

    /** Operations answered NFS4ERR_WRONGSEC: a flavor the export ({@code --sec}) refuses. */
    public long wrongSec() {
        return wrongSecCount.sum();
    }

    /** The RPCSEC_GSS authenticator (its counters), or null when the export has no Kerberos flavor. */
    public RpcGssAuthenticator gss() {
        return gss;
    }

    /** RPC-level counters of every connection. */
    public RpcStats rpcStats() {
        return rpcStats;
    }

    /** RPC-over-RDMA counters of the RDMA connections. */
    public RpcRdmaStats rdmaStats() {
        return rdmaStats;
    }

    /** Delegation counters: "granted G, recalled R, returned T, revoked V". */
    public String delegationStats() {
        synchronized (state) {
            return "granted " + state.granted + ", recalled " + state.recalls + ", returned " + state.returned
                    + ", revoked " + state.revoked;
        }
    }

    /** The TCP listen address (with the real port), or null. */
    public InetSocketAddress tcpAddress() {
        return tcpAddress;
    }

    /** The RDMA listen address, or null. */
    public InetSocketAddress rdmaAddress() {
        return rdmaAddress;
    }

    /**
     * Starts a server from command-line options.
     *
     * @throws IllegalArgumentException for bad options (one line naming the option), an export that is not a
     *         directory, or {@code --transport rdma} with no RDMA device unless {@code --fabric software} is named
     * @throws IOException when it cannot listen (one line: where, and why)
     */
    public static Nfs4Server start(String... args) throws IOException {
        return start(Nfs4Options.parse(args));
    }

    static Nfs4Server start(Nfs4Options o) throws IOException {
        if (o.export != null && !Files.isDirectory(o.export)) {
            throw new IllegalArgumentException("--export " + o.export + ": " + (Files.exists(o.export)
                    ? "not a directory" : "no such directory"));
        }
        ExportSecurity security = o.security != null ? o.security : ExportSecurity.SYS;
        RpcGssAuthenticator gss = security.needsKerberos() ? authenticator(o.principal, o.keytab) : null;
        Fabric fabric = o.rdma ? RdmaListener.fabric(o.fabric) : null;   // refuses before anything starts
        Nfs4FileSystem fs = o.export != null ? new HostFileSystem(o.export) : new MemoryFileSystem();
        Nfs4Server server = new Nfs4Server(new Nfs4State(o.leaseSeconds, System::nanoTime), fs, security);
        server.gss = gss;
        boolean started = false;
        try {
            RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(Nfs4.PROGRAM, Nfs4.VERSION)
                    .register(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND,
                            new OffLoopProcedure(server.compounds, new CompoundProcessor(server)));
            RpcDispatcher dispatcher = new RpcDispatcher(registry, server.rpcStats, server.metrics);
            if (gss != null) {
                dispatcher = dispatcher.withAuthenticator(gss);
            }
            if (o.tcp) {
                server.tcpAddress = server.listen(server.tcpBootstrap(o.threads, dispatcher), o.address, o.tcpPort,
                        "tcp", "--port");
            }
            if (o.rdma) {
                EventLoopGroup g = RdmaListener.newGroup(o.threads, fabric);
                server.groups.add(g);
                server.rdmaAddress = server.listen(RdmaListener.bootstrap(g, dispatcher, server.rdmaStats,
                        o.inline, o.remoteInvalidation),
                        o.address, o.rdmaPort, "rdma, " + fabric.name() + " fabric", "--rdma-port");
            }
            EventLoopGroup timer = server.groups.get(0);
            server.leaseTimer = timer.scheduleAtFixedRate(server::expireLeases, 1, 1, TimeUnit.SECONDS);
            started = true;
            return server;
        } finally {
            if (!started) {
                server.close();
            }
        }
    }

    /**
     * The RPCSEC_GSS authenticator of {@code principal} with its key from {@code keytab}, and the sample's
     * principal-to-uid mapping ({@link ExportSecurity#mapper}).
     *
     * @throws IllegalArgumentException when the keytab is not a readable file
     * @throws IOException when the keytab has no key of the principal (one line)
     */
    private static RpcGssAuthenticator authenticator(String principal, Path keytab) throws IOException {
        if (!Files.isRegularFile(keytab) || !Files.isReadable(keytab)) {
            throw new IllegalArgumentException("--keytab " + keytab + ": " + (Files.exists(keytab)
                    ? "not a readable file" : "no such file"));
        }
        GSSCredential acceptor;
        try {
            // The JDK's acceptor finds a missing key only when a client comes: look for it now.
            if (KeyTab.getInstance(keytab.toFile()).getKeys(new KerberosPrincipal(principal)).length == 0) {
                throw new IOException("--principal " + principal + ": no key in " + keytab);
            }
            acceptor = Krb5Credentials.acceptor(principal, keytab);
        } catch (LoginException | GSSException e) {
            throw new IOException("--principal " + principal + ": no usable key in " + keytab + ": "
                    + firstLine(String.valueOf(e.getMessage())), e);
        }
        String realm = principal.substring(principal.lastIndexOf('@') + 1);
        return new RpcGssAuthenticator(acceptor)
                .withIdentityMapper(ExportSecurity.mapper(realm, Path.of("/etc/passwd")));
    }

    private ServerBootstrap tcpBootstrap(int threads, RpcDispatcher dispatcher) {
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup g = new MultiThreadIoEventLoopGroup(threads, epoll ? EpollIoHandler.newFactory()
                : NioIoHandler.newFactory());
        groups.add(g);
        TcpRpcConfig config = new TcpRpcConfig(SessionOps.MAX_MESSAGE + 4096, TcpRpcConfig.DEFAULT_MAX_FRAGMENT_SIZE);
        return new ServerBootstrap().group(g)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new TcpRpcServerInitializer(dispatcher, config).withBackchannel());
    }

    private InetSocketAddress listen(ServerBootstrap b, String address, int port, String transport,
                                     String portOption) throws IOException {
        var f = b.bind(new InetSocketAddress(address, port)).awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new IOException("cannot listen on " + address + ":" + port + " (" + transport + "): "
                    + bindProblem(f.cause(), portOption), f.cause());
        }
        listeners.add(f.channel());
        return (InetSocketAddress) f.channel().localAddress();
    }

    /** Why a bind failed, in one line with what to do. */
    private static String bindProblem(Throwable cause, String portOption) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (t instanceof BindException || m.contains("in use") || m.contains("EADDRINUSE")) {
                return m.contains("in use") || m.contains("EADDRINUSE")
                        ? "the port is already in use (another NFS server, e.g. the kernel's nfsd?): stop it or"
                        + " choose another " + portOption
                        : firstLine(m);
            }
            if (m.contains("Cannot assign requested address") || m.contains("EADDRNOTAVAIL")
                    || m.contains("ENODEV")) {
                return "no interface (or, over RDMA, no RDMA device) has that address: use one of this host's"
                        + " addresses, or 0.0.0.0";
            }
            if (m.contains("Permission denied") || m.contains("EACCES")) {
                return "permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE): run as root or"
                        + " choose another " + portOption;
            }
        }
        return firstLine(String.valueOf(cause));
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /**
     * The line the command prints when the server stops: how long it ran, its calls by procedure, errors, and what
     * happened to delegations.
     */
    String summary(long nanos) {
        long nulls = metrics.procedure(Nfs4.PROGRAM, Nfs4.VERSION, 0).calls();
        long compounds = metrics.procedure(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND).calls();
        return String.format(Locale.ROOT, "NFSv4.1 server stopped after %.1f s: %d call(s) (%d NULL, %d COMPOUND),"
                + " %d error(s); delegations %s", nanos / 1e9, metrics.calls(), nulls, compounds, metrics.errors(),
                delegationStats());
    }

    private void expireLeases() {
        try {
            synchronized (state) {
                state.expire();
            }
        } catch (RuntimeException e) {
            logger.warn("lease check failed", e);
        }
    }

    @Override
    public void close() {
        if (leaseTimer != null) {
            leaseTimer.cancel(false);
        }
        for (Channel c : listeners) {
            c.close().awaitUninterruptibly();
        }
        for (EventLoopGroup g : groups) {
            g.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        compounds.shutdown();
        try {
            compounds.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (state) {
            state.shutdown();
        }
    }

    /** Command line: serves until stopped (Ctrl-C); see {@link Nfs4Command}. */
    public static void main(String[] args) {
        Nfs4Command.main(args);
    }
}
