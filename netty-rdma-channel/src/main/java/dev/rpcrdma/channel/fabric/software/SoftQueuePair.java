package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QpState;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SendChain;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import dev.rpcrdma.channel.fabric.StagedSendChain;
import dev.rpcrdma.channel.fabric.WcOpcode;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * An RC queue pair: its work queues, the checks of what is posted, its state and its completions. The engine executes
 * the send queue through its {@link SoftRequester}; all state is guarded by the fabric lock.
 */
final class SoftQueuePair implements QueuePair {
    /** IB: an rnr_retry_count of 7 means "retry forever". */
    static final int RNR_RETRY_INFINITE = 7;

    final SoftwareFabric fabric;
    final SoftProtectionDomain pd;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue recvCq;
    private final QpCapabilities caps;
    private final int qpNum;
    /** Posted, not yet executed Sends/RDMA/binds (at most max_send_wr). */
    final SlotRing<SoftSendWr> sq;
    /** Posted, not yet consumed receives (at most max_recv_wr). */
    private final SlotRing<SoftRecvWr> rq;
    private final SoftRequester requester = new SoftRequester(this);
    private final StagedSendChain sendChain = new StagedSendChain(this);
    int state = QpState.INIT;
    SoftQueuePair peer;
    int rnrRetryCount = RNR_RETRY_INFINITE;
    /** Transport retries of a request before {@code IBV_WC_RETRY_EXC_ERR} (rdma_cm's {@code retry_count}). */
    int retryCount = 7;
    /** Its peer vanished ({@link SoftwareFabric#severConnection}): nothing crosses the connection any more. */
    boolean severed;
    private int sqOccupied;
    private int unsignaledDone;
    boolean destroyed;
    /** The shared receive queue this pair's Sends land in, or null (its own receive queue). */
    private final SoftSharedReceiveQueue srq;
    /** The RDMA-CM id whose connection this QP carries (caller of rdma_create_qp); guarded by the fabric lock. */
    SoftCmId cmId;
    /** In error, the flush not done yet ({@link SoftwareFabric#flushDelayMillis(long)}). */
    private boolean flushPending;
    /** Type-2 windows bound through this pair and not invalidated: each holds a reference on an rxe queue pair. */
    int boundWindows;

