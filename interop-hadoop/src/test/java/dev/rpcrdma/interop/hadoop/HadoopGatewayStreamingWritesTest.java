package dev.rpcrdma.interop.hadoop;

import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.client.RpcClient;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Hadoop's NFS gateway over RPC-over-RDMA on the software fabric, written to the way the kernel client streams a
 * file: UNSTABLE 1 MiB WRITEs whose data travels in Read chunks, 64 at a time (the client sends as many as the
 * gateway's credit grant allows and queues the rest), each window's offsets out of order (Hadoop buffers or dumps
 * writes ahead of its next offset), then COMMIT (retried while the gateway answers NFS3ERR_JUKEBOX, as the kernel
 * does) and the data read back through Write chunks. The kernel client does the same over Soft-RoCE in the VM stage
 * ({@code LinuxClientMountsHadoopGatewayTest}).
 */
class HadoopGatewayStreamingWritesTest {
    static final int MIB = 1 << 20;

    static final int MIBS = 40;
    /** Calls the client keeps outstanding: sent, or queued until a credit frees. */
    static final int IN_FLIGHT = 64;

    @Test
    void aFileStreamedInOutOfOrderWindowsOfWritesIsCommittedAndReadBack(@TempDir File dir) throws Exception {
        EventLoopGroup rdma = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(RdmaFabric.SOFTWARE)));
        EventLoopGroup tcp = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (HadoopNfsGateway gateway = HadoopNfsGateway.start(dir, HadoopNfsGateway.freePort(),
                HadoopNfsGateway.freePort(), rdma, new InetSocketAddress("127.0.0.1", 0))) {
            byte[] root = gateway.mountRoot(tcp);
            RpcRdmaStats clientStats = new RpcRdmaStats();
            Channel c = gateway.connectRdma(rdma, clientStats);
            try {
                Nfs3Calls nfs = new Nfs3Calls(RpcClient.of(c));
                byte[] fh = nfs.create(root, "streamed");
                byte[] data = new byte[MIBS * MIB];
                new Random(7).nextBytes(data);
                // The kernel's writeback sends a file's pages in batches, not in offset order: shuffle each window.
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < MIBS; i++) {
                    order.add(i);
                }
                Random shuffle = new Random(3);
                for (int b = 0; b < MIBS; b += IN_FLIGHT) {
                    Collections.shuffle(order.subList(b, Math.min(MIBS, b + IN_FLIGHT)), shuffle);
                }
                ArrayDeque<CompletableFuture<Integer>> pending = new ArrayDeque<>();
                for (int i : order) {
                    if (pending.size() >= IN_FLIGHT) {
                        assertEquals(MIB, pending.poll().get(120, TimeUnit.SECONDS), "WRITE3 count");
                    }
                    pending.add(nfs.writeUnstable(fh, (long) i * MIB,
                            Unpooled.directBuffer(MIB).writeBytes(data, i * MIB, MIB)));
                }
                while (!pending.isEmpty()) {
                    assertEquals(MIB, pending.poll().get(120, TimeUnit.SECONDS), "WRITE3 count");
                }
                nfs.commit(fh);
                assertEquals(MIBS, clientStats.readChunks(), "every WRITE's data in a Read chunk: " + clientStats);
                for (int i = 0; i < MIBS; i += 7) {
                    assertArrayEquals(Arrays.copyOfRange(data, i * MIB, (i + 1) * MIB), nfs.read(fh, (long) i * MIB,
                            MIB), "MiB " + i);
                }
                assertEquals(0, gateway.framing.stats().bindingMisses(), gateway.framing.stats().toString());
                assertEquals(0, gateway.framing.stats().errorsSent(), gateway.framing.stats().toString());
            } finally {
                c.close().sync();
            }
        } finally {
            rdma.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            tcp.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
