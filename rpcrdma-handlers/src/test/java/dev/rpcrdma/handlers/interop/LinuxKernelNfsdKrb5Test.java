package dev.rpcrdma.handlers.interop;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssClientContext;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Our RPCSEC_GSS client (krb5p) against the Linux kernel's nfsd over RPC-over-RDMA, in the VM stage: an MIT KDC
 * ({@link Krb5Realm}) issues the tickets, nfsd hands the context tokens to gssproxy (Debian's gssproxy, started
 * with the keytab of {@code nfs/}{@value #SERVER_NAME}; {@code /proc/net/rpc/use-gss-proxy}), and nfsd exports a
 * tmpfs with {@code sec=krb5:krb5i:krb5p}. NFS NULL and an NFSv4.0 COMPOUND of PUTROOTFH and GETATTR under krb5
 * and krb5i get verified replies, over RDMA on every provider and over TCP once; the same COMPOUND under AUTH_SYS
 * is refused (WRONGSEC). krb5p too on a kernel whose nfsd takes krb5p arguments (6.12: the VM stage's second boot,
 * tools/vm/run-second-kernel). Debian 12's 6.1 (6.1.191 and later stable updates) answers every krb5p COMPOUND
 * GARBAGE_ARGS, ours and the Linux client's alike: there, and only on a 6.1 kernel, the test aborts loudly rather
 * than pass; anywhere else GARBAGE_ARGS fails it (docs/security.md, "krb5p and Linux 6.1's nfsd").
 */
@Tag("rdma-device")
class LinuxKernelNfsdKrb5Test {
    /** The principal's host name (any dotted name: nothing resolves it). */
    static final String SERVER_NAME = "nfs-server.rpcrdma.test";
    static final Path EXPORT = Path.of("/tmp/nfs41-export");
    static final int NFS_PROGRAM = 100003;
    static final int NFS_V4 = 4;
    static final int OP_PUTROOTFH = 24;
    static final int OP_GETATTR = 9;
    static final int NFS4ERR_WRONGSEC = 10016;
    static final int NF4DIR = 2;
    static final int RPCSEC_GSS_KRB5P = 390005;

    static Krb5Realm realm;
    static Process gssproxy;
    static Path gssproxyLog;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(System.getenv("VM_RDMA_ADDR") != null, "SKIPPED: not in the Soft-RoCE VM (tools/vm/run sets"
                + " VM_RDMA_ADDR); no kernel NFS server to talk to");
        assumeTrue(Fabrics.findNative() != null, "SKIPPED: no native RDMA fabric");
        assumeTrue(new File("/usr/sbin/gssproxy").canExecute(), "SKIPPED: gssproxy is not installed (Debian"
                + " gssproxy; tools/setup installs it)");
        realm = Krb5Realm.shared();
        Path keytab = realm.addPrincipal("nfs/" + SERVER_NAME);
        realm.addPrincipal("root");
        // gssproxy for nfsd: its own configuration (not /etc/gssproxy's), the socket the kernel connects to.
        Path conf = Files.createDirectories(realm.directory().resolve("gssproxy"));
        Files.writeString(conf.resolve("gssproxy.conf"), String.join("\n",
                "[gssproxy]",
                "[service/nfs-server]",
                "  mechs = krb5",
                "  socket = /run/gssproxy.sock",
                "  cred_store = keytab:" + keytab,
                "  trusted = yes",
                "  kernel_nfsd = yes",
                "  euid = 0",
                ""), StandardCharsets.US_ASCII);
        // The socket of an earlier JVM's gssproxy (this boot's previous provider) goes, so that its reappearance
        // says the new one listens.
        sh("modprobe rpcsec_gss_krb5 && modprobe nfsd && rm -f /run/gssproxy.sock && cat /proc/net/rpc/use-gss-proxy",
                120);
        gssproxyLog = conf.resolve("gssproxy.log");
        ProcessBuilder pb = new ProcessBuilder("/usr/sbin/gssproxy", "-i", "-d", "-c",
                conf.resolve("gssproxy.conf").toString(), "-C", conf.toString());
        pb.environment().putAll(realm.environment());
        gssproxy = pb.redirectErrorStream(true).redirectOutput(gssproxyLog.toFile()).start();
        // gssproxy tells the kernel to use it (writes 1 to use-gss-proxy, for good) and listens on its socket.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(Path.of("/proc/net/rpc/use-gss-proxy")).trim().equals("1")
                || !Files.exists(Path.of("/run/gssproxy.sock"))) {
            assertTrue(gssproxy.isAlive(), "gssproxy exited: " + Files.readString(gssproxyLog));
            assertTrue(System.nanoTime() < deadline, "gssproxy did not register with the kernel: "
                    + Files.readString(gssproxyLog));
            Thread.sleep(100);
        }
        // The kernel's own view of a refused call: its RPCSEC_GSS and nfsd trace events, printed after the tests.
        sh("d=/sys/kernel/tracing; [ -d $d/events ] || mount -t tracefs nodev $d; echo > $d/trace;"
                + " echo 1 > $d/events/rpcgss/enable; for e in nfsd_compound_decode_err nfsd_garbage_args_err; do"
                + " [ -e $d/events/nfsd/$e ] && echo 1 > $d/events/nfsd/$e/enable; done; true", 60);
        File script = new File(LinuxKernelNfsdKrb5Test.class.getResource("start-knfsd-v41.sh").toURI());
        String out = sh("sh " + script.getPath() + " " + EXPORT, 120);
        assertTrue(out.contains("rdma 20049"), out);
        // The export again, with a security list: krb5, krb5i, krb5p (secinfo: count, then flavor and flags each;
        // the flags must be the export's).
        String never = "2147483647";
        sh("echo 'rdmatest " + EXPORT + " " + never + " 9218 65534 65534 41 secinfo 3 390003 9218 390004 9218 "
                + RPCSEC_GSS_KRB5P + " 9218' > /proc/net/rpc/nfsd.export/channel && grep '" + EXPORT + "'"
                + " /proc/net/rpc/nfsd.export/content", 60);
    }

    @AfterAll
    static void stop() throws Exception {
        if (realm != null) {
            sh("d=/sys/kernel/tracing; echo 0 > $d/events/rpcgss/enable; grep -v '^#' $d/trace | tail -n 40;"
                    + " echo > $d/trace; true", 60);
        }
        KernelNfsd.stopInVm();
        if (gssproxy != null) {
            gssproxy.destroy();
            gssproxy.waitFor(30, TimeUnit.SECONDS);
            System.out.println("gssproxy's log (last lines):\n" + tail(gssproxyLog, 30));
        }
    }

    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (java.io.IOException e) {
            return "(" + e + ")";
        }
    }

    static String sh(String script, int seconds) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), script);
        System.out.println("$ " + script + "\n" + out);
        assertEquals(0, p.exitValue(), script + ": " + out);
        return out;
    }

    /** An NFSv4.0 COMPOUND (no session needed): PUTROOTFH, GETATTR of the type. */
    static XdrPayload putrootfhGetattr(RpcClient client) {
        XdrPayload args = client.newPayload();
        args.writer().writeString("krb5p").writeInt(0).writeInt(2)
                .writeInt(OP_PUTROOTFH)
                .writeInt(OP_GETATTR).writeInt(1).writeInt(1 << 1);   // bitmap4 {TYPE}
        return args;
    }

    /** The COMPOUND's status; on NFS4_OK, the GETATTR's type. */
    static int[] compoundResult(XdrReader r) throws XdrException {
        int status = r.readInt();
        r.readString(64);
        int n = r.readInt();
        if (status != 0) {
            return new int[] {status, -1};
        }
        assertEquals(2, n);
        assertEquals(OP_PUTROOTFH, r.readInt());
        assertEquals(0, r.readInt());
        assertEquals(OP_GETATTR, r.readInt());
        assertEquals(0, r.readInt());
        int words = r.readInt();
        for (int i = 0; i < words; i++) {
            r.readInt();
        }
        r.readInt();   // attrlist4's length
        return new int[] {0, r.readInt()};
    }

    /**
     * On one connection: AUTH_SYS is refused (WRONGSEC: the export lists only Kerberos), then for each of krb5,
     * krb5i and krb5p a context, NFS NULL and the COMPOUND, whose outcomes are collected before anything is
     * asserted, so that one run shows which services work.
     */
    static void exercise(RpcClient client, String transport) throws Exception {
        int[] sys = client.callAndWait(NFS_PROGRAM, NFS_V4, 1, putrootfhGetattr(client),
                LinuxKernelNfsdKrb5Test::compoundResult, CallOptions.DEFAULT.withCredential(
                        new AuthSysCredential(0, "localhost", 0, 0).toOpaqueAuth()));
        assertEquals(NFS4ERR_WRONGSEC, sys[0], "nfsd refuses AUTH_SYS on a Kerberos-only export");
        GSSCredential root = Krb5Credentials.initiator(Krb5Realm.name("root"), realm.addPrincipal("root"));
        GSSName target = Krb5Credentials.principalName(Krb5Realm.name("nfs/" + SERVER_NAME));
        Map<RpcGssService, String> outcomes = new EnumMap<>(RpcGssService.class);
        for (RpcGssService service : RpcGssService.values()) {
            String step = "context";
            try {
                RpcGssClientContext context = RpcGssClientContext.establish(client, NFS_PROGRAM, NFS_V4, root, target,
                        service);
                step = "NULL";
                client.callAndWait(NFS_PROGRAM, NFS_V4, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                        context.callOptions());   // a void body, still protected (RFC 2203 §5.3.2.2)
                step = "COMPOUND";
                int[] r = client.callAndWait(NFS_PROGRAM, NFS_V4, 1, putrootfhGetattr(client),
                        LinuxKernelNfsdKrb5Test::compoundResult, context.callOptions());
                outcomes.put(service, r[0] == 0 && r[1] == NF4DIR ? "ok" : "COMPOUND status " + r[0] + " type " + r[1]);
                step = "DESTROY";
                context.destroy(client);
            } catch (Exception e) {
                outcomes.merge(service, step + " failed: " + e, (a, b) -> a + "; " + b);
            }
        }
        System.out.println("our RPCSEC_GSS client against nfsd over " + transport + ": " + outcomes);
        assertEquals("ok", outcomes.get(RpcGssService.NONE), "krb5 over " + transport + ": " + outcomes);
        assertEquals("ok", outcomes.get(RpcGssService.INTEGRITY), "krb5i over " + transport + ": " + outcomes);
        String privacy = outcomes.get(RpcGssService.PRIVACY);
        String kernel = System.getProperty("os.version");
        if (privacy.startsWith("COMPOUND failed") && privacy.contains("GARBAGE_ARGS") && kernel.startsWith("6.1.")) {
            // Debian 12's 6.1.0-56 (6.1.192): the 6.1.191 stable update converted svcauth_gss_unwrap_priv() to the
            // argument xdr_stream, but nfsd_dispatch() still re-initialises that stream from rq_arg's head, which
            // the new code no longer advances: nfsd decodes the COMPOUND from the databody_priv's length word, and
            // so answers GARBAGE_ARGS to every krb5p COMPOUND, the Linux client's too (docs/security.md). 6.12
            // takes them (the stage's second boot). Reported, not counted as a pass; on any other kernel a failure.
            String message = "KNOWN: krb5p COMPOUND against nfsd (Linux " + kernel + ") over " + transport
                    + " answered GARBAGE_ARGS (the context and NULL work); see docs/security.md: " + privacy;
            System.err.println("**** " + message);
            Assumptions.abort(message);
        }
        assertEquals("ok", privacy, "krb5p over " + transport + ": " + outcomes);
    }

    @Test
    void ourKrb5ClientsCallNfsdOverRdma() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(Fabrics.findNative())));
        RpcRdmaStats rdmaStats = new RpcRdmaStats();
        try {
            Channel channel = new Bootstrap().group(group).channel(RdmaChannel.class)
                    .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, rdmaStats,
                            Duration.ofSeconds(120)))
                    .connect(new InetSocketAddress(InetAddress.getByName(System.getenv("VM_RDMA_ADDR")), 20049))
                    .sync().channel();
            exercise(RpcClient.of(channel), "RDMA");
            System.out.println("nfsd over RDMA: " + rdmaStats);
            assertEquals(0, rdmaStats.discardedMessages() + rdmaStats.errorsReceived(), rdmaStats.toString());
            channel.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    @Tag("rdma-device-once") // TCP: the same on every provider
    void ourKrb5ClientsCallNfsdOverTcp() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new TcpRpcClientInitializer(new RpcStats(), TcpRpcConfig.DEFAULT, Duration.ofSeconds(120)))
                    .connect(new InetSocketAddress(InetAddress.getByName(System.getenv("VM_RDMA_ADDR")), 2049))
                    .sync().channel();
            exercise(RpcClient.of(channel), "TCP");
            channel.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
