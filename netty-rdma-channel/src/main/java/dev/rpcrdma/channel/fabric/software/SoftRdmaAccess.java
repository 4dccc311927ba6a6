package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.QpState;
import dev.rpcrdma.channel.fabric.WcStatus;
import io.netty.util.internal.PlatformDependent;

/** RDMA Read and RDMA Write: the requester's and the responder's key checks, then the copy between the two. */
final class SoftRdmaAccess {

    private SoftRdmaAccess() {
    }

    /** Executes the head of {@code qp}'s send queue, an RDMA Write ({@code write}) or Read. */
    static void execute(SoftQueuePair qp, SoftSendWr wr, boolean write) {
        SoftQueuePair p = qp.peer;
        if (p == null || p.destroyed || p.state == QpState.ERR) {
            qp.fail(wr, WcStatus.RETRY_EXC_ERR);
            return;
        }
        if (!SoftKeyChecks.localSges(qp, wr, !write)) {
            qp.fail(wr, WcStatus.LOC_PROT_ERR);
            return;
        }
        boolean likeSiw = qp.fabric.likeSiw;
        if (!write && likeSiw && !SoftKeyChecks.readSinkRemotelyWritable(qp.fabric, wr)) {
            // iWARP: the Read Response is a tagged message aimed at the sink's STag (RFC 5040 §4.4), which iWARP
            // hardware refuses without remote write access.
            qp.fail(wr, WcStatus.LOC_PROT_ERR);
            return;
        }
        long len = wr.totalLength;
        if (!SoftKeyChecks.remote(p, wr.rkey, wr.remoteAddress, len,
                write ? AccessFlags.REMOTE_WRITE : AccessFlags.REMOTE_READ)) {
            // RC responder NAK "remote access error": the responder's QP goes to error as well.
            p.toError();
            if (write && likeSiw) {
                // iWARP: a Write is complete at the requester once it was sent; the responder answers the bad
                // STag with a TERMINATE (RFC 5040 §7.4, siw_check_mem/siw_init_terminate).
                qp.terminatedByPeer(wr);
            } else {
                qp.fail(wr, WcStatus.REM_ACCESS_ERR);
                SoftCmId id = qp.cmId;
                if (likeSiw && id != null) {
                    // iWARP: the responder answers the Read Request's bad STag with a TERMINATE too, which ends the
                    // connection (RFC 5040 §7.4): both sides get DISCONNECTED.
                    id.connectionTerminated();
                }
            }
            return;
        }
        if (write) {
            wr.gather(wr.remoteAddress);
            qp.succeed(wr, 0);
            return;
        }
        long src = wr.remoteAddress;
        // siw reads into the first SGE only (SIW_MAX_SGE_RD 1; siw_qp_tx.c ignores the rest without an error).
        int sges = likeSiw ? Math.min(1, wr.numSge) : wr.numSge;
        if (sges < wr.numSge) {
            len = wr.sgeLength[0];
        }
        for (int i = 0; i < sges; i++) {
            PlatformDependent.copyMemory(src, wr.sgeAddress[i], wr.sgeLength[i]);
            src += wr.sgeLength[i];
        }
        qp.succeed(wr, (int) len);
    }
}
