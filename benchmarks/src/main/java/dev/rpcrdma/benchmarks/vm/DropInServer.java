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
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The drop-in paths as a user sets them up, serving the echo program's NULL and ECHO over RDMA until stopped
 * (tools/vm/run-icount): {@code framing}, a hand-written Netty ONC RPC server whose only RDMA change is its framing
 * ({@link RpcRdmaFraming} with record marks in place of a record-mark decoder); {@code bridge}, an oncrpc4j service
 * behind {@link OncRpcBridge}: on the event loop (oncrpc4j's SAME_THREAD, {@code OncRpcBridge.of(services)}: the echo
 * service never blocks), or with {@code -Ddev.rpcrdma.dropin.ioStrategy=WORKER_THREAD} on a fixed pool of 4 threads.
 *
 * <pre>
 *   java -cp benchmarks.jar dev.rpcrdma.benchmarks.vm.DropInServer framing|bridge ADDRESS PORT
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

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !("framing".equals(args[0]) || "bridge".equals(args[0]))) {
            System.err.println("usage: DropInServer framing|bridge ADDRESS PORT");
            System.exit(2);
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.NATIVE)));
        ExecutorService executor = null;
        ServerBootstrap b = new ServerBootstrap().group(group).channel(RdmaServerChannel.class);
        if ("framing".equals(args[0])) {
            EchoHandler handler = new EchoHandler();
            b.childHandler(RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withRecordMarks(true)
                    .server(p -> p.addLast(handler)));
        } else {
            RpcDispatchable echo = call -> {
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
            Map<OncRpcProgram, RpcDispatchable> services = Map.of(new OncRpcProgram(PROG, VERS), echo);
            if ("WORKER_THREAD".equals(System.getProperty("dev.rpcrdma.dropin.ioStrategy", "SAME_THREAD"))) {
                executor = Executors.newFixedThreadPool(4);
                b.childHandler(OncRpcBridge.of(services, executor).rdma());
            } else {
                b.childHandler(OncRpcBridge.of(services).rdma());
            }
        }
        InetSocketAddress at = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        b.bind(at).sync();
        System.out.println("drop-in server: " + args[0] + " listening on " + at);
        System.out.flush();
        try {
            Thread.currentThread().join();
        } finally {
            group.shutdownGracefully();
            if (executor != null) {
                executor.shutdown();
            }
        }
    }
}
