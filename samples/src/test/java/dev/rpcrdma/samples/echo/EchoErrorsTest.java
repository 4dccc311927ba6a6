package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The failures a user will hit: one line that says what to do, no stack trace unless --verbose. */
class EchoErrorsTest {

    private EventLoopGroup group;

    @AfterEach
    void stop() throws InterruptedException {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static CommandRun client(String... args) {
        return CommandRun.of(EchoCommand.prepend("client", args));
    }

    private static CommandRun server(String... args) {
        return CommandRun.of(EchoCommand.prepend("server", args));
    }

    private static void assertOneLine(CommandRun r, String... fragments) {
        assertEquals(1, r.code, r.err);
        assertEquals(1, r.err.lines().count(), "exactly one line: " + r.err);
        for (String f : fragments) {
            assertTrue(r.err.contains(f), "'" + f + "' missing from: " + r.err);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void portInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(taken.getLocalPort());
            for (String io : new String[] {"nio", "auto"}) {
                CommandRun r = server("--transport", "tcp", "--io", io, "--address", "127.0.0.1", "--port", port);
                assertOneLine(r, "run-echo server: cannot listen on 127.0.0.1:" + port, "already in use",
                        "choose another --port");
            }
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> EchoServer.start("--transport", "tcp", "--address", "127.0.0.1", "--port", port));
            assertTrue(e.getMessage().contains("already in use"), e.getMessage());
        }
    }

    @Test
    void serverOnAnAddressThatIsNotOurs() {
        // 192.0.2.0/24 is TEST-NET-1: never an address of this host.
        CommandRun r = server("--transport", "tcp", "--address", "192.0.2.77", "--port", "0");
        assertOneLine(r, "cannot listen on 192.0.2.77:0", "is not an address of this host");
    }

    @Test
    void connectionRefused() throws Exception {
        int port = freePort();
        CommandRun r = client("--transport", "tcp", "--port", Integer.toString(port));
        assertOneLine(r, "run-echo client: nothing is listening at 127.0.0.1:" + port, "connection refused",
                "start the server");
    }

    @Test
    void verboseAddsTheStackTrace() throws Exception {
        int port = freePort();
        CommandRun r = client("--transport", "tcp", "--port", Integer.toString(port), "--verbose");
        assertEquals(1, r.code);
        assertTrue(r.err.startsWith("run-echo client: nothing is listening at"), r.err);
        assertTrue(r.err.contains("\tat "), "stack trace with --verbose: " + r.err);
    }

    private int rpcServer(RpcProgramRegistry registry) throws InterruptedException {
        TcpTransport transport = new TcpTransport("nio");
        group = transport.newGroup(1);
        Channel server = transport.serverBootstrap(group, new RpcDispatcher(registry, new RpcStats()))
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Test
    void serverWithoutTheEchoProgram() throws Exception {
        int port = rpcServer(new RpcProgramRegistry().registerNull(100003, 3));
        CommandRun r = client("--transport", "tcp", "--port", Integer.toString(port));
        assertOneLine(r, "the server at 127.0.0.1:" + port + " does not serve the echo program 0x2004F001",
                "PROG_UNAVAIL", "check --port");
    }

    @Test
    void serverWithAnotherVersionOfTheEchoProgram() throws Exception {
        int port = rpcServer(new RpcProgramRegistry().registerNull(EchoProgram.PROGRAM, 2)
                .registerNull(EchoProgram.PROGRAM, 3));
        CommandRun r = client("--transport", "tcp", "--port", Integer.toString(port));
        assertOneLine(r, "serves echo program versions 2..3, not 1", "PROG_MISMATCH");
    }

    @Test
    void serverWithoutTheEchoProcedure() throws Exception {
        int port = rpcServer(new RpcProgramRegistry().registerNull(EchoProgram.PROGRAM, EchoProgram.VERSION));
        CommandRun r = client("--transport", "tcp", "--port", Integer.toString(port));
        assertOneLine(r, "has no ECHO of 1024 B procedure", "PROC_UNAVAIL");
    }

    @Test
    void peerThatIsNotAnRpcServer() throws Exception {
        // Reads whatever arrives and hangs up: like an HTTP server, or a TCP client pointed at an RDMA-only port.
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg);
                        ctx.close();
                    }

                    @Override
                    public boolean isSharable() {
                        return true;
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        CommandRun r = client("--transport", "tcp", "--port", Integer.toString(port));
        assertOneLine(r, "closed the connection during NULL", "not an ONC RPC server");
    }

    @Test
    void nativeRdmaWithoutADeviceSaysWhatIsMissing() {
        assumeFalse(Rdma.isAvailable(), "SKIPPED: this host has a usable RDMA device; the message for a missing"
                + " one cannot be provoked here");
        String cause = Diagnosis.firstLine(Rdma.unavailabilityCause());
        CommandRun r = client("--transport", "rdma", "--fabric", "native", "--embedded-server");
        // The library's wording (cause and remedy), then the sample's alternatives.
        assertOneLine(r, "run-echo client: RDMA is not available: " + cause + "; or use --transport tcp, or --fabric"
                + " software within one JVM", "--fabric software", "--transport tcp");
        CommandRun s = server("--transport", "rdma", "--fabric", "native");
        assertOneLine(s, "run-echo server: " + Rdma.unavailabilityMessage());
    }

    @Test
    void badUsageIsExitCode2() {
        CommandRun r = client("--sise", "10");
        assertEquals(2, r.code);
        assertTrue(r.err.contains("unknown option --sise: did you mean --size? (see run-echo client --help)"), r.err);
        r = client("--size", "5m");
        assertEquals(2, r.code);
        assertTrue(r.err.contains("--size: 5242880 bytes is out of range"), r.err);
        r = client("--transport", "udp");
        assertEquals(2, r.code);
        assertTrue(r.err.contains("--transport: 'udp' is not one of rdma, tcp"), r.err);
        r = server("--count", "3");
        assertEquals(2, r.code, "the server has no --count");
        assertFalse(r.err.contains("\tat "));
    }
}
