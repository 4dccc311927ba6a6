package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.WcStatus;

/** The local operations on type-2 memory windows a send queue executes: Bind MW and Local Invalidate. */
final class SoftWindowOps {

    private SoftWindowOps() {
    }

    /** {@code IBV_WR_BIND_MW}: binds the window, through {@code qp}, to a range of a region of the same PD. */
    static void bind(SoftQueuePair qp, SoftSendWr wr) {
        SoftMemoryWindow mw = wr.bindWindow;
        SoftMemoryRegion mr = wr.bindRegion;
        boolean ok = mw != null && !mw.closed && mw.pd == qp.pd && !mw.isBound()
                && mr != null && !mr.closed && mr.pd == qp.pd
                && (mr.access & AccessFlags.MW_BIND) != 0
                && mr.contains(wr.bindAddress, wr.bindLength)
                && (wr.bindNewRkey >>> 8) == (mw.rkey >>> 8)
                && ((wr.bindAccess & AccessFlags.REMOTE_WRITE) == 0 || (mr.access & AccessFlags.LOCAL_WRITE) != 0);
        if (!ok) {
            qp.fail(wr, WcStatus.MW_BIND_ERR);
            return;
        }
        mw.bind(qp, wr.bindNewRkey, mr, wr.bindAddress, wr.bindLength, wr.bindAccess);
        qp.succeed(wr, 0);
    }

    /**
     * {@code IBV_WR_LOCAL_INV} of a type-2 window bound through {@code qp} under exactly that rkey: the binding ends
     * (the rkey stops working) and the window can be bound again. Anything else (a region's key, another queue pair's
     * window, a stale rkey) fails with {@code LOC_QP_OP_ERR}, as rxe's {@code rxe_invalidate_mw} checks do; so does
     * any window when the fabric behaves {@linkplain SoftwareFabric#likeRxe like rxe} (whose kernel oopses).
     */
    static void localInvalidate(SoftQueuePair qp, SoftSendWr wr) {
        Object o = qp.fabric.keyObject(wr.invalidateRkey);
        if (qp.fabric.likeRxe || !(o instanceof SoftMemoryWindow)) {
            qp.fail(wr, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        SoftMemoryWindow mw = (SoftMemoryWindow) o;
        if (mw.closed || !mw.isBound() || mw.qp != qp || mw.rkey != wr.invalidateRkey) {
            qp.fail(wr, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        mw.unbind();
        qp.succeed(wr, 0);
    }
}
