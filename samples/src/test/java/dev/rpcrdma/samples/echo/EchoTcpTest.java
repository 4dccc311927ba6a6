package dev.rpcrdma.samples.echo;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TestTransport;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.uring.IoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The echo sample end to end over loopback TCP in one JVM, on NIO and on epoll. */
class EchoTcpTest {

    static final int[] SIZES = {0, 1, 3, 4, 5, 7, 8, 1023, 1024, 4096, 65535, 65536, 100_000, 1 << 20};

    private static String io(TestTransport t) {
        return t.name().toLowerCase(Locale.ROOT);
    }

    /** Calls ECHO and returns the echoed bytes as decoded by this test (not by the sample's own check). */
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

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void nullAndEchoOfEverySizeUpTo1MiBAreByteExact(TestTransport t) throws Exception {
        t.assumeAvailable();
        TcpTransport transport = new TcpTransport(io(t));
        try (EchoServer server = EchoServer.start(transport, List.of("127.0.0.1"), 0, 2)) {
            EventLoopGroup group = transport.newGroup(1);
            try {
                Channel ch = transport.clientBootstrap(group, new RpcStats(), Duration.ofSeconds(20))
                        .connect(server.localAddresses().get(0)).sync().channel();
                RpcClient client = RpcClient.of(ch);
                EchoProgram.callNull(client).get(10, TimeUnit.SECONDS);
                List<byte[]> sent = new ArrayList<>();
                List<CompletableFuture<byte[]>> echoed = new ArrayList<>();
                List<CompletableFuture<Boolean>> checked = new ArrayList<>();
                for (int size : SIZES) {
                    byte[] data = new byte[size];
                    ThreadLocalRandom.current().nextBytes(data);
                    sent.add(data);
                    echoed.add(rawEcho(client, data));
                    checked.add(EchoProgram.callEcho(client, client.alloc().buffer(size).writeBytes(data),
                            CallOptions.DEFAULT));
                }
                for (int i = 0; i < SIZES.length; i++) {
                    assertArrayEquals(sent.get(i), echoed.get(i).get(20, TimeUnit.SECONDS), "size " + SIZES[i]);
                    assertTrue(checked.get(i).get(20, TimeUnit.SECONDS), "callEcho verified size " + SIZES[i]);
                }
                ch.close().sync();
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
            assertEquals(0, server.stats().malformedMessages() + server.stats().oversizedRecords());
        }
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void manyConnectionsAndCallsInFlightAllVerified(TestTransport t) throws Exception {
        t.assumeAvailable();
        EchoOptions options = EchoOptions.parse(EchoOptions.Role.CLIENT, "--transport", "tcp", "--io", io(t),
                "--embedded-server", "--size", "3000", "--count", "600", "--warmup", "50", "--concurrency", "16",
                "--connections", "3");
        EchoClient.Report report = EchoClient.run(options, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
        assertTrue(report.result.ok());
        assertEquals(600, report.result.completed);
        assertEquals(600, report.latencies.count());
        assertTrue(report.latencies.percentile(50) > 0);
        assertTrue(report.transport.startsWith("tcp (" + io(t)), report.transport);
    }

    @Test
    void aWarmUpOfSeveralRoundsMakesExactlyItsCallsBeforeTheMeasuredOnes() throws Exception {
        TcpTransport transport = new TcpTransport("nio");
        int warmup = 2 * EchoLoad.WARMUP_ROUND + 7;
        try (EchoServer server = EchoServer.start(transport, List.of("127.0.0.1"), 0, 1)) {
            EchoOptions options = EchoOptions.parse(EchoOptions.Role.CLIENT, "--transport", "tcp", "--io", "nio",
                    "--address", "127.0.0.1", "--port", Integer.toString(server.localAddresses().get(0).getPort()),
                    "--proc", "null", "--count", "300", "--warmup", Integer.toString(warmup), "--concurrency", "3");
            EchoClient.Report report = EchoClient.run(options, new PrintStream(new ByteArrayOutputStream(), true,
                    StandardCharsets.UTF_8));
            assertTrue(report.result.ok());
            assertEquals(300, report.result.completed);
            assertEquals(300, report.latencies.count(), "the warm-up rounds record into a histogram of their own");
            // The first NULL (the connection check), the warm-up rounds' calls, the measured calls.
            assertEquals(1 + warmup + 300, server.calls());
        }
    }

    @Test
    void ioUringEventLoopsServeAndCall() {
        assumeTrue(IoUring.isAvailable(), () -> "io_uring unavailable: " + IoUring.unavailabilityCause());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = {"--transport", "tcp", "--io", "io_uring", "--embedded-server", "--size", "100k", "--count",
            "20", "--warmup", "2", "--concurrency", "2"};
        int code = EchoClient.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), false);
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, printed + err.toString(StandardCharsets.UTF_8));
        assertTrue(printed.contains("echo client: tcp (io_uring)"), printed);
        assertTrue(printed.contains("every byte verified"), printed);
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void commandLineRunsServerAndClientInOneJvm(TestTransport t) {
        t.assumeAvailable();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = {"--transport", "tcp", "--io", io(t), "--embedded-server", "--size", "100k", "--count", "20",
            "--warmup", "2", "--concurrency", "2"};
        int code = EchoClient.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), false);
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, printed + err.toString(StandardCharsets.UTF_8));
        assertTrue(printed.contains("echo client: tcp (" + io(t) + ")"), printed);
        assertTrue(printed.contains("NULL: ok"), printed);
        assertTrue(printed.contains("ECHO of 102400 B x 20 calls, 2 in flight"), printed);
        assertTrue(printed.contains("every byte verified"), printed);
        assertTrue(printed.matches("(?s).*latency \\(us\\): p50 [0-9.]+ .* p99 [0-9.]+ .*"), printed);
        assertTrue(printed.matches("(?s).*throughput: [0-9]+ ops/s.*"), printed);
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void nullProcedureCanBeMeasured(TestTransport t) throws Exception {
        t.assumeAvailable();
        EchoOptions options = EchoOptions.parse(EchoOptions.Role.CLIENT, "--transport", "tcp", "--io", io(t),
                "--embedded-server", "--proc", "null", "--count", "200", "--concurrency", "4");
        EchoClient.Report report = EchoClient.run(options, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
        assertEquals(200, report.result.completed);
    }

    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void serverAnswersOnEveryAddressItListensOn(TestTransport t) throws Exception {
        t.assumeAvailable();
        TcpTransport transport = new TcpTransport(io(t));
        // All of 127.0.0.0/8 is loopback on Linux.
        try (EchoServer server = EchoServer.start(transport, List.of("127.0.0.1", "127.0.0.2"), 0, 1)) {
            List<InetSocketAddress> addresses = server.localAddresses();
            assertEquals(2, addresses.size());
            assertEquals(addresses.get(0).getPort(), addresses.get(1).getPort(), "port 0: one port for all");
            for (InetSocketAddress a : addresses) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                int code = EchoClient.run(new String[] {"--transport", "tcp", "--io", io(t), "--address",
                    a.getAddress().getHostAddress(), "--port", Integer.toString(a.getPort()), "--count", "10"},
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false);
                assertEquals(0, code, out.toString(StandardCharsets.UTF_8));
                assertTrue(out.toString(StandardCharsets.UTF_8).contains("to " + a.getAddress().getHostAddress()
                        + ":" + a.getPort()));
            }
        }
    }

    /** The client's byte check can fail: a server that flips one byte of large payloads is caught. */
    @ParameterizedTest
    @EnumSource(TestTransport.class)
    void corruptedEchoIsReported(TestTransport t) throws Exception {
        t.assumeAvailable();
        TcpTransport transport = new TcpTransport(io(t));
        RpcProgramRegistry registry = new RpcProgramRegistry().registerNull(EchoProgram.PROGRAM, EchoProgram.VERSION)
                .register(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO, (call, args) -> {
                    byte[] data = args.readOpaque(EchoProgram.MAX_DATA);
                    data[data.length - 1] ^= 1;
                    XdrPayload results = call.newPayload();
                    results.writer().writeOpaque(data);
                    call.replySuccess(results);
                });
        EventLoopGroup group = transport.newGroup(1);
        try {
            Channel server = transport.serverBootstrap(group, new RpcDispatcher(registry, new RpcStats()))
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = EchoClient.run(new String[] {"--transport", "tcp", "--io", io(t), "--port",
                Integer.toString(port), "--count", "5", "--size", "100"},
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), false);
            String message = err.toString(StandardCharsets.UTF_8);
            assertEquals(1, code, message);
            assertTrue(message.contains("echoed different bytes than were sent"), message);
            assertFalse(message.contains("\tat "), message);
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