    SoftQueuePair(SoftwareFabric fabric, SoftProtectionDomain pd, SoftCompletionQueue sendCq,
                  SoftCompletionQueue recvCq, SoftSharedReceiveQueue srq, QpCapabilities caps, int qpNum) {
        this.fabric = fabric;
        this.srq = srq;
        if (srq != null) {
            srq.users++;
        }
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.caps = caps;
        this.qpNum = qpNum;
        sq = new SlotRing<>(caps.maxSendWr, () -> new SoftSendWr(caps.maxSendSge, caps.maxInlineData));
        rq = new SlotRing<>(caps.maxRecvWr, SoftRecvWr::new);
        fabric.count("qp", 1);
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpCapabilities capabilities() {
        return caps;
    }

    @Override
    public int state() {
        synchronized (fabric.lock) {
            return state;
        }
    }

    @Override
    public SendChain sendChain() {
        return sendChain;
    }

    @Override
    public void postSend(SendWorkRequest wr) throws IOException {
        int opcode = wr.opcode();
        if (opcode != WrOpcode.SEND && opcode != WrOpcode.SEND_WITH_INV && opcode != WrOpcode.RDMA_WRITE
                && opcode != WrOpcode.RDMA_READ && opcode != WrOpcode.BIND_MW && opcode != WrOpcode.LOCAL_INV) {
            throw new FabricException("ibv_post_send: unsupported opcode " + opcode, FabricException.EINVAL);
        }
        if (fabric.likeSiw && (opcode == WrOpcode.BIND_MW || opcode == WrOpcode.LOCAL_INV)) {
            // providers/siw: siw_post_send maps neither IBV_WR_BIND_MW nor IBV_WR_LOCAL_INV (kernel-only there).
            throw new FabricException("ibv_post_send: opcode " + opcode + " not supported by siw",
                    FabricException.EINVAL);
        }
        if (wr.numSge() > caps.maxSendSge) {
            throw new FabricException("ibv_post_send: " + wr.numSge() + " SGEs > max " + caps.maxSendSge,
                    FabricException.EINVAL);
        }
        if ((wr.sendFlags() & SendFlags.INLINE) != 0
                && (wr.totalLength() > caps.maxInlineData || opcode == WrOpcode.RDMA_READ)) {
            throw new FabricException("ibv_post_send: inline " + wr.totalLength() + " B > max "
                    + caps.maxInlineData, FabricException.EINVAL);
        }
        if (fabric.takePostSendFailure(opcode)) {
            throw new FabricException("ibv_post_send: injected failure", FabricException.EIO);
        }
        synchronized (fabric.lock) {
            if (destroyed) {
                throw new FabricException("ibv_post_send: QP destroyed", FabricException.EINVAL);
            }
            if (state != QpState.RTS && state != QpState.ERR) {
                throw new FabricException("ibv_post_send: QP not in RTS", FabricException.EINVAL);
            }
            if (sqOccupied >= caps.maxSendWr) {
                throw new FabricException("ibv_post_send: send queue full (" + caps.maxSendWr + ")",
                        FabricException.ENOMEM);
            }
            sqOccupied++;
            if (state == QpState.ERR && !flushPending) {
                if (fabric.likeSiw) {
                    // siw flushes what is posted at the state change only: this entry stays in the queue, never
                    // completed (providers/siw rings no doorbell behind a valid entry; no queue of a QP in error
                    // is processed), until the QP is destroyed.
                    return;
                }
                completeSend(wr.wrId(), wr.opcode(), wr.sendFlags(), WcStatus.WR_FLUSH_ERR, 0);
                return;
            }
            // sq holds at most the occupied entries, and sqOccupied < max_send_wr was checked: never full here.
            sq.claimTail().load(wr);
            if (state == QpState.RTS) {
                requester.schedule();
            }
        }
    }

    @Override
    public void postReceive(long wrId, long address, int length, int lkey) throws IOException {
        synchronized (fabric.lock) {
            postReceiveLocked(wrId, address, length, lkey);
        }
    }

    /** One lock for the chain, as one {@code ibv_post_recv}; stops at the first rejected request. */
    @Override
    public void postReceives(long[] wrIds, long[] addresses, int count, int length, int lkey) throws IOException {
        if (count > MAX_POST_CHAIN) {
            throw new IllegalArgumentException("a chain of " + count + " > " + MAX_POST_CHAIN + " work requests");
        }
        synchronized (fabric.lock) {
            for (int i = 0; i < count; i++) {
                try {
                    postReceiveLocked(wrIds[i], addresses[i], length, lkey);
                } catch (FabricException e) {
                    throw new PostException("ibv_post_recv", i, e);
                }
            }
        }
    }

    private void postReceiveLocked(long wrId, long address, int length, int lkey) throws FabricException {
        if (destroyed || state == QpState.RESET) {
            throw new FabricException("ibv_post_recv: QP not ready", FabricException.EINVAL);
        }
        if (srq != null) {
            throw new FabricException("ibv_post_recv: the QP receives through an SRQ", FabricException.EINVAL);
        }
        if (rq.isFull()) {
            throw new FabricException("ibv_post_recv: receive queue full (" + caps.maxRecvWr + ")",
                    FabricException.ENOMEM);
        }
        if (state == QpState.ERR && !flushPending) {
            if (fabric.likeSiw) {
                return; // as a Send posted in error: never flushed (siw)
            }
            completeRecv(wrId, WcStatus.WR_FLUSH_ERR, 0, 0, 0);
            return;
        }
        rq.claimTail().load(wrId, address, length, lkey);
    }

    @Override
    public void modifyToError() {
        synchronized (fabric.lock) {
            toError();
            SoftCmId id = cmId;
            if (fabric.likeSiw && id != null) {
                if (peer != null) {
                    peer.toError(); // the peer's stream closed under it (siw_qp_llp_close)
                }
                // iWARP: moving a connected QP to error aborts its stream (siw_qp_nextstate_from_rts: drop_conn,
                // siw_qp_cm_drop): both sides get DISCONNECTED and the peer's QP goes to error as well.
                id.connectionTerminated();
            }
        }
    }

    /**
     * {@code ibv_destroy_qp}. Like rxe ({@link SoftwareFabric#likeRxe}), it first waits, up to
     * {@link SoftwareFabric#RXE_DESTROY_WAIT_MILLIS}, until no bound type-2 window holds the queue pair: Linux 6.1's
     * {@code rxe_do_bind_mw} takes a reference on the queue pair, only the window's invalidation or deallocation
     * ({@code rxe_do_invalidate_mw}) drops it, and the destroy ({@code __rxe_cleanup}) waits for the last one with a
     * 50 s timeout.
     */
    @Override
    public void close() {
        if (fabric.likeRxe) {
            awaitWindowsUnbound();
        }
        long delay = fabric.destroyQpDelayMillis;
        if (delay > 0) {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (fabric.lock) {
            if (destroyed) {
                return;
            }
            destroyed = true;
            fabric.count("qp", -1);
            state = QpState.ERR;
            sq.clear();
            rq.clear();
            pd.users--;
            if (srq != null) {
                srq.users--;
            }
        }
    }

    private void awaitWindowsUnbound() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SoftwareFabric.RXE_DESTROY_WAIT_MILLIS);
        synchronized (fabric.lock) {
            long left;
            while (boundWindows > 0 && !destroyed && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(fabric.lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** A window bound through this pair was invalidated or deallocated. Caller holds the fabric lock. */
    void windowUnbound() {
        if (--boundWindows == 0) {
            fabric.lock.notifyAll();
        }
    }

    /** Number of receives posted and not yet consumed (test visibility). */
    int postedReceives() {
        synchronized (fabric.lock) {
            return rq.size();
        }
    }

    /** The ring a Send to this queue pair takes its receive from: its shared receive queue's, or its own. */
    SlotRing<SoftRecvWr> receives() {
        return srq != null ? srq.rq : rq;
    }

    // ---- everything below runs with the fabric lock held ----

    /** Nothing crosses the connection from now on (caller holds the fabric lock). */
    void sever() {
        severed = true;
    }

    /** Moves to error; what is queued flushes (at once, or after the fabric's {@code flushDelayMillis}). */
    void toError() {
        if (state == QpState.ERR) {
            return;
        }
        state = QpState.ERR;
        long delay = fabric.flushDelayMillis;
        if (delay > 0) {
            // A device that takes its time to flush: what is queued (and posted meanwhile) flushes later, in order.
            flushPending = true;
            fabric.engine.schedule(() -> {
                synchronized (fabric.lock) {
                    flushPending = false;
                    flush();
                }
            }, delay);
            return;
        }
        flush();
    }

    /** Completes everything queued with {@code IBV_WC_WR_FLUSH_ERR}, in order. */
    private void flush() {
        SoftSendWr w;
        while ((w = sq.poll()) != null) {
            completeSend(w, WcStatus.WR_FLUSH_ERR, 0);
        }
        SoftRecvWr r;
        while ((r = rq.poll()) != null) {
            completeRecv(r.wrId, WcStatus.WR_FLUSH_ERR, 0, 0, 0);
        }
    }

    /** Retires the head of the send queue, {@code wr}, successfully. */
    void succeed(SoftSendWr wr, int byteLength) {
        sq.poll();
        completeSend(wr, WcStatus.SUCCESS, byteLength);
    }

    /**
     * iWARP (like siw): a Send or RDMA Write completes successfully at the requester once it was handed to TCP
     * (RDMAP gives no delivery acknowledgement, RFC 5040 §5); the responder reports its error with a TERMINATE
     * message (RFC 5040 §7.4), whose arrival moves the requester's QP to error too, flushing what is queued behind.
     */
    void terminatedByPeer(SoftSendWr wr) {
        succeed(wr, 0);
        toError();
        SoftCmId id = cmId;
        if (id != null) {
            id.connectionTerminated();
        }
    }

    /** Retires the head of the send queue, {@code wr}, with {@code status}; the queue pair goes to error. */
    void fail(SoftSendWr wr, int status) {
        sq.poll();
        completeSend(wr, status, 0);
        toError();
    }

    /** Completes a retired send queue entry (already polled from {@link #sq}). */
    private void completeSend(SoftSendWr wr, int status, int byteLength) {
        completeSend(wr.wrId, wr.opcode, wr.flags, status, byteLength);
        wr.retire();
    }

    private void completeSend(long wrId, int opcode, int flags, int status, int byteLength) {
        if (status != WcStatus.SUCCESS || (flags & SendFlags.SIGNALED) != 0) {
            sendCq.add(wrId, status, wcOpcode(opcode), byteLength, 0, 0, qpNum);
            sqOccupied -= unsignaledDone + 1;
            unsignaledDone = 0;
        } else {
            unsignaledDone++;
        }
    }

    void completeRecv(long wrId, int status, int byteLength, int flags, int invalidatedRkey) {
        recvCq.add(wrId, status, WcOpcode.RECV, byteLength, flags, invalidatedRkey, qpNum);
    }

    private static int wcOpcode(int wrOpcode) {
        switch (wrOpcode) {
            case WrOpcode.RDMA_WRITE:
                return WcOpcode.RDMA_WRITE;
            case WrOpcode.RDMA_READ:
                return WcOpcode.RDMA_READ;
            case WrOpcode.BIND_MW:
                return WcOpcode.BIND_MW;
            case WrOpcode.LOCAL_INV:
                return WcOpcode.LOCAL_INV;
            default:
                return WcOpcode.SEND;
        }
    }
}
