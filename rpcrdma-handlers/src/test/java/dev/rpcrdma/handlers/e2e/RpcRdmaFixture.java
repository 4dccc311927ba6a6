package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.rpcrdma.handlers.e2e.EchoService.ECHO;
import static dev.rpcrdma.handlers.e2e.EchoService.FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.SUM;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;
import static dev.rpcrdma.handlers.e2e.EchoService.pattern;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the end-to-end suites share, run once per fabric by one-line subclasses ({@link TestFabric}): the fabric, one
 * event loop group per test, our server and client, the echo programs, and the rogue peers of the hand-written-peer
 * tests.
 */
abstract class RpcRdmaFixture extends FabricSuite {
    /**
     * Generous: under QEMU/TCG with paranoid leak detection one RPC with RDMA Reads takes ~0.5 s on Soft-RoCE, and
     * queued calls wait for credits. No test here measures time.
     */
    static final long TIMEOUT = 180;

    EventLoopGroup group;
    final List<Channel> channels = new ArrayList<>();
    RpcRdmaStats serverStats;
    RpcRdmaStats clientStats;
    RpcStats serverRpcStats;
    RpcClient client;
    /** Options of the client's connection (set before {@link #start}). */
    java.util.function.Consumer<Bootstrap> clientOptions = b -> { };
    final RpcMetrics serverMetrics = new RpcMetrics("e2e-server", RpcMetrics.Role.SERVER).register(TypedEcho.PROGRAM);
    final RpcMetrics clientMetrics = new RpcMetrics("e2e-client", RpcMetrics.Role.CLIENT).register(TypedEcho.PROGRAM);
    /** Runs the typed program's blocking procedure. */
    final java.util.concurrent.ExecutorService blockingExecutor = java.util.concurrent.Executors.newFixedThreadPool(2,
            r -> new Thread(r, TypedEcho.BLOCKING_THREAD));

    RpcRdmaFixture(TestFabric testFabric) {
        super(testFabric);
    }

