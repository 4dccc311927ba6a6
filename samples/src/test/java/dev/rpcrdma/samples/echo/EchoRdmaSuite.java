package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaServerChannel;
import dev.rpcrdma.channel.testing.NativeTestDevice;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The echo sample over RPC-over-RDMA, run once per fabric by its subclasses ({@link SoftwareFabricEchoTest} in
 * {@code mvn verify}, {@link NativeFabricEchoTest} on Soft-RoCE in the VM stage), as netty-rdma-channel's transport
 * suite is.
 */
abstract class EchoRdmaSuite {

    static final long TIMEOUT = 30;

    /** The fabric under test, from the permutation source. */
    final TestFabric testFabric;

    EchoRdmaSuite(TestFabric testFabric) {
        this.testFabric = testFabric;
    }

    @BeforeEach
    void setUpFabric() {
        testFabric.setUp(getClass().getSimpleName());
    }

    @AfterEach
    void tearDownFabric() {
        testFabric.tearDown();
    }

    /** {@code --fabric} value of the fabric under test. */
    String fabric() {
        return testFabric.isNative() ? "native" : "software";
    }

    /** The address servers listen on and clients call. */
    String address() {
        return testFabric.isNative() ? NativeTestDevice.host() : "127.0.0.1";
    }

    RdmaTransport transport(String... extra) {
        List<String> args = new ArrayList<>(List.of("--transport", "rdma", "--fabric", fabric()));
        args.addAll(List.of(extra));
        return (RdmaTransport) EchoTransport.select(EchoOptions.parse(EchoOptions.Role.CLIENT,
                args.toArray(new String[0])));
    }

    /** The client command line with this fabric and address (later options override). */
    CommandRun client(String... extra) {
        List<String> args = new ArrayList<>(List.of("--fabric", fabric(), "--address", address()));
        args.addAll(List.of(extra));
        return run(args.toArray(new String[0]));
    }

    /** The client command line over RDMA with exactly these options. */
    static CommandRun run(String... extra) {
        List<String> args = new ArrayList<>(List.of("client", "--transport", "rdma"));
        args.addAll(List.of(extra));
        return CommandRun.of(args.toArray(new String[0]));
    }

