package dev.rpcrdma.handlers.interop;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.interop.nfs41.CallbackProgram;
import dev.rpcrdma.handlers.interop.nfs41.ChannelAttrs;
import dev.rpcrdma.handlers.interop.nfs41.CompoundResults.CreateSessionResult;
import dev.rpcrdma.handlers.interop.nfs41.CompoundResults.ExchangeIdResult;
import dev.rpcrdma.handlers.interop.nfs41.KnfsdClients;
import dev.rpcrdma.handlers.interop.nfs41.Nfs4;
import dev.rpcrdma.handlers.interop.nfs41.Nfs41Client;
import dev.rpcrdma.handlers.interop.nfs41.Nfs4StatusException;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.testing.LeakDetectionExtension;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The backchannel (RFC 8167 / RFC 5661 §2.10.3.1) against the Linux kernel NFS server in the Soft-RoCE VM, over
 * RPC-over-RDMA (port 20049) and over TCP (2049), with a minimal NFSv4.1 client ({@code nfs41}): EXCHANGE_ID,
 * then the callback service enabled, then CREATE_SESSION with CONN_BACK_CHAN and back-channel attributes derived
 * from the connection's backward limits; nfsd shows "callback state: UP". nfsd sends no CB_NULL to 4.1 clients, so
 * the test makes it call back for real: it opens a file for reading and gets a read delegation, a process on the
 * server then opens the file for writing (a lease break), nfsd sends CB_COMPOUND with CB_SEQUENCE and CB_RECALL on
 * our connection, our callback program answers, and the test returns the delegation with DELEGRETURN, which lets
 * the writer's open complete. Started by {@code start-knfsd-v41.sh}; only in the VM stage.
 */
@Tag("rdma-device")
@ExtendWith(LeakDetectionExtension.class)
class LinuxNfsdBackchannelInteropTest {

    /** nfsd's RDMA listeners would outlive the class (KernelNfsd). */
    @org.junit.jupiter.api.AfterAll
    static void stopKernelNfsd() throws Exception {
        KernelNfsd.stopInVm();
    }
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final Path EXPORT = Path.of("/tmp/nfs41-export");
    /** How long nfsd may withhold delegations after it (re)started: its NFSv4 and lockd grace periods, and more. */
    static final long DELEGATION_WAIT_MS = 120_000;
    static final int TCP_BACKWARD_SLOTS = 16;

    EventLoopGroup group;
    Channel channel;
    final RpcStats rpcStats = new RpcStats();

    @BeforeEach
    void start() throws Exception {
        assumeTrue(System.getenv("VM_RDMA_ADDR") != null,
                "SKIPPED: not in the Soft-RoCE VM (tools/vm/run sets VM_RDMA_ADDR); no kernel NFS server to talk to");
        File script = new File(getClass().getResource("start-knfsd-v41.sh").toURI());
        Process p = new ProcessBuilder("sh", script.getPath(), EXPORT.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "start-knfsd-v41.sh: " + out);
        assertTrue(out.contains("rdma 20049") && out.contains("tcp 2049") && out.contains("+4.1"), out);
        System.out.println("nfs41 interop: " + out.replace('\n', ' '));
    }

