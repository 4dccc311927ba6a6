package dev.rpcrdma.oncrpc.rpcbind;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The machine's real rpcbind (not written by us) for interoperability tests: uses the one listening on
 * 127.0.0.1:111, or starts {@code rpcbind -f -w} itself (and stops only that process afterwards). Skips loudly
 * when rpcbind/rpcinfo are not installed (Debian package {@code rpcbind}, installed by {@code tools/setup}).
 */
final class LocalRpcbind {

    static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", RpcbindClient.PORT);

    private static Process started;

    private LocalRpcbind() {
    }

    private static Path find(String name) {
        for (String dir : new String[] {"/usr/sbin", "/sbin", "/usr/bin", "/bin"}) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Path of rpcinfo; skips the test loudly if absent. */
    static Path rpcinfo() {
        Path p = find("rpcinfo");
        if (p == null) {
            skip("rpcinfo is not installed");
        }
        return p;
    }

    private static void skip(String why) {
        String message = "SKIPPED rpcbind interoperability test: " + why
                + " (install the Debian package 'rpcbind': apt-get install -y rpcbind, or run tools/setup)";
        System.err.println("**** " + message);
        Assumptions.abort(message);
    }

    static synchronized void ensureRunning() throws IOException, InterruptedException {
        Path rpcbind = find("rpcbind");
        if (rpcbind == null) {
            skip("rpcbind is not installed");
        }
        if (reachable()) {
            return;
        }
        Path log = Files.createTempFile("rpcbind", ".log");
        started = new ProcessBuilder(rpcbind.toString(), "-f", "-w").redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!reachable()) {
            if (!started.isAlive() || System.nanoTime() > deadline) {
                String output = Files.readString(log);
                stopIfStarted();
                throw new AssertionError("rpcbind is installed but could not be started (" + rpcbind
                        + " -f -w): " + output);
            }
            Thread.sleep(50);
        }
        System.err.println("**** started rpcbind -f -w for the interoperability tests (pid " + started.pid() + ")");
    }

    static synchronized void stopIfStarted() throws InterruptedException {
        if (started != null) {
            started.destroy();
            if (!started.waitFor(5, TimeUnit.SECONDS)) {
                started.destroyForcibly();
            }
            started = null;
        }
    }

    private static boolean reachable() {
        try (Socket s = new Socket()) {
            s.connect(ADDRESS, 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs a command, returns exit code and combined output. */
    static Result run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + String.join(" ", command));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(p.exitValue(), out);
    }

    static final class Result {
        final int exitCode;
        final String output;

        Result(int exitCode, String output) {
            this.exitCode = exitCode;
            this.output = output;
        }

        List<String> lines() {
            return new ArrayList<>(List.of(output.split("\n")));
        }

        @Override
        public String toString() {
            return "exit " + exitCode + ":\n" + output;
        }
    }
}