    private static CompletableFuture<byte[]> rawEcho(RpcClient client, byte[] data) {
        XdrPayload args = client.newPayload();
        args.writeDdpOpaque(client.alloc().buffer(data.length).writeBytes(data));
        return client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO, args, r -> {
            ByteBuf echoed = r.readDdpOpaque(EchoProgram.MAX_DATA);
            try {
                return ByteBufUtil.getBytes(echoed);
            } finally {
                echoed.release();
            }
        }, EchoProgram.echoOptions(CallOptions.DEFAULT, data.length));
    }

    @Test
    void nullAndEchoOfEverySizeUpTo1MiBAreByteExactAndLargeOnesUseChunks() throws Exception {
        RdmaTransport transport = transport();
        try (EchoServer server = EchoServer.start(transport, List.of(address()), 0, 2)) {
            EventLoopGroup group = transport.newGroup(1);
            try {
                Channel ch = transport.clientBootstrap(group, new RpcStats(), Duration.ofSeconds(TIMEOUT))
                        .connect(server.localAddresses().get(0)).sync().channel();
                RpcClient client = RpcClient.of(ch);
                EchoProgram.callNull(client).get(TIMEOUT, TimeUnit.SECONDS);
                List<byte[]> sent = new ArrayList<>();
                List<CompletableFuture<byte[]>> echoed = new ArrayList<>();
                for (int size : EchoTcpTest.SIZES) {
                    byte[] data = new byte[size];
                    ThreadLocalRandom.current().nextBytes(data);
                    sent.add(data);
                    echoed.add(rawEcho(client, data));
                }
                for (int i = 0; i < sent.size(); i++) {
                    assertArrayEquals(sent.get(i), echoed.get(i).get(TIMEOUT, TimeUnit.SECONDS),
                            "size " + EchoTcpTest.SIZES[i]);
                }
                ch.close().sync();
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
            assertEquals(0, server.stats().malformedMessages());
        }
        RpcRdmaStats client = transport.clientStats();
        RpcRdmaStats server = transport.serverStats();
        // Payloads above the 4 KiB inline threshold went as DDP: Read chunks in, Write chunks out (RFC 8166 §3.4).
        assertTrue(client.readChunks() > 0, client.toString());
        assertTrue(server.readChunks() > 0, server.toString());
        assertTrue(server.writeChunksUsed() > 0, server.toString());
        // What a Read chunk placed in the registered pool is echoed back out of it: Writes with zero copies.
        assertTrue(server.writeChunksInPlace() > 0, server.toString());
        assertEquals(0, server.errorsSent() + client.errorsReceived() + server.discardedMessages()
                + client.discardedMessages(), server + " / " + client);
    }

    @Test
    void manyConnectionsAndCallsInFlightAllVerified() throws Exception {
        EchoOptions options = EchoOptions.parse(EchoOptions.Role.CLIENT, "--transport", "rdma", "--fabric", fabric(),
                "--address", address(), "--embedded-server", "--size", "20000", "--count", "200", "--warmup", "20",
                "--concurrency", "12", "--connections", "3");
        EchoClient.Report report = EchoClient.run(options, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
        assertTrue(report.result.ok());
        assertEquals(200, report.result.completed);
        assertEquals(200, report.latencies.count());
    }

    @Test
    void commandLinePrintsWhatWasNegotiated() {
        CommandRun r = client("--embedded-server", "--size", "100k", "--count", "20", "--warmup", "2", "--inline",
                "8k", "--credits", "16", "--concurrency", "2");
        assertEquals(0, r.code, r.out + r.err);
        assertTrue(r.out.contains("echo client: rdma ("), r.out);
        assertTrue(r.out.contains("negotiated: RPC-over-RDMA v1, inline send 8192 B / receive 8192 B"), r.out);
        assertTrue(r.out.matches("(?s).*credits granted [0-9]+ \\(requested 16\\).*"), r.out);
        assertTrue(r.out.contains(deviceReportsRemoteInvalidation() ? "remote invalidation on"
                : "remote invalidation off (this device does not report it in receive completions"), r.out);
        assertTrue(r.out.contains("ECHO of 102400 B x 20 calls, 2 in flight"), r.out);
        assertTrue(r.out.contains("every byte verified"), r.out);
        assertTrue(r.out.matches("(?s).*latency \\(us\\): p50 [0-9.]+ .* p99 [0-9.]+ .*"), r.out);
        assertTrue(r.out.matches("(?s).*client side: [1-9][0-9]* read chunks, [1-9][0-9]* write chunks.*"), r.out);
    }

    @Test
    void remoteInvalidationCanBeTurnedOff() {
        CommandRun r = client("--embedded-server", "--count", "5", "--remote-invalidation", "off");
        assertEquals(0, r.code, r.out + r.err);
        assertTrue(r.out.contains("remote invalidation off (not requested)"), r.out);
    }

    @Test
    void portInUse() {
        RdmaTransport transport = transport();
        try (EchoServer first = EchoServer.start(transport, List.of(address()), 0, 1)) {
            int port = first.localAddresses().get(0).getPort();
            UserError e = org.junit.jupiter.api.Assertions.assertThrows(UserError.class,
                    () -> EchoServer.start(transport, List.of(address()), port, 1).close());
            assertTrue(e.getMessage().contains("cannot listen on " + address() + ":" + port), e.getMessage());
            assertTrue(e.getMessage().contains("already in use"), e.getMessage());
        }
    }

    @Test
    void nothingListening() throws Exception {
        int port;
        RdmaTransport transport = transport();
        try (EchoServer gone = EchoServer.start(transport, List.of(address()), 0, 1)) {
            port = gone.localAddresses().get(0).getPort();
        }
        CommandRun r = client("--port", Integer.toString(port), "--timeout", "5");
        assertEquals(1, r.code, r.out + r.err);
        assertEquals(1, r.err.lines().count(), r.err);
        assertTrue(r.err.contains("cannot connect to " + address() + ":" + port + " over rdma"), r.err);
        assertTrue(r.err.contains(nothingListeningHint()), r.err);
    }

    /** What the connection-refused message advises on this fabric. */
    String nothingListeningHint() {
        return testFabric.isNative() ? "start the server"
                : "the software fabric reaches only servers in this JVM: add --embedded-server";
    }

    /** Whether the device's receive completions report remote invalidation (not siw's: docs/providers.md). */
    boolean deviceReportsRemoteInvalidation() {
        return switch (testFabric) {
            case SOFTWARE_LIKE_SIW -> false;
            // The VM stage names the provider's device.
            case NATIVE -> !System.getenv().getOrDefault("VM_RDMA_DEVICE", "rxe0").startsWith("siw");
            default -> true;
        };
    }

    /** An RDMA listener that refuses every connection, as a non-RPC-over-RDMA service may. */
    @Test
    void serverThatRejectsTheConnection() throws Exception {
        RdmaTransport transport = transport();
        EventLoopGroup group = transport.newGroup(1);
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childOption(RdmaChannelOption.AUTO_ACCEPT, false)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRegistered(ChannelHandlerContext ctx) {
                            ((RdmaChannel) ctx.channel()).reject(new byte[] {1});
                        }

                        @Override
                        public boolean isSharable() {
                            return true;
                        }
                    })
                    .bind(new InetSocketAddress(address(), 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            CommandRun r = client("--port", Integer.toString(port), "--timeout", "5");
            assertEquals(1, r.code, r.out + r.err);
            assertEquals(1, r.err.lines().count(), r.err);
            assertTrue(r.err.contains("rejected the RDMA connection"), r.err);
            assertTrue(r.err.contains("not an RPC-over-RDMA server"), r.err);
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** Accepts RDMA connections but is not an RPC-over-RDMA responder: drops what arrives and hangs up. */
    @Test
    void peerThatIsNotRpcOverRdma() throws Exception {
        RdmaTransport transport = transport();
        EventLoopGroup group = transport.newGroup(1);
        ChannelHandler hangUp = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
                ctx.close();
            }

            @Override
            public boolean isSharable() {
                return true;
            }
        };
        try {
            Channel server = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
                    .childHandler(hangUp).bind(new InetSocketAddress(address(), 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            CommandRun r = client("--port", Integer.toString(port), "--timeout", "5");
            assertEquals(1, r.code, r.out + r.err);
            assertEquals(1, r.err.lines().count(), r.err);
            assertTrue(r.err.contains("closed the connection during NULL"), r.err);
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
