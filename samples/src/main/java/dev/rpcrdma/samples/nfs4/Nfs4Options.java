package dev.rpcrdma.samples.nfs4;

import java.nio.file.Path;

/**
 * The NFS server's command line: transports and ports, listen address, export (in memory by default), lease
 * time, event-loop threads. Mutable while parsed, then read-only; confined to the starting thread.
 */
final class Nfs4Options {
    /** Listen on TCP. */
    boolean tcp = true;
    /** Listen on RPC-over-RDMA. */
    boolean rdma;
    int tcpPort = 2049;
    int rdmaPort = 20049;
    String address = "0.0.0.0";
    /** Host directory to export, or null for the in-memory tree. */
    Path export;
    int leaseSeconds = 90;
    int threads = 2;
    /** RDMA fabric: auto, native or software. */
    String fabric = "auto";
    /** RPC-over-RDMA inline send/receive size this server advertises (RFC 8797). */
    int inline = 4096;
    /** Whether the server offers remote invalidation (RFC 8797 R bit). */
    boolean remoteInvalidation = true;

    static final String USAGE = String.join("\n",
            "usage: run-nfs-server [--transport tcp|rdma|both] [--port N] [--rdma-port N] [--address A]",
            "                      [--export DIR] [--lease SECONDS] [--threads N] [--fabric auto|native|software]",
            "                      [--inline BYTES] [--remote-invalidation on|off]",
            "  --transport  what to listen on (default tcp; rdma needs an RDMA device, e.g. Soft-RoCE)",
            "  --port       TCP port (default 2049)",
            "  --rdma-port  RPC-over-RDMA port (default 20049)",
            "  --address    listen address (default 0.0.0.0)",
            "  --export     serve this host directory (default: an in-memory tree, lost at exit)",
            "  --lease      lease time in seconds (default 90)",
            "  --threads    event-loop threads per transport (default 2)",
            "  --inline     RPC-over-RDMA inline size advertised (default 4096)",
            "  --remote-invalidation  offer remote invalidation over RDMA (default on)");

    static Nfs4Options parse(String... args) {
        Nfs4Options o = new Nfs4Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value after " + a + "\n" + USAGE);
            }
            String v = args[++i];
            switch (a) {
                case "--transport" -> {
                    switch (v) {
                        case "tcp" -> {
                            o.tcp = true;
                            o.rdma = false;
                        }
                        case "rdma" -> {
                            o.tcp = false;
                            o.rdma = true;
                        }
                        case "both" -> {
                            o.tcp = true;
                            o.rdma = true;
                        }
                        default -> throw new IllegalArgumentException("--transport: tcp, rdma or both, not " + v);
                    }
                }
                case "--port" -> o.tcpPort = number(a, v, 0, 65535);
                case "--rdma-port" -> o.rdmaPort = number(a, v, 0, 65535);
                case "--address" -> o.address = v;
                case "--export" -> o.export = Path.of(v);
                case "--lease" -> o.leaseSeconds = number(a, v, 1, 3600);
                case "--threads" -> o.threads = number(a, v, 1, 256);
                case "--fabric" -> o.fabric = v;
                case "--inline" -> o.inline = number(a, v, 1024, 1 << 20);
                case "--remote-invalidation" -> {
                    if (!v.equals("on") && !v.equals("off")) {
                        throw new IllegalArgumentException("--remote-invalidation: on or off, not " + v);
                    }
                    o.remoteInvalidation = v.equals("on");
                }
                default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
            }
        }
        return o;
    }

    private static int number(String option, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value);
            if (n < min || n > max) {
                throw new IllegalArgumentException(option + " must be in " + min + ".." + max + ": " + value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a number, not " + value);
        }
    }
}
