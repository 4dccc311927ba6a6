package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.handlers.RpcRdmaFraming;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.binding.RpcMessageLayout;
import dev.rpcrdma.handlers.binding.UpperLayerBinding;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.tcp.RecordMarkingEncoder;
import dev.rpcrdma.oncrpc.tcp.RpcMessageDecoder;
import dev.rpcrdma.oncrpc.tcp.RpcMessageEncoder;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static dev.rpcrdma.handlers.e2e.EchoService.ECHO;
import static dev.rpcrdma.handlers.e2e.EchoService.FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PLAIN_FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PLAIN_SUM;
import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;
import static dev.rpcrdma.handlers.e2e.EchoService.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The byte framing ({@link RpcRdmaFraming}) end to end, once per fabric: a pipeline built for TCP (rpc-codec's own
 * TCP codec handlers: record-mark encoder, message decoder and encoder, dispatcher) with only its framing swapped,
 * against our native client; a byte-framed client against our native server; the backchannel both ways in bytes.
 */
abstract class ByteFramingSuite extends FabricSuite {
    static final long TIMEOUT = 180;

    /** The test program's binding: ECHO's and FILL's results and ECHO's argument are DDP-eligible opaques. */
    static final UpperLayerBinding ECHO_BINDING = new UpperLayerBinding() {
        @Override
        public String name() {
            return "echo-test";
        }

        @Override
        public int replyItems(int program, int version, int procedure, ByteBuf reply, int[] items)
                throws XdrException {
            if (program != PROG || (procedure != ECHO && procedure != FILL)) {
                return 0;
            }
            int results = RpcMessageLayout.results(reply);
            return results < 0 ? 0 : item(reply, results, items);
        }

        @Override
        public int callItems(ByteBuf call, int[] items) throws XdrException {
            if (call.getInt(call.readerIndex() + RpcMessageLayout.PROGRAM) != PROG
                    || call.getInt(call.readerIndex() + RpcMessageLayout.PROCEDURE) != ECHO) {
                return 0;
            }
            return item(call, RpcMessageLayout.arguments(call), items);
        }

        private int item(ByteBuf m, int at, int[] items) throws XdrException {
            if (m.readableBytes() < at + 4) {
                throw new XdrException("truncated");
            }
            int length = m.getInt(m.readerIndex() + at);
            if (length < 0 || length > m.readableBytes() - at - 4) {
                throw new XdrException("length past the end");
            }
            items[0] = at + 4;
            items[1] = length;
            return 1;
        }
    };

    EventLoopGroup group;
    final List<Channel> channels = new ArrayList<>();

    ByteFramingSuite(TestFabric testFabric) {
        super(testFabric);
    }

