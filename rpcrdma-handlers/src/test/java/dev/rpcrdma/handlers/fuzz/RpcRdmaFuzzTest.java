package dev.rpcrdma.handlers.fuzz;

import dev.rpcrdma.handlers.requester.RequesterSetup;
import dev.rpcrdma.handlers.responder.ResponderSetup;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.FakeRdmaConnection;
import dev.rpcrdma.handlers.RdmaReceiveHandler;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.backchannel.BackwardResponder;
import dev.rpcrdma.handlers.backchannel.BackwardSetup;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderException;
import dev.rpcrdma.handlers.header.RpcRdmaLimits;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.handlers.responder.RpcRdmaResponder;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcClientHandler;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProcedure;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.testing.BoundedAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Coverage-guided fuzz targets (Jazzer) for what RPC-over-RDMA reads from a peer: the transport header with its
 * chunk lists (RFC 8166 §4.1-§4.5), the RFC 8797 private data, and a whole received Send (header, chunk lists and
 * RPC message) handled by the responder (with this project's codec, and in byte framing with RFC 8267's NFS binding,
 * {@link #byteResponder}) and by the requester (a reply to its pending call, or a backward call served
 * by its {@link BackwardResponder}, RFC 8167) over an {@link EmbeddedChannel} with a
 * {@link FakeRdmaConnection}. Plain {@code mvn test} replays the corpus under
 * {@code src/test/resources/.../RpcRdmaFuzzTestInputs/<target>/}; {@code JAZZER_FUZZ=1} fuzzes one target. The
 * invariants: only {@link RpcRdmaHeaderException} escapes the decoder; in the pipelines nothing reaches
 * {@link RdmaReceiveHandler}'s "unexpected error" path (a JUL handler watches its logger) and no exception reaches
 * the pipeline's tail; every buffer is released; no allocation exceeds the negotiated bounds
 * ({@link BoundedAllocator}). Single-threaded.
 */
class RpcRdmaFuzzTest {

    static final int PROG = 0x20000123;
    static final int CB_PROG = 0x40000000;
    /** The largest RPC message the pipelines accept here: every allocation must stay within it plus slack. */
    static final int MAX_MESSAGE = 64 * 1024;

    /** Records what reaches {@link RdmaReceiveHandler}'s logger: only the "unexpected error" path logs there. */
    static final class Unexpected extends Handler {
        final List<LogRecord> records = new ArrayList<>();

        @Override
        public synchronized void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    private static final Logger RECEIVE_LOGGER = Logger.getLogger(RdmaReceiveHandler.class.getName());
    private static final Unexpected UNEXPECTED = new Unexpected();

    @BeforeAll
    static void watch() {
        RECEIVE_LOGGER.addHandler(UNEXPECTED);
    }

    @AfterAll
    static void unwatch() {
        RECEIVE_LOGGER.removeHandler(UNEXPECTED);
    }

    /** Fails the input if a handler threw or reached the unexpected-error path. */
    static final class Watch extends ChannelInboundHandlerAdapter {
        final List<Throwable> exceptions = new ArrayList<>();

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            exceptions.add(cause);
        }

        void check() {
            synchronized (UNEXPECTED) {
                if (!UNEXPECTED.records.isEmpty()) {
                    LogRecord r = UNEXPECTED.records.get(0);
                    UNEXPECTED.records.clear();
                    fail("unexpected error in a receive handler: " + r.getMessage(), r.getThrown());
                }
            }
            if (!exceptions.isEmpty()) {
                fail("exception reached the pipeline's end", exceptions.get(0));
            }
        }
    }

    static RpcRdmaConfig config() {
        return RpcRdmaConfig.DEFAULT.withLimits(RpcRdmaLimits.DEFAULT, MAX_MESSAGE);
    }

    /** The decoder alone: a header whose every list respects the limits and the bytes received, or its exception. */
    @FuzzTest(maxDuration = "10s")
    void headerDecoder(byte[] data) {
        ByteBuf in = Unpooled.wrappedBuffer(data);
        try {
            RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(in);
            RpcRdmaLimits limits = RpcRdmaLimits.DEFAULT;
            assertTrue(h.readList().size() <= data.length / 24, "each read segment took 24 received bytes");
            for (ReadSegment s : h.readList()) {
                assertTrue((s.position() & 3) == 0, "XDR-aligned position");
            }
            for (WriteChunk c : h.writeList()) {
                for (RdmaSegment s : c.segments()) {
                    assertTrue(s.length() >= 0);
                }
            }
            assertTrue(h.writeList().size() <= limits.maxWriteChunks() + 0L);
            assertTrue(in.readerIndex() <= data.length);
        } catch (RpcRdmaHeaderException expected) {
            // The declared failure: discard or answer with RDMA_ERROR (RFC 8166 §4.5).
        } finally {
            in.release();
        }
    }

    /**
     * RFC 8267's NFS binding on arbitrary bytes after a valid RPC header: it locates items inside the message or
     * throws {@code XdrException}; never an unchecked exception, an out-of-bounds read or an allocation sized by the
     * input; the located items always make a payload whose inline encoding is the message itself. {@code data[0]}
     * picks the message ({@code & 7}: replies to NFSv3 READ, NFSv3 READLINK, NFSv2 READ, NFSv4 COMPOUND (twice);
     * calls of NFSv3, NFSv2, NFSv4 COMPOUND; for NFSv2 and v3 calls, bit 3: WRITE or SYMLINK); the rest is the body.
     */
    @FuzzTest(maxDuration = "10s")
    void nfsBinding(byte[] data) {
        if (data.length < 1) {
            return;
        }
        int mode = data[0] & 7;
        boolean symlink = (data[0] & 8) != 0;
        boolean isCall = mode >= 5;
        ByteBuf m = Unpooled.buffer(data.length + 64);
        if (isCall) {
            // NFSv3 WRITE 7, SYMLINK 10 (RFC 1813); NFSv2 WRITE 8, SYMLINK 13 (RFC 1094); NFSv4 COMPOUND 1.
            int procedure = mode == 7 ? 1 : mode == 5 ? (symlink ? 10 : 7) : (symlink ? 13 : 8);
            m.writeInt(1).writeInt(0).writeInt(2).writeInt(100003).writeInt(mode == 5 ? 3 : mode == 6 ? 2 : 4)
                    .writeInt(procedure)
                    .writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        } else {
            m.writeInt(1).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        }
        m.writeBytes(data, 1, data.length - 1);
        int[] items = new int[2 * dev.rpcrdma.handlers.binding.UpperLayerBinding.MAX_ITEMS];
        dev.rpcrdma.handlers.binding.UpperLayerBinding nfs = dev.rpcrdma.handlers.binding.UpperLayerBinding.nfs();
        int version = mode == 0 || mode == 1 ? 3 : mode == 2 ? 2 : 4;
        int procedure = mode == 0 ? 6 : mode == 1 ? 5 : mode == 2 ? 6 : 1;
        try {
            int n = isCall ? nfs.callItems(m, items) : nfs.replyItems(100003, version, procedure, m, items);
            if (n <= 0) {
                return;
            }
            for (int i = 0; i < n; i++) {
                assertTrue(items[2 * i] >= 4 && items[2 * i] + (long) items[2 * i + 1] <= m.readableBytes(),
                        "item " + i + " inside the message");
            }
            byte[] original = new byte[m.readableBytes()];
            m.getBytes(0, original);
            XdrPayload p = XdrPayload.slices(io.netty.buffer.ByteBufAllocator.DEFAULT, m.retain(), items, n);
            try {
                ByteBuf inline = p.toInlineBuffer(io.netty.buffer.ByteBufAllocator.DEFAULT);
                assertTrue(inline.readableBytes() == original.length, "the same length inline");
                inline.release();
            } finally {
                p.release();
            }
        } catch (dev.rpcrdma.oncrpc.xdr.XdrException expected) {
            // The declared failure: the reply goes to the Reply chunk or ERR_CHUNK; the call inline or Long Call.
        } finally {
            m.release();
        }
    }

    /** RFC 8797 §4 private data: found, or the defaults; never an exception, sizes always within §4.1's range. */
    @FuzzTest(maxDuration = "10s")
    void privateData(byte[] data) {
        RpcRdmaPrivateData p = RpcRdmaPrivateData.parseOrDefaults(data);
        assertTrue(p.sendSize() >= RpcRdmaPrivateData.MIN_INLINE_SIZE
                && p.sendSize() <= RpcRdmaPrivateData.MAX_INLINE_SIZE);
        assertTrue(p.receiveSize() >= RpcRdmaPrivateData.MIN_INLINE_SIZE
                && p.receiveSize() <= RpcRdmaPrivateData.MAX_INLINE_SIZE);
        InlineThresholds.negotiate(RpcRdmaPrivateData.DEFAULTS, p);
    }

    /** Cuts {@code data[1..]} into 1 + (data[0] &amp; 3) Sends of equal size. */
    static List<byte[]> sends(byte[] data) {
        List<byte[]> out = new ArrayList<>();
        if (data.length < 2) {
            return out;
        }
        int n = 1 + (data[0] & 3);
        int size = Math.max(1, (data.length - 1 + n - 1) / n);
        for (int i = 1; i < data.length; i += size) {
            out.add(Arrays.copyOfRange(data, i, Math.min(data.length, i + size)));
        }
        return out;
    }

    static RdmaReceive receive(BoundedAllocator alloc, byte[] send) {
        return new RdmaReceive(alloc.directBuffer(send.length).writeBytes(send), false, 0);
    }

    /**
     * The responder with everything behind it: each decoded call is answered at once (inline, or through the
     * reply chunk or Write list the call offered, which the fake connection cannot register: that path too).
     */
    @FuzzTest(maxDuration = "10s")
    void responder(byte[] data) {
        BoundedAllocator alloc = new BoundedAllocator(MAX_MESSAGE + 4096);
        FakeRdmaConnection connection = new FakeRdmaConnection();
        RpcStats rpcStats = new RpcStats();
        Watch watch = new Watch();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(new RpcRdmaResponder(ResponderSetup.of(config(), new InlineThresholds(4096, 4096, true),
                new RpcRdmaStats(), rpcStats).withConnection(connection)), new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        InboundRpcMessage m = (InboundRpcMessage) msg;
                        try {
                            assertTrue(m.header() instanceof RpcCall, "only calls reach the dispatcher");
                            XdrPayload reply = XdrPayload.newPayload(ctx.alloc());
                            reply.writer().writeInt(m.body().readableBytes());
                            ctx.writeAndFlush(new OutboundRpcMessage(RpcReply.success(m.header().xid()), reply));
                        } finally {
                            m.release();
                        }
                    }
                }, watch);
        feedResponder(ch, connection, alloc, data, watch);
    }

    /**
     * The responder in byte framing (RFC 8267's NFS binding, record-marked replies), as a foreign Netty ONC RPC
     * stack uses it: each call goes up as one whole-message {@code ByteBuf} and is answered at once with a reply that
     * echoes its first bytes as an opaque, through the binding, the Write list, the Reply chunk or ERR_CHUNK. The same
     * invariants as {@link #responder}: bad headers and chunk lists are answered (RFC 8166 §4.5), nothing escapes,
     * nothing leaks, no allocation beyond the bounds. Its corpus is the responder's.
     */
    @FuzzTest(maxDuration = "10s")
    void byteResponder(byte[] data) {
        BoundedAllocator alloc = new BoundedAllocator(MAX_MESSAGE + 4096);
        FakeRdmaConnection connection = new FakeRdmaConnection();
        RpcStats rpcStats = new RpcStats();
        Watch watch = new Watch();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(new RpcRdmaResponder(ResponderSetup.of(config(), new InlineThresholds(4096, 4096, true),
                new RpcRdmaStats(), rpcStats).withConnection(connection)
                .withFraming(dev.rpcrdma.handlers.ByteFraming.DEFAULT
                        .withBinding(dev.rpcrdma.handlers.binding.UpperLayerBinding.nfs()).withRecordMarks(true))),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf call = (ByteBuf) msg;
                        try {
                            assertEquals(0, call.readerIndex(), "a whole message at reader index 0");
                            assertEquals(0, call.getInt(4), "only calls go up");
                            int length = Math.min(call.readableBytes(), 1024); // replies of any placement
                            int padded = (length + 3) & ~3;
                            ByteBuf reply = ctx.alloc().buffer(32 + padded)
                                    .writeInt(0x8000_0000 | (28 + padded)) // record mark: the last fragment
                                    .writeInt(call.getInt(0)).writeInt(1).writeInt(0).writeInt(0).writeInt(0)
                                    .writeInt(0).writeInt(length).writeBytes(call, 0, length)
                                    .writeZero(padded - length);
                            ctx.writeAndFlush(reply);
                        } finally {
                            call.release();
                        }
                    }
                }, watch);
        feedResponder(ch, connection, alloc, data, watch);
    }

    /**
     * Hands each Send cut from {@code data} to a responder's channel as a receive, as long as it stays open; then
     * checks that nothing escaped, nothing leaked and no allocation went past the bounds.
     */
    private static void feedResponder(EmbeddedChannel ch, FakeRdmaConnection connection, BoundedAllocator alloc,
                                      byte[] data, Watch watch) {
        connection.attach(ch);
        try {
            for (byte[] send : sends(data)) {
                if (!ch.isOpen()) {
                    break;
                }
                ch.writeInbound(receive(alloc, send));
                ch.runPendingTasks();
                releaseAll(ch);
            }
            watch.check();
        } finally {
            ch.finishAndReleaseAll();
        }
        assertEquals(0, alloc.oversizedRequests());
    }

    /**
     * The requester with one call pending and a callback service with its backchannel enabled: each Send is a
     * reply (its xid words equal to 1 are patched to the pending call's), an RDMA_ERROR, or a backward call.
     */
    @FuzzTest(maxDuration = "10s")
    void requester(byte[] data) {
        BoundedAllocator alloc = new BoundedAllocator(MAX_MESSAGE + 4096);
        FakeRdmaConnection connection = new FakeRdmaConnection();
        RpcRdmaStats stats = new RpcRdmaStats();
        RpcStats rpcStats = new RpcStats();
        Watch watch = new Watch();
        BackwardResponder service = new BackwardResponder(BackwardSetup.of(config().withBackwardCredits(2), stats,
                rpcStats));
        RpcDispatcher callbacks = new RpcDispatcher(new RpcProgramRegistry().registerNull(CB_PROG, 1)
                .register(CB_PROG, 1, 1, (call, args) -> call.replySuccess()), rpcStats);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        RpcBackchannel.install(ch, RpcBackchannel.Role.CALLBACK_SERVICE, rpcStats, 1024).enable();
        ch.pipeline().addLast(new RpcRdmaRequester(RequesterSetup.of(config(), stats, rpcStats)
                .withThresholds(new InlineThresholds(4096, 4096, true)).withConnection(connection)
                .withCallbacks(service)), new RpcClientHandler(rpcStats, Duration.ofSeconds(30)), callbacks, watch);
        connection.attach(ch);
        try {
            RpcClient client = RpcClient.of(ch);
            XdrPayload args = client.newPayload();
            args.writer().writeInt(1);
            CompletableFuture<Integer> call = client.call(PROG, 1, 1, args, r -> r.readInt(),
                    CallOptions.DEFAULT.withMaxReplySize(512)); // fits inline: no Reply chunk (the fake registers nothing)
            ch.runPendingTasks();
            int xid = pendingXid(ch);
            for (byte[] send : sends(data)) {
                if (!ch.isOpen()) {
                    break;
                }
                ch.writeInbound(receive(alloc, patchXid(send, xid)));
                ch.runPendingTasks();
                releaseAll(ch);
            }
            watch.check();
            ch.close();
            ch.runPendingTasks();
            assertTrue(call.isDone(), "a pending call ends when its connection does");
        } finally {
            ch.finishAndReleaseAll();
        }
        assertEquals(0, alloc.oversizedRequests());
    }

    private static int pendingXid(EmbeddedChannel ch) {
        ByteBuf sent = ch.readOutbound();
        try {
            return new RpcRdmaHeaderDecoder().decode(sent).xid();
        } catch (RpcRdmaHeaderException e) {
            throw new AssertionError(e);
        } finally {
            sent.release();
        }
    }

    /** Replaces the header's xid, and the RPC message's when it follows a decodable header, if they are 1. */
    static byte[] patchXid(byte[] send, int xid) {
        byte[] b = send.clone();
        ByteBuf buf = Unpooled.wrappedBuffer(b);
        if (b.length >= 4 && buf.getInt(0) == 1) {
            buf.setInt(0, xid);
        }
        try {
            new RpcRdmaHeaderDecoder().decode(buf);
            if (buf.readableBytes() >= 4 && buf.getInt(buf.readerIndex()) == 1) {
                buf.setInt(buf.readerIndex(), xid);
            }
        } catch (RpcRdmaHeaderException ignored) {
            // Left as it is.
        }
        return b;
    }

    private static void releaseAll(EmbeddedChannel ch) {
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ReferenceCountUtil.release(o);
        }
        for (Object o; (o = ch.readInbound()) != null; ) {
            ReferenceCountUtil.release(o);
        }
    }
}
