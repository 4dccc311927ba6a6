package dev.rpcrdma.handlers.interop;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.handlers.RpcRdmaClientInitializer;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Our requester against an independent peer: the Linux kernel's RPC-over-RDMA server (svcrdma, in nfsd) on
 * Soft-RoCE in the VM. NFSv3 NULL needs no export, and Linux ignores NULL arguments, so a NULL can carry Read
 * chunks and a Long Call; a NULL that offers a Write chunk and a Reply chunk gets its reply through the Reply chunk.
 * Started by {@code start-knfsd-rdma.sh} (kernel modules, {@code /proc/fs/nfsd}); only in the VM stage.
 */
@Tag("rdma-device")
class LinuxKernelNfsdInteropTest {

    /** nfsd's RDMA listeners would outlive the class (KernelNfsd). */
    @org.junit.jupiter.api.AfterAll
    static void stopKernelNfsd() throws Exception {
        KernelNfsd.stopInVm();
    }

    static final int NFS_PROGRAM = 100003;
    static final int NFS_V3 = 3;
    static final long TIMEOUT = 180;

    EventLoopGroup group;
    Channel channel;
    RpcClient client;
    RpcRdmaStats stats;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(System.getenv("VM_RDMA_ADDR") != null,
                "SKIPPED: not in the Soft-RoCE VM (tools/vm/run sets VM_RDMA_ADDR); no kernel NFS server to talk to");
        assumeTrue(Fabrics.findNative() != null, "SKIPPED: no native RDMA fabric");
        File script = new File(getClass().getResource("start-knfsd-rdma.sh").toURI());
        Process p = new ProcessBuilder("sh", script.getPath()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "start-knfsd-rdma.sh: " + out);
        assertTrue(out.contains("rdma 20049"), out);
        group = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(Fabrics.findNative())));
        stats = new RpcRdmaStats();
        channel = new Bootstrap().group(group).channel(RdmaChannel.class)
                .handler(new RpcRdmaClientInitializer(new RpcStats(), RpcRdmaConfig.DEFAULT, stats,
                        Duration.ofSeconds(TIMEOUT)))
                .connect(new InetSocketAddress(InetAddress.getByName(System.getenv("VM_RDMA_ADDR")), 20049))
                .sync().channel();
        client = RpcClient.of(channel);
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

    RpcRdmaRequester requester() {
        return channel.pipeline().get(RpcRdmaRequester.class);
    }

    <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(TIMEOUT, TimeUnit.SECONDS);
    }

    @Test
    void nullCallNegotiatesWithLinuxAndGetsACreditGrant() throws Exception {
        get(client.callNull(NFS_PROGRAM, NFS_V3));
        // Linux's svcrdma accepts with RFC 8797 private data of 4 KiB send/receive and the R bit CLEAR (it sends
        // cp_flags 0), yet uses Send With Invalidate whenever the client set R (see the reply chunk test): our
        // requester accepts a Send With Invalidate of its own key whatever the negotiated flag says.
        RpcRdmaPrivateData linux = RpcRdmaPrivateData.find(((RdmaChannel) channel).peerPrivateData());
        assertEquals(new RpcRdmaPrivateData(false, 4096, 4096), linux);
        assertEquals(4096, requester().thresholds().sendThreshold(), requester().thresholds().toString());
        assertEquals(4096, requester().thresholds().receiveThreshold());
        assertTrue(requester().creditGrant() > 1, "Linux granted " + requester().creditGrant());
        assertEquals(0, stats.discardedMessages());
    }

    @Test
    void linuxPullsOurReadChunkAndOurLongCall() throws Exception {
        get(client.callNull(NFS_PROGRAM, NFS_V3));
        // A DDP-eligible argument too large for inline: a Read chunk at its XDR position.
        XdrPayload args = client.newPayload();
        args.writeDdpOpaque(client.alloc().buffer().writeZero(50000));
        get(client.call(NFS_PROGRAM, NFS_V3, 0, args, RpcReplyDecoder.VOID));
        assertEquals(1, stats.readChunks());
        // Arguments with nothing DDP-eligible: the whole call in a position-zero Read chunk (RDMA_NOMSG).
        XdrPayload plain = client.newPayload();
        plain.writer().writeOpaque(new byte[20000]);
        get(client.call(NFS_PROGRAM, NFS_V3, 0, plain, RpcReplyDecoder.VOID));
        assertEquals(1, stats.longCalls());
        assertEquals(0, stats.discardedMessages() + stats.errorsReceived());
    }

    @Test
    void linuxRepliesThroughOurReplyChunkAndInvalidatesOurKey() throws Exception {
        get(client.callNull(NFS_PROGRAM, NFS_V3));
        // Write chunk and Reply chunk share one window (one key): Linux may Send With Invalidate it.
        get(client.call(NFS_PROGRAM, NFS_V3, 0, client.newPayload(), RpcReplyDecoder.VOID,
                CallOptions.DEFAULT.withReplyHints(8192, 100000)));
        assertEquals(0, stats.discardedMessages(), "Linux's reply matched what the call provided");
        if (((RdmaChannel) channel).remoteInvalidationSupported()) {
            assertEquals(1, stats.remoteInvalidations(), "Linux invalidated our only key with Send With Invalidate");
            assertEquals(0, stats.localInvalidations());
        } else {
            // siw: the R bit was withdrawn (its completions never report remote invalidation), so Linux must not
            // invalidate our memory; we do it ourselves after the reply.
            assertEquals(0, stats.remoteInvalidations(), "no Send With Invalidate where the R bit was withdrawn");
            assertTrue(stats.localInvalidations() >= 1, "our own keys invalidated after the reply: " + stats);
        }
        assertEquals(1, stats.longReplies(), "Linux wrote the reply into our Reply chunk (RDMA_NOMSG)");
        assertEquals(0, stats.writeChunksUsed(), "and returned the Write chunk unused, which we accepted");
    }

    @Test
    void manyConcurrentCallsStayWithinLinuxsGrant() throws Exception {
        get(client.callNull(NFS_PROGRAM, NFS_V3));
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            calls.add(client.callNull(NFS_PROGRAM, NFS_V3));
        }
        for (CompletableFuture<Void> f : calls) {
            get(f);
        }
        assertTrue(requester().maxOutstandingSeen() <= requester().creditGrant(),
                requester().maxOutstandingSeen() + " outstanding, grant " + requester().creditGrant());
    }

    // ------------------------------------------------------------------ NFSv3 READ / WRITE on an export

    static final byte[] ROOT_FH = {1, 0, 1, 0, 7, 0, 0, 0};
    static final int LOOKUP = 3;
    static final int READ = 6;
    static final int WRITE = 7;
    static final int FATTR3 = 84;

    /** Exports a tmpfs directory (see export-knfsd-rdma.sh) and returns it. */
    java.nio.file.Path export() throws Exception {
        java.nio.file.Path dir = java.nio.file.Path.of("/tmp/rdma-export");
        File script = new File(getClass().getResource("export-knfsd-rdma.sh").toURI());
        Process p = new ProcessBuilder("sh", script.getPath(), dir.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "export-knfsd-rdma.sh: " + out);
        return dir;
    }

    static void skipPostOpAttr(dev.rpcrdma.oncrpc.xdr.XdrReader r) throws dev.rpcrdma.oncrpc.xdr.XdrException {
        if (r.readBool()) {
            r.readFixedOpaque(FATTR3);
        }
    }

    byte[] lookup(byte[] dir, String name) throws Exception {
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(dir).writeString(name);
        return get(client.call(NFS_PROGRAM, NFS_V3, LOOKUP, args, r -> {
            int status = r.readInt();
            if (status != 0) {
                throw new dev.rpcrdma.oncrpc.xdr.XdrException("LOOKUP status " + status);
            }
            return r.readOpaque(64);
        }));
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >>> 11));
        }
        return b;
    }

    @Test
    void nfsReadIntoOurWriteChunkAndWriteFromOurReadChunk() throws Exception {
        java.nio.file.Path dir = export();
        java.nio.file.Path file = dir.resolve("data");
        byte[] content = pattern(300001, 5);
        java.nio.file.Files.write(file, content);
        file.toFile().setWritable(true, false);
        byte[] fh = lookup(ROOT_FH, "data");

        // READ: Linux pushes the data into our Write chunk with RDMA Write (RFC 8166 §3.4.6).
        XdrPayload readArgs = client.newPayload();
        readArgs.writer().writeOpaque(fh).writeHyper(0).writeInt(content.length);
        byte[] read = get(client.call(NFS_PROGRAM, NFS_V3, READ, readArgs, r -> {
            int status = r.readInt();
            if (status != 0) {
                throw new dev.rpcrdma.oncrpc.xdr.XdrException("READ status " + status);
            }
            skipPostOpAttr(r);
            int count = r.readInt();
            r.readBool(); // eof
            io.netty.buffer.ByteBuf data = r.readDdpOpaque(1 << 20);
            try {
                assertEquals(count, data.readableBytes());
                byte[] out = new byte[data.readableBytes()];
                data.getBytes(data.readerIndex(), out);
                return out;
            } finally {
                data.release();
            }
        }, CallOptions.DEFAULT.withReplyHints(content.length, 0)));
        org.junit.jupiter.api.Assertions.assertArrayEquals(content, read, "READ returned the file's bytes");
        assertEquals(1, stats.writeChunksUsed(), "through our Write chunk");

        // WRITE: the data is DDP-eligible; Linux pulls our Read chunk with RDMA Read.
        byte[] data = pattern(200003, 9);
        XdrPayload writeArgs = client.newPayload();
        writeArgs.writer().writeOpaque(fh).writeHyper(4096).writeInt(data.length).writeInt(2); // FILE_SYNC
        writeArgs.writeDdpOpaque(client.alloc().buffer(data.length).writeBytes(data));
        int written = get(client.call(NFS_PROGRAM, NFS_V3, WRITE, writeArgs, r -> {
            int status = r.readInt();
            if (status != 0) {
                throw new dev.rpcrdma.oncrpc.xdr.XdrException("WRITE status " + status);
            }
            if (r.readBool()) {
                r.readFixedOpaque(24); // pre_op_attr
            }
            skipPostOpAttr(r);
            return r.readInt();
        }));
        assertEquals(data.length, written);
        assertEquals(1, stats.readChunks());
        byte[] now = java.nio.file.Files.readAllBytes(file);
        byte[] expected = content.clone();
        System.arraycopy(data, 0, expected, 4096, data.length);
        org.junit.jupiter.api.Assertions.assertArrayEquals(expected, now, "the file holds what WRITE sent");
        assertEquals(0, stats.discardedMessages() + stats.errorsReceived());
        System.out.println("interop: NFSv3 READ/WRITE against Linux: " + stats);
    }
}
