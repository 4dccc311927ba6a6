package dev.rpcrdma.samples.echo;

import picocli.CommandLine;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Command-line options of {@code run-echo demo}, {@code server} and {@code client}: one table ({@code SPECS})
 * from which picocli builds each subcommand's options, so picocli does the syntax ({@code --name value} or
 * {@code --name=value}, flags, {@code -h/--help}, {@code --version}, suggestions for a mistyped option) and this
 * class checks the values (ranges, choices, byte suffixes) into a {@link UserError} naming the option. Immutable
 * once parsed.
 */
final class EchoOptions {

    /** Which subcommand the options are for (decides the defaults and which options exist). */
    enum Role {
        DEMO("demo", "server and client in one JVM: starts an echo server, then runs the client against it"
                + " (the default)"),
        SERVER("server", "serves the echo program (NULL, ECHO) until stopped (Ctrl-C)"),
        CLIENT("client", "calls NULL then ECHO against a running server, verifies every echoed byte and prints a"
                + " latency summary");

        final String command;
        final String program;
        final String summary;

        Role(String command, String summary) {
            this.command = command;
            this.program = EchoCommand.NAME + " " + command;
            this.summary = summary;
        }
    }

    /** Transports. */
    enum Transport {
        RDMA, TCP;

        static Transport parse(String value) {
            return Transport.valueOf(choice("--transport", value, "rdma", "tcp").toUpperCase(Locale.ROOT));
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The procedure the client measures. */
    enum Procedure {
        ECHO, NULL
    }

    /**
     * Default ECHO payload: 1 KiB, so that a call and its reply, with their RPC and RPC-over-RDMA headers, fit the
     * default 4096 B inline threshold and go as plain Sends. A payload that does not fit (--size 4096 already
     * does not: the headers take about 100 bytes) moves by RDMA Read and Write in chunks, which the client's
     * summary counts.
     */
    static final int DEFAULT_SIZE = 1024;
    /** Default number of measured calls. */
    static final int DEFAULT_COUNT = 10_000;
    /** Default inline size advertised over RDMA (RFC 8166 §3.3.2: 1024 is the minimum; 4096 is usual). */
    static final int DEFAULT_INLINE = 4096;
    /** Default credits requested (client) or granted (server) over RDMA (RFC 8166 §3.3.1). */
    static final int DEFAULT_CREDITS = 32;

    private static final class Spec {
        final String name;
        final String arg;
        final String help;
        final boolean server;
        final boolean client;

        Spec(String name, String arg, String help, boolean server, boolean client) {
            this.name = name;
            this.arg = arg;
            this.help = help;
            this.server = server;
            this.client = client;
        }

        boolean isFlag() {
            return arg == null;
        }

        boolean appliesTo(Role role) {
            return role == Role.SERVER ? server : client && !(role == Role.DEMO && "--embedded-server".equals(name));
        }
    }

    private static final List<Spec> SPECS = List.of(
            new Spec("--transport", "rdma|tcp", "transport (default rdma)", true, true),
            new Spec("--fabric", "auto|native|software",
                    "RDMA fabric: native = libibverbs/librdmacm device, software = in-process model (same JVM"
                            + " only), auto = native if usable and the address is not loopback, else software (default"
                            + " auto)", true, true),
            new Spec("--io", "auto|epoll|io_uring|nio", "TCP event loop (default auto: epoll if available)", true,
                    true),
            new Spec("--address", "ADDR", "server: addresses to listen on, comma-separated (default 0.0.0.0);"
                    + " client: server address (default 127.0.0.1)", true, true),
            new Spec("--port", "N", "port, TCP and RDMA (default " + EchoProgram.DEFAULT_PORT
                    + "; 0 = any free port)", true, true),
            new Spec("--size", "BYTES", "ECHO payload size, e.g. 0, 4096, 64k, 1m (default " + DEFAULT_SIZE
                    + ": inline over RDMA; from about 4000 bytes up, with the default --inline, data moves in"
                    + " Read/Write chunks; max " + (EchoProgram.MAX_DATA >> 20) + "m)", false, true),
            new Spec("--count", "N", "measured calls (default " + DEFAULT_COUNT + ")", false, true),
            new Spec("--warmup", "N", "unmeasured calls first (default: count / 10, at most 1000)", false, true),
            new Spec("--concurrency", "N", "calls in flight at once (default 1)", false, true),
            new Spec("--connections", "N", "connections the calls are spread over (default 1)", false, true),
            new Spec("--proc", "echo|null", "procedure to measure (default echo)", false, true),
            new Spec("--inline", "BYTES", "RDMA: inline size to advertise, send and receive (RFC 8797;"
                    + " 1k..256k, rounded down to 1 KiB; default " + DEFAULT_INLINE + ")", true, true),
            new Spec("--remote-invalidation", "on|off", "RDMA: offer remote invalidation, the R bit of RFC 8797"
                    + " (default on)", true, true),
            new Spec("--credits", "N", "RDMA: credits to request (client) or grant (server) (default "
                    + DEFAULT_CREDITS + ")", true, true),
            new Spec("--timeout", "SECONDS", "per-call and connect timeout (default 30)", false, true),
            new Spec("--threads", "N", "event loop threads (default 2)", true, true),
            new Spec("--busy-poll", "MICROS", "RDMA: how long an idle event loop keeps polling its completion"
                    + " queues before it sleeps on a completion event; lower latency for a core per spinning loop"
                    + " (default 0: never spin)", true, true),
            new Spec("--embedded-server", null, "start an echo server in this JVM first (on --address, any free"
                    + " port unless --port is given) and call it", false, true),
            new Spec("--verbose", null, "log more and print stack traces of errors", true, true));

    final Role role;
    final Transport transport;
    final String fabric;
    final String io;
    final List<String> addresses;
    final int port;
    final int size;
    final int count;
    final int warmup;
    final int concurrency;
    final int connections;
    final Procedure procedure;
    final int inline;
    final int credits;
    final boolean remoteInvalidation;
    final int timeoutSeconds;
    final int threads;
    final int busyPollMicros;
    final boolean embeddedServer;
    final boolean verbose;

    private EchoOptions(Role role, Map<String, String> v) {
        this.role = role;
        verbose = v.containsKey("--verbose");
        embeddedServer = role == Role.DEMO || v.containsKey("--embedded-server");
        transport = Transport.parse(v.getOrDefault("--transport", "rdma"));
        fabric = choice("--fabric", v.getOrDefault("--fabric", "auto"), "auto", "native", "software");
        io = choice("--io", v.getOrDefault("--io", "auto"), "auto", "epoll", "io_uring", "nio");
        String defaultAddress = role == Role.SERVER ? "0.0.0.0" : "127.0.0.1";
        addresses = List.copyOf(Arrays.asList(v.getOrDefault("--address", defaultAddress).split(",", -1)));
        for (String a : addresses) {
            if (a.isBlank()) {
                throw new UserError("--address: empty address in '" + v.get("--address") + "'");
            }
        }
        if (role != Role.SERVER && addresses.size() != 1) {
            throw new UserError("--address: the client calls one server address, got " + addresses);
        }
        int defaultPort = embeddedServer ? 0 : EchoProgram.DEFAULT_PORT;
        port = integer(v, "--port", defaultPort, role == Role.SERVER || embeddedServer ? 0 : 1, 65535);
        size = (int) Math.min(Integer.MAX_VALUE, bytes(v, "--size", DEFAULT_SIZE, 0, EchoProgram.MAX_DATA));
        count = integer(v, "--count", DEFAULT_COUNT, 1, Integer.MAX_VALUE);
        warmup = integer(v, "--warmup", Math.min(count / 10, 1000), 0, Integer.MAX_VALUE);
        concurrency = integer(v, "--concurrency", 1, 1, 65536);
        connections = integer(v, "--connections", 1, 1, 1024);
        procedure = Procedure.valueOf(choice("--proc", v.getOrDefault("--proc", "echo"), "echo", "null")
                .toUpperCase(Locale.ROOT));
        // RFC 8166 §3.3.2: an inline threshold below 1024 bytes is not allowed.
        // RFC 8797 §4.2: inline sizes are advertised in 1 KiB units, 1 KiB..256 KiB.
        inline = (int) bytes(v, "--inline", DEFAULT_INLINE, 1024, 256 * 1024);
        remoteInvalidation = "on".equals(choice("--remote-invalidation",
                v.getOrDefault("--remote-invalidation", "on"), "on", "off"));
        credits = integer(v, "--credits", DEFAULT_CREDITS, 1, 65535);
        timeoutSeconds = integer(v, "--timeout", 30, 1, 86400);
        threads = integer(v, "--threads", 2, 1, 256);
        busyPollMicros = integer(v, "--busy-poll", 0, 0, 1_000_000);
    }

    /** Parses {@code args} (the options after the subcommand) for {@code role}; a {@link UserError} on bad usage. */
    static EchoOptions parse(Role role, String... args) {
        return EchoCommand.parse(role, args);
    }

    /** The options a picocli parse of {@link #spec(Role)} matched; checks their values. */
    static EchoOptions of(Role role, CommandLine.ParseResult parsed) {
        Map<String, String> values = new LinkedHashMap<>();
        for (CommandLine.Model.OptionSpec o : parsed.matchedOptions()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                List<String> given = o.originalStringValues();
                values.put(o.longestName(), o.arity().max() == 0 ? "" : given.get(given.size() - 1));
            }
        }
        return new EchoOptions(role, values);
    }

