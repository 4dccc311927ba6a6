package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.QpState;
import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;

/** A Send or Send With Invalidate meeting the peer's next posted receive, with the responder's checks and answers. */
final class SoftSendDelivery {

    private SoftSendDelivery() {
    }

    /** Executes the head of {@code qp}'s send queue, a Send; false when it must wait for the RNR timer. */
    static boolean execute(SoftQueuePair qp, SoftSendWr wr) {
        SoftQueuePair p = qp.peer;
        if (p == null || p.destroyed || p.state == QpState.ERR) {
            qp.fail(wr, WcStatus.RETRY_EXC_ERR); // the responder does not answer: transport retries exhausted
            return true;
        }
        if (!SoftKeyChecks.localSges(qp, wr, false)) {
            qp.fail(wr, WcStatus.LOC_PROT_ERR);
            return true;
        }
        boolean likeSiw = qp.fabric.likeSiw;
        // With a shared receive queue, whichever of its queue pairs a Send reaches first consumes the next receive.
        SlotRing<SoftRecvWr> receives = p.receives();
        SoftRecvWr r = receives.peek();
        if (r == null && likeSiw) {
            // iWARP has no receiver-not-ready retry: an untagged message without a posted receive is a DDP error
            // ("no buffer available", RFC 5041 §7.2; siw_qp_rx.c siw_proc_send), fatal to the connection.
            p.toError();
            qp.terminatedByPeer(wr);
            return true;
        }
        if (r == null) {
            if (qp.rnrRetryCount == SoftQueuePair.RNR_RETRY_INFINITE || wr.rnrAttempts++ < qp.rnrRetryCount) {
                return false;
            }
            qp.fail(wr, WcStatus.RNR_RETRY_EXC_ERR);
            return true;
        }
        receives.poll();
        int len = (int) wr.totalLength;
        if (len > r.length) {
            p.completeRecv(r.wrId, WcStatus.LOC_LEN_ERR, 0, 0, 0);
            p.toError();
            if (likeSiw) {
                qp.terminatedByPeer(wr);
            } else {
                qp.fail(wr, WcStatus.REM_INV_REQ_ERR);
            }
            return true;
        }
        if (len > 0 && !SoftKeyChecks.local(p, r.lkey, r.address, len, true)) {
            p.completeRecv(r.wrId, WcStatus.LOC_PROT_ERR, 0, 0, 0);
            p.toError();
            if (likeSiw) {
                qp.terminatedByPeer(wr);
            } else {
                qp.fail(wr, WcStatus.REM_OP_ERR);
            }
            return true;
        }
        if (wr.opcode == WrOpcode.SEND_WITH_INV && likeSiw) {
            return invalidateAnyKey(qp, p, wr, r, len);
        }
        SoftMemoryWindow invalidate = null;
        if (wr.opcode == WrOpcode.SEND_WITH_INV) {
            Object o = qp.fabric.keyObject(wr.invalidateRkey);
            if (!(o instanceof SoftMemoryWindow) || !((SoftMemoryWindow) o).isBound()
                    || ((SoftMemoryWindow) o).qp != p || ((SoftMemoryWindow) o).rkey != wr.invalidateRkey) {
                p.completeRecv(r.wrId, WcStatus.REM_INV_REQ_ERR, 0, 0, 0);
                p.toError();
                qp.fail(wr, WcStatus.REM_INV_REQ_ERR);
                return true;
            }
            invalidate = (SoftMemoryWindow) o;
        }
        wr.gather(r.address);
        int flags = 0;
        int invalidated = 0;
        if (invalidate != null) {
            invalidate.unbind();
            flags = WcFlags.WITH_INV;
            invalidated = wr.invalidateRkey;
        }
        p.completeRecv(r.wrId, WcStatus.SUCCESS, len, flags, invalidated);
        qp.succeed(wr, 0);
        return true;
    }

    /**
     * Send With Invalidate as siw's {@code siw_invalidate_stag} does it: any STag of the receiver's protection domain,
     * window or region; the receive completion does not report it.
     */
    private static boolean invalidateAnyKey(SoftQueuePair qp, SoftQueuePair p, SoftSendWr wr, SoftRecvWr r, int len) {
        Object o = qp.fabric.keyObject(wr.invalidateRkey);
        boolean ok = false;
        if (o instanceof SoftMemoryRegion && ((SoftMemoryRegion) o).pd == p.pd && !((SoftMemoryRegion) o).closed
                && ((SoftMemoryRegion) o).key == wr.invalidateRkey) {
            ((SoftMemoryRegion) o).invalidated = true;
            ok = true;
        }
        if (!ok) {
            p.completeRecv(r.wrId, WcStatus.REM_INV_REQ_ERR, 0, 0, 0);
            p.toError();
            qp.fail(wr, WcStatus.REM_INV_REQ_ERR);
            return true;
        }
        wr.gather(r.address);
        p.completeRecv(r.wrId, WcStatus.SUCCESS, len, 0, 0);
        qp.succeed(wr, 0);
        return true;
    }
}