    @BeforeEach
    void startLoop() {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric())));
    }

    @AfterEach
    void stopLoop() throws Exception {
        blockingExecutor.shutdownNow();
        serverMetrics.close();
        clientMetrics.close();
        for (Channel c : channels) {
            c.close().await(TIMEOUT, TimeUnit.SECONDS);
        }
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT, TimeUnit.SECONDS));
    }

    /** Starts our server and connects our client with the given configurations. */
    void start(RpcRdmaConfig serverConfig, RpcRdmaConfig clientConfig) throws Exception {
        start(serverConfig, clientConfig, b -> { });
    }

    void start(RpcRdmaConfig serverConfig, RpcRdmaConfig clientConfig,
               java.util.function.Consumer<ServerBootstrap> serverOptions) throws Exception {
        serverStats = new RpcRdmaStats();
        clientStats = new RpcRdmaStats();
        serverRpcStats = new RpcStats();
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(
                new RpcDispatcher(TypedEcho.service(blockingExecutor).registerInto(EchoService.registry()),
                        serverRpcStats, serverMetrics), serverConfig, serverStats);
        serverStats.attachTo(serverMetrics);
        // No init.configure(...): the initializer sizes each accepted connection itself (accept-time sizing), so
        // every negotiation test here also proves the receive buffers match what the server advertises.
        ServerBootstrap sb = new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(init);
        serverOptions.accept(sb);
        Channel server = sb.bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(server);
        Bootstrap cb = new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer(new RpcStats(), clientConfig, clientStats,
                        Duration.ofSeconds(TIMEOUT)));
        clientOptions.accept(cb);
        Channel c = cb.connect(server.localAddress()).sync().channel();
        channels.add(c);
        client = RpcClient.of(c);
        client.handler().metrics(clientMetrics);
        clientStats.attachTo(clientMetrics);
    }

    void start() throws Exception {
        start(RpcRdmaConfig.DEFAULT, RpcRdmaConfig.DEFAULT);
    }

    RpcRdmaRequester requester() {
        return client.channel().pipeline().get(RpcRdmaRequester.class);
    }

    CompletableFuture<byte[]> echo(byte[] data, CallOptions options) {
        XdrPayload args = client.newPayload();
        args.writeDdpOpaque(client.alloc().buffer(data.length).writeBytes(data));
        return client.call(PROG, VERS, ECHO, args, EchoService::readDdpBytes, options);
    }

    CompletableFuture<int[]> sum(int proc, byte[] data) {
        XdrPayload args = client.newPayload();
        if (proc == SUM) {
            args.writeDdpOpaque(client.alloc().buffer(data.length).writeBytes(data));
        } else {
            args.writer().writeOpaque(data);
        }
        return client.call(PROG, VERS, proc, args, r -> new int[] {r.readInt(), r.readInt()});
    }

    CompletableFuture<byte[]> fill(int proc, int n, CallOptions options) {
        XdrPayload args = client.newPayload();
        args.writer().writeInt(n);
        return client.call(PROG, VERS, proc, args, r -> {
            if (proc == FILL) {
                ByteBuf b = r.readDdpOpaque(EchoService.MAX);
                byte[] out = new byte[b.readableBytes()];
                b.getBytes(b.readerIndex(), out);
                b.release();
                return out;
            }
            return r.readOpaque(EchoService.MAX);
        }, options);
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(TIMEOUT, TimeUnit.SECONDS);
    }

    static CallOptions hints(int maxDdp, int maxReply) {
        return CallOptions.DEFAULT.withReplyHints(maxDdp, maxReply);
    }

    static Stream<Arguments> severalWriteChunks() {
        // name, item sizes (TWO or THREE), per-item hints (0: empty Write chunk, item inline), largest reply
        // (0: no Reply chunk), Write chunks the responder uses, Long Reply expected.
        return Stream.of(
                Arguments.of("two: small inline (empty chunk), large placed", new int[] {200, 100001},
                        new int[] {0, 100001}, 0, 1, false),
                Arguments.of("two: both placed", new int[] {5003, 100001}, new int[] {5003, 100001}, 0, 2, false),
                Arguments.of("two: first chunk too small comes back unused, second placed", new int[] {1001, 70001},
                        new int[] {100, 70001}, 0, 1, false),
                Arguments.of("two: small inline + large placed, with a Reply chunk", new int[] {9001, 50001},
                        new int[] {0, 50001}, 9600, 1, true),
                Arguments.of("three: small inline, two large placed", new int[] {301, 70001, 30003},
                        new int[] {0, 70001, 40000}, 0, 2, false),
                Arguments.of("three: all placed, a fourth chunk unused", new int[] {1, 65536, 4097},
                        new int[] {16, 65536, 8192, 1000}, 0, 3, false),
                Arguments.of("three: large inline item via a Reply chunk, two placed", new int[] {20001, 70001, 7},
                        new int[] {0, 70001, 4096}, 21000, 2, true),
                Arguments.of("three: zero-length item placed in its chunk, Reply chunk", new int[] {0, 40000, 12000},
                        new int[] {64, 40000, 0}, 12600, 2, true));
    }

    /**
     * A responder written by hand over a raw {@link RdmaChannel}: decodes each call's transport header and answers
     * with whatever {@code answer} builds (it may also do RDMA on the call's chunks first).
     */
    final class RogueResponder extends ChannelInboundHandlerAdapter {
        final BlockingQueue<RpcRdmaHeader> calls = new LinkedBlockingQueue<>();
        final CompletableFuture<RdmaMemory> memory = new CompletableFuture<>();
        final BiFunction<ChannelHandlerContext, RpcRdmaHeader, ByteBuf> answer;

        RogueResponder(BiFunction<ChannelHandlerContext, RpcRdmaHeader, ByteBuf> answer) {
            this.answer = answer;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            ByteBuf buf = ctx.alloc().directBuffer(4096);
            buf.writeBytes(pattern(4096, 77));
            memory.complete(((RdmaChannel) ctx.channel()).registerMemory(buf, 0));
            buf.release();
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            RdmaReceive r = (RdmaReceive) msg;
            try {
                RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(r.content());
                calls.add(h);
                ByteBuf reply = answer.apply(ctx, h);
                if (reply != null) {
                    ctx.writeAndFlush(reply);
                }
            } finally {
                r.release();
            }
        }
    }

    /** Starts a rogue server and our client against it. */
    RogueResponder startRogue(BiFunction<ChannelHandlerContext, RpcRdmaHeader, ByteBuf> answer) throws Exception {
        clientStats = new RpcRdmaStats();
        RogueResponder rogue = new RogueResponder(answer);
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(rogue)
                .bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(server);
        Channel c = new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, clientStats,
                        Duration.ofSeconds(TIMEOUT)))
                .connect(server.localAddress()).sync().channel();
        channels.add(c);
        client = RpcClient.of(c);
        return rogue;
    }

    /** An RPC-over-RDMA reply Send: {@code header} then a SUCCESS reply whose results are a 4-byte word. */
    static ByteBuf reply(ChannelHandlerContext ctx, RpcRdmaHeader header, int resultWord) {
        ByteBuf b = ctx.alloc().directBuffer();
        RpcRdmaHeaderEncoder.encode(header, b);
        b.writeInt(header.xid()).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0).writeInt(resultWord);
        return b;
    }

    <T> T onClientLoop(java.util.concurrent.Callable<T> task) throws Exception {
        return client.channel().eventLoop().submit(task).get(TIMEOUT, TimeUnit.SECONDS);
    }

    static Stream<Arguments> clientPrivateData() {
        byte[] valid = RpcRdmaPrivateData.of(true, 4096, 4096).encode();
        byte[] wrongMagic = valid.clone();
        wrongMagic[0] = 0x12;
        byte[] wrongVersion = valid.clone();
        wrongVersion[4] = 2;
        byte[] truncated = java.util.Arrays.copyOf(valid, 6);
        return Stream.of(Arguments.of("valid", valid, true), Arguments.of("wrong magic", wrongMagic, false),
                Arguments.of("wrong version", wrongVersion, false), Arguments.of("truncated", truncated, false),
                Arguments.of("none", new byte[0], false));
    }

    /** Our server against a hand-written requester that provides its own Write chunks in plain REMOTE_WRITE memory. */
    RpcRdmaHeader callWithChunks(int proc, int n1, int n2, List<WriteChunk> writeList, WriteChunk replyChunk,
                                 RdmaChannel[] channel, RdmaMemory[] memory, ByteBuf[] inline) throws Exception {
        serverStats = new RpcRdmaStats();
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(
                new RpcDispatcher(EchoService.registry(), new RpcStats()), RpcRdmaConfig.DEFAULT, serverStats);
        Channel server = init.configure(new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childHandler(init)).bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(server);
        BlockingQueue<RdmaReceive> received = new LinkedBlockingQueue<>();
        RdmaChannel c = (RdmaChannel) new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        received.add((RdmaReceive) msg);
                    }
                }).connect(server.localAddress()).sync().channel();
        channels.add(c);
        ByteBuf buf = c.alloc().directBuffer(65536).writeZero(65536);
        RdmaMemory m = c.registerMemory(buf, dev.rpcrdma.channel.RdmaAccess.REMOTE_WRITE);
        buf.release();
        List<WriteChunk> placedWrites = new ArrayList<>();
        for (WriteChunk w : writeList) {
            List<RdmaSegment> segs = new ArrayList<>();
            for (RdmaSegment s : w.segments()) {
                segs.add(new RdmaSegment(m.rkey(), s.length(), m.address() + s.offset()));
            }
            placedWrites.add(new WriteChunk(segs));
        }
        WriteChunk reply = replyChunk == null ? null : WriteChunk.of(new RdmaSegment(m.rkey(),
                replyChunk.segments().get(0).length(), m.address() + replyChunk.segments().get(0).offset()));
        ByteBuf call = c.alloc().directBuffer();
        RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(0x6161, 8, List.of(), placedWrites, reply), call);
        call.writeInt(0x6161).writeInt(0).writeInt(2).writeInt(PROG).writeInt(VERS).writeInt(proc)
                .writeLong(0).writeLong(0).writeInt(n1).writeInt(n2);
        c.writeAndFlush(call).sync();
        RdmaReceive r = received.poll(TIMEOUT, TimeUnit.SECONDS);
        assertNotNull(r, "a reply");
        channel[0] = c;
        memory[0] = m;
        try {
            RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(r.content());
            inline[0] = r.content().copy();
            return h;
        } finally {
            r.release();
        }
    }

    static byte[] at(RdmaMemory m, int offset, int length) {
        byte[] b = new byte[length];
        m.buffer().getBytes(m.buffer().readerIndex() + offset, b);
        return b;
    }
}
