package dev.rpcrdma.benchmarks.framing;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaFraming;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
import java.util.concurrent.TimeUnit;

/**
 * One 1 KiB ECHO round trip over RPC-over-RDMA on the software fabric, the same client against two servers in this
 * JVM: {@code native} = this project's RPC API ({@code RpcRdmaServerInitializer} and a dispatcher procedure),
 * {@code bytes} = the byte framing ({@code RpcRdmaFraming}) under a handler that reads and writes whole RPC messages
 * as {@code ByteBuf}s, as a foreign Netty ONC RPC stack does. With {@code -prof gc}, {@code gc.alloc.rate.norm} is
 * the bytes allocated per round trip by every thread. The byte framing copies each reply once into its Send; the
 * native path encodes it there directly.
 * {@code java -jar benchmarks/target/benchmarks.jar ByteFramingEchoBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
public class ByteFramingEchoBenchmark {
    static final int PROG = 0x2004F0F0, VERS = 1, ECHO = 1;

    @Param({"native", "bytes"})
    public String server;

    @Param({"1024"})
    public int size;

    private EventLoopGroup group;
    private Channel serverChannel;
    private RpcClient client;
    private byte[] data;

    /** The foreign stack's handler: echoes a call's arguments in an accepted reply, as whole-message ByteBufs. */
    @ChannelHandler.Sharable
    static final class ByteEcho extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf call = (ByteBuf) msg;
            try {
                int verifier = 32 + ((call.getInt(28) + 3) & ~3);
                int args = verifier + 8 + ((call.getInt(verifier + 4) + 3) & ~3);
                ByteBuf reply = ctx.alloc().directBuffer(24 + call.readableBytes() - args)
                        .writeInt(call.getInt(0)).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0)
                        .writeBytes(call, args, call.readableBytes() - args);
                ctx.writeAndFlush(reply, ctx.voidPromise());
            } finally {
                call.release();
            }
        }
    }

    @Setup
    public void setUp() throws Exception {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(RdmaFabric.SOFTWARE)));
        ChannelHandler childHandler;
        if ("native".equals(server)) {
            RpcProgramRegistry registry = new RpcProgramRegistry().register(PROG, VERS, ECHO, (call, in) -> {
                XdrPayload results = call.newPayload();
                results.writeDdpOpaque(in.readDdpOpaque(1 << 20));
                call.replySuccess(results);
            });
            childHandler = new RpcRdmaServerInitializer(new RpcDispatcher(registry, new RpcStats()));
        } else {
            ByteEcho echo = new ByteEcho();
            childHandler = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).server(p -> p.addLast(echo));
        }
        serverChannel = new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(childHandler)
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        client = RpcClient.of(new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer()).connect(serverChannel.localAddress()).sync().channel());
        data = new byte[size];
        for (int i = 0; i < size; i++) {
            data[i] = (byte) i;
        }
    }

    @TearDown
    public void tearDown() throws Exception {
        client.channel().close().sync();
        serverChannel.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Benchmark
    public int echo() throws Exception {
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(data);
        byte[] echoed = client.call(PROG, VERS, ECHO, args, r -> r.readOpaque(1 << 20)).get(30, TimeUnit.SECONDS);
        if (echoed.length != size || echoed[size - 1] != data[size - 1]) {
            throw new IllegalStateException("wrong echo");
        }
        return echoed.length;
    }
}