    /** The picocli model of {@code role}'s subcommand: its options from {@code SPECS}, help and version. */
    static CommandLine.Model.CommandSpec spec(Role role) {
        CommandLine.Model.CommandSpec spec = CommandLine.Model.CommandSpec.create()
                .name(role.command)
                .mixinStandardHelpOptions(true)
                .versionProvider(() -> EchoCommand.version(EchoCommand.NAME));
        spec.usageMessage()
                .description(role.summary, "program 0x2004F001 version 1: NULL (0), ECHO (1) opaque<> -> opaque<>")
                .sortOptions(false)
                .abbreviateSynopsis(true);
        for (Spec s : SPECS) {
            if (s.appliesTo(role)) {
                spec.addOption(CommandLine.Model.OptionSpec.builder(s.name)
                        .paramLabel(s.isFlag() ? "" : s.arg)
                        .type(s.isFlag() ? boolean.class : String.class)
                        .arity(s.isFlag() ? "0" : "1")
                        .description(s.help)
                        .build());
            }
        }
        spec.parser().overwrittenOptionsAllowed(true);
        return spec;
    }

    /** The {@code --help} text for {@code role}. */
    static String usage(Role role) {
        return EchoCommand.commandLine(new java.io.PrintWriter(java.io.OutputStream.nullOutputStream()),
                new java.io.PrintWriter(java.io.OutputStream.nullOutputStream())).getSubcommands().get(role.command)
                .getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    static String choice(String option, String value, String... allowed) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (String a : allowed) {
            if (a.equals(v)) {
                return a;
            }
        }
        throw new UserError(option + ": '" + value + "' is not one of " + String.join(", ", allowed));
    }

