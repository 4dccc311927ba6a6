package dev.rpcrdma.samples.echo;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * Exit code, stdout and stderr of one {@code run-echo} command line run in this JVM (logging left as the tests set
 * it); a {@code server} stops when {@code serverStop} opens, at once by default (after its start line).
 */
final class CommandRun {
    final int code;
    final String out;
    final String err;

    private CommandRun(int code, String out, String err) {
        this.code = code;
        this.out = out;
        this.err = err;
    }

    /** Runs {@code run-echo args}; a server stops right after it started. */
    static CommandRun of(String... args) {
        return of(new CountDownLatch(0), args);
    }

    /** Runs {@code run-echo args}; a server serves until {@code serverStop} opens. */
    static CommandRun of(CountDownLatch serverStop, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = EchoCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                role -> role == EchoOptions.Role.SERVER ? (o, printer) -> EchoServer.serve(o, printer, serverStop)
                        : EchoCommand.command(role, false));
        return new CommandRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
