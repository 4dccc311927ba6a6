package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.FabricHarness;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What only the software device does, beyond the fabric contract ({@code FabricContractSuite}, run on both
 * fabrics): how it surfaces misuse a real device leaves undefined or reports out of band. A completion queue
 * overrun fails the next poll with ENOMEM (rxe raises an asynchronous {@code IBV_EVENT_CQ_ERR}, which the SPI does
 * not carry, and drops the completion; its CQs are also rounded up, 64 asked gives 127), closing a CQ with an
 * unacknowledged event fails with EBUSY (libibverbs' {@code ibv_destroy_cq} waits for the ack, forever in one
 * thread), and work queues hold exactly the depth granted (rxe holds more than it reports).
 */
@SuppressWarnings("try")
class SoftwareFabricTest {
    private static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.MW_BIND;

    private static FabricHarness.Pair pair() throws Exception {
        return new FabricHarness.Pair(SoftwareFabric.newIsolated(), InetAddress.getLoopbackAddress(), ALL, ALL, 7);
    }

    @Test
    void completionQueueOverflowIsFatalOnTheNextPoll() throws Exception {
        try (FabricHarness.Pair p = pair()) {
            // 16 flushed receives, then 48 receives posted in error (each flushed at once) fill the 64-entry CQ.
            for (int i = 0; i < 16; i++) {
                p.server.qp.postReceive(i, p.server.address() + i * 64, 64, p.server.mr.lkey());
            }
            p.server.qp.modifyToError();
            for (int i = 16; i < 64; i++) {
                p.server.qp.postReceive(i, p.server.address(), 64, p.server.mr.lkey());
            }
            List<long[]> flushed = p.server.awaitCompletions(64);
            for (int i = 0; i < 64; i++) {
                assertEquals(i, flushed.get(i)[0]);
                assertEquals(WcStatus.WR_FLUSH_ERR, (int) flushed.get(i)[1]);
            }
            // Drained: room again. Now 65 without polling: the CQ overflows, a fatal error on the next poll.
            for (int i = 0; i < 65; i++) {
                p.server.qp.postReceive(100 + i, p.server.address(), 64, p.server.mr.lkey());
            }
            FabricException overflow = assertThrows(FabricException.class, () -> p.server.cq.poll(p.server.wc));
            assertEquals(FabricException.ENOMEM, overflow.errno());
        }
    }

    @Test
    void queuesHoldExactlyTheGrantedDepth() throws Exception {
        try (FabricHarness.Pair p = pair()) {
            // rxe holds more than it grants (16 asked, 31 held); the model holds exactly what it grants.
            assertEquals(16, p.server.qp.capabilities().maxRecvWr);
            for (int i = 0; i < 16; i++) {
                p.server.qp.postReceive(i, p.server.address() + i * 64, 64, p.server.mr.lkey());
            }
            FabricException rq = assertThrows(FabricException.class,
                    () -> p.server.qp.postReceive(16, p.server.address(), 64, p.server.mr.lkey()));
            assertEquals(FabricException.ENOMEM, rq.errno());
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < 16; i++) { // no receive posted at the client's peer's side: RNR, none completes
                p.server.qp.postSend(wr.clear().wrId(i).opcode(WrOpcode.SEND)
                        .addSge(p.server.address(), 8, p.server.mr.lkey()));
            }
            FabricException sq = assertThrows(FabricException.class, () -> p.server.qp.postSend(
                    wr.clear().opcode(WrOpcode.SEND).addSge(p.server.address(), 8, p.server.mr.lkey())));
            assertEquals(FabricException.ENOMEM, sq.errno());
        }
    }

    @Test
    void closingACompletionQueueWithAnUnacknowledgedEventFails() throws Exception {
        try (FabricHarness.Pair p = pair()) {
            p.client.cq.requestNotify(false);
            p.client.qp.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE)
                    .sendFlags(SendFlags.SIGNALED).addSge(p.client.address(), 8, p.client.mr.lkey())
                    .remote(p.server.address(), p.server.mr.rkey()));
            p.client.awaitCompletions(1);
            Object cq = null;
            for (long deadline = System.nanoTime() + 5_000_000_000L; cq == null && System.nanoTime() < deadline; ) {
                cq = p.client.compChannel.getEvent();
                Thread.sleep(1);
            }
            assertNotNull(cq);
            FabricException busy = assertThrows(FabricException.class, p.client.cq::close, "unacked event");
            assertEquals(FabricException.EBUSY, busy.errno());
            p.client.cq.ackEvents(1);
        }
    }
}