    private static int integer(Map<String, String> v, String option, int dflt, int min, int max) {
        String s = v.get(option);
        if (s == null) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new UserError(option + ": '" + s + "' is not a number");
        }
        if (n < min || n > max) {
            throw new UserError(option + ": " + n + " is out of range [" + min + ", " + max + "]");
        }
        return (int) n;
    }

    /** A byte count with an optional binary suffix: k/K/KiB (1024), m/M/MiB (1024 * 1024). */
    static long bytes(Map<String, String> v, String option, long dflt, long min, long max) {
        String s = v.get(option);
        if (s == null) {
            return dflt;
        }
        String t = s.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("kib") || t.endsWith("k")) {
            unit = 1024;
            t = t.substring(0, t.length() - (t.endsWith("kib") ? 3 : 1));
        } else if (t.endsWith("mib") || t.endsWith("m")) {
            unit = 1024 * 1024;
            t = t.substring(0, t.length() - (t.endsWith("mib") ? 3 : 1));
        }
        long n;
        try {
            n = Math.multiplyExact(Long.parseLong(t), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new UserError(option + ": '" + s + "' is not a byte count (e.g. 4096, 64k, 1m)");
        }
        if (n < min || n > max) {
            throw new UserError(option + ": " + n + " bytes is out of range [" + min + ", " + max + "]");
        }
        return n;
    }
}
