package dev.rpcrdma.benchmarks.vm;

import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaFraming;
import dev.rpcrdma.oncrpc4j.OncRpcBridge;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.tcp.RecordMarkingDecoder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The drop-in paths as a user sets them up, serving the echo program's NULL and ECHO until stopped
 * (tools/vm/run-icount, tools/vm/run-dropin): {@code framing}, a hand-written Netty ONC RPC server whose only RDMA
 * change is its framing ({@link RpcRdmaFraming} with record marks in place of a record-mark decoder); {@code bridge},
 * an oncrpc4j service behind {@link OncRpcBridge}: on the event loop (oncrpc4j's SAME_THREAD,
 * {@code OncRpcBridge.of(services)}: the echo service never blocks), or with
 * {@code -Ddev.rpcrdma.dropin.ioStrategy=WORKER_THREAD} on a fixed pool of 4 threads. Their TCP forms, the same
 * servers as a user runs them without RDMA: {@code framing-tcp}, the same handler behind a TCP record-mark decoder
 * on epoll; {@code bridge-tcp}, the same service on plain oncrpc4j's own TCP transport (same I/O strategy).
 *
 * <pre>
 *   java -cp benchmarks.jar dev.rpcrdma.benchmarks.vm.DropInServer framing|bridge|framing-tcp|bridge-tcp ADDRESS PORT
 * </pre>
 */
public final class DropInServer {
    static final int PROG = 0x2004F001;
    static final int VERS = 1;
    static final int PROC_NULL = 0;
    static final int PROC_ECHO = 1;

    private DropInServer() {
    }

