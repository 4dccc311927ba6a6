package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.samples.echo.EchoCommand;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** {@code samples/run-nfs-server}'s command line: help, version, one-line errors, exit codes, start and stop lines. */
class Nfs4CommandTest {

    record CommandRun(int code, String out, String err) {
    }

    /** Runs the command; a server is stopped once its start line is out. */
    static CommandRun run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CountDownLatch stop = new CountDownLatch(1);
        CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> Nfs4Command.run(args,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                stop, false));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!code.isDone() && !out.toString(StandardCharsets.UTF_8).contains("Ctrl-C stops it")
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        stop.countDown();
        int status = code.get(20, TimeUnit.SECONDS);
        return new CommandRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static void assertOneLineError(CommandRun r, int code, String expected) {
        assertEquals(code, r.code, r.out + r.err);
        assertEquals(1, r.err.lines().count(), "one line, no stack trace: " + r.err);
        assertTrue(r.err.startsWith("run-nfs-server: "), r.err);
        assertTrue(r.err.contains(expected), r.err);
    }

    @Test
    void helpAndVersion() throws Exception {
        CommandRun help = run("--help");
        assertEquals(0, help.code, help.err);
        assertTrue(help.out.contains("Usage: run-nfs-server"), help.out);
        assertTrue(help.out.contains("--fabric=auto|native|software"), "every option has a help line: " + help.out);
        CommandRun version = run("--version");
        assertEquals(0, version.code, version.err);
        assertTrue(version.out.startsWith("run-nfs-server "), version.out);
    }

    @Test
    void usageErrorsAreOneLineWithExitCode2() throws Exception {
        assertOneLineError(run("--bogus"), 2, "unknown option --bogus");
        assertOneLineError(run("--exprot", "/tmp"), 2, "unknown option --exprot: did you mean --export?");
        assertOneLineError(run("--port", "x"), 2, "--port");
        assertOneLineError(run("--transport", "udp"), 2, "--transport: tcp, rdma or both, not udp");
        assertOneLineError(run("--export", "/nonexistent/dir"), 2, "--export /nonexistent/dir: no such directory");
    }

    @Test
    void aFabricWithTheTcpTransportIsAUsageError() throws Exception {
        assertOneLineError(run("--fabric", "native"), 2, "--fabric native applies to RPC-over-RDMA only, and"
                + " --transport is tcp: add --transport rdma (or both), or drop --fabric");
        assertOneLineError(run("--transport", "tcp", "--fabric", "software"), 2, "--fabric software applies to");
    }

    @Test
    void nativeWithoutADeviceNamesTheCauseAndTheRemedy() throws Exception {
        assumeFalse(Rdma.isAvailable(), "SKIPPED: this host has an RDMA device; the refusal cannot be provoked");
        CommandRun r = run("--transport", "rdma", "--fabric", "native", "--rdma-port", "0");
        assertOneLineError(r, 2, "run-nfs-server: " + Rdma.unavailabilityMessage() + "; or use --transport tcp");
    }

    @Test
    void theWildcardStartLineIsReadable() throws Exception {
        CommandRun r = run("--transport", "tcp", "--port", "0");
        assertEquals(0, r.code, r.err);
        assertTrue(r.out.startsWith("NFSv4.1 server exporting an in-memory tree (lost at exit), TCP 0.0.0.0:"),
                r.out);
    }

    @Test
    void aPortInUseIsOneLineWithExitCode1() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CommandRun r = run("--address", "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()));
            assertOneLineError(r, 1, "cannot listen on 127.0.0.1:" + taken.getLocalPort() + " (tcp): the port is"
                    + " already in use");
            assertTrue(r.err.contains("choose another --port"), r.err);
        }
    }

    @Test
    void rdmaWithoutADeviceRefusesTheSoftwareFabricAsTheEchoServerDoes() throws Exception {
        assumeFalse(Rdma.isAvailable(), "this host has an RDMA device: --fabric auto uses it");
        CommandRun r = run("--transport", "rdma", "--address", "127.0.0.1", "--rdma-port", "0");
        assertOneLineError(r, 2, EchoCommand.softwareFabricRefusal(EchoCommand.noDeviceReason()));
        assertEquals("", r.out, "no mount hint for a server that cannot be reached");
    }

    @Test
    void startLineAndShutdownSummary() throws Exception {
        CommandRun r = run("--transport", "rdma", "--fabric", "software", "--address", "127.0.0.1", "--rdma-port",
                "0");
        assertEquals(0, r.code, r.err);
        assertTrue(r.out.startsWith("NFSv4.1 server exporting an in-memory tree (lost at exit), RDMA 127.0.0.1:"),
                r.out);
        assertTrue(r.out.contains("mount -t nfs -o vers=4.1,proto=rdma,port="), r.out);
        assertTrue(r.out.contains("NFSv4.1 server stopped after "), r.out);
        assertTrue(r.out.contains(": 0 call(s) (0 NULL, 0 COMPOUND), 0 error(s); delegations granted 0"), r.out);
    }
}
