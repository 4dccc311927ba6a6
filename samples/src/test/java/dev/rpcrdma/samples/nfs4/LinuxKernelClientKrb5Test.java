package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssClientContext;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.oncrpc.gss.RpcGssStats;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The REAL Linux kernel NFS client mounts our NFSv4.1 sample with {@code sec=krb5}, {@code krb5i} and {@code krb5p},
 * in the VM stage, against peers nobody here wrote: an MIT KDC ({@link Krb5Realm}, Debian's krb5-kdc) and the
 * kernel's RPCSEC_GSS client ({@code rpcsec_gss_krb5}) fed by nfs-utils' {@code rpc.gssd}, which gets the client's
 * machine credential from a keytab of {@code host/localhost} (root's operations and the lease) and a user's from
 * the user's ticket cache. The server exports krb5, krb5i and krb5p (not sys) as {@code nfs/}{@value #SERVER_NAME}:
 * the mounts name the server by that name ({@code addr=} gives its address), which the guest's hosts file
 * resolves for gssd. Over RDMA on every provider, over TCP once; a {@code sec=sys} mount is refused (WRONGSEC), a user
 * without a ticket or with an expired one is refused (once); a read delegation is recalled over the RDMA backchannel
 * (every provider).
 */
@Tag("rdma-device")
class LinuxKernelClientKrb5Test {
    /** The server's host name in its principal and in the mounts (any dotted name: nothing resolves it). */
    static final String SERVER_NAME = "nfs-server.rpcrdma.test";
    /** A local user (Debian's passwd) acting as a Kerberos user: {@code daemon@REALM} maps to it. */
    static final String USER = "daemon";
    static final int USER_UID = 1;

    static String addr;
    static Krb5Realm realm;
    static Path ccaches;
    static Path krb5Conf;
    static Process gssd;
    static Path gssdLog;
    static Nfs4Server server;
    static Path rootKeytab;

    String mnt;

    @BeforeAll
    static void kerberos() throws Exception {
        addr = System.getenv("VM_RDMA_ADDR");
        assumeTrue(addr != null, "SKIPPED: not in the Soft-RoCE VM (tools/vm/run sets VM_RDMA_ADDR); the kernel"
                + " client's Kerberos needs the guest's rpc.gssd and rpc_pipefs");
        assumeTrue(new File("/usr/sbin/rpc.gssd").canExecute(), "SKIPPED: rpc.gssd is not installed (Debian"
                + " nfs-common; tools/setup installs it)");
        realm = Krb5Realm.shared();
        Path serverKeytab = realm.addPrincipal("nfs/" + SERVER_NAME);
        // The guest's host name is localhost: gssd looks for host/localhost (among others) in its keytab.
        Path machineKeytab = realm.addPrincipal("host/" + LinuxKernelClientTest.run("hostname", 30).trim());
        realm.addPrincipal(USER);
        rootKeytab = realm.addPrincipal("root");
        // gssd reads a user's cache, and krb5.conf, as that user: a directory the user can enter, a copy of the
        // realm's krb5.conf (the realm's directory is root's alone).
        Path gssdDir = Files.createDirectories(Path.of("/tmp/rpcrdma-gssd"));
        ccaches = Files.createDirectories(gssdDir.resolve("ccaches"));
        krb5Conf = Files.copy(realm.krb5Conf(), gssdDir.resolve("krb5.conf"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        // A cache left by an earlier JVM of this boot holds tickets of that JVM's KDC: gone.
        sh("rm -f " + ccaches + "/* && chmod 755 " + gssdDir + " " + ccaches + " && chmod 644 " + krb5Conf);
        // Our server takes the NFS ports; the kernel's nfsd (other modules' tests) must not hold them.
        sh("if [ -w /proc/fs/nfsd/threads ]; then echo 0 > /proc/fs/nfsd/threads; fi; modprobe nfs; modprobe nfsv4;"
                + " modprobe rpcrdma || true; modprobe rpcsec_gss_krb5; mkdir -p /run/rpc_pipefs;"
                + " grep -q ' /run/rpc_pipefs ' /proc/mounts || mount -t rpc_pipefs sunrpc /run/rpc_pipefs");
        // gssd looks the server's name up (getaddrinfo) to find its realm: the guest's hosts file (its overlay is
        // writable) names this host; the mounts still give the address (addr=).
        sh("grep -q ' " + SERVER_NAME + "$' /etc/hosts || echo '" + addr + " " + SERVER_NAME + "' >> /etc/hosts");
        gssdLog = realm.directory().resolve("gssd.log");
        ProcessBuilder pb = new ProcessBuilder("/usr/sbin/rpc.gssd", "-f", "-v", "-p", "/run/rpc_pipefs", "-k",
                machineKeytab.toString(), "-d", ccaches.toString());
        pb.environment().putAll(realm.environment());
        pb.environment().put("KRB5_CONFIG", krb5Conf.toString());
        gssd = pb.redirectErrorStream(true).redirectOutput(gssdLog.toFile()).start();
        server = Nfs4Server.start("--transport", "both", "--port", "2049", "--rdma-port", "20049", "--address",
                "0.0.0.0", "--fabric", "native", "--lease", "20", "--sec", "krb5,krb5i,krb5p", "--keytab",
                serverKeytab.toString(), "--principal", Krb5Realm.name("nfs/" + SERVER_NAME));
    }

    @AfterAll
    static void stopAll() throws Exception {
        if (server != null) {
            System.out.println("server: gss " + server.gss().stats() + "; delegations " + server.delegationStats());
            server.close();
        }
        if (gssd != null) {
            // Other tests of this boot mount with sec=sys: without gssd the kernel gives up Kerberos at once.
            gssd.destroy();
            gssd.waitFor(30, TimeUnit.SECONDS);
            System.out.println("rpc.gssd's log (last lines):\n" + tail(gssdLog, 30));
            run("umount /run/rpc_pipefs 2>/dev/null; true", 60);
        }
    }

    @BeforeEach
    void mountPoint(TestInfo info) throws Exception {
        mnt = "/tmp/our-nfs4-krb5-" + info.getTestMethod().orElseThrow().getName();
        sh("mkdir -p " + mnt);
    }

    @AfterEach
    void unmount() throws Exception {
        run("umount -i " + mnt + " 2>/dev/null || umount -i -f -l " + mnt + " 2>/dev/null; true", 60);
    }

    static String tail(Path file, int lines) {
        try {
            var all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (java.io.IOException e) {
            return "(" + e + ")";
        }
    }

    /** Runs a shell command; a failure carries the kernel's and gssd's last lines. */
    static String run(String script, int seconds) throws Exception {
        try {
            return LinuxKernelClientTest.run(script, seconds);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + (gssdLog != null ? "\nrpc.gssd (last lines):\n"
                    + tail(gssdLog, 20) : ""), e);
        }
    }

    static String sh(String script) throws Exception {
        String out = run(script, 600);
        System.out.println("$ " + script + "\n" + out);
        return out;
    }

    /** Runs a command and returns its exit status and output, whatever the status. */
    static String[] attempt(String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), script);
        System.out.println("$ " + script + "\n(exit " + p.exitValue() + ") " + out);
        return new String[] {Integer.toString(p.exitValue()), out};
    }

    /** util-linux's own mount ({@code -i}: not mount.nfs): the options go to the kernel as they are. */
    String mountCommand(String proto, String sec) {
        int port = proto.equals("rdma") ? 20049 : 2049;
        return "mount -i -t nfs -o vers=4.1,sec=" + sec + ",proto=" + proto + ",port=" + port + ",addr=" + addr
                + ",clientaddr=" + addr + ",soft,timeo=100,retrans=3 " + SERVER_NAME + ":/ " + mnt;
    }

    /** The workload under one flavor: 16 MiB written, read back after a remount and compared; list, rename, remove. */
    void workload(String proto, String sec) throws Exception {
        RpcGssStats gss = server.gss().stats();
        long contexts = gss.contextsEstablished();
        sh(mountCommand(proto, sec) + " && grep " + mnt + " /proc/mounts");
        String opts = run("grep ' " + mnt + " ' /proc/mounts", 30);
        assertTrue(opts.contains("sec=" + sec + ",") && opts.contains("proto=" + proto), opts);
        String src = "/tmp/nfs41-krb5-src";
        String big = mnt + "/big-" + proto + "-" + sec;
        String dir = mnt + "/d-" + proto + "-" + sec;
        sh("[ -f " + src + " ] || dd if=/dev/urandom of=" + src + " bs=1M count=" + LinuxKernelClientTest.MIB
                + " 2>&1; dd if=" + src + " of=" + big + " bs=1M conv=fsync 2>&1");
        sh("umount -i " + mnt + " && " + mountCommand(proto, sec) + " && cmp " + src + " " + big
                + " && echo BYTE-IDENTICAL");
        sh("mkdir " + dir + " && i=0; while [ $i -lt 20 ]; do echo $i > " + dir + "/f$i; i=$((i+1)); done;"
                + " echo created");
        assertEquals("21", run("ls -l " + dir + " | wc -l", 300).trim(), "20 files and a total line");
        sh("mv " + dir + "/f7 " + dir + "/renamed && cat " + dir + "/renamed && mv " + big + " " + dir + "/big"
                + " && rm -r " + dir + " && ls -la " + mnt);
        assertEquals("gone", run("[ -e " + dir + " ] || [ -e " + big + " ] || echo gone", 60).trim());
        String stats = run("sed -n '/" + mnt.replace("/", "\\/") + "/,/^$/p' /proc/self/mountstats", 60);
        assertTrue(stats.contains("xprt:\t" + proto) || stats.contains("xprt: " + proto), stats);
        sh("umount -i " + mnt + " && echo UNMOUNTED");
        System.out.println(sec + " over " + proto + ": " + gss);
        assertTrue(gss.contextsEstablished() > contexts, "the kernel client established RPCSEC_GSS contexts");
        assertEquals(0, gss.badBodies() + gss.badVerifiers() + gss.reducedBodies() + gss.badCredentials(),
                gss.toString());
    }

    @Test
    void krb5Krb5iKrb5pOverRdma() throws Exception {
        for (String sec : new String[] {"krb5", "krb5i", "krb5p"}) {
            workload("rdma", sec);
        }
    }

    @Test
    @Tag("rdma-device-once") // TCP: the same on every provider
    void krb5Krb5iKrb5pOverTcp() throws Exception {
        for (String sec : new String[] {"krb5", "krb5i", "krb5p"}) {
            workload("tcp", sec);
        }
    }

    @Test
    @Tag("rdma-device-once") // the server's flavor check, not the transport's
    void aSysMountOfTheKrb5ExportIsRefused() throws Exception {
        long wrongSec = server.wrongSec();
        String[] r = attempt(mountCommand("rdma", "sys"));
        assertTrue(!r[0].equals("0"), "a sec=sys mount of a krb5-only export must fail: " + r[1]);
        assertTrue(server.wrongSec() > wrongSec, "the server answered WRONGSEC");
        assertTrue(!run("cat /proc/mounts", 30).contains(" " + mnt + " "), "nothing mounted");
    }

    /**
     * Root's mount (the machine credential) works; the user {@value #USER} without a ticket is refused, with a
     * ticket acts as itself (the server's identity mapper: the files it creates are its own), and once the
     * ticket has expired is refused again (the kernel's context ends with the ticket; gssd finds it expired).
     */
    @Test
    @Tag("rdma-device-once") // the credentials, not the transport
    void aUserWithoutATicketOrWithAnExpiredOneIsRefused() throws Exception {
        sh(mountCommand("rdma", "krb5") + " && mkdir -p " + mnt + "/shared && chmod 777 " + mnt + "/shared");
        String asUser = "setpriv --reuid=" + USER_UID + " --regid=" + USER_UID + " --clear-groups ";
        String[] r = attempt(asUser + "sh -c 'echo no > " + mnt + "/shared/no-ticket'");
        assertTrue(!r[0].equals("0"), "a user without a ticket must be refused: " + r[1]);
        assertTrue(r[1].contains("Permission denied") || r[1].contains("Key has expired"), r[1]);

        // A ticket of 20 s: gssd reads the user's cache from its -d directory (krb5cc_<uid>, owned by the user).
        Path cache = ccaches.resolve("krb5cc_" + USER_UID);
        kinit(USER, realm.addPrincipal(USER), cache, "20s");
        sh("chown " + USER_UID + " " + cache);
        long issued = System.nanoTime();
        sh(asUser + "sh -c 'echo yes > " + mnt + "/shared/with-ticket' && ls -ln " + mnt + "/shared");
        String owner = run("stat -c %u " + mnt + "/shared/with-ticket", 60).trim();
        assertEquals(Integer.toString(USER_UID), owner, "the server mapped " + USER + "@" + Krb5Realm.REALM
                + " to uid " + USER_UID);

        // Past the ticket's end (20 s and the clock's skew), the kernel's context is gone too.
        long wait = TimeUnit.SECONDS.toMillis(25) - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - issued);
        if (wait > 0) {
            Thread.sleep(wait);
        }
        r = attempt(asUser + "sh -c 'echo late > " + mnt + "/shared/expired'");
        assertTrue(!r[0].equals("0"), "an expired ticket must be refused: " + r[1]);
        assertTrue(r[1].contains("Key has expired") || r[1].contains("Permission denied"), r[1]);
        sh("rm -r " + mnt + "/shared && umount -i " + mnt + " && echo UNMOUNTED");
        Files.deleteIfExists(cache);
    }

    /** The server's delegation counters: granted, recalled, returned, revoked. */
    static long[] delegations() {
        String[] f = server.delegationStats().replaceAll("[^0-9 ]", "").trim().split(" +");
        long[] n = new long[4];
        for (int i = 0; i < 4; i++) {
            n[i] = Long.parseLong(f[i]);
        }
        return n;
    }

    static void kinit(String principal, Path keytab, Path cache, String lifetime) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("kinit", "-k", "-t", keytab.toString(), "-c", "FILE:" + cache,
                "-l", lifetime, Krb5Realm.name(principal));
        pb.environment().putAll(realm.environment());
        pb.environment().put("KRB5_CONFIG", krb5Conf.toString());
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "kinit: " + out);
    }

    /**
     * The kernel client holds a read delegation under krb5 (over RDMA); our Java client, with krb5p over TCP, opens
     * the file for write: NFS4ERR_DELAY while the server recalls the delegation over the kernel's backchannel,
     * then success once the kernel returned it.
     */
    @Test // on every provider: the recall crosses the provider's RDMA backchannel while the fore channel is krb5
    void aReadDelegationIsRecalledUnderKrb5() throws Exception {
        long[] before = delegations();
        sh(mountCommand("rdma", "krb5") + " && echo data > " + mnt + "/deleg && sync");
        sh("umount -i " + mnt + " && " + mountCommand("rdma", "krb5"));
        Process holder = new ProcessBuilder("sh", "-c", "exec 3<" + mnt + "/deleg; cat <&3; exec sleep 60").start();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (Nfs4TestClient java = Nfs4TestClient.connect(group, new InetSocketAddress("127.0.0.1", 2049),
                "java-krb5p")) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (delegations()[0] == before[0] && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            System.out.println("after the kernel's read open: " + server.delegationStats());
            assertTrue(delegations()[0] > before[0], "the kernel got a read delegation: " + server.delegationStats());
            RpcGssClientContext krb5p = RpcGssClientContext.establish(java.rpc, Nfs4.PROGRAM, Nfs4.VERSION,
                    Krb5Credentials.initiator(Krb5Realm.name("root"), rootKeytab),
                    Krb5Credentials.principalName(Krb5Realm.name("nfs/" + SERVER_NAME)), RpcGssService.PRIVACY);
            java.options = krb5p.callOptions().withTimeout(Duration.ofSeconds(30));
            java.mount();
            int status;
            int delays = 0;
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            do {
                status = java.call(java.sequenced().putrootfh().open("w", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false,
                        "deleg")).status;
                if (status == Nfs4.NFS4ERR_DELAY) {
                    delays++;
                    Thread.sleep(200);
                }
            } while (status == Nfs4.NFS4ERR_DELAY && System.nanoTime() < deadline);
            System.out.println("Java client's krb5p write open: status " + status + " after " + delays + " DELAY; "
                    + server.delegationStats());
            assertEquals(0, status);
            assertTrue(delays > 0, "the first write open waited for the recall");
            long[] after = delegations();
            assertTrue(after[1] > before[1], "recalled: " + server.delegationStats());
            assertTrue(after[2] > before[2], "the kernel returned the delegation: " + server.delegationStats());
            assertEquals(before[3], after[3], "nothing revoked: " + server.delegationStats());
        } finally {
            holder.destroyForcibly().waitFor();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        sh("cat " + mnt + "/deleg && rm " + mnt + "/deleg && umount -i " + mnt + " && echo UNMOUNTED");
    }
}
