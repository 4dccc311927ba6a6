package dev.rpcrdma.examples;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaFraming;
import dev.rpcrdma.handlers.binding.RpcMessageLayout;
import dev.rpcrdma.handlers.binding.UpperLayerBinding;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An upper-layer binding (RFC 8166 §6, as RFC 8267 is NFS's) for your own program, written with
 * {@link RpcMessageLayout}: the echo program's ECHO argument and result, an opaque, are DDP-eligible. The client's
 * byte framing then moves a large argument into a Read chunk instead of sending a Long Call, and a server's framing
 * places the result into a Write chunk when the client offers one.
 */
public final class CustomBindingOverRdma {
    static final int PROG = NettyPipelineOverRdma.PROG, VERS = NettyPipelineOverRdma.VERS;
    static final int ECHO = NettyPipelineOverRdma.ECHO;

    /** ECHO(opaque) returns opaque: one DDP-eligible item each way, the opaque's data. Stateless. */
    static final class EchoBinding implements UpperLayerBinding {
        @Override
        public String name() {
            return "echo";
        }

        @Override
        public int callItems(ByteBuf call, int[] items) throws XdrException {
            int arguments = RpcMessageLayout.arguments(call);   // checks the header's bounds first
            int base = call.readerIndex();
            if (call.getInt(base + RpcMessageLayout.PROGRAM) != PROG
                    || call.getInt(base + RpcMessageLayout.PROCEDURE) != ECHO) {
                return 0;   // not ours: nothing is DDP-eligible
            }
            return opaqueAt(call, arguments, items);
        }

        @Override
        public int replyItems(int program, int version, int procedure, ByteBuf reply, int[] items)
                throws XdrException {
            if (program != PROG || procedure != ECHO) {
                return 0;
            }
            int results = RpcMessageLayout.results(reply);      // -1: denied, or not SUCCESS
            return results < 0 ? 0 : opaqueAt(reply, results, items);
        }

        /** The data of the XDR opaque at {@code offset} as item 0, its length checked against the message. */
        private static int opaqueAt(ByteBuf m, int offset, int[] items) throws XdrException {
            if (offset > m.readableBytes() - 4) {
                throw new XdrException("no room for the opaque's length at offset " + offset);
            }
            long length = m.getUnsignedInt(m.readerIndex() + offset);
            if (length > m.readableBytes() - offset - 4) {
                throw new XdrException("opaque of " + length + " bytes past the message's end");
            }
            items[0] = offset + 4;   // position of the data, right after its length word
            items[1] = (int) length;
            return 1;
        }
    }

    public static void main(String[] args) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE)));
        try {
            UpperLayerBinding binding = new EchoBinding();
            RpcRdmaFraming serverFraming = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBinding(binding)
                    .withRecordMarks(true);
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(serverFraming.server(p -> p.addLast(new NettyPipelineOverRdma.EchoHandler())))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();

            // A byte-framed client: it writes encoded calls and reads whole replies.
            RpcRdmaFraming clientFraming = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBinding(binding);
            CompletableFuture<ByteBuf> reply = new CompletableFuture<>();
            Channel client = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(clientFraming.client(p -> p.addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                            reply.complete(msg.retain());
                        }
                    }))).connect(server.localAddress()).sync().channel();
            byte[] data = new byte[100_000];
            ByteBuf call = client.alloc().buffer(44 + data.length)
                    .writeInt(7).writeInt(0).writeInt(2)              // xid, CALL, RPC version 2
                    .writeInt(PROG).writeInt(VERS).writeInt(ECHO)
                    .writeLong(0).writeLong(0)                        // AUTH_NONE credential and verifier
                    .writeInt(data.length).writeBytes(data);          // opaque<>: 100000 is a multiple of 4
            client.writeAndFlush(call).sync();
            ByteBuf r = reply.get(30, TimeUnit.SECONDS);
            try {
                int results = RpcMessageLayout.results(r);
                System.out.println("custom binding: " + r.getInt(results) + " bytes echoed, argument in "
                        + clientFraming.stats().readChunks() + " Read chunk(s), " + clientFraming.stats().longCalls()
                        + " Long Call(s), " + serverFraming.stats().bindingMisses() + " binding miss(es)");
            } finally {
                r.release();
            }
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
