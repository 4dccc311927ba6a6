package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaWorkRequestException;
import dev.rpcrdma.channel.RdmaWrite;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.oncrpc.client.RpcTimeoutException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BiFunction;
import org.junit.jupiter.params.provider.MethodSource;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.handlers.RpcRdmaServerInitializer;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.metrics.RpcErrorKind;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.rpcrdma.handlers.e2e.EchoService.BOTH;
import static dev.rpcrdma.handlers.e2e.EchoService.ECHO;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RPC-over-RDMA end to end: our requester against our responder with the drop-in initializers, run once per fabric
 * ({@link SoftwareFabricRpcRdmaTest} in {@code mvn verify}, {@link NativeFabricRpcRdmaTest} on Soft-RoCE in the VM).
 */
abstract class RpcRdmaEndToEndSuite {
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

    abstract Fabric fabric();

    abstract InetAddress address();

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

    /**
     * {@link BlockingRpcClient}: the calling thread runs the RDMA connection (CM events, completion queue, credits,
     * chunks) on its own {@code ManualIoEventLoop}; inline, Read + Write chunk and Long Reply calls all complete and
     * their results are decoded on the calling thread.
     */
    @Test
    void blockingClientDrivesTheRdmaConnectionOnTheCallingThread() throws Exception {
        start();
        Bootstrap bootstrap = new Bootstrap().channel(RdmaChannel.class).handler(new RpcRdmaClientInitializer(
                new RpcStats(), RpcRdmaConfig.DEFAULT, clientStats, Duration.ofSeconds(TIMEOUT)));
        InetSocketAddress serverAddress = (InetSocketAddress) channels.get(0).localAddress();
        try (BlockingRpcClient rpc = BlockingRpcClient.connect(bootstrap,
                RdmaIoHandler.newFactory(new RdmaIoHandlerConfig().fabric(fabric())), serverAddress,
                Duration.ofSeconds(TIMEOUT))) {
            rpc.callNull(PROG, VERS);
            Thread caller = Thread.currentThread();
            for (int size : new int[] {100, 200_000}) {
                byte[] data = pattern(size, 7);
                XdrPayload args = rpc.newPayload();
                args.writeDdpOpaque(rpc.channel().alloc().buffer(size).writeBytes(data));
                byte[] echoed = rpc.call(PROG, VERS, ECHO, args, r -> {
                    assertSame(caller, Thread.currentThread(), "decoded on the calling thread");
                    return EchoService.readDdpBytes(r);
                }, hints(size, size + 512));
                assertArrayEquals(data, echoed, "echo of " + size + " bytes");
            }
            // A reply larger than the inline threshold with no DDP item: Long Reply through a Reply chunk.
            XdrPayload args = rpc.newPayload();
            args.writer().writeInt(20_000);
            byte[] filled = rpc.call(PROG, VERS, PLAIN_FILL, args, r -> r.readOpaque(EchoService.MAX),
                    CallOptions.DEFAULT.withMaxReplySize(20_000 + 512));
            assertEquals(20_000, filled.length);
        }
        assertTrue(clientStats.readChunks() > 0 && clientStats.writeChunksUsed() > 0 && clientStats.longReplies() > 0,
                clientStats.toString());
        assertEquals(0, serverStats.errorsSent());
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
    void remoteInvalidationWhenBothPeersSetR() throws Exception {
        start();
        assertArrayEquals(pattern(50000, 50000), get(fill(FILL, 50000, hints(50000, 0))));
        if (!((RdmaChannel) client.channel()).remoteInvalidationSupported()) {
            // siw: the requester withdrew R, so the responder invalidates nothing remotely; the region is deregistered.
            assertTrue(!requester().thresholds().remoteInvalidation());
            assertEquals(0, serverStats.remoteInvalidations());
            assertEquals(0, clientStats.remoteInvalidations());
            assertEquals(1, clientStats.localInvalidations());
            return;
        }
        assertEquals(1, serverStats.remoteInvalidations());
        assertEquals(1, clientStats.remoteInvalidations());
        assertEquals(0, clientStats.localInvalidations());
    }

    @Test
    void localInvalidationWhenEitherPeerClearsR() throws Exception {
        start(RpcRdmaConfig.DEFAULT, RpcRdmaConfig.DEFAULT.withRemoteInvalidation(false));
        get(client.callNull(PROG, VERS));
        assertTrue(!requester().thresholds().remoteInvalidation());
        assertArrayEquals(pattern(50000, 50000), get(fill(FILL, 50000, hints(50000, 0))));
        assertEquals(0, serverStats.remoteInvalidations());
        assertEquals(0, clientStats.remoteInvalidations());
        assertEquals(1, clientStats.localInvalidations());
    }

    /**
     * Windows are bound again instead of allocated per RPC: after Send With Invalidate (the responder's), and after a
     * Local Invalidate where the device takes it. On Soft-RoCE (and the software fabric behaving like it), where
     * local invalidation deallocates, every exposure allocates a fresh window (also after remote invalidation, for
     * now: see CallExposure).
     */
    @Test
    void windowsAreBoundAgainRatherThanAllocatedPerRpc() throws Exception {
        start();
        boolean localInvalidate = ((RdmaChannel) client.channel()).localInvalidateSupported();
        if (!((RdmaChannel) client.channel()).memoryWindowsSupported()) {
            // No windows (siw): a region registered per exposed chunk, deregistered after each reply, none allocated.
            for (int i = 0; i < 10; i++) {
                assertArrayEquals(pattern(50000, 50000), get(fill(FILL, 50000, hints(50000, 0))));
                byte[] data = pattern(40000, i);
                assertArrayEquals(data, get(echo(data, hints(40000, 0))));
            }
            assertEquals(0, clientStats.windowAllocations());
            assertEquals(0, clientStats.remoteInvalidations());
            assertEquals(30, clientStats.localInvalidations(), "every exposed region deregistered");
            return;
        }
        for (int i = 0; i < 10; i++) {
            assertArrayEquals(pattern(50000, 50000), get(fill(FILL, 50000, hints(50000, 0))));
        }
        assertEquals(10, clientStats.remoteInvalidations());
        assertEquals(1, clientStats.windowAllocations(), "one window, invalidated remotely and bound again");
        for (int i = 0; i < 10; i++) {
            byte[] data = pattern(40000, i);
            assertArrayEquals(data, get(echo(data, hints(40000, 0)))); // two keys: no remote invalidation
        }
        assertEquals(20, clientStats.localInvalidations());
        assertEquals(localInvalidate ? 2 : 20, clientStats.windowAllocations(),
                localInvalidate ? "LOCAL_INV leaves both windows ready to bind again"
                        : "Soft-RoCE: each locally invalidated window was deallocated and a fresh one allocated");
    }

    /**
     * A connection whose registered memory pool cannot hold every call's chunks at once makes calls wait for memory
     * (RpcRdmaRequester back-pressure) instead of failing them: eight 100 KB ECHOs with a 1 MiB Reply chunk each
     * (2 MiB pieces) queued together against a 6 MiB pool all complete byte-exact, the pool never registers more
     * than its limit, and every chunk buffer goes back.
     */
    @Test
    void anExhaustedMemoryPoolMakesCallsWaitAndNoneFails() throws Exception {
        clientOptions = b -> b.option(RdmaChannelOption.MEMORY_POOL_SLAB_SIZE, 1 << 20)
                .option(RdmaChannelOption.MEMORY_POOL_MAX_BYTES, 6L << 20);
        start();
        List<CompletableFuture<byte[]>> futures = onClientLoop(() -> {
            List<CompletableFuture<byte[]>> l = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                l.add(echo(pattern(100000, i), hints(100000, 0)));
            }
            return l;
        });
        for (int i = 0; i < 8; i++) {
            assertArrayEquals(pattern(100000, i), get(futures.get(i)), "call " + i);
        }
        assertTrue(clientStats.memoryWaits() > 0, "calls waited for registered memory");
        dev.rpcrdma.channel.RdmaMemoryPool pool = ((RdmaChannel) client.channel()).memoryPool();
        assertTrue(pool.registeredBytes() <= 6L << 20, "registered " + pool.registeredBytes());
        dev.rpcrdma.testing.Await.until(() -> pool.usedBytes() == 0, "every chunk buffer went back to the pool");
    }

