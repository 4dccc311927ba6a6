package dev.rpcrdma.benchmarks.gss;

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
import dev.rpcrdma.oncrpc.client.RpcClient;
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
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.ietf.jgss.GSSCredential;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What each security flavor costs a round trip: NULL and a 1 MiB ECHO (the argument and the result DDP-eligible:
 * Read and Write chunks under sys and krb5, a Long Call and a Reply chunk under krb5i and krb5p, RFC 8166 §8.2.2)
 * over TCP and over RPC-over-RDMA, with AUTH_SYS, krb5, krb5i and krb5p against a throwaway MIT KDC
 * ({@code Krb5Realm}: needs Debian's krb5-kdc, as {@code tools/setup} installs). One blocking caller; the figure that
 * matters is each flavor's time as a ratio to sys on the same transport (docs/benchmarks.md).
 * {@code java -jar benchmarks/target/benchmarks.jar RpcGssBenchmark} runs RDMA on the in-process software fabric;
 * {@code -p fabric=native -p address=A} on the RDMA device of address A, TCP on A too (tools/vm/run-gss-figures).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
public class RpcGssBenchmark {
    static final int PROG = 0x2004F0C7;
    static final int VERS = 1;
    static final int ECHO = 1;
    static final int SIZE = 1 << 20;

    @Param({"tcp", "rdma"})
    public String transport;

    @Param({"sys", "krb5", "krb5i", "krb5p"})
    public String flavor;

    /** The RDMA fabric: software (in-process) or native (the device of {@link #address}). */
    @Param({"software"})
    public String fabric;

    /** The address both servers listen on (with the native fabric: one of the RDMA device's). */
    @Param({"127.0.0.1"})
    public String address;

    private Krb5Realm realm;
    private EventLoopGroup group;
    private Channel server;
    private RpcClient client;
    private CallOptions options;
    private byte[] data;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        realm = Krb5Realm.start();
        Path serverKeytab = realm.addPrincipal("nfs/localhost");
        Path aliceKeytab = realm.addPrincipal("alice");
        GSSCredential acceptor = Krb5Credentials.acceptor(Krb5Realm.name("nfs/localhost"), serverKeytab);
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(PROG, VERS)
                .register(PROG, VERS, ECHO, (call, in) -> {
                    XdrPayload results = call.newPayload();
                    results.writeDdpOpaque(in.readDdpOpaque(SIZE));
                    call.replySuccess(results);
                });
        RpcDispatcher dispatcher = new RpcDispatcher(registry, new RpcStats())
                .withAuthenticator(new RpcGssAuthenticator(acceptor));
        if (transport.equals("tcp")) {
            group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
            TcpRpcConfig config = new TcpRpcConfig(SIZE + 65536, TcpRpcConfig.DEFAULT_MAX_FRAGMENT_SIZE);
            server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new TcpRpcServerInitializer(dispatcher, config))
                    .bind(new InetSocketAddress(address, 0)).sync().channel();
            client = RpcClient.of(new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new TcpRpcClientInitializer(new RpcStats(), config, Duration.ofSeconds(30)))
                    .connect(server.localAddress()).sync().channel());
        } else {
            group = new MultiThreadIoEventLoopGroup(2,
                    RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.select(fabric))));
            server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(new RpcRdmaServerInitializer(dispatcher, RpcRdmaConfig.DEFAULT, new RpcRdmaStats()))
                    .bind(new InetSocketAddress(address, 0)).sync().channel();
            client = RpcClient.of(new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, new RpcRdmaStats(),
                            Duration.ofSeconds(30)))
                    .connect(server.localAddress()).sync().channel());
        }
        if (flavor.equals("sys")) {
            options = CallOptions.DEFAULT.withCredential(new AuthSysCredential(1, "bench", 0, 0).toOpaqueAuth());
        } else {
            RpcGssService service = flavor.equals("krb5") ? RpcGssService.NONE
                    : flavor.equals("krb5i") ? RpcGssService.INTEGRITY : RpcGssService.PRIVACY;
            GSSCredential alice = Krb5Credentials.initiator(Krb5Realm.name("alice"), aliceKeytab);
            options = RpcGssClientContext.establish(client, PROG, VERS, alice,
                    Krb5Credentials.principalName(Krb5Realm.name("nfs/localhost")), service).callOptions();
        }
        options = options.withTimeout(Duration.ofSeconds(30)).withReplyHints(SIZE, SIZE + 65536);
        data = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            data[i] = (byte) (i * 7 + 1);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        client.channel().close().sync();
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        realm.close();
    }

    @Benchmark
    public Object nullCall() throws Exception {
        return client.callAndWait(PROG, VERS, 0, XdrPayload.empty(), r -> null, options);
    }

    @Benchmark
    public int echo1MiB() throws Exception {
        XdrPayload args = client.newPayload();
        args.writeDdpOpaque(Unpooled.wrappedBuffer(data));
        byte[] back = client.callAndWait(PROG, VERS, ECHO, args, r -> r.readOpaque(SIZE), options);
        if (back.length != SIZE) {
            throw new IllegalStateException("echoed " + back.length + " bytes");
        }
        return back.length;
    }
}