    @AfterEach
    void stop() throws Exception {
        if (channel != null) {
            channel.close().sync();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    static InetAddress server() throws Exception {
        return InetAddress.getByName(System.getenv("VM_RDMA_ADDR"));
    }

    @Test
    void overRdmaNfsdRecallsADelegationThroughOurBackchannel() throws Exception {
        assumeTrue(Fabrics.findNative() != null, "SKIPPED: no native RDMA fabric");
        RpcRdmaConfig config = RpcRdmaConfig.DEFAULT;
        CallbackProgram program = new CallbackProgram(config.backwardCredits());
        group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(Fabrics.findNative())));
        RpcRdmaStats rdmaStats = new RpcRdmaStats();
        channel = new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer(rpcStats, config, rdmaStats, TIMEOUT)
                        .withCallbacks(program.dispatcher(rpcStats)))
                .connect(new InetSocketAddress(server(), 20049)).sync().channel();
        recallDelegation("rdma", program, config.backwardCredits(), 4096 - 28);
        assertEquals(0, rdmaStats.backwardViolations());
        System.out.println("nfs41 interop rdma: " + rdmaStats);
    }

    @Test
    @Tag("rdma-device-once") // TCP: the same on every provider
    void overTcpNfsdRecallsADelegationThroughOurBackchannel() throws Exception {
        CallbackProgram program = new CallbackProgram(TCP_BACKWARD_SLOTS);
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(rpcStats, TcpRpcConfig.DEFAULT, TIMEOUT)
                        .withCallbacks(program.dispatcher(rpcStats)))
                .connect(new InetSocketAddress(server(), 2049)).sync().channel();
        recallDelegation("tcp", program, TCP_BACKWARD_SLOTS, TcpRpcConfig.DEFAULT.maxRecordSize());
    }

    /**
     * The whole exchange on {@link #channel}: session with a back channel of {@code slots} slots, a read delegation,
     * its recall through the backchannel, DELEGRETURN, clean-up. {@code expectedMax} is the backward size limit the
     * transport should report once the connection is up.
     */
    void recallDelegation(String transport, CallbackProgram program, int slots, int expectedMax) throws Exception {
        RpcBackchannel backchannel = RpcBackchannel.of(channel);
        assertNotNull(backchannel, "the initializer installed a callback service");
        String owner = "rpcrdma-backchannel-" + transport + "-" + System.nanoTime();
        Nfs41Client nfs = new Nfs41Client(RpcClient.of(channel), owner, TIMEOUT);
        ExchangeIdResult exchange = nfs.exchangeId();
        log(transport, "EXCHANGE_ID: clientid " + Long.toHexString(exchange.clientId()) + ", flags 0x"
                + Integer.toHexString(exchange.flags()) + ", server " + exchange.serverImpl());

        // Serve callbacks before telling nfsd it may call back (RFC 5661 §18.36.3, RFC 8167 §5.1).
        backchannel.enable();
        // Read after a forward call: the RDMA transport sets the limit when the connection becomes active, which
        // may come after connect()'s future completed.
        int max = backchannel.maxMessageSize();
        assertEquals(expectedMax, max, "the backchannel's size limit (RDMA: Linux's 4 KiB inline less the header)");
        ChannelAttrs fore = new ChannelAttrs(0, 1 << 20, 1 << 20, 4096, 8, 16);
        ChannelAttrs back = new ChannelAttrs(0, max, max, 0, 2, slots);
        CreateSessionResult session;
        try {
            session = nfs.createSession(Nfs4.CREATE_SESSION4_FLAG_CONN_BACK_CHAN, fore, back);
        } catch (Nfs4StatusException e) {
            throw new AssertionError("nfsd refused CREATE_SESSION with back channel " + back + ": status "
                    + e.status() + (e.status() == Nfs4.NFS4ERR_TOOSMALL ? " (NFS4ERR_TOOSMALL)" : ""), e);
        }
        program.session(session.sessionId());
        log(transport, "CREATE_SESSION: flags 0x" + Integer.toHexString(session.flags()) + ", fore "
                + session.fore() + ", back " + session.back() + " (asked " + back + ")");
        assertTrue((session.flags() & Nfs4.CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0,
                "nfsd bound our connection to the back channel");
        nfs.reclaimComplete();
        assertCallbackPathUp(nfs.sequence());
        String info = awaitInfo(nfs, owner, "callback state: UP");
        log(transport, "nfsd's view: " + info.replace('\n', ' '));

        // A read delegation on a file created by a process on the server (closed again: no writer left).
        String name = "deleg-" + transport;
        Path file = EXPORT.resolve(name);
        Files.writeString(file, "recall me over " + transport + "\n");
        Nfs41Client.Opened opened = openWithReadDelegation(nfs, transport, name);
        assertTrue(KnfsdClients.states(owner).contains("type: deleg"), KnfsdClients.states(owner));

        // A writer on the server breaks the lease: its open blocks until the delegation is returned.
        CompletableFuture<Long> writer = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            long t0 = System.nanoTime();
            try (FileChannel w = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                w.write(ByteBuffer.wrap("written on the server\n".getBytes(StandardCharsets.US_ASCII)));
                writer.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            } catch (Throwable e) {
                writer.completeExceptionally(e);
            }
        }, "local-writer-" + transport);
        t.setDaemon(true);
        t.start();

        CallbackProgram.Recall recall = null;
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (recall == null && System.nanoTime() < deadline) {
            recall = program.recalls().poll(1, TimeUnit.SECONDS);
            if (recall == null) {
                assertCallbackPathUp(nfs.sequence()); // keeps the lease while nfsd works on the recall
            }
        }
        assertNotNull(recall, "nfsd sent no CB_RECALL within " + TIMEOUT + "; " + rpcStats);
        CallbackProgram.CbSequence cbSequence = program.lastSequence();
        log(transport, "CB_COMPOUND received: CB_SEQUENCE slot " + cbSequence.slotId() + " seq "
                + cbSequence.sequenceId() + " highest " + cbSequence.highestSlotId() + ", CB_RECALL "
                + recall.stateid() + " truncate " + recall.truncate());
        assertArrayEquals(session.sessionId(), cbSequence.sessionId(), "CB_SEQUENCE names our session");
        assertTrue(recall.stateid().sameState(opened.open().delegation()), "CB_RECALL names our delegation");
        assertArrayEquals(opened.fh(), recall.fh(), "CB_RECALL names our file");
        assertTrue(rpcStats.backwardCallsReceived() >= 1, rpcStats.toString());
        assertEquals(0, rpcStats.backwardDrops(), rpcStats.toString());

        nfs.delegReturn(opened.fh(), opened.open().delegation());
        long blockedMs = writer.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        log(transport, "DELEGRETURN NFS4_OK; the server's writer waited " + blockedMs + " ms for it");
        assertTrue(!KnfsdClients.states(owner).contains("type: deleg"), KnfsdClients.states(owner));
        assertEquals(1, program.compounds(), "one CB_COMPOUND, answered");

        nfs.close(opened.fh(), opened.open().stateid());
        assertCallbackPathUp(nfs.sequence());
        assertTrue(KnfsdClients.info(owner).contains("callback state: UP"), KnfsdClients.info(owner));
        nfs.destroySession();
        nfs.destroyClientId();
        assertEquals("", KnfsdClients.info(owner), "nfsd forgot our client");
        log(transport, "clean-up done; " + rpcStats);
    }

    static void assertCallbackPathUp(int statusFlags) {
        assertEquals(0, statusFlags & (Nfs4.SEQ4_STATUS_CB_PATH_DOWN | Nfs4.SEQ4_STATUS_CB_PATH_DOWN_SESSION
                | Nfs4.SEQ4_STATUS_RECALLABLE_STATE_REVOKED), "SEQUENCE status flags 0x"
                + Integer.toHexString(statusFlags));
    }

    /** nfsd marks a 4.1 callback path up asynchronously after CREATE_SESSION: waits for {@code text} in info. */
    static String awaitInfo(Nfs41Client nfs, String owner, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String info = KnfsdClients.info(owner);
        while (!info.contains(text) && System.nanoTime() < deadline) {
            Thread.sleep(500);
            assertCallbackPathUp(nfs.sequence());
            info = KnfsdClients.info(owner);
        }
        assertTrue(info.contains(text), "nfsd's /proc/fs/nfsd/clients/*/info of our client: " + info);
        return info;
    }

    /**
     * Opens {@code name} for reading, asking for a read delegation (OPEN4_SHARE_ACCESS_WANT_READ_DELEG, so that nfsd
     * says why it withholds one), until nfsd grants one: it grants none while any lock manager of its namespace is
     * in grace (its own NFSv4 grace and lockd's), answering NFS4ERR_GRACE or no delegation meanwhile.
     */
    static Nfs41Client.Opened openWithReadDelegation(Nfs41Client nfs, String transport, String name)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DELEGATION_WAIT_MS);
        int attempts = 0;
        while (System.nanoTime() < deadline) {
            attempts++;
            Nfs41Client.Opened o;
            try {
                o = nfs.open(name, Nfs4.OPEN4_SHARE_ACCESS_READ | Nfs4.OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
                        "open-owner-1");
            } catch (Nfs4StatusException e) {
                if (e.status() != Nfs4.NFS4ERR_GRACE && e.status() != Nfs4.NFS4ERR_DELAY) {
                    throw e;
                }
                Thread.sleep(1000);
                continue;
            }
            if (o.open().delegationType() == Nfs4.OPEN_DELEGATE_READ) {
                log(transport, "OPEN granted a read delegation " + o.open().delegation() + " after " + attempts
                        + " attempt(s)");
                return o;
            }
            log(transport, "OPEN without delegation (type " + o.open().delegationType() + ", why "
                    + o.open().whyNoDelegation() + "): retrying");
            nfs.close(o.fh(), o.open().stateid());
            Thread.sleep(2000);
        }
        fail("nfsd granted no read delegation on " + name + " within " + DELEGATION_WAIT_MS + " ms");
        return null;
    }

    static void log(String transport, String line) {
        System.out.println("nfs41 interop " + transport + ": " + line);
    }
}