    /**
     * A responder whose registered memory pool holds two 128 KiB pieces (one call's Read-chunk sink and its reply)
     * serves sixteen 100 KB ECHOs sent together: pulls wait for memory instead of failing, a reply that finds the
     * pool taken by pulls registers its own region rather than waiting (so pulls holding all memory cannot block the
     * replies that would free it), and every call completes byte-exact.
     */
    @Test
    void aResponderWithAnExhaustedPoolServesCallsInTurnAndNoneFails() throws Exception {
        start(RpcRdmaConfig.DEFAULT, RpcRdmaConfig.DEFAULT, sb -> sb
                .childOption(RdmaChannelOption.MEMORY_POOL_SLAB_SIZE, 256 << 10)
                .childOption(RdmaChannelOption.MEMORY_POOL_MAX_BYTES, 256L << 10));
        List<CompletableFuture<byte[]>> futures = onClientLoop(() -> {
            List<CompletableFuture<byte[]>> l = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                l.add(echo(pattern(100000, i), hints(100000, 0)));
            }
            return l;
        });
        for (int i = 0; i < 16; i++) {
            assertArrayEquals(pattern(100000, i), get(futures.get(i)), "call " + i);
        }
        assertTrue(serverStats.memoryWaits() > 0, "the responder ran out of pool memory and waited");
        assertEquals(16, serverStats.readChunks());
    }

    @Test
    void twoKeysMeanNoRemoteInvalidation() throws Exception {
        start();
        // A call with a Read chunk (remote read key) and a Write chunk (remote write key).
        byte[] data = pattern(40000, 7);
        assertArrayEquals(data, get(echo(data, hints(40000, 0))));
        assertEquals(0, serverStats.remoteInvalidations());
        assertEquals(2, clientStats.localInvalidations());
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

    /**
     * A call's declared maximum reply size means over RDMA what it means over TCP (RpcReplyTooLargeException): a
     * larger reply that still fits inline fails, and one that fits no chunk (ERR_CHUNK) fails the same way.
     */
    @Test
    void aDeclaredMaximumReplySizeFailsAsOverTcp() throws Exception {
        start();
        CallOptions max512 = CallOptions.DEFAULT.withMaxReplySize(512);
        ExecutionException inline = assertThrows(ExecutionException.class, () -> get(fill(PLAIN_FILL, 1000, max512)));
        dev.rpcrdma.oncrpc.client.RpcReplyTooLargeException small = assertInstanceOf(
                dev.rpcrdma.oncrpc.client.RpcReplyTooLargeException.class, inline.getCause(), inline.toString());
        assertTrue(small.replySize() > 1000 && small.maxReplySize() == 512, small.getMessage());
        ExecutionException chunk = assertThrows(ExecutionException.class, () -> get(fill(PLAIN_FILL, 20000, max512)));
        dev.rpcrdma.oncrpc.client.RpcReplyTooLargeException large = assertInstanceOf(
                dev.rpcrdma.oncrpc.client.RpcReplyTooLargeException.class, chunk.getCause(), chunk.toString());
        assertEquals(512, large.maxReplySize());
        assertEquals(RdmaErrorCode.ERR_CHUNK, assertInstanceOf(RpcRdmaErrorException.class, large.getCause()).code());
        assertTrue(large.getMessage().contains("CallOptions.withMaxReplySize"), large.getMessage());
        assertEquals(400, get(fill(PLAIN_FILL, 400, max512)).length, "a reply within the maximum still arrives");
        assertEquals(0, requester().outstandingCalls(), "the credits came back");
    }

    @Test
    void replyOverTheConfiguredMaximumFailsNamingTheSetting() throws Exception {
        start(RpcRdmaConfig.DEFAULT, RpcRdmaConfig.DEFAULT.withMaxReplySize(8192));
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(fill(PLAIN_FILL, 20000,
                CallOptions.DEFAULT)));
        // RFC 8166 §4.5: the call fails with the typed exception itself, not a wrapped connection failure.
        RpcRdmaErrorException err = assertInstanceOf(RpcRdmaErrorException.class, e.getCause(), e.toString());
        assertEquals(RdmaErrorCode.ERR_CHUNK, err.code());
        assertTrue(err.getMessage().contains("a Reply chunk of 8192 bytes"), err.getMessage());
        assertTrue(err.getMessage().contains("RpcRdmaConfig.withMaxReplySize"), err.getMessage());
        assertTrue(err.getMessage().contains("CallOptions.withMaxReplySize"), err.getMessage());
        assertEquals(0, requester().outstandingCalls(), "the credit came back");
        assertEquals(1, serverStats.errorsSent());
        assertEquals(1, clientStats.errorsReceived());
        // The connection still works, and a call's own maximum overrides the connection's.
        assertArrayEquals(pattern(10, 10), get(fill(FILL, 10, CallOptions.DEFAULT)));
        assertEquals(20000, get(fill(PLAIN_FILL, 20000, CallOptions.DEFAULT.withMaxReplySize(20_512))).length);
    }

    /**
     * Transport neutrality (issue 15): the README's flow, written for TCP (a plain opaque argument, the result read
     * with {@code readOpaque}, no call options), works over RDMA for replies inline, in a Reply chunk (the connection's
     * configured maximum provisions one) and through a Write chunk (hints only optimise: the same read works).
     */
    @ParameterizedTest
    @ValueSource(ints = {100, 20_000, 300_000})
    void codeWrittenForTcpReadsAnyReplyUpToTheMaximum(int size) throws Exception {
        start();
        byte[] data = pattern(size, 3);
        for (CallOptions options : new CallOptions[] {CallOptions.DEFAULT, hints(size, 0), hints(size, size + 512)}) {
            XdrPayload args = client.newPayload();
            args.writer().writeOpaque(data);
            byte[] echoed = get(client.call(PROG, VERS, ECHO, args, r -> r.readOpaque(EchoService.MAX), options));
            assertArrayEquals(data, echoed, size + " bytes with " + options);
            // Two DDP results read with readOpaque / readOpaqueSlice, placed or not, in order.
            XdrPayload two = client.newPayload();
            two.writer().writeInt(size).writeInt(size / 2 + 1);
            byte[][] both = get(client.call(PROG, VERS, EchoService.TWO, two, r -> {
                byte[] first = r.readOpaque(EchoService.MAX);
                ByteBuf second = r.readOpaqueSlice(EchoService.MAX);
                try {
                    byte[] b = new byte[second.readableBytes()];
                    second.readBytes(b);
                    return new byte[][] {first, b};
                } finally {
                    second.release();
                }
            }, options.withReplyDdpItems(options.maxDdpReplyItem(), options.maxDdpReplyItem())));
            assertArrayEquals(pattern(size, 1), both[0]);
            assertArrayEquals(pattern(size / 2 + 1, 2), both[1]);
        }
        assertEquals(0, serverStats.errorsSent());
        if (size > 4096) {
            assertTrue(clientStats.longReplies() > 0, "a Reply chunk carried a reply: " + clientStats);
            assertTrue(clientStats.writeChunksUsed() > 0, "a Write chunk placed a result: " + clientStats);
        }
    }

    /**
     * Typed programs over RDMA (issue 15): declared once, the same calls as over TCP; a procedure's declared maximum
     * reply size sizes its Reply chunk (a 600 KB reply with no call options), a small one offers none, and a blocking
     * procedure runs on the executor while its reply still goes out on the loop.
     */
    @Test
    void typedProgramRoundTripsWithDeclaredMaximaAndBlockingProcedures() throws Exception {
        start();
        byte[] data = pattern(600_000, 5);
        assertArrayEquals(data, get(TypedEcho.PROGRAM.call(client, TypedEcho.ECHO, data)));
        assertEquals(1, clientStats.longReplies(), "the declared maximum provisioned a Reply chunk: " + clientStats);
        long exposedBefore = clientStats.localInvalidations() + clientStats.remoteInvalidations();
        assertEquals(8, get(TypedEcho.PROGRAM.call(client, TypedEcho.LENGTH, new byte[8])));
        assertEquals(exposedBefore, clientStats.localInvalidations() + clientStats.remoteInvalidations(),
                "a small declared maximum offers no Reply chunk: nothing exposed, nothing invalidated");
        assertEquals(TypedEcho.BLOCKING_THREAD, get(TypedEcho.PROGRAM.call(client, TypedEcho.WHERE, 3)));
        try (BlockingRpcClient rpc = BlockingRpcClient.connect(new Bootstrap().channel(RdmaChannel.class).handler(
                new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, new RpcRdmaStats(),
                        Duration.ofSeconds(TIMEOUT))), RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(fabric())), (InetSocketAddress) channels.get(0).localAddress(), Duration.ofSeconds(TIMEOUT))) {
            assertArrayEquals(data, TypedEcho.PROGRAM.call(rpc, TypedEcho.ECHO, data));
            assertEquals(TypedEcho.BLOCKING_THREAD, TypedEcho.PROGRAM.call(rpc, TypedEcho.WHERE, 0));
        }
        assertEquals(0, serverStats.errorsSent());
    }

    /**
     * Metrics over RDMA (issue 15): exact calls, errors, XDR bytes and chunk counters after a known workload, on both
     * sides, in code and through the platform MBeanServer.
     */
    @Test
    void metricsCountAKnownWorkloadOnBothSides() throws Exception {
        start();
        serverMetrics.registerMBean();
        clientMetrics.registerMBean();
        byte[] data = pattern(600_000, 9);
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(data, get(TypedEcho.PROGRAM.call(client, TypedEcho.ECHO, data)));
        }
        assertEquals(8, get(TypedEcho.PROGRAM.call(client, TypedEcho.LENGTH, new byte[8])));
        assertThrows(ExecutionException.class, () -> get(client.callNull(TypedEcho.PROGRAM.program(), 7)));
        for (RpcMetrics m : new RpcMetrics[] {serverMetrics, clientMetrics}) {
            String side = m.toString();
            assertEquals(3, m.procedure(TypedEcho.PROGRAM.program(), 1, TypedEcho.ECHO.number()).calls(), side);
            assertEquals(3, m.procedure(TypedEcho.PROGRAM.program(), 1, TypedEcho.ECHO.number()).latency()
                    .getTotalCount(), side);
            assertEquals(1, m.procedure(TypedEcho.PROGRAM.program(), 1, TypedEcho.LENGTH.number()).calls(), side);
            assertEquals(1, m.unregistered().calls(), side);
            assertEquals(5, m.calls(), side);
            assertEquals(1, m.errors(), side);
            assertEquals(1, m.errors(RpcErrorKind.PROG_MISMATCH), side);
            // opaque<600000> is 4 + 600000 bytes each way; LENGTH: 4 + 8 in, an int out.
            assertEquals(3 * 600_004L + (m.role() == RpcMetrics.Role.SERVER ? 12 : 4), m.bytesIn(), side);
            assertEquals(3 * 600_004L + (m.role() == RpcMetrics.Role.SERVER ? 4 : 12), m.bytesOut(), side);
        }
        assertEquals(3L, clientMetrics.attached().get("RpcRdma.LongReplies").getAsLong());
        assertEquals(3L, serverMetrics.attached().get("RpcRdma.LongCalls").getAsLong());
        javax.management.MBeanServer mbeans = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        assertEquals(3L, mbeans.getAttribute(new javax.management.ObjectName(
                "dev.rpcrdma:type=RpcClient,name=e2e-client"), "typed-echo.ECHO.Calls"));
        assertEquals(3L, mbeans.getAttribute(new javax.management.ObjectName(
                "dev.rpcrdma:type=RpcServer,name=e2e-server"), "RpcRdma.LongReplies"));
        assertEquals(5L, mbeans.getAttribute(new javax.management.ObjectName(
                "dev.rpcrdma:type=RpcServer,name=e2e-server"), "Calls"));
    }

    // ------------------------------------------------------------------ several Write chunks

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

    // ------------------------------------------------------------------ a hand-written peer

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

    <T> T onClientLoop(java.util.concurrent.Callable<T> task) throws Exception {
        return client.channel().eventLoop().submit(task).get(TIMEOUT, TimeUnit.SECONDS);
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
