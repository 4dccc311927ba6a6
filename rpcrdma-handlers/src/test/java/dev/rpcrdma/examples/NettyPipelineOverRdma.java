package dev.rpcrdma.examples;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaFraming;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.net.InetSocketAddress;

/**
 * An existing Netty ONC RPC server that reads whole RPC messages as ByteBufs and writes record-marked replies (its
 * TCP pipeline: a record-mark frame decoder, then this handler) moved to RDMA: the event loop's I/O handler, the
 * channel classes and the framing change; the handler does not.
 */
public final class NettyPipelineOverRdma {
    static final int PROG = 0x20000099, VERS = 1, ECHO = 1;

    /** The server's own handler, unchanged: echoes the arguments of any call in an accepted reply. */
    static final class EchoHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf call = (ByteBuf) msg;   // one whole RPC call, reader index 0
            try {
                int credential = call.getInt(28), verifier = 32 + ((credential + 3) & ~3);
                int args = verifier + 8 + ((call.getInt(verifier + 4) + 3) & ~3);
                int length = 24 + call.readableBytes() - args;
                ByteBuf reply = ctx.alloc().buffer(4 + length)
                        .writeInt(0x8000_0000 | length)                    // TCP record mark: last fragment
                        .writeInt(call.getInt(0)).writeInt(1).writeInt(0) // xid, REPLY, MSG_ACCEPTED
                        .writeInt(0).writeInt(0).writeInt(0)              // AUTH_NONE verifier, SUCCESS
                        .writeBytes(call, args, call.readableBytes() - args);
                ctx.writeAndFlush(reply);
            } finally {
                call.release();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        // Over TCP: new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory())
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE)));
        try {
            // Over TCP: .channel(NioServerSocketChannel.class)
            //     .childHandler(new ChannelInitializer<SocketChannel>() {
            //         @Override
            //         protected void initChannel(SocketChannel ch) {
            //             ch.pipeline().addLast(new MyRecordMarkDecoder(), new EchoHandler());
            //         }
            //     })
            RpcRdmaFraming framing = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withRecordMarks(true);
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(framing.server(p -> p.addLast(new EchoHandler())))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();

            RpcClient client = RpcClient.of(new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer()).connect(server.localAddress()).sync().channel());
            XdrPayload echoArgs = client.newPayload();
            echoArgs.writer().writeOpaque(new byte[100_000]);   // a Long Call; the reply uses the Reply chunk
            byte[] echoed = client.call(PROG, VERS, ECHO, echoArgs, r -> r.readOpaque(1 << 20)).get();
            System.out.println("byte framing: " + echoed.length + " bytes echoed");
            client.channel().close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
