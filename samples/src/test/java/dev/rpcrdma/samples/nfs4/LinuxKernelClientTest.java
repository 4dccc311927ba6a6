package dev.rpcrdma.samples.nfs4;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The REAL Linux kernel NFS client against our server, in the Soft-RoCE VM (tools/vm/run-rdma-tests samples):
 * the server runs in this JVM, the kernel mounts it ({@code mount -t nfs -o vers=4.1,proto=tcp} and later
 * {@code proto=rdma}), and shell commands do what a user would: a {@value #DEFAULT_MIB} MiB dd (many of the kernel
 * client's full-size WRITEs and READs, the server's maximum being 1 MiB; {@code -Dnfs4.kernelClient.mib}) written and
 * read back byte-checked after a remount, also by four readers at once, 1000 files created and listed with
 * {@code ls -l}, mkdir/rename/rm, a clean umount. Over TCP it also checks a read delegation held by the kernel
 * client is recalled over its backchannel when our Java client opens the file for write. The mounts skip the mount.nfs
 * helper ({@code mount -i}; nfs-common is installed for rpc.gssd): util-linux passes the options straight to the
 * kernel, hence {@code addr=}.
 */
@Tag("rdma-device")
class LinuxKernelClientTest {
    static final int DEFAULT_MIB = 16;
    static final int MIB = Integer.getInteger("nfs4.kernelClient.mib", DEFAULT_MIB);

    /** The mount point: one per test, so a mount a failed test left behind cannot disturb the next. */
    String MNT;
    Nfs4Server server;
    String addr;

    @BeforeEach
    void start(org.junit.jupiter.api.TestInfo info) throws Exception {
        MNT = "/tmp/our-nfs4-mnt-" + info.getTestMethod().orElseThrow().getName();
        addr = System.getenv("VM_RDMA_ADDR");
        assumeTrue(addr != null, "SKIPPED: not in the Soft-RoCE VM (tools/vm/run sets VM_RDMA_ADDR)");
        // The kernel's nfsd may still listen on 2049/20049 (other modules' interop tests started it in this boot):
        // stopping its threads closes its listeners, so our server can bind those ports.
        sh("if [ -w /proc/fs/nfsd/threads ]; then echo 0 > /proc/fs/nfsd/threads; fi; "
                + "modprobe nfs; modprobe nfsv4; modprobe rpcrdma || true; mkdir -p " + MNT);
    }

    @AfterEach
    void stop() throws Exception {
        if (addr != null) {
            run("umount -i " + MNT + " 2>/dev/null || umount -i -f -l " + MNT + " 2>/dev/null; true", 60);
        }
        if (server != null) {
            System.out.println("server delegations: " + server.delegationStats() + "; rdma " + server.rdmaStats());
            server.close();
        }
    }

