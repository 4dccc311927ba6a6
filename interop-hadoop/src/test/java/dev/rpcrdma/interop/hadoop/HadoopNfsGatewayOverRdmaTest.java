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
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hadoop's NFS gateway, unchanged, answering NFSv3 over RPC-over-RDMA on the software fabric: MOUNT over TCP (as the
 * kernel does), then CREATE, a 300 kB WRITE whose data travels in a Read chunk, and a READ whose data Hadoop's reply
 * carries at an offset RFC 8267's binding computes, placed by RDMA Write in the client's Write chunk. The kernel
 * client mounts the same gateway over Soft-RoCE in the VM stage ({@code NativeHadoopNfsGatewayTest}).
 */
class HadoopNfsGatewayOverRdmaTest {

    @Test
    void hadoopsGatewayServesNfs3WithReadDataInWriteChunks(@TempDir File dir) throws Exception {
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
                nfs.ping();
                byte[] fh = nfs.create(root, "over-rdma");
                byte[] data = new byte[300_000];
                new Random(42).nextBytes(data);
                assertEquals(data.length, nfs.write(fh, 0, Unpooled.wrappedBuffer(data)));
                assertTrue(clientStats.readChunks() > 0, clientStats.toString());
                byte[] back = nfs.read(fh, 0, data.length);
                assertArrayEquals(data, back);
                assertEquals(1, gateway.framing.stats().writeChunksUsed(), gateway.framing.stats().toString());
                assertEquals(0, gateway.framing.stats().bindingMisses(), gateway.framing.stats().toString());
            } finally {
                c.close().sync();
            }
        } finally {
            rdma.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            tcp.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
