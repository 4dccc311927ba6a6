package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaAccess;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.RdmaWorkRequestException;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.testing.FabricSuite;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.WriteChunk;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ChunkMover} between two connected channels, run per fabric by one-line subclasses: its RDMA Reads bring a
 * peer's segments to the offsets asked for, and nothing else; its RDMA Writes spread data over a chunk's segments in
 * order; a Read the peer refuses reaches the listener as a failure.
 */
abstract class ChunkMoverSuite extends FabricSuite {
    /** Generous: a hang guard, nothing is timed. */
    private static final long TIMEOUT_SECONDS = 180;
    /** The peer's registered memory: byte i is {@link #peerByte}(i). */
    private static final int PEER_SIZE = 8192;

    private EventLoopGroup group;
    private Channel server;
    private RdmaChannel client;
    private ChannelHandlerContext ctx;
    private RdmaMemory peer;
    private final RpcRdmaStats stats = new RpcRdmaStats();

    ChunkMoverSuite(TestFabric testFabric) {
        super(testFabric);
    }

    static byte peerByte(int i) {
        return (byte) (i * 7 + 3);
    }

    @BeforeEach
    void connect() throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric())));
        CompletableFuture<RdmaMemory> registered = new CompletableFuture<>();
        server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext c) throws Exception {
                        ByteBuf b = c.alloc().directBuffer(PEER_SIZE);
                        for (int i = 0; i < PEER_SIZE; i++) {
                            b.writeByte(peerByte(i));
                        }
                        try {
                            registered.complete(((RdmaChannel) c.channel()).registerMemory(b,
                                    RdmaAccess.REMOTE_READ | RdmaAccess.REMOTE_WRITE));
                        } catch (Exception e) {
                            registered.completeExceptionally(e);
                        } finally {
                            b.release();
                        }
                        c.fireChannelActive();
                    }
                }).bind(new InetSocketAddress(address(), 0)).sync().channel();
        ChannelHandler capture = new ChannelInboundHandlerAdapter();
        client = (RdmaChannel) new Bootstrap().group(group).channel(RdmaChannel.class).handler(capture)
                .connect(server.localAddress()).sync().channel();
        ctx = client.pipeline().context(capture);
        peer = registered.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        if (client != null) {
            client.close().sync();
        }
        if (server != null) {
            server.close().sync();
        }
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return client.eventLoop().submit(task).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private RdmaSegment peerSegment(int offset, int length) {
        return new RdmaSegment(peer.rkey(), length, peer.address() + offset);
    }

    private static ReadChunk chunk(int position, RdmaSegment... segments) {
        long length = 0;
        for (RdmaSegment s : segments) {
            length += s.unsignedLength();
        }
        return new ReadChunk(position, List.of(segments), length);
    }

    /** Counts the Reads' completions and keeps their failures. */
    private static final class Reads implements ChannelFutureListener {
        final CountDownLatch done;
        final List<Throwable> failures = new CopyOnWriteArrayList<>();

        Reads(int expected) {
            done = new CountDownLatch(expected);
        }

        @Override
        public void operationComplete(ChannelFuture f) {
            if (!f.isSuccess()) {
                failures.add(f.cause());
            }
            done.countDown();
        }

        void await() throws InterruptedException {
            assertTrue(done.await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "every Read completed");
        }
    }

    /** A pool buffer of {@code size} bytes, all {@code fill}. */
    private ByteBuf poolBuffer(int size, int fill) throws Exception {
        return onLoop(() -> {
            ByteBuf b = client.memoryPool().tryAllocate(size);
            assertNotNull(b, "pool memory");
            for (int i = 0; i < size; i++) {
                b.writeByte(fill);
            }
            return b;
        });
    }

    private static byte[] bytes(ByteBuf b, int index, int length) {
        byte[] out = new byte[length];
        b.getBytes(index, out);
        return out;
    }

    private static byte[] peerBytes(int offset, int length) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = peerByte(offset + i);
        }
        return out;
    }

    @Test
    void readsOfConsecutiveChunksLandOneAfterAnother() throws Exception {
        List<ReadChunk> chunks = List.of(
                chunk(0, peerSegment(0, 100), peerSegment(1000, 52)),
                chunk(160, peerSegment(2000, 0), peerSegment(4000, 64)));
        assertEquals(3, ChunkMover.readCount(chunks), "one Read per segment with data");
        ByteBuf target = poolBuffer(216, 0xEE);
        try {
            Reads reads = new Reads(3);
            ChunkMover mover = new ChunkMover(client, stats);
            assertEquals(3, onLoop(() -> mover.pull(ctx, target, chunks, null, reads)));
            reads.await();
            assertEquals(List.of(), reads.failures);
            assertArrayEquals(peerBytes(0, 100), bytes(target, 0, 100));
            assertArrayEquals(peerBytes(1000, 52), bytes(target, 100, 52));
            assertArrayEquals(peerBytes(4000, 64), bytes(target, 152, 64));
            assertEquals(2, stats.readChunks(), "chunks pulled");
        } finally {
            onLoop(target::release);
        }
    }

    @Test
    void readsLandAtTheOffsetsGivenAndNowhereElse() throws Exception {
        List<ReadChunk> chunks = List.of(chunk(8, peerSegment(300, 40)), chunk(60, peerSegment(7000, 24),
                peerSegment(7100, 16)));
        ByteBuf target = poolBuffer(160, 0xEE);
        try {
            Reads reads = new Reads(3);
            ChunkMover mover = new ChunkMover(client, stats);
            onLoop(() -> mover.pull(ctx, target, chunks, new int[] {8, 100}, reads));
            reads.await();
            assertEquals(List.of(), reads.failures);
            byte[] untouched = new byte[160];
            java.util.Arrays.fill(untouched, (byte) 0xEE);
            byte[] expected = untouched.clone();
            System.arraycopy(peerBytes(300, 40), 0, expected, 8, 40);
            System.arraycopy(peerBytes(7000, 24), 0, expected, 100, 24);
            System.arraycopy(peerBytes(7100, 16), 0, expected, 124, 16);
            assertArrayEquals(expected, bytes(target, 0, 160));
        } finally {
            onLoop(target::release);
        }
    }

    @Test
    void aReadThePeerRefusesReachesTheListenerAsAFailure() throws Exception {
        RdmaSegment foreign = new RdmaSegment(peer.rkey() ^ 0x5A5A5A00, 32, peer.address());
        ByteBuf target = poolBuffer(32, 0);
        try {
            Reads reads = new Reads(1);
            ChunkMover mover = new ChunkMover(client, stats);
            onLoop(() -> mover.pull(ctx, target, List.of(chunk(0, foreign)), null, reads));
            reads.await();
            assertEquals(1, reads.failures.size(), "the Read failed");
            RdmaWorkRequestException e = assertInstanceOf(RdmaWorkRequestException.class, reads.failures.get(0));
            assertTrue(e.status() == WcStatus.REM_ACCESS_ERR || e.status() == WcStatus.WR_FLUSH_ERR
                    || e.status() == WcStatus.LOC_QP_OP_ERR, "status " + WcStatus.name(e.status()));
        } finally {
            onLoop(target::release);
        }
    }

    @Test
    void aSinkOutsideThePoolIsRefusedBeforeAnythingIsPosted() throws Exception {
        ByteBuf outside = client.alloc().directBuffer(16).writeZero(16);
        try {
            ChunkMover mover = new ChunkMover(client, stats);
            Reads reads = new Reads(1);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
                try {
                    onLoop(() -> mover.pull(ctx, outside, List.of(chunk(0, peerSegment(0, 16))), null, reads));
                } catch (java.util.concurrent.ExecutionException x) {
                    throw x.getCause();
                }
            });
            assertTrue(e.getMessage().contains("memory pool"), e.getMessage());
            assertEquals(1, reads.done.getCount(), "no Read was posted");
        } finally {
            outside.release();
        }
    }

    @Test
    void writesFillTheChunksSegmentsInOrder() throws Exception {
        ByteBuf source = onLoop(() -> {
            ByteBuf b = client.memoryPool().tryAllocate(256);
            assertNotNull(b, "pool memory");
            for (int i = 0; i < 256; i++) {
                b.writeByte(0x80 | i & 0x3F);
            }
            return b;
        });
        try {
            RdmaMemory local = client.memoryPool().memoryOf(source);
            int base = (int) (source.memoryAddress() - local.address());
            // 200 bytes from offset 16: 120 fill the first segment, the empty one is skipped, 80 go to the third,
            // whose last 420 bytes stay as they were.
            WriteChunk chunk = new WriteChunk(List.of(peerSegment(5000, 120), peerSegment(5500, 0),
                    peerSegment(6000, 500)));
            ChunkMover mover = new ChunkMover(client, stats);
            ChannelFuture last = onLoop(() -> {
                ChannelFuture f = mover.push(ctx, local, base + 16, 200, chunk);
                ctx.flush();
                return f;
            });
            assertNotNull(last);
            assertTrue(last.await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "the Writes completed");
            assertTrue(last.isSuccess(), String.valueOf(last.cause()));
            ByteBuf written = peer.buffer();
            assertArrayEquals(bytes(source, 16, 120), bytes(written, 5000, 120));
            assertArrayEquals(bytes(source, 136, 80), bytes(written, 6000, 80));
            assertArrayEquals(peerBytes(6080, 420), bytes(written, 6080, 420));
            assertArrayEquals(peerBytes(5500, 500), bytes(written, 5500, 500), "the empty segment got nothing");
            assertNull(onLoop(() -> mover.push(ctx, local, base, 0, chunk)), "nothing to write, nothing written");
        } finally {
            onLoop(source::release);
        }
    }
}