    static String run(String script, int seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + script);
        }
        String s = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError("exit " + p.exitValue() + ": " + script + "\n" + s + kernelLogTail());
        }
        return s;
    }

    /** The kernel's last log lines (the NFS client's and xprtrdma's view of a failure), for a failed command. */
    static String kernelLogTail() {
        try {
            Process p = new ProcessBuilder("sh", "-c", "dmesg | tail -n 40").redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(30, TimeUnit.SECONDS) ? "\nkernel log (last lines):\n" + log : "";
        } catch (IOException | InterruptedException e) {
            return "\n(no kernel log: " + e + ")";
        }
    }

    static String sh(String script) throws IOException, InterruptedException {
        String out = run(script, 600);
        System.out.println("$ " + script + "\n" + out);
        return out;
    }

    String mountCommand(String proto, int port) {
        return "mount -i -t nfs -o vers=4.1,proto=" + proto + ",port=" + port + ",addr=" + addr + ",clientaddr=" + addr
                + ",soft,timeo=100,retrans=3 " + addr + ":/ " + MNT;
    }

    /** RPC-over-RDMA chunk counters of all the mounts of one workload: read, write and reply chunks. */
    final long[] chunks = new long[3];

    /**
     * Adds the chunk counters of the current mount's {@code xprt: rdma} line of /proc/self/mountstats (after the
     * ten generic counters come read_chunk_count, write_chunk_count, reply_chunk_count: xprt_rdma_print_stats).
     */
    void addChunkCounters(String proto) throws Exception {
        String stats = run("cat /proc/self/mountstats | sed -n '/" + MNT.replace("/", "\\/") + "/,/^$/p'", 60);
        for (String line : stats.split("\n")) {
            String t = line.trim();
            if (t.startsWith("xprt:")) {
                System.out.println(t);
                String[] f = t.split("\\s+");
                assertEquals(proto, f[1], "the mount's transport");
                if (proto.equals("rdma")) {
                    for (int i = 0; i < 3; i++) {
                        chunks[i] += Long.parseLong(f[12 + i]);
                    }
                }
            }
        }
    }

    void remount(String proto, int port) throws Exception {
        addChunkCounters(proto);
        sh("umount -i " + MNT + " && " + mountCommand(proto, port));
    }

    /** The workload of the issue, over one mount: dd, remount, cmp, 1000 files, ls -l, mkdir/rename/rm. */
    void workload(String proto, int port) throws Exception {
        sh(mountCommand(proto, port) + " && grep " + MNT + " /proc/mounts");
        sh("dd if=/dev/urandom of=/tmp/nfs41-src bs=1M count=" + MIB + " 2>&1 && dd if=/tmp/nfs41-src of=" + MNT
                + "/big bs=1M conv=fsync 2>&1 && ls -l " + MNT);
        remount(proto, port);
        sh("cmp /tmp/nfs41-src " + MNT + "/big && echo BYTE-IDENTICAL");
        // Several concurrent readers, from the server (the page cache dropped first).
        String readers = sh("sync; echo 3 > /proc/sys/vm/drop_caches; for i in 1 2 3 4; do (cmp /tmp/nfs41-src "
                + MNT + "/big && echo reader $i identical) & done; wait");
        assertEquals(4, readers.split("identical", -1).length - 1, readers);
        sh("mkdir " + MNT + "/many && i=0; while [ $i -lt 1000 ]; do : > " + MNT + "/many/f$i; i=$((i+1)); done;"
                + " echo created");
        remount(proto, port);
        String ls = run("ls -l " + MNT + "/many | tee /tmp/nfs41-ls | wc -l", 600).trim();
        sh("head -3 /tmp/nfs41-ls; tail -2 /tmp/nfs41-ls");
        assertEquals("1001", ls, "ls -l lists 1000 files and a total line");
        sh("mkdir " + MNT + "/d1 && mv " + MNT + "/d1 " + MNT + "/d2 && echo hi > " + MNT + "/d2/x && mv " + MNT
                + "/d2/x " + MNT + "/d2/y && cat " + MNT + "/d2/y && rm " + MNT + "/d2/y && rmdir " + MNT + "/d2"
                + " && rm -r " + MNT + "/many && ls -la " + MNT);
        sh("cat /proc/self/mountstats | sed -n '/" + MNT.replace("/", "\\/") + "/,/^$/p' | grep -E"
                + " 'opts|xprt|nfsv4|caps|  (NULL|READ|WRITE|COMMIT|OPEN|CLOSE|SETATTR|GETATTR|LOOKUP|READDIR|REMOVE|RENAME"
                + "|CREATE|ACCESS|SEQUENCE|EXCHANGE_ID|CREATE_SESSION|DESTROY_SESSION|RECLAIM_COMPLETE|SECINFO_NO_NAME"
                + "|DELEGRETURN|TEST_STATEID|FREE_STATEID|BIND_CONN_TO_SESSION):'");
        addChunkCounters(proto);
        sh("umount -i " + MNT + " && echo UNMOUNTED");
        if (proto.equals("rdma")) {
            System.out.println("kernel client chunks over all mounts: read " + chunks[0] + ", write " + chunks[1]
                    + ", reply " + chunks[2]);
            assertTrue(chunks[0] > 0, "Read chunks carried WRITE data");
            assertTrue(chunks[1] > 0, "Write chunks carried READ data");
            assertTrue(chunks[2] > 0, "Reply chunks carried large replies (READDIR)");
        }
    }

    @Test
    @Tag("rdma-device-once") // TCP: the same on every provider
    void kernelClientOverTcp() throws Exception {
        server = Nfs4Server.start("--port", "2049", "--address", "0.0.0.0", "--lease", "20");
        workload("tcp", 2049);
    }

    @Test
    @Tag("rdma-device-once") // TCP: the same on every provider
    void kernelClientDelegationRecalledOverTcpBackchannel() throws Exception {
        server = Nfs4Server.start("--port", "2049", "--address", "0.0.0.0", "--lease", "20");
        delegationRecall("tcp", 2049);
    }

    @Test
    void kernelClientDelegationRecalledOverRdmaBackchannel() throws Exception {
        assumeTrue(RdmaListener.BACKCHANNEL, "SKIPPED: the RDMA listener has no backchannel yet"
                + " (RpcRdmaServerInitializer.withBackchannel() not switched on in RdmaListener)");
        server = Nfs4Server.start("--transport", "both", "--port", "2049", "--rdma-port", "20049", "--address",
                "0.0.0.0", "--fabric", "native", "--lease", "20");
        delegationRecall("rdma", 20049);
    }

    /**
     * The kernel client holds a read delegation (it keeps the file open for read); our Java client, over TCP,
     * opens the file for write: NFS4ERR_DELAY while the server recalls the delegation over the kernel's
     * backchannel (CB_SEQUENCE + CB_RECALL), then success once the kernel answered with DELEGRETURN.
     */
    void delegationRecall(String proto, int port) throws Exception {
        sh(mountCommand(proto, port) + " && echo data > " + MNT + "/deleg && sync");
        sh("umount -i " + MNT + " && " + mountCommand(proto, port));
        // The kernel opens for read and keeps the file open (one process: umount is not busy once it is gone).
        Process holder = new ProcessBuilder("sh", "-c", "exec 3<" + MNT + "/deleg; cat <&3; exec sleep 60").start();
        Thread.sleep(3000);
        System.out.println("after the kernel's read open: " + server.delegationStats());
        assertTrue(server.delegationStats().startsWith("granted 1"), server.delegationStats());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (Nfs4TestClient java = Nfs4TestClient.connect(group, new InetSocketAddress("127.0.0.1", 2049), "java")) {
            java.mount();
            int status;
            int delays = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            do {
                status = java.call(java.sequenced().putrootfh().open("w", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false,
                        "deleg")).status;
                if (status == Nfs4.NFS4ERR_DELAY) {
                    delays++;
                    Thread.sleep(200);
                }
            } while (status == Nfs4.NFS4ERR_DELAY && System.nanoTime() < deadline);
            System.out.println("Java client's write open: status " + status + " after " + delays + " DELAY; "
                    + server.delegationStats());
            assertEquals(0, status);
            assertTrue(delays > 0, "the first write open waited for the recall");
            assertTrue(server.delegationStats().contains("returned 1"), "the kernel returned the delegation: "
                    + server.delegationStats());
        } finally {
            holder.destroyForcibly().waitFor();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        sh("cat " + MNT + "/deleg && umount -i " + MNT + " && echo UNMOUNTED");
    }

    @Test
    void kernelClientOverRdma() throws Exception {
        server = Nfs4Server.start("--transport", "rdma", "--rdma-port", "20049", "--address", addr,
                "--fabric", "native", "--lease", "20");
        workload("rdma", 20049);
    }

    /**
     * Negotiation variants: our inline size 1 KiB (so more replies need Reply chunks) with remote invalidation
     * off, then 4 KiB with it on (the kernel may invalidate our keys remotely: Send With Invalidate).
     */
    @Test
    void kernelClientOverRdmaNegotiationVariants() throws Exception {
        for (String[] variant : new String[][] {{"1024", "off"}, {"4096", "on"}}) {
            server = Nfs4Server.start("--transport", "rdma", "--rdma-port", "20049", "--address", addr,
                    "--fabric", "native", "--lease", "20", "--inline", variant[0], "--remote-invalidation",
                    variant[1]);
            sh(mountCommand("rdma", 20049) + " && dd if=/dev/urandom of=/tmp/nfs41-small bs=64k count=64 2>&1"
                    + " && cp /tmp/nfs41-small " + MNT + "/small && mkdir " + MNT + "/dir && i=0; while [ $i -lt 100 ];"
                    + " do : > " + MNT + "/dir/f$i; i=$((i+1)); done; umount -i " + MNT + " && "
                    + mountCommand("rdma", 20049) + " && cmp /tmp/nfs41-small " + MNT + "/small && ls -l " + MNT
                    + "/dir | wc -l && umount -i " + MNT + " && echo OK");
            System.out.println("inline " + variant[0] + ", remote invalidation " + variant[1] + ": "
                    + server.rdmaStats());
            if (variant[1].equals("off")) {
                assertEquals(0, server.rdmaStats().remoteInvalidations(), "no Send With Invalidate when off");
            } else {
                assertTrue(server.rdmaStats().remoteInvalidations() > 0, "Send With Invalidate when both allow it");
            }
            server.close();
            server = null;
        }
    }

    /** The host-directory backend ({@code --export}) under the kernel client over RDMA: files land in the directory. */
    @Test
    @Tag("rdma-device-once") // the backend; the transport per provider is kernelClientOverRdma's
    void kernelClientOnAHostDirectoryExport() throws Exception {
        String export = "/tmp/our-nfs4-export";
        sh("rm -rf " + export + " && mkdir -p " + export + " && echo from-the-host > " + export + "/hello");
        server = Nfs4Server.start("--transport", "rdma", "--rdma-port", "20049", "--address", addr,
                "--fabric", "native", "--lease", "20", "--export", export);
        sh(mountCommand("rdma", 20049) + " && cat " + MNT + "/hello && dd if=/dev/urandom of=/tmp/nfs41-8m bs=1M"
                + " count=8 2>&1 && cp /tmp/nfs41-8m " + MNT + "/eight && mkdir " + MNT + "/sub && mv " + MNT
                + "/eight " + MNT + "/sub/moved && umount -i " + MNT + " && " + mountCommand("rdma", 20049) + " && cmp "
                + "/tmp/nfs41-8m " + MNT + "/sub/moved && cmp /tmp/nfs41-8m " + export + "/sub/moved && ls -lR " + MNT
                + " && rm -r " + MNT + "/sub && ls " + export + " && umount -i " + MNT + " && echo OK");
        assertEquals("hello", run("ls " + export, 60).trim(), "what the client removed is gone from the directory");
    }
}
