package dev.rpcrdma.samples.echo;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code samples/run-echo} as a user meets it: subcommands, help, version, suggestions, the server's refusal of the
 * in-process software fabric, its start line and shutdown summary, and a client whose server dies mid-run.
 */
class EchoCommandTest {

    private static CommandRun run(String... args) {
        return CommandRun.of(args);
    }

    private static CommandRun run(CountDownLatch serverStop, String... args) {
        return CommandRun.of(serverStop, args);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void helpListsTheSubcommands() {
        for (String help : new String[] {"--help", "-h"}) {
            CommandRun r = run(help);
            assertEquals(0, r.code, r.err);
            assertTrue(r.out.contains("run-echo [demo|server|client] [options]"), r.out);
            for (String sub : new String[] {"demo ", "server ", "client "}) {
                assertTrue(r.out.contains("  " + sub), sub + " missing from: " + r.out);
            }
        }
        CommandRun server = run("server", "-h");
        assertEquals(0, server.code);
        assertTrue(server.out.contains("Usage: run-echo server"), server.out);
        assertTrue(server.out.contains("--transport=rdma|tcp"), server.out);
        assertFalse(server.out.contains("--count"), "the server has no --count: " + server.out);
        CommandRun demo = run("--size", "1", "--help");
        assertTrue(demo.out.contains("Usage: run-echo demo"), "options without a subcommand are the demo's: "
                + demo.out);
        assertFalse(demo.out.contains("--embedded-server"), "the demo always embeds its server: " + demo.out);
    }

    @Test
    void versionNamesTheSampleAndNetty() {
        for (String[] args : new String[][] {{"--version"}, {"-V"}, {"client", "--version"}}) {
            CommandRun r = run(args);
            assertEquals(0, r.code, r.err);
            assertTrue(r.out.startsWith("run-echo "), r.out);
            assertFalse(r.out.startsWith("run-echo unknown"), "the build filters version.properties: " + r.out);
            assertTrue(r.out.contains("Netty 4.2."), r.out);
        }
    }

    @Test
    void aMistypedOptionGetsASuggestion() {
        CommandRun r = run("client", "--concurrecny", "4");
        assertEquals(2, r.code);
        assertTrue(r.err.startsWith("run-echo client: unknown option --concurrecny: did you mean "), r.err);
        assertTrue(r.err.strip().endsWith("did you mean --concurrency? (see run-echo client --help)"), r.err);
        assertEquals(1, r.err.lines().count(), r.err);
        r = run("--sise", "1k");
        assertEquals(2, r.code);
        assertTrue(r.err.startsWith("run-echo demo: unknown option --sise: did you mean --size?"), r.err);
        r = run("sever");
        assertEquals(2, r.code);
        assertTrue(r.err.contains("unexpected argument 'sever'"), r.err);
    }

    @Test
    void aTransposedOptionGetsTheOptionWithTheSameLetters() {
        // picocli's ranking proposed --proc for --prot; two letters swapped is the likelier typo.
        CommandRun r = run("--prot", "1");
        assertEquals(2, r.code);
        assertEquals("run-echo demo: unknown option --prot: did you mean --port? (see run-echo demo --help)",
                r.err.strip());
        assertEquals(List.of("--port"), EchoCommand.suggestions("--prot=1", List.of("--port", "--proc", "--size")));
        assertEquals(List.of("--concurrency"), EchoCommand.suggestions("--concurrecny",
                List.of("--concurrency", "--connections", "--count")));
        assertEquals(List.of(), EchoCommand.suggestions("--zzzzzz", List.of("--port", "--proc")));
    }

    @Test
    void theNoDeviceRefusalIsShortAndFlat() {
        String line = EchoCommand.softwareFabricRefusal(EchoCommand.noDeviceReason());
        assertTrue(line.length() < 300, line.length() + ": " + line);
        int depth = 0;
        for (char c : line.toCharArray()) {
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            assertTrue(depth <= 1, "nested parentheses: " + line);
        }
    }

    @Test
    void aServerRefusesTheSoftwareFabricUnlessAskedByName() {
        // Loopback: --fabric auto picks the software fabric even where an RDMA device exists.
        CommandRun r = run("server", "--address", "127.0.0.1", "--port", "0");
        assertEquals(2, r.code, r.out + r.err);
        assertEquals(1, r.err.lines().count(), r.err);
        assertTrue(r.err.startsWith("run-echo server: " + EchoCommand.softwareFabricRefusal("")
                .substring(0, 60)), r.err);
        assertTrue(r.err.contains("127.0.0.1 is a loopback address") || r.err.contains("no RDMA device")
                || r.err.contains("libibverbs"), r.err);
        assertTrue(r.err.contains("--transport tcp") && r.err.contains("--fabric software to listen anyway"), r.err);

        CommandRun explicit = run("server", "--fabric", "software", "--address", "127.0.0.1", "--port", "0");
        assertEquals(0, explicit.code, explicit.err);
        assertTrue(explicit.out.startsWith("echo server: rdma (software fabric, in-process) on 127.0.0.1:"),
                explicit.out);
        assertTrue(explicit.out.contains("; inline send/receive 4096/4096 B (RFC 8797), up to 32 credits, remote"
                + " invalidation on; program 0x2004F001 version 1"), explicit.out);
        assertTrue(explicit.out.contains("only clients in this JVM can connect"), explicit.out);
        assertTrue(explicit.out.contains("0 connection(s), 0 call(s) (0 NULL, 0 ECHO), 0 error(s)"),
                explicit.out);
    }

    @Test
    void aServerPrintsAStartLineAndOnStopASummary() throws Exception {
        String port = Integer.toString(freePort());
        CountDownLatch stop = new CountDownLatch(1);
        CompletableFuture<CommandRun> server = CompletableFuture.supplyAsync(() -> run(stop, "server", "--transport",
                "tcp", "--io", "nio", "--address", "127.0.0.1", "--port", port));
        CommandRun client = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            client = run("client", "--transport", "tcp", "--io", "nio", "--port", port, "--count", "50",
                    "--warmup", "5", "--size", "100", "--connections", "2");
            if (!client.err.contains("nothing is listening")) {
                break;
            }
            Thread.sleep(50);
        }
        assertEquals(0, client.code, client.err);
        stop.countDown();
        CommandRun s = server.get(30, TimeUnit.SECONDS);
        assertEquals(0, s.code, s.err);
        String[] lines = s.out.split("\n");
        assertTrue(lines[0].matches("echo server: tcp \\(nio\\) on 127\\.0\\.0\\.1:" + port + "; record marking,"
                + " fragments up to \\d+ KiB, records up to \\d+ KiB; program 0x2004F001 version 1 \\(NULL, ECHO\\);"
                + " Ctrl-C stops it"), lines[0]);
        String last = lines[lines.length - 1];
        assertTrue(last.matches("echo server stopped after \\d+\\.\\d s: 2 connection\\(s\\), 56 call\\(s\\)"
                + " \\(1 NULL, 55 ECHO\\), 0 error\\(s\\)"), last);
    }

    @Test
    void aClientWhoseServerDiesSaysHowFarItGot() throws Exception {
        EchoServer server = EchoServer.start("--transport", "tcp", "--io", "nio", "--address", "127.0.0.1",
                "--port", "0");
        try {
            String port = Integer.toString(server.localAddresses().get(0).getPort());
            CompletableFuture<CommandRun> client = CompletableFuture.supplyAsync(() -> run("client", "--transport",
                    "tcp", "--io", "nio", "--port", port, "--size", "0", "--count", "100000000"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.calls() < 200 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            server.close();
            CommandRun r = client.get(60, TimeUnit.SECONDS);
            assertEquals(1, r.code, r.out + r.err);
            assertEquals(1, r.err.lines().count(), r.err);
            assertTrue(r.err.startsWith("run-echo client: the server at 127.0.0.1:" + port + " closed the connection"
                    + " during ECHO of 0 B after "), r.err);
            assertTrue(r.err.matches("(?s).* after \\d+ of 100001000 calls completed .*it stopped or failed.*"),
                    r.err);
            assertFalse(r.err.contains("not an ONC RPC server"), r.err);
        } finally {
            server.close();
        }
    }
}
