package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.samples.echo.EchoCommand;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The NFS server's command line, {@code samples/run-nfs-server [options]}, on picocli like the other samples:
 * transports and ports, listen address, export (in memory by default), lease time, event-loop threads, RDMA fabric
 * and what the server advertises. picocli does the syntax (help, version, suggestions for a mistyped option); the
 * values are checked here into one-line {@link IllegalArgumentException}s naming the option. Mutable while parsed,
 * then read-only; confined to the starting thread.
 */
@CommandLine.Command(name = Nfs4Options.NAME, mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = Nfs4Options.Version.class,
        description = {"A small NFSv4.1 server (RFC 5661) on this project's RPC stack, over TCP and/or RPC-over-RDMA.",
                "Mount it as root on a Linux client: mount -t nfs -o vers=4.1,proto=tcp,port=2049 HOST:/ /mnt",
                "(over RDMA: -o vers=4.1,proto=rdma,port=20049). Ctrl-C stops it. See samples/README.md."})
final class Nfs4Options {
    /** The command's name, as {@code samples/run-nfs-server} is called. */
    static final String NAME = "run-nfs-server";

    @CommandLine.Option(names = "--transport", paramLabel = "tcp|rdma|both", defaultValue = "tcp",
            description = "what to listen on (default ${DEFAULT-VALUE}; rdma needs an RDMA device, e.g. Soft-RoCE)")
    String transport;
    @CommandLine.Option(names = "--port", paramLabel = "N", defaultValue = "2049",
            description = "TCP port (default ${DEFAULT-VALUE}; 0 = any free port)")
    int tcpPort;
    @CommandLine.Option(names = "--rdma-port", paramLabel = "N", defaultValue = "20049",
            description = "RPC-over-RDMA port (default ${DEFAULT-VALUE}; 0 = any free port)")
    int rdmaPort;
    @CommandLine.Option(names = "--address", paramLabel = "A", defaultValue = "0.0.0.0",
            description = "listen address (default ${DEFAULT-VALUE}; over RDMA an address of the device's interface)")
    String address;
    @CommandLine.Option(names = "--export", paramLabel = "DIR",
            description = "serve this host directory (default: an in-memory tree, lost at exit)")
    Path export;
    @CommandLine.Option(names = "--lease", paramLabel = "SECONDS", defaultValue = "90",
            description = "lease time in seconds, 1..3600 (default ${DEFAULT-VALUE})")
    int leaseSeconds;
    @CommandLine.Option(names = "--threads", paramLabel = "N", defaultValue = "2",
            description = "event-loop threads per transport, 1..256 (default ${DEFAULT-VALUE})")
    int threads;
    @CommandLine.Option(names = "--fabric", paramLabel = "auto|native|software", defaultValue = "auto",
            description = "RDMA fabric: native = a libibverbs/librdmacm device, software = the in-process model"
                    + " (this JVM only, so a server refuses it unless named), auto = native if a device is usable"
                    + " (default ${DEFAULT-VALUE})")
    String fabric;
    @CommandLine.Option(names = "--inline", paramLabel = "BYTES", defaultValue = "4096",
            description = "RPC-over-RDMA inline size advertised, 1024..1048576 (default ${DEFAULT-VALUE})")
    int inline;
    @CommandLine.Option(names = "--remote-invalidation", paramLabel = "on|off", defaultValue = "on",
            description = "offer remote invalidation over RDMA, the R bit of RFC 8797 (default ${DEFAULT-VALUE})")
    String remoteInvalidationChoice;
    @CommandLine.Option(names = "--sec", paramLabel = "FLAVORS", defaultValue = "sys",
            description = "security flavors of the export in order of preference, a comma list of sys, krb5, krb5i,"
                    + " krb5p (default ${DEFAULT-VALUE}; krb5, krb5i and krb5p need --keytab and --principal)")
    String sec;
    @CommandLine.Option(names = "--keytab", paramLabel = "FILE",
            description = "keytab holding the key of --principal (with --sec krb5, krb5i or krb5p)")
    Path keytab;
    @CommandLine.Option(names = "--principal", paramLabel = "nfs/HOST@REALM",
            description = "the server's Kerberos principal (with --sec krb5, krb5i or krb5p)")
    String principal;
    @CommandLine.Option(names = "--verbose", description = "debug logging and stack traces")
    boolean verbose;

    /** Listen on TCP. */
    boolean tcp;
    /** Listen on RPC-over-RDMA. */
    boolean rdma;
    /** Whether the server offers remote invalidation (RFC 8797 R bit). */
    boolean remoteInvalidation;
    /** The export's security flavors ({@code --sec}). */
    ExportSecurity security;

    /** {@code --version}: the samples' version, Netty's and the JVM's. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return EchoCommand.version(NAME);
        }
    }

    /** The picocli model over {@code options}. */
    static CommandLine commandLine(Nfs4Options options) {
        return new CommandLine(options);
    }

    /** Parses {@code args} (no help or version); a one-line {@link IllegalArgumentException} on bad usage. */
    static Nfs4Options parse(String... args) {
        Nfs4Options o = new Nfs4Options();
        try {
            commandLine(o).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(EchoCommand.usageMessage(e), e);
        }
        return o.check();
    }

    /** Checks the values picocli parsed and derives the flags; this. */
    Nfs4Options check() {
        switch (transport.toLowerCase(Locale.ROOT)) {
            case "tcp" -> {
                tcp = true;
                rdma = false;
            }
            case "rdma" -> {
                tcp = false;
                rdma = true;
            }
            case "both" -> {
                tcp = true;
                rdma = true;
            }
            default -> throw new IllegalArgumentException("--transport: tcp, rdma or both, not " + transport);
        }
        range("--port", tcpPort, 0, 65535);
        range("--rdma-port", rdmaPort, 0, 65535);
        range("--lease", leaseSeconds, 1, 3600);
        range("--threads", threads, 1, 256);
        range("--inline", inline, 1024, 1 << 20);
        if (!fabric.equals("auto") && !fabric.equals("native") && !fabric.equals("software")) {
            throw new IllegalArgumentException("--fabric: auto, native or software, not " + fabric);
        }
        if (!rdma && !fabric.equals("auto")) {
            throw new IllegalArgumentException("--fabric " + fabric + " applies to RPC-over-RDMA only, and --transport"
                    + " is tcp: add --transport rdma (or both), or drop --fabric");
        }
        if (!remoteInvalidationChoice.equals("on") && !remoteInvalidationChoice.equals("off")) {
            throw new IllegalArgumentException("--remote-invalidation: on or off, not " + remoteInvalidationChoice);
        }
        remoteInvalidation = remoteInvalidationChoice.equals("on");
        security = ExportSecurity.parse(sec);
        if (security.needsKerberos()) {
            if (keytab == null || principal == null) {
                throw new IllegalArgumentException("--sec " + sec + ": needs --keytab FILE and --principal"
                        + " nfs/HOST@REALM");
            }
            if (principal.indexOf('@') <= 0 || principal.endsWith("@")) {
                throw new IllegalArgumentException("--principal: nfs/HOST@REALM, not " + principal);
            }
        } else if (keytab != null || principal != null) {
            throw new IllegalArgumentException((keytab != null ? "--keytab" : "--principal")
                    + ": only with --sec krb5, krb5i or krb5p");
        }
        if (address.isBlank()) {
            throw new IllegalArgumentException("--address: empty");
        }
        return this;
    }

    private static void range(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " must be in " + min + ".." + max + ": " + value);
        }
    }
}
