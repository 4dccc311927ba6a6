package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.samples.echo.EchoCommand;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;

/**
 * {@code samples/run-nfs-server [options]}: the NFS server's command line, in the echo sample's style: {@code -h/--help}
 * and {@code -V/--version}, suggestions for a mistyped option, one-line errors (stack traces only with
 * {@code --verbose}), exit codes (0 stopped normally, 1 failure such as a port in use, 2 bad usage), a start line
 * with the mount command and, when stopped (Ctrl-C), a summary line. Used from one thread.
 */
public final class Nfs4Command {

    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    private Nfs4Command() {
    }

    /**
     * {@code samples/run-nfs-server}: exits with the command's code; stopped by Ctrl-C (SIGINT) or SIGTERM it exits
     * with 0 once it has printed its summary.
     */
    public static void main(String[] args) {
        EchoCommand.exitZeroWhenStoppedBySignal();
        int code = run(args, System.out, System.err, new CountDownLatch(1), true);
        if (code != OK) {
            System.exit(code);
        }
    }

    /**
     * Parses {@code args}, prints the help or version when asked, else starts the server, prints its start line and
     * serves until {@code stop} opens or the JVM is asked to exit, then prints the summary; returns the exit code.
     * Never throws.
     */
    static int run(String[] args, PrintStream out, PrintStream err, CountDownLatch stop, boolean configureLogging) {
        Nfs4Options options = new Nfs4Options();
        CommandLine line = Nfs4Options.commandLine(options);
        PrintWriter writer = new PrintWriter(out, true);
        line.setOut(writer);
        line.setErr(new PrintWriter(err, true));
        try {
            if (CommandLine.printHelpIfRequested(line.parseArgs(args))) {
                writer.flush();
                return OK;
            }
            options.check();
        } catch (CommandLine.ParameterException e) {
            err.println(Nfs4Options.NAME + ": " + EchoCommand.usageMessage(e));
            return USAGE;
        } catch (IllegalArgumentException e) {
            err.println(Nfs4Options.NAME + ": " + e.getMessage());
            return USAGE;
        }
        if (configureLogging) {
            EchoCommand.configureLogging(options.verbose, Level.WARNING);
        }
        Nfs4Server server;
        try {
            server = Nfs4Server.start(options);
        } catch (IllegalArgumentException e) {
            err.println(Nfs4Options.NAME + ": " + e.getMessage());
            return USAGE;
        } catch (IOException | RuntimeException e) {
            err.println(Nfs4Options.NAME + ": " + (e instanceof IOException ? e.getMessage()
                    : "unexpected error: " + e + " (run with --verbose for the stack trace)"));
            if (options.verbose) {
                e.printStackTrace(err);
            }
            return FAILED;
        }
        long started = System.nanoTime();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = EchoCommand.exitOnSignal(stop, stopped, "nfs4-shutdown");
        try {
            out.println(startLine(options, server));
            out.flush();
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            server.close();
            out.println(server.summary(System.nanoTime() - started));
            out.flush();
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it waits for 'stopped'.
            }
        }
        return OK;
    }

    /** What the server serves, where, and how a Linux client mounts it. */
    static String startLine(Nfs4Options o, Nfs4Server server) {
        StringBuilder b = new StringBuilder("NFSv4.1 server exporting ")
                .append(o.export != null ? o.export.toAbsolutePath() : "an in-memory tree (lost at exit)");
        if (server.tcpAddress() != null) {
            b.append(", TCP ").append(hostPort(o, server.tcpAddress()));
        }
        if (server.rdmaAddress() != null) {
            b.append(", RDMA ").append(hostPort(o, server.rdmaAddress()));
        }
        b.append(". Mount as root: mount -t nfs -o vers=4.1");
        ExportSecurity.Flavor first = o.security != null ? o.security.flavors().get(0) : ExportSecurity.Flavor.SYS;
        if (first != ExportSecurity.Flavor.SYS) {
            b.append(",sec=").append(first.optionName());
        }
        if (server.tcpAddress() != null) {
            b.append(",proto=tcp,port=").append(server.tcpAddress().getPort());
        } else {
            b.append(",proto=rdma,port=").append(server.rdmaAddress().getPort());
        }
        return b.append(" HOST:/ DIR. Ctrl-C stops it").toString();
    }

    /**
     * {@code a} as {@code host:port}: the wildcard as asked ({@code 0.0.0.0}, which a dual-stack socket reports as
     * {@code ::}), an IPv6 address in brackets.
     */
    static String hostPort(Nfs4Options o, java.net.InetSocketAddress a) {
        java.net.InetAddress ip = a.getAddress();
        String host;
        if (ip.isAnyLocalAddress()) {
            host = o.address.contains(":") ? "[::]" : "0.0.0.0";
        } else if (ip instanceof java.net.Inet6Address) {
            host = "[" + ip.getHostAddress() + "]";
        } else {
            host = ip.getHostAddress();
        }
        return host + ":" + a.getPort();
    }
}