    /**
     * The hand-written server's handler: answers an accepted call of the echo program with its arguments (NULL: none;
     * ECHO: the opaque it got), PROG_UNAVAIL otherwise; writes the reply with a TCP record mark, as over TCP.
     */
    @ChannelHandler.Sharable
    static final class EchoHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf call = (ByteBuf) msg;   // one whole RPC call at reader index 0 (RpcRdmaFraming)
            try {
                int n = call.readableBytes();
                if (n < 40) {
                    return;   // the framing answers what is not an RPC call; nothing reaches here shorter
                }
                int credential = call.getInt(28);
                if (credential < 0 || credential > 400 || 40 + credential > n) {
                    return;
                }
                int verifier = 32 + ((credential + 3) & ~3);
                int verifierLength = call.getInt(verifier + 4);
                if (verifierLength < 0 || verifierLength > 400 || verifier + 8 + verifierLength > n) {
                    return;
                }
                int args = verifier + 8 + ((verifierLength + 3) & ~3);
                boolean known = call.getInt(12) == PROG && call.getInt(16) == VERS
                        && (call.getInt(20) == PROC_NULL || call.getInt(20) == PROC_ECHO);
                int results = known ? Math.max(0, n - args) : 0;
                int length = 24 + results;
                ByteBuf reply = ctx.alloc().buffer(4 + length)
                        .writeInt(0x8000_0000 | length)                          // record mark: last fragment
                        .writeInt(call.getInt(0)).writeInt(1).writeInt(0)       // xid, REPLY, MSG_ACCEPTED
                        .writeInt(0).writeInt(0).writeInt(known ? 0 : 1);       // AUTH_NONE, SUCCESS/PROG_UNAVAIL
                if (results > 0) {
                    reply.writeBytes(call, args, results);
                }
                ctx.writeAndFlush(reply);
            } finally {
                call.release();
            }
        }
    }

    static final OncRpcProgram PROGRAM = new OncRpcProgram(PROG, VERS);
    /** Records up to 1 MiB: the largest ECHO the benchmarks send, with room for headers. */
    static final int MAX_RECORD = (1 << 20) + 4096;

    /** The oncrpc4j service: NULL, ECHO of an opaque, PROC_UNAVAIL otherwise; never blocks. */
    static final RpcDispatchable ECHO_SERVICE = call -> {
        if (call.getProcedure() == PROC_NULL) {
            call.retrieveCall(XdrVoid.XDR_VOID);
            call.reply(XdrVoid.XDR_VOID);
        } else if (call.getProcedure() == PROC_ECHO) {
            Opaque a = new Opaque();
            call.retrieveCall(a);
            call.reply(a);
        } else {
            call.failProcedureUnavailable();
        }
    };

    /** {@code opaque<>} as an oncrpc4j XDR type. */
    static final class Opaque implements XdrAble {
        byte[] data;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            data = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeDynamicOpaque(data);
        }
    }

    /** The server kinds: each drop-in path over RDMA, and the same server as a user runs it over TCP. */
    static final List<String> KINDS = List.of("framing", "bridge", "framing-tcp", "bridge-tcp");

    /**
     * Starts a server of {@code kind} bound to {@code at} (port 0: any) and returns it running; closing it stops it.
     * {@code framing-tcp}: the same {@link EchoHandler} behind the record-mark decoder its RDMA framing replaced
     * ({@link RecordMarkingDecoder}, RFC 5531 §11) on Netty's epoll transport (NIO where epoll is unavailable);
     * {@code bridge-tcp}: the same oncrpc4j service on oncrpc4j's own TCP transport ({@link OncRpcSvcBuilder},
     * SAME_THREAD, or WORKER_THREAD as the system property says).
     */
    static Running start(String kind, InetSocketAddress at) throws Exception {
        boolean worker = "WORKER_THREAD".equals(System.getProperty("dev.rpcrdma.dropin.ioStrategy", "SAME_THREAD"));
        switch (kind) {
            case "framing-tcp": {
                boolean epoll = Epoll.isAvailable();
                EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                        epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
                EchoHandler handler = new EchoHandler();
                RpcStats stats = new RpcStats();
                try {
                    Channel server = new ServerBootstrap().group(group)
                            .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                            .childOption(ChannelOption.TCP_NODELAY, true)
                            .childHandler(new ChannelInitializer<Channel>() {
                                @Override
                                protected void initChannel(Channel ch) {
                                    ch.pipeline().addLast(new RecordMarkingDecoder(MAX_RECORD, stats), handler);
                                }
                            })
                            .bind(at).sync().channel();
                    return new Running((InetSocketAddress) server.localAddress(), epoll ? "tcp (epoll)" : "tcp (nio)",
                            () -> {
                                server.close().syncUninterruptibly();
                                group.shutdownGracefully().syncUninterruptibly();
                            });
                } catch (Exception e) {
                    group.shutdownGracefully();
                    throw e;
                }
            }
            case "bridge-tcp": {
                OncRpcSvcBuilder builder = new OncRpcSvcBuilder().withTCP().withoutAutoPublish()
                        .withBindAddress(at.getHostString()).withPort(at.getPort()).withTcpNoDelay(true)
                        .withServiceName("dropin-bridge-tcp").withRpcService(PROGRAM, ECHO_SERVICE);
                OncRpcSvc svc = (worker ? builder.withWorkerThreadIoStrategy().withWorkerThreadPoolSize(4)
                        : builder.withSameThreadIoStrategy()).build();
                svc.start();
                return new Running(svc.getInetSocketAddress(IpProtocolType.TCP),
                        "oncrpc4j tcp (" + (worker ? "WORKER_THREAD" : "SAME_THREAD") + ")", () -> {
                            try {
                                svc.stop();
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        });
            }
            case "framing":
            case "bridge": {
                EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                        RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.NATIVE)));
                ExecutorService executor = worker && "bridge".equals(kind) ? Executors.newFixedThreadPool(4) : null;
                ServerBootstrap b = new ServerBootstrap().group(group).channel(RdmaServerChannel.class);
                if ("framing".equals(kind)) {
                    EchoHandler handler = new EchoHandler();
                    b.childHandler(RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withRecordMarks(true)
                            .server(p -> p.addLast(handler)));
                } else {
                    Map<OncRpcProgram, RpcDispatchable> services = Map.of(PROGRAM, ECHO_SERVICE);
                    b.childHandler((executor != null ? OncRpcBridge.of(services, executor)
                            : OncRpcBridge.of(services)).rdma());
                }
                try {
                    Channel server = b.bind(at).sync().channel();
                    return new Running((InetSocketAddress) server.localAddress(), "rdma", () -> {
                        server.close().syncUninterruptibly();
                        group.shutdownGracefully().syncUninterruptibly();
                        if (executor != null) {
                            executor.shutdown();
                        }
                    });
                } catch (Exception e) {
                    group.shutdownGracefully();
                    if (executor != null) {
                        executor.shutdown();
                    }
                    throw e;
                }
            }
            default:
                throw new IllegalArgumentException("unknown kind " + kind + " (known: " + KINDS + ")");
        }
    }

    /** A started server: where it listens, over what, and how to stop it. */
    static final class Running implements AutoCloseable {
        final InetSocketAddress address;
        final String transport;
        private final Runnable stop;

        Running(InetSocketAddress address, String transport, Runnable stop) {
            this.address = address;
            this.transport = transport;
            this.stop = stop;
        }

        @Override
        public void close() {
            stop.run();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !KINDS.contains(args[0])) {
            System.err.println("usage: DropInServer framing|bridge|framing-tcp|bridge-tcp ADDRESS PORT");
            System.exit(2);
        }
        try (Running running = start(args[0], new InetSocketAddress(args[1], Integer.parseInt(args[2])))) {
            System.out.println("drop-in server: " + args[0] + " listening on " + running.address + " over "
                    + running.transport);
            System.out.flush();
            Thread.currentThread().join();
        }
    }
}
