package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.RdmaWorkRequestException;
import dev.rpcrdma.channel.RdmaWrite;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcTimeoutException;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import static dev.rpcrdma.handlers.e2e.EchoService.BOTH;
import static dev.rpcrdma.handlers.e2e.EchoService.FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PLAIN_FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;
import static dev.rpcrdma.handlers.e2e.EchoService.hash;
import static dev.rpcrdma.handlers.e2e.EchoService.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our requester against a hand-written responder and our responder against a hand-written requester: chunk keys and
 * their lifetime, late replies, ERR_VERS, malformed replies, unrecognisable private data, several and multi-segment
 * chunks, the credit grant.
 */
abstract class RpcRdmaHandWrittenPeerSuite extends RpcRdmaFixture {
    RpcRdmaHandWrittenPeerSuite(TestFabric testFabric) {
        super(testFabric);
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

    @Test
    void aWriteChunkKeyWorksDuringTheRpcAndFailsRemotelyAfterIt() throws Exception {
        RogueResponder rogue = startRogue((ctx, call) -> {
            RdmaSegment s = call.writeList().get(0).segments().get(0);
            RdmaMemory m = ((RogueResponder) ctx.handler()).memory.join();
            // During the RPC the Write chunk accepts an RDMA Write...
            ctx.write(new RdmaWrite(m, 0, 16, s.offset(), s.handle()));
            RpcRdmaHeader h = RpcRdmaHeader.msg(call.xid(), 8, List.of(),
                    List.of(WriteChunk.of(new RdmaSegment(s.handle(), 16, s.offset()))), null);
            return reply(ctx, h, 16);
        });
        byte[] got = get(fill(FILL, 16, hints(4096, 0)));
        byte[] expected = java.util.Arrays.copyOf(pattern(4096, 77), 16);
        assertArrayEquals(expected, got, "the data the peer wrote into the Write chunk");
        assertEquals(1, clientStats.localInvalidations(), "no Send With Invalidate: the requester invalidated");
        RpcRdmaHeader call = rogue.calls.take();
        RdmaSegment s = call.writeList().get(0).segments().get(0);
        RdmaMemory m = rogue.memory.get(TIMEOUT, TimeUnit.SECONDS);
        // ...and after it the same key is refused by the requester's device.
        ChannelFuture late = m.channel().writeAndFlush(new RdmaWrite(m, 0, 16, s.offset(), s.handle()));
        assertTrue(late.await(TIMEOUT, TimeUnit.SECONDS));
        if (m.channel().iwarp()) {
            // iWARP: a Write is complete at the requester once it was sent (RFC 5040 §5); the requester's device
            // answers the dead STag with a TERMINATE (RFC 5040 §7.4), which ends the connection at both sides.
            assertTrue(late.isSuccess() || late.cause() instanceof RdmaWorkRequestException,
                    String.valueOf(late.cause()));
            assertTrue(m.channel().closeFuture().await(TIMEOUT, TimeUnit.SECONDS), "the responder's connection ends");
            assertTrue(client.channel().closeFuture().await(TIMEOUT, TimeUnit.SECONDS),
                    "the requester's connection ends");
            return;
        }
        assertEquals(WcStatus.REM_ACCESS_ERR, assertInstanceOf(RdmaWorkRequestException.class, late.cause())
                .status());
    }

    @Test
    void aTimedOutCallKeepsItsCreditAndExposureUntilItsLateReply() throws Exception {
        CompletableFuture<Void> answerNow = new CompletableFuture<>();
        CompletableFuture<ChannelFuture> lateWrite = new CompletableFuture<>();
        startRogue((ctx, call) -> {
            answerNow.thenRun(() -> ctx.executor().execute(() -> {
                RdmaSegment s = call.writeList().get(0).segments().get(0);
                RdmaMemory m = ((RogueResponder) ctx.handler()).memory.join();
                // After the RPC layer gave up, the chunk must still be exposed (its memory not reused).
                lateWrite.complete(ctx.write(new RdmaWrite(m, 0, 16, s.offset(), s.handle())));
                ctx.writeAndFlush(reply(ctx, RpcRdmaHeader.msg(call.xid(), 8, List.of(),
                        List.of(WriteChunk.of(new RdmaSegment(s.handle(), 16, s.offset()))), null), 16));
            }));
            return null;
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(fill(FILL, 16,
                hints(4096, 0).withTimeout(Duration.ofMillis(300)))));
        assertInstanceOf(RpcTimeoutException.class, e.getCause());
        assertEquals(1, (int) onClientLoop(() -> requester().outstandingCalls()), "the credit stays consumed");
        assertEquals(0, clientStats.localInvalidations() + clientStats.remoteInvalidations(),
                "the Write chunk stays exposed: the responder may still write into it");
        answerNow.complete(null);
        ChannelFuture write = lateWrite.get(TIMEOUT, TimeUnit.SECONDS);
        assertTrue(write.await(TIMEOUT, TimeUnit.SECONDS));
        assertTrue(write.isSuccess(), "the late RDMA Write into the timed-out call's chunk: " + write.cause());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT);
        // The reply goes up once its exposure ended (after a Local Invalidate where the device has one).
        while ((onClientLoop(() -> requester().outstandingCalls()) != 0
                || client.handler().stats().unknownXidReplies() == 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, (int) onClientLoop(() -> requester().outstandingCalls()), "the late reply freed the credit");
        assertEquals(1, clientStats.localInvalidations(), "and ended the exposure");
        assertEquals(1, client.handler().stats().unknownXidReplies(), "the RPC layer dropped the late reply");
        // The connection goes on.
        assertTrue(client.channel().isActive());
    }

    @Test
    void errVersFromThePeerFailsTheCallWithItsVersionRange() throws Exception {
        // A responder that speaks only versions 2..3 answers every call with RDMA_ERROR ERR_VERS (RFC 8166 §4.5.1).
        startRogue((ctx, call) -> {
            ByteBuf b = ctx.alloc().directBuffer();
            RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.errVers(call.xid(), 1, 8, 2, 3), b);
            return b;
        });
        for (int i = 0; i < 2; i++) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(fill(FILL, 100,
                    hints(4096, 0))));
            RpcRdmaErrorException err = assertInstanceOf(RpcRdmaErrorException.class, e.getCause(), e.toString());
            assertEquals(RdmaErrorCode.ERR_VERS, err.code());
            assertEquals(2, err.lowVersion());
            assertEquals(3, err.highVersion());
        }
        assertEquals(2, clientStats.errorsReceived());
        assertEquals(2, clientStats.localInvalidations(), "each RPC's Write chunk was invalidated");
        assertEquals(0, (int) onClientLoop(() -> requester().outstandingCalls()));
        assertTrue(client.channel().isActive(), "RDMA_ERROR fails the RPC, not the connection");
    }

    @Test
    void aReplyWriteChunkLongerThanProvisionedIsDiscarded() throws Exception {
        startRogue((ctx, call) -> {
            RdmaSegment s = call.writeList().get(0).segments().get(0);
            RpcRdmaHeader h = RpcRdmaHeader.msg(call.xid(), 8, List.of(),
                    List.of(WriteChunk.of(new RdmaSegment(s.handle(), s.length() + 8, s.offset()))), null);
            return reply(ctx, h, 0);
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(fill(FILL, 16,
                hints(1024, 0).withTimeout(Duration.ofMillis(500)))));
        assertInstanceOf(RpcTimeoutException.class, e.getCause());
        assertEquals(1, clientStats.discardedMessages());
    }

    @Test
    void aReplyWithMoreWriteChunksThanTheCallProvidedIsDiscarded() throws Exception {
        startRogue((ctx, call) -> {
            WriteChunk w = call.writeList().get(0);
            RpcRdmaHeader h = RpcRdmaHeader.msg(call.xid(), 8, List.of(), List.of(w, w), null);
            return reply(ctx, h, 0);
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(fill(FILL, 16,
                hints(1024, 0).withTimeout(Duration.ofMillis(500)))));
        assertInstanceOf(RpcTimeoutException.class, e.getCause());
        assertEquals(1, clientStats.discardedMessages());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clientPrivateData")
    void unrecognisablePrivateDataMeansRfc8166Defaults(String kind, byte[] privateData, boolean recognised)
            throws Exception {
        serverStats = new RpcRdmaStats();
        RpcRdmaServerInitializer init = new RpcRdmaServerInitializer(
                new RpcDispatcher(EchoService.registry(), new RpcStats()), RpcRdmaConfig.DEFAULT, serverStats);
        Channel server = init.configure(new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childHandler(init)).bind(new InetSocketAddress(address(), 0)).sync().channel();
        channels.add(server);
        BlockingQueue<RdmaReceive> received = new LinkedBlockingQueue<>();
        RdmaChannel c = (RdmaChannel) new Bootstrap().group(group).channel(RdmaChannel.class)
                .option(RdmaChannelOption.PRIVATE_DATA, privateData)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        received.add((RdmaReceive) msg);
                    }
                }).connect(server.localAddress()).sync().channel();
        channels.add(c);
        RpcRdmaPrivateData accepted = RpcRdmaPrivateData.find(c.peerPrivateData());
        assertEquals(RpcRdmaPrivateData.of(true, 4096, 4096), accepted, "the server's accept private data");
        // A 2000-byte reply fits the 4 KiB the valid private data advertises, not the 1 KiB default.
        ByteBuf call = c.alloc().directBuffer();
        RpcRdmaHeaderEncoder.encode(RpcRdmaHeader.msg(0x5151, 8), call);
        call.writeInt(0x5151).writeInt(0).writeInt(2).writeInt(PROG).writeInt(VERS).writeInt(PLAIN_FILL)
                .writeLong(0).writeLong(0).writeInt(2000);
        c.writeAndFlush(call).sync();
        RdmaReceive r = received.poll(TIMEOUT, TimeUnit.SECONDS);
        assertNotNull(r, "an answer");
        try {
            RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(r.content());
            assertEquals(0x5151, h.xid());
            if (recognised) {
                assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
                assertEquals(2000 + 28, r.content().readableBytes());
            } else {
                assertEquals(RdmaProcedure.RDMA_ERROR, h.procedure(), kind);
                assertEquals(RdmaErrorCode.ERR_CHUNK, h.errorCode());
            }
            assertFalse(r.hasInvalidatedRkey());
        } finally {
            r.release();
        }
    }

    @Test
    void severalReadChunksInOneCallWithOddLengths() throws Exception {
        start();
        byte[] a = pattern(5001, 3);
        byte[] b = pattern(7003, 4);
        XdrPayload args = client.newPayload();
        args.writeDdpOpaque(client.alloc().buffer().writeBytes(a));
        args.writer().writeInt(0x5eed);
        args.writeDdpOpaque(client.alloc().buffer().writeBytes(b));
        int[] r = get(client.call(PROG, VERS, EchoService.SUM2, args,
                x -> new int[] {x.readInt(), x.readInt(), x.readInt(), x.readInt(), x.readInt()}));
        assertArrayEquals(new int[] {a.length, hash(a), 0x5eed, b.length, hash(b)}, r);
        assertEquals(2, serverStats.readChunks(), "two Read chunks, pads re-inserted by the responder");
    }

    @Test
    void responderFillsSeveralWriteChunksAndMultiSegmentChunks() throws Exception {
        RdmaChannel[] c = new RdmaChannel[1];
        RdmaMemory[] m = new RdmaMemory[1];
        ByteBuf[] inline = new ByteBuf[1];
        // Chunk 0: two segments (500 + 1500 bytes at 0 and 8192); chunk 1: one segment of 3000 at 16384.
        RpcRdmaHeader h = callWithChunks(EchoService.TWO, 1201, 2999, List.of(
                WriteChunk.of(new RdmaSegment(0, 500, 0), new RdmaSegment(0, 1500, 8192)),
                WriteChunk.of(new RdmaSegment(0, 3000, 16384))), null, c, m, inline);
        try {
            assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
            assertEquals(2, h.writeList().size());
            WriteChunk w0 = h.writeList().get(0);
            assertEquals(2, w0.segments().size());
            assertEquals(500, w0.segments().get(0).length());
            assertEquals(701, w0.segments().get(1).length(), "the second segment holds the rest, no pad");
            assertEquals(2999, h.writeList().get(1).totalLength());
            byte[] first = new byte[1201];
            System.arraycopy(at(m[0], 0, 500), 0, first, 0, 500);
            System.arraycopy(at(m[0], 8192, 701), 0, first, 500, 701);
            assertArrayEquals(pattern(1201, 1), first);
            assertArrayEquals(pattern(2999, 2), at(m[0], 16384, 2999));
            // Inline after the transport header: the RPC reply header (24 bytes), then the two length words only.
            assertEquals(24 + 8, inline[0].readableBytes());
            assertEquals(1201, inline[0].getInt(24));
            assertEquals(2999, inline[0].getInt(28));
            assertEquals(2, serverStats.writeChunksUsed());
        } finally {
            inline[0].release();
        }
    }

    @Test
    void anEmptyWriteChunkKeepsItsItemInlineAndTheNextItemGoesToTheNextChunk() throws Exception {
        RdmaChannel[] c = new RdmaChannel[1];
        RdmaMemory[] m = new RdmaMemory[1];
        ByteBuf[] inline = new ByteBuf[1];
        // RFC 8166 §4.3.2.3: chunk 0 is empty (segment count 0), so item 0 must come back inline and chunk 0 empty;
        // item 1 still goes into chunk 1 (§4.3.2.1: chunks match items by position).
        RpcRdmaHeader h = callWithChunks(EchoService.TWO, 301, 2999, List.of(new WriteChunk(List.of()),
                WriteChunk.of(new RdmaSegment(0, 3000, 16384))), null, c, m, inline);
        try {
            assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
            assertEquals(2, h.writeList().size());
            assertEquals(0, h.writeList().get(0).segments().size(), "the empty chunk comes back empty");
            assertEquals(2999, h.writeList().get(1).totalLength());
            assertArrayEquals(pattern(2999, 2), at(m[0], 16384, 2999));
            // Inline: RPC reply header (24), item 0 whole (length word, 301 bytes, 3 pad), item 1's length word.
            assertEquals(24 + 4 + 304 + 4, inline[0].readableBytes());
            assertEquals(301, inline[0].getInt(24));
            byte[] first = new byte[301];
            inline[0].getBytes(28, first);
            assertArrayEquals(pattern(301, 1), first);
            assertEquals(2999, inline[0].getInt(24 + 4 + 304));
            assertEquals(1, serverStats.writeChunksUsed());
        } finally {
            inline[0].release();
        }
    }

    @Test
    void unusedWriteChunkComesBackWithZeroLengths() throws Exception {
        RdmaChannel[] c = new RdmaChannel[1];
        RdmaMemory[] m = new RdmaMemory[1];
        ByteBuf[] inline = new ByteBuf[1];
        // FILL returns one DDP item: the second chunk is unused (RFC 8166 §3.4.6).
        RpcRdmaHeader h = callWithChunks(FILL, 100, 0, List.of(WriteChunk.of(new RdmaSegment(0, 1000, 0)),
                WriteChunk.of(new RdmaSegment(0, 1000, 4096), new RdmaSegment(0, 8, 8192))), null, c, m, inline);
        try {
            assertEquals(2, h.writeList().size());
            assertEquals(100, h.writeList().get(0).totalLength());
            WriteChunk unused = h.writeList().get(1);
            assertEquals(2, unused.segments().size(), "segment count kept");
            assertEquals(0, unused.totalLength());
            assertArrayEquals(pattern(100, 100), at(m[0], 0, 100));
        } finally {
            inline[0].release();
        }
    }

    @Test
    void longReplyIntoAProvidedReplyChunkTogetherWithAWriteList() throws Exception {
        RdmaChannel[] c = new RdmaChannel[1];
        RdmaMemory[] m = new RdmaMemory[1];
        ByteBuf[] inline = new ByteBuf[1];
        RpcRdmaHeader h = callWithChunks(BOTH, 9000, 3000, List.of(WriteChunk.of(new RdmaSegment(0, 4000, 0))),
                WriteChunk.of(new RdmaSegment(0, 20000, 8192)), c, m, inline);
        try {
            assertEquals(RdmaProcedure.RDMA_NOMSG, h.procedure());
            assertEquals(3000, h.writeList().get(0).totalLength());
            long replyLength = h.replyChunk().totalLength();
            // RPC reply header (24) + opaque 9000 (4 + 9000) + DDP length word (4), the DDP data in the Write chunk.
            assertEquals(24 + 4 + 9000 + 4, replyLength);
            byte[] reply = at(m[0], 8192, (int) replyLength);
            assertEquals(0x6161, java.nio.ByteBuffer.wrap(reply).getInt());
            assertArrayEquals(pattern(9000, 1), java.util.Arrays.copyOfRange(reply, 28, 9028));
            assertArrayEquals(pattern(3000, 2), at(m[0], 0, 3000));
            assertEquals(0, inline[0].readableBytes(), "nothing inline after the NOMSG header");
        } finally {
            inline[0].release();
        }
    }

    @Test
    void theGrantNeverExceedsThePostedReceives() throws Exception {
        start(RpcRdmaConfig.DEFAULT.withGrantBounds(1, 64), RpcRdmaConfig.DEFAULT,
                b -> b.childOption(RdmaChannelOption.RECEIVE_QUEUE_DEPTH, 8));
        get(client.callNull(PROG, VERS));
        assertEquals(8, requester().creditGrant(), "asked for 128, bounds allow 64, 8 receives posted");
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            calls.add(client.callNull(PROG, VERS));
        }
        for (CompletableFuture<Void> f : calls) {
            get(f);
        }
        assertTrue(requester().maxOutstandingSeen() <= 8);
        assertEquals(0, serverStats.creditViolations());
    }
}
