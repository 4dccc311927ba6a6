package dev.rpcrdma.samples.oncrpc4j;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.samples.echo.EchoCommand;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * {@code samples/run-oncrpc4j-rpcbind}: oncrpc4j's service answers SET, GETPORT and DUMP on the software fabric; bad
 * input is one line naming the cause and what to do, exit status 2, as in the other samples.
 */
class Oncrpc4jRpcbindDemoTest {

    record CommandRun(int code, String out, String err) {
    }

    static CommandRun run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Oncrpc4jRpcbindDemo.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), new CountDownLatch(0), false);
        return new CommandRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static void assertOneLineError(CommandRun r, int code, String expected) {
        assertEquals(code, r.code, r.out + r.err);
        assertEquals(1, r.err.lines().count(), "one line, no stack trace: " + r.err);
        assertTrue(r.err.startsWith("run-oncrpc4j-rpcbind: "), r.err);
        assertTrue(r.err.contains(expected), r.err);
        assertFalse(r.err.contains("\tat "), r.err);
    }

    @Test
    void oncrpc4jsRpcbindAnswersOverRdma() {
        CommandRun r = run("--fabric", "software");
        assertEquals(0, r.code, r.out + r.err);
        String s = r.out;
        assertTrue(s.startsWith("oncrpc4j OncRpcbindServer over RPC-over-RDMA (software fabric) at 127.0.0.1:"), s);
        assertTrue(s.contains("note: the software fabric is in-process: only clients in this JVM can connect"), s);
        assertTrue(s.contains(": true"), "SET accepted: " + s);
        assertTrue(s.contains("GETPORT 0x20000099 v1 tcp: 20099"), s);
        assertTrue(s.contains("20099") && s.contains("100000"), "DUMP lists the new mapping and rpcbind itself: " + s);
        assertEquals("", r.err);
    }

    @Test
    void serveStopsWhenAsked() {
        // The stop latch is already open: the demo runs, announces serving, stops and exits with 0.
        CommandRun r = run("--serve");
        assertEquals(0, r.code, r.out + r.err);
        assertTrue(r.out.contains("serving until stopped (Ctrl-C)"), r.out);
        assertTrue(r.out.contains("rpcbind demo stopped"), r.out);
    }

    @Test
    void helpAndVersion() {
        CommandRun help = run("--help");
        assertEquals(0, help.code, help.err);
        assertTrue(help.out.contains("Usage: run-oncrpc4j-rpcbind"), help.out);
        CommandRun version = run("--version");
        assertEquals(0, version.code, version.err);
        assertTrue(version.out.startsWith("run-oncrpc4j-rpcbind "), version.out);
    }

    @Test
    void usageErrorsAreOneLineWithExitStatus2() {
        assertOneLineError(run("--bogus"), 2, "unknown option --bogus (see run-oncrpc4j-rpcbind --help)");
        assertOneLineError(run("--prot", "1"), 2, "unknown option --prot: did you mean --port?");
        assertOneLineError(run("--port", "x"), 2, "--port");
        assertOneLineError(run("--port", "99999"), 2, "--port must be in 0..65535: 99999");
        assertOneLineError(run("--fabric", "ib"), 2, "--fabric: software or native, not ib");
        assertOneLineError(run("--address", "192.0.2.55"), 2,
                "--address 192.0.2.55: no interface of this host has that address: give one of its addresses");
        assertOneLineError(run("--address", "no-such-host.invalid"), 2, "--address no-such-host.invalid: unknown host");
    }

    @Test
    void nativeWithoutADeviceSaysWhyAndWhatToDo() {
        assumeFalse(Rdma.isAvailable(), "SKIPPED: this host has a usable RDMA device; the refusal cannot be provoked");
        CommandRun r = run("--fabric", "native", "--address", "127.0.0.1");
        assertOneLineError(r, 2, EchoCommand.nativeRefusal("use --fabric software (the demo within one JVM)"));
        assertTrue(r.err.contains("RDMA is not available: " + Rdma.unavailabilityCause().getMessage().lines()
                .findFirst().orElseThrow()), r.err);
    }
}
