package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaErrorCode;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.metrics.RpcErrorKind;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

import static dev.rpcrdma.handlers.e2e.EchoService.ECHO;
import static dev.rpcrdma.handlers.e2e.EchoService.FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PLAIN_FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;
import static dev.rpcrdma.handlers.e2e.EchoService.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RPC layer over RPC-over-RDMA, end to end: the blocking client, declared and configured maximum reply sizes, code
 * written for TCP, typed programs, metrics.
 */
abstract class RpcRdmaUpperLayerSuite extends RpcRdmaFixture {
    RpcRdmaUpperLayerSuite(TestFabric testFabric) {
        super(testFabric);
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
}
