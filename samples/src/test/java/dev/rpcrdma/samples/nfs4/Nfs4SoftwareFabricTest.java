package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.channel.RdmaIoHandler;
import dev.rpcrdma.channel.RdmaIoHandlerConfig;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The NFSv4.1 server over RPC-over-RDMA on the in-process software fabric: the same handler code as over TCP,
 * byte-checked I/O, and a read delegation recalled over the RDMA backchannel (RFC 8167).
 */
class Nfs4SoftwareFabricTest {
    Nfs4Server server;
    EventLoopGroup group;
    InetSocketAddress address;

    @BeforeEach
    void start() throws Exception {
        server = Nfs4Server.start("--transport", "rdma", "--rdma-port", "0", "--address", "127.0.0.1",
                "--fabric", "software", "--lease", "10");
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory(new RdmaIoHandlerConfig()
                .fabric(SoftwareFabric.instance())));
        address = new InetSocketAddress("127.0.0.1", server.rdmaAddress().getPort());
    }

    @AfterEach
    void stop() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        server.close();
    }

    @Test
    void writeReadAndRecallOverRdma() throws Exception {
        try (Nfs4TestClient a = Nfs4TestClient.connectRdma(group, address, "rdma-a");
             Nfs4TestClient b = Nfs4TestClient.connectRdma(group, address, "rdma-b")) {
            a.mount();
            b.mount();
            byte[] data = Nfs4ServerTest.pattern(200_000, 9);
            Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("a", Nfs4.OPEN4_SHARE_ACCESS_WRITE, true,
                    "f").getfh());
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTROOTFH);
            byte[] st = r.open()[0];
            byte[] fh = r.fh();
            for (int off = 0; off < data.length; off += 50_000) {
                r = a.call(a.sequenced().putfh(fh).write(st, off, java.util.Arrays.copyOfRange(data, off,
                        off + 50_000), Nfs4.UNSTABLE4));
                assertEquals(0, r.status);
            }
            assertEquals(0, a.call(a.sequenced().putfh(fh).close(st)).status);
            r = a.call(a.sequenced().putrootfh().open("a", Nfs4.OPEN4_SHARE_ACCESS_READ, false, "f"));
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTROOTFH);
            byte[][] open = r.open();
            assertNotNull(open[1], "a read delegation over RDMA (the session has a backchannel)");
            assertArrayEquals(data, a.read(fh, open[0], 0, 200_000));
            assertTrue(server.rdmaStats().writeChunksUsed() > 0, "the READ data went in a Write chunk: "
                    + server.rdmaStats());

            r = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, "f"));
            assertEquals(Nfs4.NFS4ERR_DELAY, r.status);
            Nfs4TestClient.Recall recall = a.awaitRecall(10);
            assertNotNull(recall, "CB_RECALL over the RDMA backchannel");
            assertArrayEquals(open[1], recall.stateid());
            assertEquals(0, a.call(a.sequenced().putfh(fh).stateidOp(Nfs4.OP_DELEGRETURN, recall.stateid()))
                    .status);
            assertEquals(0, b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, "f"))
                    .status);
        }
    }
}
