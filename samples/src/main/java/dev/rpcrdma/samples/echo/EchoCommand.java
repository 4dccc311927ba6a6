package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.Rdma;
import io.netty.util.Version;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The echo sample's command line, {@code samples/run-echo [demo|server|client] [options]}, on picocli: the
 * subcommands {@code demo} (the default when none is given), {@code server} and {@code client}, {@code -h/--help}
 * and {@code --version} at either level, suggestions for a mistyped option, one-line error messages (stack traces
 * only with {@code --verbose}) and exit codes (0 success, 1 failure, 2 bad usage). Used from one thread at a time.
 */
public final class EchoCommand {

    /** The command's name, as {@code samples/run-echo} is called. */
    static final String NAME = "run-echo";

    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    /** The body of a subcommand. */
    interface Command {
        void run(EchoOptions options, PrintStream out) throws Exception;
    }

    private EchoCommand() {
    }

    /**
     * {@code samples/run-echo}: exits with the command's code; a server stopped by Ctrl-C (SIGINT) or SIGTERM
     * exits with 0 once it has printed its summary ({@link #stoppedBySignal()}).
     */
    public static void main(String[] args) {
        exitZeroWhenStoppedBySignal();
        int code = run(args, System.out, System.err, role -> command(role, true));
        if (code != OK || !isServer(args)) {
            System.exit(code);
        }
    }

    private static boolean isServer(String[] args) {
        return args.length > 0 && EchoOptions.Role.SERVER.command.equals(args[0]);
    }

    /** What each subcommand does, with or without configuring the logging (tests keep theirs). */
    static Command command(EchoOptions.Role role, boolean configureLogging) {
        if (role == EchoOptions.Role.SERVER) {
            return (options, out) -> {
                if (configureLogging) {
                    configureLogging(options.verbose, Level.WARNING);
                }
                EchoServer.serve(options, out, new CountDownLatch(1));
            };
        }
        return (options, out) -> {
            if (configureLogging) {
                // A client reports its failures itself: only severe records are logged.
                configureLogging(options.verbose, Level.SEVERE);
            }
            EchoClient.run(options, out);
        };
    }

    /**
     * Parses {@code args} (a subcommand first, {@code demo} when it is missing), prints the help or version when
     * asked, else runs the subcommand's {@code commands.apply(role)}; returns the exit code. Never throws.
     */
    static int run(String[] args, PrintStream out, PrintStream err, Function<EchoOptions.Role, Command> commands) {
        PrintWriter writer = new PrintWriter(out, true);
        CommandLine line = commandLine(writer, new PrintWriter(err, true));
        String[] full = args.length == 0 || !line.getSubcommands().containsKey(args[0]) && !TOP_LEVEL.contains(args[0])
                ? prepend(EchoOptions.Role.DEMO.command, args) : args;
        EchoOptions.Role role = line.getSubcommands().containsKey(full[0])
                ? EchoOptions.Role.valueOf(full[0].toUpperCase(Locale.ROOT)) : null;
        String program = role == null ? NAME : role.program;
        EchoOptions options;
        try {
            CommandLine.ParseResult parsed = line.parseArgs(full);
            if (CommandLine.printHelpIfRequested(parsed)) {
                writer.flush();
                return OK;
            }
            options = EchoOptions.of(role, parsed.subcommand());
        } catch (CommandLine.ParameterException e) {
            err.println(program + ": " + usageMessage(e));
            return USAGE;
        } catch (UserError e) {
            err.println(program + ": " + e.getMessage());
            return USAGE;
        }
        try {
            commands.apply(role).run(options, out);
            return OK;
        } catch (Throwable t) {
            err.println(program + ": " + message(t));
            if (options.verbose) {
                t.printStackTrace(err);
            }
            Throwable c = Diagnosis.unwrap(t);
            return c instanceof UserError && ((UserError) c).usage ? USAGE : FAILED;
        }
    }

