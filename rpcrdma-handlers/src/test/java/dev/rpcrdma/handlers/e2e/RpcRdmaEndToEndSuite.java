package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import static dev.rpcrdma.handlers.e2e.EchoService.BOTH;
import static dev.rpcrdma.handlers.e2e.EchoService.FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PLAIN_FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PLAIN_SUM;
import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.SUM;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;
import static dev.rpcrdma.handlers.e2e.EchoService.hash;
import static dev.rpcrdma.handlers.e2e.EchoService.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RPC-over-RDMA end to end, our requester against our responder with the drop-in initializers: negotiation, inline
 * calls and replies, Read chunks, Write chunks, Long Call and Long Reply, credits.
 */
abstract class RpcRdmaEndToEndSuite extends RpcRdmaFixture {
    RpcRdmaEndToEndSuite(TestFabric testFabric) {
        super(testFabric);
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

    @Test
    void inlineCallAndReplyAfterNegotiation() throws Exception {
        start();
        get(client.callNull(PROG, VERS));
        byte[] data = pattern(100, 1);
        assertArrayEquals(data, get(echo(data, CallOptions.DEFAULT)));
        assertEquals(4096, requester().thresholds().sendThreshold());
        assertEquals(4096, requester().thresholds().receiveThreshold());
        assertEquals(((RdmaChannel) client.channel()).remoteInvalidationSupported(),
                requester().thresholds().remoteInvalidation(),
                "R is offered exactly where the device reports remote invalidation (not on siw)");
        assertEquals(0, clientStats.readChunks() + clientStats.writeChunksUsed() + clientStats.longCalls()
                + clientStats.longReplies(), clientStats.toString());
        assertEquals(0, serverStats.errorsSent());
    }

    @Test
    void aReplyKnownToFitInlineGetsNoWriteChunk() throws Exception {
        start();
        byte[] data = pattern(100, 7);
        // DDP-eligible reply item hinted, but the whole reply (<= 612 bytes) fits the 4 KiB inline threshold.
        assertArrayEquals(data, get(echo(data, hints(100, 612))));
        assertEquals(0, clientStats.writeChunksUsed() + serverStats.writeChunksUsed(), serverStats.toString());
        assertEquals(0, clientStats.localInvalidations() + clientStats.remoteInvalidations(),
                "nothing was exposed, so nothing needed invalidating");
        // Unknown reply size (0): the Write chunk is still provisioned.
        byte[] big = pattern(5000, 8);
        assertArrayEquals(big, get(echo(big, hints(5000, 0))));
        assertEquals(1, serverStats.writeChunksUsed());
    }

    @Test
    void callWithReadChunks() throws Exception {
        start();
        byte[] data = pattern(65536 + 3, 2);
        int[] r = get(sum(SUM, data));
        assertEquals(data.length, r[0]);
        assertEquals(hash(data), r[1]);
        assertEquals(1, clientStats.readChunks());
        assertEquals(1, serverStats.readChunks());
        assertEquals(0, serverStats.longCalls());
    }

    @Test
    void replyIntoWriteChunk() throws Exception {
        start();
        byte[] got = get(fill(FILL, 100001, hints(100001, 0)));
        assertArrayEquals(pattern(100001, 100001), got);
        assertEquals(1, serverStats.writeChunksUsed());
        assertEquals(1, clientStats.writeChunksUsed());
    }

    @Test
    void longCall() throws Exception {
        start();
        byte[] data = pattern(20000, 5);
        int[] r = get(sum(PLAIN_SUM, data));
        assertEquals(data.length, r[0]);
        assertEquals(hash(data), r[1]);
        assertEquals(1, clientStats.longCalls());
        assertEquals(1, serverStats.longCalls());
    }

    @Test
    void longReply() throws Exception {
        start();
        byte[] got = get(fill(PLAIN_FILL, 30000, hints(0, 30200)));
        assertArrayEquals(pattern(30000, 30000), got);
        assertEquals(1, serverStats.longReplies());
    }

    @Test
    void writeListAndReplyChunkTogether() throws Exception {
        start();
        XdrPayload args = client.newPayload();
        args.writer().writeInt(9000).writeInt(50000);
        byte[][] got = get(client.call(PROG, VERS, BOTH, args, r -> {
            byte[] a = r.readOpaque(EchoService.MAX);
            ByteBuf b = r.readDdpOpaque(EchoService.MAX);
            byte[] bb = new byte[b.readableBytes()];
            b.getBytes(b.readerIndex(), bb);
            b.release();
            return new byte[][] {a, bb};
        }, hints(50000, 60000)));
        assertArrayEquals(pattern(9000, 1), got[0]);
        assertArrayEquals(pattern(50000, 2), got[1]);
        assertEquals(1, serverStats.writeChunksUsed());
        assertEquals(1, serverStats.longReplies());
    }

    @Test
    void sizesFromZeroToOneMebibyteAreByteExact() throws Exception {
        start();
        int[] sizes = {0, 1, 3, 4, 5, 1000, 1023, 4000, 4096, 4097, 65537, 300001, 1 << 20};
        for (int size : sizes) {
            byte[] data = pattern(size, size);
            assertArrayEquals(data, get(echo(data, hints(size, size + 512))), "size " + size);
        }
        assertEquals(0, serverStats.errorsSent() + clientStats.discardedMessages());
    }

    @ParameterizedTest
    @ValueSource(ints = {1024, 4096, 65536})
    void inlineThresholdsAreNegotiated(int size) throws Exception {
        RpcRdmaConfig config = RpcRdmaConfig.DEFAULT.withInlineSizes(size, size);
        start(config, config);
        get(client.callNull(PROG, VERS));
        assertEquals(size, requester().thresholds().sendThreshold());
        assertEquals(size, requester().thresholds().receiveThreshold());
        // Just below the threshold goes inline; above it needs chunks.
        byte[] small = pattern(size - 200, 1);
        assertArrayEquals(small, get(echo(small, CallOptions.DEFAULT)));
        assertEquals(0, clientStats.readChunks());
        byte[] big = pattern(size + 100, 2);
        assertArrayEquals(big, get(echo(big, hints(big.length, big.length + 512))));
        assertEquals(1, clientStats.readChunks());
        assertEquals(1, clientStats.writeChunksUsed());
    }

    @Test
    void asymmetricPrivateDataTakesTheMinimumEachWay() throws Exception {
        start(RpcRdmaConfig.DEFAULT.withInlineSizes(8192, 2048), RpcRdmaConfig.DEFAULT.withInlineSizes(16384, 4096));
        get(client.callNull(PROG, VERS));
        assertEquals(2048, requester().thresholds().sendThreshold(), "client send = min(16K, server receive 2K)");
        assertEquals(4096, requester().thresholds().receiveThreshold(), "server send = min(8K, client recv 4K)");
    }

    @Test
    void sixtyFourConcurrentCallsWithASmallCreditGrant() throws Exception {
        start(RpcRdmaConfig.DEFAULT.withGrantBounds(1, 4), RpcRdmaConfig.DEFAULT);
        List<CompletableFuture<int[]>> futures = new ArrayList<>();
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            byte[] data = pattern(i * 300, i);
            sent.add(data);
            futures.add(sum(SUM, data));
        }
        for (int i = 0; i < 64; i++) {
            int[] r = get(futures.get(i));
            assertEquals(sent.get(i).length, r[0]);
            assertEquals(hash(sent.get(i)), r[1]);
        }
        assertTrue(requester().maxOutstandingSeen() <= 4, "outstanding " + requester().maxOutstandingSeen());
        assertTrue(requester().maxOutstandingSeen() >= 2, "the grant was used");
        assertEquals(4, requester().creditGrant());
        assertEquals(0, serverStats.creditViolations());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("severalWriteChunks")
    void severalWriteChunksFromTheRequesterAreByteExact(String name, int[] sizes, int[] hints, int maxReply,
                                                       int chunksUsed, boolean longReply) throws Exception {
        start();
        XdrPayload args = client.newPayload();
        for (int n : sizes) {
            args.writer().writeInt(n);
        }
        CallOptions options = CallOptions.DEFAULT.withReplyDdpItems(hints).withMaxReplySize(maxReply);
        byte[][] got = get(client.call(PROG, VERS, sizes.length == 2 ? EchoService.TWO : EchoService.THREE, args,
                r -> {
                    byte[][] items = new byte[sizes.length][];
                    for (int i = 0; i < sizes.length; i++) {
                        ByteBuf b = r.readDdpOpaque(EchoService.MAX);
                        items[i] = new byte[b.readableBytes()];
                        b.getBytes(b.readerIndex(), items[i]);
                        b.release();
                    }
                    assertEquals(0, r.readableBytes(), "nothing left inline");
                    return items;
                }, options));
        for (int i = 0; i < sizes.length; i++) {
            assertArrayEquals(pattern(sizes[i], i + 1), got[i], "item " + i);
        }
        assertEquals(chunksUsed, serverStats.writeChunksUsed(), "Write chunks the responder filled");
        assertEquals(sizes[0] == 0 ? chunksUsed - 1 : chunksUsed, clientStats.writeChunksUsed(),
                "chunks returned with data (a zero-length item's chunk comes back with zero length)");
        assertEquals(longReply ? 1 : 0, serverStats.longReplies(), "Long Reply through the Reply chunk");
        assertEquals(0, serverStats.errorsSent() + clientStats.discardedMessages());
    }
}