    @BeforeEach
    void startLoop() {
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric())));
    }

    @AfterEach
    void stopLoop() throws Exception {
        for (Channel c : channels) {
            c.close().await(TIMEOUT, TimeUnit.SECONDS);
        }
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(TIMEOUT, TimeUnit.SECONDS));
    }

    Channel bind(io.netty.channel.ChannelHandler childHandler) throws Exception {
        Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class).childHandler(childHandler)
                .bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(server);
        return server;
    }

    Channel connect(SocketAddress to, io.netty.channel.ChannelHandler handler) throws Exception {
        Channel c = new Bootstrap().group(group).channel(RdmaChannel.class).handler(handler).connect(to).sync()
                .channel();
        channels.add(c);
        return c;
    }

    /**
     * rpc-codec's TCP server pipeline minus its record-mark decoder, over RPC-over-RDMA: small calls inline, a
     * large argument pulled from a Read chunk and spliced in, a large DDP-eligible result placed by the binding in
     * the call's Write chunk, a large plain result in the Reply chunk; replies carry record marks (fragments of
     * 8 KiB) taken off by the framing.
     */
    @Test
    void aTcpPipelineServesOverRdmaWithOnlyItsFramingSwapped() throws Exception {
        RpcStats serverRpcStats = new RpcStats();
        RpcDispatcher dispatcher = new RpcDispatcher(EchoService.registry(), serverRpcStats);
        BlockingQueue<SocketAddress> peers = new LinkedBlockingQueue<>();
        RpcRdmaFraming framing = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBinding(ECHO_BINDING)
                .withRecordMarks(true);
        List<Integer> componentsUp = new java.util.concurrent.CopyOnWriteArrayList<>();
        Channel server = bind(framing.server(p -> {
            peers.add(p.channel().remoteAddress());
            p.addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    componentsUp.add(((ByteBuf) msg).nioBufferCount());
                    ctx.fireChannelRead(msg);
                }
            });
            p.addLast(new RecordMarkingEncoder(8192), new RpcMessageDecoder(serverRpcStats), new RpcMessageEncoder(),
                    dispatcher);
        }));
        RpcRdmaStats clientStats = new RpcRdmaStats();
        Channel c = connect(server.localAddress(), new RpcRdmaClientInitializer(new RpcStats(),
                RpcRdmaConfig.DEFAULT, clientStats, Duration.ofSeconds(TIMEOUT)));
        RpcClient client = RpcClient.of(c);

        assertArrayEquals(pattern(100, 1), echo(client, pattern(100, 1), CallOptions.DEFAULT));
        byte[] big = pattern(300_000, 2);
        assertArrayEquals(big, echo(client, big, CallOptions.DEFAULT.withReplyHints(big.length, big.length + 512)));
        assertTrue(clientStats.readChunks() > 0, clientStats.toString());
        assertEquals(1, framing.stats().writeChunksUsed(), framing.stats().toString());
        // The call whose argument came in a Read chunk went up as one contiguous buffer, as every other did.
        assertEquals(List.of(1, 1), componentsUp);

        XdrPayload args = client.newPayload();
        args.writer().writeInt(200_000);
        byte[] plain = client.call(PROG, VERS, PLAIN_FILL, args, r -> r.readOpaque(EchoService.MAX))
                .get(TIMEOUT, TimeUnit.SECONDS);
        assertArrayEquals(pattern(200_000, 200_000), plain);
        assertEquals(1, framing.stats().longReplies(), framing.stats().toString());
        assertEquals(0, framing.stats().bindingMisses() + framing.stats().errorsSent(), framing.stats().toString());
        SocketAddress peer = peers.poll(TIMEOUT, TimeUnit.SECONDS);
        assertInstanceOf(InetSocketAddress.class, peer);
    }

    /**
     * The native path's guarantees hold in byte mode: the byte-framed responder's grant bounds the requester's calls
     * in flight, none over it (RFC 8166 §3.3.1); a reply whose DDP-eligible item the binding placed in the call's only
     * chunk, a Write chunk, is sent with Send With Invalidate where both peers set R (RFC 8797 §4.1), else the
     * client invalidates locally.
     */
    @Test
    void creditsAndRemoteInvalidationHoldInByteMode() throws Exception {
        RpcStats serverRpcStats = new RpcStats();
        RpcDispatcher dispatcher = new RpcDispatcher(EchoService.registry(), serverRpcStats);
        RpcRdmaFraming framing = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT.withGrantBounds(1, 4))
                .withBinding(ECHO_BINDING).withRecordMarks(true);
        Channel server = bind(framing.server(p -> p.addLast(new RecordMarkingEncoder(1 << 20),
                new RpcMessageDecoder(serverRpcStats), new RpcMessageEncoder(), dispatcher)));
        RpcRdmaStats clientStats = new RpcRdmaStats();
        Channel c = connect(server.localAddress(), new RpcRdmaClientInitializer(new RpcStats(),
                RpcRdmaConfig.DEFAULT, clientStats, Duration.ofSeconds(TIMEOUT)));
        RpcClient client = RpcClient.of(c);

        XdrPayload args = client.newPayload();
        args.writer().writeInt(50_000);
        byte[] filled = client.call(PROG, VERS, FILL, args, EchoService::readDdpBytes,
                CallOptions.DEFAULT.withReplyHints(50_000, 0)).get(TIMEOUT, TimeUnit.SECONDS);
        assertArrayEquals(pattern(50_000, 50_000), filled);
        assertEquals(1, framing.stats().writeChunksUsed(), framing.stats().toString());
        if (((RdmaChannel) c).remoteInvalidationSupported()) {
            assertEquals(1, framing.stats().remoteInvalidations(), framing.stats().toString());
            assertEquals(1, clientStats.remoteInvalidations(), clientStats.toString());
            assertEquals(0, clientStats.localInvalidations(), clientStats.toString());
        } else {
            assertEquals(0, framing.stats().remoteInvalidations(), framing.stats().toString());
            assertEquals(1, clientStats.localInvalidations(), clientStats.toString());
        }

        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            XdrPayload echoArgs = client.newPayload();
            echoArgs.writeDdpOpaque(client.alloc().buffer(100).writeBytes(pattern(100, i)));
            calls.add(client.call(PROG, VERS, ECHO, echoArgs, EchoService::readDdpBytes, CallOptions.DEFAULT));
        }
        for (int i = 0; i < 32; i++) {
            assertArrayEquals(pattern(100, i), calls.get(i).get(TIMEOUT, TimeUnit.SECONDS));
        }
        RpcRdmaRequester requester = c.pipeline().get(RpcRdmaRequester.class);
        assertEquals(4, requester.creditGrant());
        assertTrue(requester.maxOutstandingSeen() <= 4, "outstanding " + requester.maxOutstandingSeen());
        assertEquals(0, framing.stats().creditViolations() + framing.stats().errorsSent(), framing.stats().toString());
    }

    /**
     * A binding that cannot locate a reply's items: the reply goes into the call's Reply chunk whole (logged,
     * counted); without a Reply chunk large enough the call gets ERR_CHUNK, never a broken Send.
     */
    @Test
    void aReplyTheBindingCannotPlaceGoesToTheReplyChunkOrErrChunk() throws Exception {
        UpperLayerBinding lost = new UpperLayerBinding() {
            @Override
            public String name() {
                return "lost";
            }

            @Override
            public int replyItems(int program, int version, int procedure, ByteBuf reply, int[] items) {
                return UNKNOWN;
            }

            @Override
            public int callItems(ByteBuf call, int[] items) {
                return 0;
            }
        };
        RpcStats serverRpcStats = new RpcStats();
        RpcDispatcher dispatcher = new RpcDispatcher(EchoService.registry(), serverRpcStats);
        RpcRdmaFraming framing = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBinding(lost).withRecordMarks(true);
        Channel server = bind(framing.server(p -> p.addLast(new RecordMarkingEncoder(1 << 20),
                new RpcMessageDecoder(serverRpcStats), new RpcMessageEncoder(), dispatcher)));
        Channel c = connect(server.localAddress(), new RpcRdmaClientInitializer());
        RpcClient client = RpcClient.of(c);
        XdrPayload args = client.newPayload();
        args.writer().writeInt(50_000);
        byte[] filled = client.call(PROG, VERS, FILL, args, EchoService::readDdpBytes,
                CallOptions.DEFAULT.withReplyHints(50_000, 60_000)).get(TIMEOUT, TimeUnit.SECONDS);
        assertArrayEquals(pattern(50_000, 50_000), filled);
        assertEquals(1, framing.stats().bindingMisses());
        assertEquals(1, framing.stats().longReplies());

        XdrPayload args2 = client.newPayload();
        args2.writer().writeInt(50_000);
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> client.call(PROG, VERS, FILL, args2, EchoService::readDdpBytes,
                        CallOptions.DEFAULT.withReplyDdpItems(50_000).withMaxReplySize(1000))
                        .get(TIMEOUT, TimeUnit.SECONDS));
        // The call declared its maximum reply size: it fails as over TCP, the ERR_CHUNK as the cause.
        assertInstanceOf(RpcRdmaErrorException.class, assertInstanceOf(
                dev.rpcrdma.oncrpc.client.RpcReplyTooLargeException.class, e.getCause()).getCause());
        // A reply that fits no chunk the call offered (its small maximum asked for none): ERR_CHUNK (RFC 8166 §4.5.3).
        assertEquals(1, framing.stats().errorsSent());
        // The connection survives.
        assertArrayEquals(pattern(10, 3), echo(client, pattern(10, 3), CallOptions.DEFAULT));
    }

    /**
     * A byte-framed client (it writes encoded RPC calls, with record marks, and reads whole replies) against our
     * native server: a small call inline, a 200 kB argument as a Long Call, a DDP-eligible argument moved into a
     * Read chunk by the binding, and a 300 kB reply in the Reply chunk it offers.
     */
    @Test
    void aByteFramedClientCallsANativeServer() throws Exception {
        RpcRdmaStats serverStats = new RpcRdmaStats();
        Channel server = bind(new RpcRdmaServerInitializer(new RpcDispatcher(EchoService.registry(), new RpcStats()),
                RpcRdmaConfig.DEFAULT, serverStats));
        BlockingQueue<ByteBuf> replies = new LinkedBlockingQueue<>();
        RpcRdmaFraming framing = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBinding(ECHO_BINDING)
                .withRecordMarks(true);
        Channel c = connect(server.localAddress(), framing.client(p -> p.addLast(collect(replies))));
        try {
            XdrPayload small = XdrPayload.newPayload(c.alloc());
            small.writer().writeOpaque(pattern(50, 5));
            InboundRpcMessage r1 = call(c, replies, 11, PLAIN_SUM, small);
            assertEquals(50, r1.body().readInt());
            r1.release();

            XdrPayload large = XdrPayload.newPayload(c.alloc());
            large.writer().writeOpaque(pattern(200_000, 6));
            InboundRpcMessage r2 = call(c, replies, 12, PLAIN_SUM, large);
            assertEquals(200_000, r2.body().readInt());
            r2.release();
            assertEquals(1, framing.stats().longCalls(), framing.stats().toString());

            XdrPayload ddp = XdrPayload.newPayload(c.alloc());
            ddp.writer().writeOpaque(pattern(100_000, 7));
            InboundRpcMessage r3 = call(c, replies, 13, ECHO, ddp);
            assertArrayEquals(pattern(100_000, 7), r3.body().readOpaque(EchoService.MAX));
            r3.release();
            assertEquals(2, framing.stats().readChunks(), framing.stats().toString());

            XdrPayload fill = XdrPayload.newPayload(c.alloc());
            fill.writer().writeInt(300_000);
            InboundRpcMessage r4 = call(c, replies, 14, PLAIN_FILL, fill);
            assertArrayEquals(pattern(300_000, 300_000), r4.body().readOpaque(EchoService.MAX));
            r4.release();
            assertEquals(2, serverStats.longReplies(), serverStats.toString()); // the echo and the fill
        } finally {
            ByteBuf b;
            while ((b = replies.poll()) != null) {
                b.release();
            }
        }
    }

    /**
     * The backchannel in bytes both ways: the server's pipeline writes an encoded RPC call on the connection, the
     * byte-framed client receives it as a whole message and writes its reply, which comes back to the server's
     * pipeline as a whole message.
     */
    @Test
    void backwardCallsTravelAsBytesBothWays() throws Exception {
        BlockingQueue<ByteBuf> serverInbound = new LinkedBlockingQueue<>();
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        RpcRdmaFraming serverFraming = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBackchannel();
        Channel server = bind(serverFraming.server(p -> {
            accepted.add(p.channel());
            p.addLast(collect(serverInbound));
        }));
        BlockingQueue<ByteBuf> clientInbound = new LinkedBlockingQueue<>();
        RpcRdmaFraming clientFraming = RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBackchannel()
                .withRecordMarks(true);
        Channel c = connect(server.localAddress(), clientFraming.client(p -> p.addLast(collect(clientInbound))));
        // A forward call first: the client speaks first (iWARP's rule), and the server learns the connection.
        XdrPayload none = XdrPayload.newPayload(c.alloc());
        c.writeAndFlush(encode(c, OutboundRpcMessage.newCall(21, PROG, VERS, 0, OpaqueAuth.NONE, new int[0], 0, none),
                true)).sync();
        ByteBuf forward = serverInbound.poll(TIMEOUT, TimeUnit.SECONDS);
        assertNotNull(forward);
        assertEquals(0, forward.readerIndex());
        assertEquals(21, forward.getInt(0));
        forward.release();
        Channel sc = accepted.poll(TIMEOUT, TimeUnit.SECONDS);

        XdrPayload cbArgs = XdrPayload.newPayload(sc.alloc());
        cbArgs.writer().writeInt(0xCAFE);
        sc.writeAndFlush(encode(sc, OutboundRpcMessage.newCall(0x7000_0001, 0x40000000, 1, 1, OpaqueAuth.NONE,
                new int[0], 0, cbArgs), false)).sync();
        ByteBuf backwardCall = clientInbound.poll(TIMEOUT, TimeUnit.SECONDS);
        assertNotNull(backwardCall);
        InboundRpcMessage decoded = RpcMessageCodec.decode(backwardCall);
        assertEquals(0x7000_0001, decoded.header().xid());
        assertEquals(0xCAFE, decoded.body().readInt());
        decoded.release();

        XdrPayload cbResults = XdrPayload.newPayload(c.alloc());
        cbResults.writer().writeInt(0xBEEF);
        c.writeAndFlush(encode(c, new OutboundRpcMessage(RpcReply.accepted(0x7000_0001, OpaqueAuth.NONE,
                AcceptStat.SUCCESS), cbResults), true)).sync();
        ByteBuf backwardReply = serverInbound.poll(TIMEOUT, TimeUnit.SECONDS);
        assertNotNull(backwardReply);
        InboundRpcMessage r = RpcMessageCodec.decode(backwardReply);
        assertEquals(0x7000_0001, r.header().xid());
        assertEquals(0xBEEF, r.body().readInt());
        r.release();
    }

    private static byte[] echo(RpcClient client, byte[] data, CallOptions options) throws Exception {
        XdrPayload args = client.newPayload();
        args.writeDdpOpaque(client.alloc().buffer(data.length).writeBytes(data));
        return client.call(PROG, VERS, ECHO, args, EchoService::readDdpBytes, options).get(TIMEOUT, TimeUnit.SECONDS);
    }

    /** Writes one record-marked call and returns its decoded reply (checked: whole, at reader index 0, SUCCESS). */
    private static InboundRpcMessage call(Channel c, BlockingQueue<ByteBuf> replies, int xid, int proc,
                                          XdrPayload args) throws Exception {
        c.writeAndFlush(encode(c, OutboundRpcMessage.newCall(xid, PROG, VERS, proc, OpaqueAuth.NONE, new int[0], 0,
                args), true)).sync();
        ByteBuf reply = replies.poll(TIMEOUT, TimeUnit.SECONDS);
        assertNotNull(reply, "no reply to xid " + xid);
        assertEquals(0, reply.readerIndex());
        assertEquals(xid, reply.getInt(0));
        InboundRpcMessage m = RpcMessageCodec.decode(reply);
        assertEquals(AcceptStat.SUCCESS, ((RpcReply) m.header()).acceptStat(), m.toString());
        return m;
    }

    /** {@code m} encoded (and released), with a single-fragment record mark when {@code marked}. */
    private static ByteBuf encode(Channel c, OutboundRpcMessage m, boolean marked) {
        try {
            ByteBuf b = RpcMessageCodec.encodeInline(c.alloc(), m, 4);
            if (marked) {
                b.setInt(0, 0x8000_0000 | b.readableBytes()).readerIndex(0);
            }
            return b;
        } finally {
            m.release();
        }
    }

    private static ChannelInboundHandlerAdapter collect(BlockingQueue<ByteBuf> into) {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                into.add((ByteBuf) msg);
            }
        };
    }
}
