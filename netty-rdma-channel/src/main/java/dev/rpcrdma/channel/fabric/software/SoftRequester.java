package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.QpState;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;

import java.util.concurrent.TimeUnit;

/**
 * Executes one queue pair's send queue on the fabric's engine thread, in posting order, with RC's retries: the RNR
 * timer, and the local ACK timeout towards a vanished peer. One per queue pair; its task is reused.
 */
final class SoftRequester {
    private final SoftQueuePair qp;
    private final Runnable runTask = this::run;
    private boolean scheduled;

    SoftRequester(SoftQueuePair qp) {
        this.qp = qp;
    }

    /** Makes the engine run the send queue (once, however often asked before it runs). Caller holds the lock. */
    void schedule() {
        if (!scheduled) {
            scheduled = true;
            qp.fabric.engine.execute(runTask);
        }
    }

    private void run() {
        SoftwareFabric fabric = qp.fabric;
        synchronized (fabric.lock) {
            scheduled = false;
            SlotRing<SoftSendWr> sq = qp.sq;
            while (qp.state == QpState.RTS && !sq.isEmpty()) {
                SoftSendWr head = sq.peek();
                if (qp.severed && head.opcode != WrOpcode.BIND_MW && head.opcode != WrOpcode.LOCAL_INV) {
                    // No ACK comes back: sent again after each local ACK timeout, retry_cnt times, then given up.
                    long now = System.nanoTime();
                    if (head.retriesSpentAt == 0) {
                        head.retriesSpentAt = now + TimeUnit.MILLISECONDS.toNanos(
                                SoftwareFabric.ACK_TIMEOUT_MILLIS * (qp.retryCount + 1L));
                    }
                    long left = head.retriesSpentAt - now;
                    if (left > 0) {
                        scheduled = true;
                        fabric.engine.schedule(runTask, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
                        return;
                    }
                    qp.fail(head, WcStatus.RETRY_EXC_ERR);
                    continue;
                }
                if (!execute(head)) {
                    // RNR NAK: retry after the RNR timer.
                    scheduled = true;
                    fabric.engine.schedule(runTask, SoftwareFabric.RNR_TIMER_MILLIS);
                    return;
                }
            }
        }
    }

    /** Executes the head of the send queue; false when it must wait for the RNR timer. */
    private boolean execute(SoftSendWr wr) {
        switch (wr.opcode) {
            case WrOpcode.SEND:
            case WrOpcode.SEND_WITH_INV:
                return SoftSendDelivery.execute(qp, wr);
            case WrOpcode.RDMA_WRITE:
                SoftRdmaAccess.execute(qp, wr, true);
                return true;
            case WrOpcode.RDMA_READ:
                SoftRdmaAccess.execute(qp, wr, false);
                return true;
            case WrOpcode.BIND_MW:
                SoftWindowOps.bind(qp, wr);
                return true;
            case WrOpcode.LOCAL_INV:
                SoftWindowOps.localInvalidate(qp, wr);
                return true;
            default:
                qp.fail(wr, WcStatus.LOC_QP_OP_ERR);
                return true;
        }
    }
}
