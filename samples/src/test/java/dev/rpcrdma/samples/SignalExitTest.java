package dev.rpcrdma.samples;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample servers, each in a JVM of its own, stopped as a user stops them (Ctrl-C is SIGINT; a service manager
 * sends SIGTERM): they print their summary and exit with status 0, what samples/README.md says.
 */
class SignalExitTest {

    /** Starts {@code mainClass} with {@code args}, waits for {@code ready} on stdout, sends {@code signal}. */
    private static Stopped stop(String signal, String ready, String mainClass, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                // A JVM started where SIGINT is ignored (a background job of a script) would ignore it too.
                "env", "--default-signal=INT,TERM",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            boolean signalled = false;
            while ((line = r.readLine()) != null) {
                out.append(line).append('\n');
                if (!signalled && line.contains(ready)) {
                    signalled = true;
                    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
                    assertEquals(0, kill.waitFor(), "kill -" + signal);
                }
            }
        } catch (IOException | AssertionError | InterruptedException e) {
            p.destroyForcibly();
            throw e;
        }
        return new Stopped(p.waitFor(), out.toString());
    }

    record Stopped(int status, String output) {
    }

    @Test
    void versionPrintsNoLoggingNoise() throws Exception {
        // rpcrdma-oncrpc4j brings oncrpc4j and SLF4J: the samples' binding keeps SLF4J's "no binding" lines away.
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "dev.rpcrdma.samples.echo.EchoCommand", "--version")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.startsWith("run-echo "), out);
        assertEquals(2, out.lines().count(), "the version and the Netty/Java line only: " + out);
    }

    @Test
    void theEchoServerExitsWithZeroOnCtrlC() throws Exception {
        Stopped s = stop("INT", "Ctrl-C stops it", "dev.rpcrdma.samples.echo.EchoCommand", "server",
                "--transport", "tcp", "--address", "127.0.0.1", "--port", "0");
        assertEquals(0, s.status(), s.output());
        assertTrue(s.output().contains("echo server stopped after "), s.output());
    }

    @Test
    void theNfsServerExitsWithZeroOnSigterm() throws Exception {
        Stopped s = stop("TERM", "Ctrl-C stops it", "dev.rpcrdma.samples.nfs4.Nfs4Command",
                "--transport", "tcp", "--address", "127.0.0.1", "--port", "0");
        assertEquals(0, s.status(), s.output());
        assertTrue(s.output().contains("NFSv4.1 server stopped after "), s.output());
    }

    @Test
    void theRpcbindDemoExitsWithZeroOnCtrlC() throws Exception {
        Stopped s = stop("INT", "serving until stopped", "dev.rpcrdma.samples.oncrpc4j.Oncrpc4jRpcbindDemo",
                "--serve");
        assertEquals(0, s.status(), s.output());
        assertNotNull(s.output());
        assertTrue(s.output().contains("rpcbind demo stopped"), s.output());
        assertTrue(!s.output().contains("SLF4J"), "a binding is on the class path: " + s.output());
    }
}
