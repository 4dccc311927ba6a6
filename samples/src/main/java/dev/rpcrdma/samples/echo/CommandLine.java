package dev.rpcrdma.samples.echo;

import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What {@link EchoServer#main} and {@link EchoClient#main} share: option parsing, {@code --help}, one-line error
 * messages (stack traces only with {@code --verbose}) and exit codes (0 success, 1 failure, 2 bad usage).
 */
final class CommandLine {

    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    /** The body of a command. */
    interface Command {
        void run(EchoOptions options, PrintStream out) throws Exception;
    }

    private CommandLine() {
    }

    /** Parses {@code args} and runs {@code command}; returns the exit code. Never throws. */
    static int execute(EchoOptions.Role role, String[] args, PrintStream out, PrintStream err, Command command) {
        EchoOptions options;
        try {
            options = EchoOptions.parse(role, args);
        } catch (UserError e) {
            err.println(role.program + ": " + e.getMessage());
            return USAGE;
        }
        if (options.help) {
            out.print(EchoOptions.usage(role));
            return OK;
        }
        try {
            command.run(options, out);
            return OK;
        } catch (Throwable t) {
            err.println(role.program + ": " + message(t));
            if (options.verbose) {
                t.printStackTrace(err);
            }
            return FAILED;
        }
    }

    /** The line printed for a failure. */
    static String message(Throwable t) {
        Throwable c = Diagnosis.unwrap(t);
        if (c instanceof UserError) {
            return c.getMessage();
        }
        return "unexpected error: " + c + " (run with --verbose for the stack trace)";
    }

    /**
     * Routes Netty's logging to java.util.logging with one line per record on stderr, causes as one line: records
     * of at least {@code quietLevel} (a server logs warnings about its peers; a client reports its failures itself
     * and logs only severe records); with {@code verbose}, debug records and full stack traces.
     */
    static void configureLogging(boolean verbose, Level quietLevel) {
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
        Logger root = Logger.getLogger("");
        for (java.util.logging.Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler handler = new ConsoleHandler();
        Level level = verbose ? Level.FINE : quietLevel;
        handler.setLevel(level);
        handler.setFormatter(new OneLineFormatter(verbose));
        root.addHandler(handler);
        root.setLevel(level);
        Logger.getLogger("dev.rpcrdma").setLevel(level);
    }

    private static final class OneLineFormatter extends Formatter {
        private final boolean stackTraces;

        OneLineFormatter(boolean stackTraces) {
            this.stackTraces = stackTraces;
        }

        @Override
        public String format(LogRecord r) {
            StringBuilder b = new StringBuilder();
            String name = r.getLoggerName() == null ? "" : r.getLoggerName();
            b.append('[').append(r.getLevel().getName().toLowerCase(java.util.Locale.ROOT)).append("] ")
                    .append(name.substring(name.lastIndexOf('.') + 1)).append(": ").append(formatMessage(r));
            Throwable t = r.getThrown();
            if (t != null) {
                if (stackTraces) {
                    StringWriter w = new StringWriter();
                    t.printStackTrace(new PrintWriter(w));
                    b.append('\n').append(w);
                } else {
                    b.append(" (").append(t.getClass().getSimpleName()).append(": ")
                            .append(Diagnosis.firstLine(t)).append(')');
                }
            }
            return b.append(System.lineSeparator()).toString();
        }
    }
}