    /** Options of the top level (picocli's standard help options): they do not select the demo. */
    private static final java.util.Set<String> TOP_LEVEL = java.util.Set.of("-h", "--help", "-V", "--version");

    /** The picocli model: {@code run-echo} with its three subcommands, writing to {@code out} and {@code err}. */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine.Model.CommandSpec spec = CommandLine.Model.CommandSpec.create()
                .name(NAME)
                .mixinStandardHelpOptions(true)
                .versionProvider(() -> version(NAME));
        spec.usageMessage()
                .customSynopsis(NAME + " [demo|server|client] [options]",
                        "       " + NAME + " [demo|server|client] --help")
                .description("The echo sample: ONC RPC program 0x2004F001 (NULL, ECHO) over RPC-over-RDMA or TCP.",
                        "Without a subcommand, demo. See samples/README.md.");
        CommandLine line = new CommandLine(spec);
        for (EchoOptions.Role role : EchoOptions.Role.values()) {
            line.addSubcommand(role.command, new CommandLine(EchoOptions.spec(role)));
        }
        line.setOut(out);
        line.setErr(err);
        return line;
    }

    /** Parses the options of {@code role}'s subcommand (what follows its name); a {@link UserError} on bad usage. */
    static EchoOptions parse(EchoOptions.Role role, String... args) {
        try {
            CommandLine.ParseResult parsed = commandLine(new PrintWriter(OutputStream.nullOutputStream()),
                    new PrintWriter(OutputStream.nullOutputStream())).parseArgs(prepend(role.command, args));
            return EchoOptions.of(role, parsed.subcommand());
        } catch (CommandLine.ParameterException e) {
            throw new UserError(usageMessage(e));
        }
    }

    /** {@code --version} of {@code command}: the samples' version, Netty's and the JVM's. */
    public static String[] version(String command) {
        String version = "unknown";
        try (InputStream in = EchoCommand.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                version = p.getProperty("version", version);
            }
        } catch (IOException e) {
            // Reported as "unknown".
        }
        Version netty = Version.identify().get("netty-common");
        return new String[] {command + " " + version + " (netty-rpcrdma samples)",
                "Netty " + (netty == null ? "unknown" : netty.artifactVersion()) + ", Java "
                        + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
    }

    /**
     * A picocli parse error as one line that names the option, with picocli's suggestions for a typo, and where
     * the help is.
     */
    public static String usageMessage(CommandLine.ParameterException e) {
        String message = e.getMessage();
        if (e instanceof CommandLine.UnmatchedArgumentException) {
            CommandLine.UnmatchedArgumentException u = (CommandLine.UnmatchedArgumentException) e;
            List<String> unmatched = u.getUnmatched();
            String arg = unmatched.isEmpty() ? "?" : unmatched.get(0);
            message = arg.startsWith("-") ? "unknown option " + arg : "unexpected argument '" + arg + "'";
            List<String> suggestions = arg.startsWith("-")
                    ? suggestions(arg, e.getCommandLine().getCommandSpec().optionsMap().keySet()) : List.of();
            if (!suggestions.isEmpty()) {
                message += ": did you mean " + String.join(" or ", suggestions) + "?";
            }
        }
        return message + " (see " + e.getCommandLine().getCommandSpec().qualifiedName() + " --help)";
    }

    /**
     * The options closest to a mistyped {@code typo} (its value after '=' ignored): the fewest single-letter edits,
     * an exchange of two neighbouring letters counting as one (so {@code --prot} is {@code --port}'s typo, not
     * {@code --proc}'s), and among those the ones with the same letters first; at most 2 edits, else none. picocli's
     * own suggestions rank by common prefix and proposed {@code --proc} for {@code --prot}.
     */
    static List<String> suggestions(String typo, java.util.Collection<String> options) {
        int eq = typo.indexOf('=');
        String word = eq < 0 ? typo : typo.substring(0, eq);
        int best = 3;
        boolean bestSameLetters = false;
        List<String> found = new java.util.ArrayList<>();
        for (String option : new java.util.TreeSet<>(options)) {
            if (!option.startsWith("--")) {
                continue;
            }
            int d = editDistance(word, option);
            boolean sameLetters = sorted(word).equals(sorted(option));
            if (d < best || d == best && sameLetters && !bestSameLetters) {
                best = d;
                bestSameLetters = sameLetters;
                found.clear();
            }
            if (d == best && sameLetters == bestSameLetters) {
                found.add(option);
            }
        }
        if (found.isEmpty()) {   // nothing within 2 edits: a longer option that starts like the typo, if one does
            for (String option : new java.util.TreeSet<>(options)) {
                if (option.startsWith("--") && word.length() > 3 && option.startsWith(word)) {
                    found.add(option);
                }
            }
        }
        return found;
    }

    private static String sorted(String s) {
        char[] c = s.toCharArray();
        java.util.Arrays.sort(c);
        return new String(c);
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions, adjacent transpositions. */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /**
     * Why a server will not listen on the in-process software fabric it fell back to, and what to do instead: one
     * line, the same for every sample server ({@code run-echo server}, {@code run-nfs-server}).
     */
    public static String softwareFabricRefusal(String reason) {
        return "will not listen on the in-process software fabric, which only this JVM can reach: " + reason
                + ". Use --transport tcp, an RDMA device (--fabric native --address <its IP>), or --fabric software"
                + " to listen anyway";
    }

    /**
     * The refusal of {@code --fabric native} where RDMA is unusable, the same in every sample: the library's
     * {@link Rdma#unavailabilityMessage()} (the cause and what to install or load), then {@code alternatives},
     * the sample's other options (e.g. "use --transport tcp").
     */
    public static String nativeRefusal(String alternatives) {
        String why = Rdma.unavailabilityMessage();
        return (why != null ? why : "RDMA is not available: the native fabric is not usable") + "; or "
                + alternatives;
    }

    /** Set by the samples' {@code main}: a server stopped by SIGINT or SIGTERM then ends the JVM with status 0. */
    private static volatile boolean exitZeroWhenStopped;

    /** Called by a sample's {@code main}: from now on a server stopped by a signal exits with status 0. */
    public static void exitZeroWhenStoppedBySignal() {
        exitZeroWhenStopped = true;
    }

    /**
     * Called by a server's shutdown hook once the server has stopped and printed its summary: the JVM was asked to
     * exit by SIGINT (Ctrl-C) or SIGTERM, and a clean stop is status 0, not 130 or 143 (what the JVM's own exit
     * on a signal gives); so it halts with 0 when a {@code main} asked for it. Tests never halt.
     */
    public static void stoppedBySignal() {
        if (exitZeroWhenStopped) {
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(OK);
        }
    }

    /**
     * Registers a server's shutdown hook: on SIGINT or SIGTERM it opens {@code stop}, waits up to 5 s for the server to
     * open {@code stopped} (after its summary), then {@link #stoppedBySignal()}. The caller removes it when the server
     * stops on its own.
     */
    public static Thread exitOnSignal(CountDownLatch stop, CountDownLatch stopped, String name) {
        Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                if (stopped.await(5, TimeUnit.SECONDS)) {
                    stoppedBySignal();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    /**
     * Why there is no usable RDMA device here, short: the first line of {@link Rdma#unavailabilityCause()} without
     * its advice (e.g. "no RDMA device (/sys/class/infiniband does not exist)").
     */
    public static String noDeviceReason() {
        Throwable cause = Rdma.unavailabilityCause();
        if (cause == null) {
            return "the RDMA device is not usable";
        }
        String line = Diagnosis.firstLine(cause);
        int advice = line.indexOf(": ");
        return advice > 0 ? line.substring(0, advice) : line;
    }

    static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
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
    public static void configureLogging(boolean verbose, Level quietLevel) {
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
            b.append('[').append(r.getLevel().getName().toLowerCase(Locale.ROOT)).append("] ")
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
