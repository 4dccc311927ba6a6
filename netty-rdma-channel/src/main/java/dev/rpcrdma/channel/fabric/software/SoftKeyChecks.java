package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.AccessFlags;

/** The lkey and rkey checks of the work requests a queue pair executes or answers; callers hold the fabric lock. */
final class SoftKeyChecks {

    private SoftKeyChecks() {
    }

    /** Every SGE of {@code wr} lies in a usable region of {@code qp}'s protection domain (inline: none to check). */
    static boolean localSges(SoftQueuePair qp, SoftSendWr wr, boolean needWrite) {
        if (wr.isInline) {
            return true;
        }
        for (int i = 0; i < wr.numSge; i++) {
            if (wr.sgeLength[i] > 0 && !local(qp, wr.sgeLkey[i], wr.sgeAddress[i], wr.sgeLength[i], needWrite)) {
                return false;
            }
        }
        return true;
    }

    /** {@code lkey} names a live region of {@code qp}'s protection domain that covers the range. */
    static boolean local(SoftQueuePair qp, int lkey, long address, long length, boolean needWrite) {
        Object o = qp.fabric.keyObject(lkey);
        if (!(o instanceof SoftMemoryRegion)) {
            return false;
        }
        SoftMemoryRegion mr = (SoftMemoryRegion) o;
        return !mr.closed && !mr.invalidated && mr.key == lkey && mr.pd == qp.pd && mr.contains(address, length)
                && (!needWrite || (mr.access & AccessFlags.LOCAL_WRITE) != 0);
    }

    /**
     * The responder's rkey check at {@code qp}: a region of its protection domain or a type-2 window bound through it,
     * granting {@code right} over the range (IB: a zero-length RDMA operation does not validate the R_Key).
     */
    static boolean remote(SoftQueuePair qp, int rkey, long address, long length, int right) {
        if (length == 0) {
            return true;
        }
        Object o = qp.fabric.keyObject(rkey);
        if (o instanceof SoftMemoryRegion) {
            SoftMemoryRegion mr = (SoftMemoryRegion) o;
            return !mr.closed && !mr.invalidated && mr.key == rkey && mr.pd == qp.pd && (mr.access & right) != 0
                    && mr.contains(address, length);
        }
        if (o instanceof SoftMemoryWindow) {
            SoftMemoryWindow mw = (SoftMemoryWindow) o;
            return !mw.closed && mw.isBound() && mw.rkey == rkey && mw.qp == qp && !mw.region.closed
                    && (mw.access & right) != 0 && mw.contains(address, length);
        }
        return false;
    }

    /** Every SGE of an RDMA Read's sink is in a region registered for remote write (what iWARP requires). */
    static boolean readSinkRemotelyWritable(SoftwareFabric fabric, SoftSendWr wr) {
        for (int i = 0; i < wr.numSge; i++) {
            Object o = fabric.keyObject(wr.sgeLkey[i]);
            if (wr.sgeLength[i] > 0 && (!(o instanceof SoftMemoryRegion)
                    || (((SoftMemoryRegion) o).access & AccessFlags.REMOTE_WRITE) == 0)) {
                return false;
            }
        }
        return true;
    }
}
