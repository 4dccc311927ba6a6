package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QpState;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SendChain;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import dev.rpcrdma.channel.fabric.StagedSendChain;
import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.fabric.WcOpcode;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * An RC queue pair. Its send queue is executed by the fabric's engine thread in posting order; all state is guarded
 * by the fabric lock. See the package documentation for the error semantics.
 *
 * <p>Like a device's work queues, the send and receive queues are rings of reused entries ({@link SlotRing}) bounded
 * by the capabilities, and the engine runs the queue pair through one preallocated task: posting, executing and
 * completing work requests allocates nothing in steady state.
 */
final class SoftQueuePair implements QueuePair {
    /** IB: an rnr_retry_count of 7 means "retry forever". */
    static final int RNR_RETRY_INFINITE = 7;

    private final SoftwareFabric fabric;
    final SoftProtectionDomain pd;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue recvCq;
    private final QpCapabilities caps;
    private final int qpNum;
    /** Posted, not yet executed Sends/RDMA/binds (at most max_send_wr). */
    private final SlotRing<SoftSendWr> sq;
    /** Posted, not yet consumed receives (at most max_recv_wr). */
    private final SlotRing<SoftRecvWr> rq;
    /** The engine task that executes the send queue; one per queue pair, reused. */
    private final Runnable runTask = this::run;
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
    private boolean scheduled;
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
                schedule();
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

    // ---- engine side; everything below runs with the fabric lock held ----

    private void schedule() {
        if (!scheduled) {
            scheduled = true;
            fabric.engine.execute(runTask);
        }
    }

    /** Nothing crosses the connection from now on (caller holds the fabric lock). */
    void sever() {
        severed = true;
    }

    private void run() {
        synchronized (fabric.lock) {
            scheduled = false;
            while (state == QpState.RTS && !sq.isEmpty()) {
                SoftSendWr head = sq.peek();
                if (severed && head.opcode != WrOpcode.BIND_MW && head.opcode != WrOpcode.LOCAL_INV) {
                    // No ACK comes back: sent again after each local ACK timeout, retry_cnt times, then given up.
                    long now = System.nanoTime();
                    if (head.retriesSpentAt == 0) {
                        head.retriesSpentAt = now + TimeUnit.MILLISECONDS.toNanos(
                                SoftwareFabric.ACK_TIMEOUT_MILLIS * (retryCount + 1L));
                    }
                    long left = head.retriesSpentAt - now;
                    if (left > 0) {
                        scheduled = true;
                        fabric.engine.schedule(runTask, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
                        return;
                    }
                    fail(head, WcStatus.RETRY_EXC_ERR);
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

    /** Executes the head of the send queue; false when it must wait for the RNR timer. */
    private boolean execute(SoftSendWr wr) {
        switch (wr.opcode) {
            case WrOpcode.SEND:
            case WrOpcode.SEND_WITH_INV:
                return executeSend(wr);
            case WrOpcode.RDMA_WRITE:
                executeRdma(wr, true);
                return true;
            case WrOpcode.RDMA_READ:
                executeRdma(wr, false);
                return true;
            case WrOpcode.BIND_MW:
                executeBind(wr);
                return true;
            case WrOpcode.LOCAL_INV:
                executeLocalInvalidate(wr);
                return true;
            default:
                fail(wr, WcStatus.LOC_QP_OP_ERR);
                return true;
        }
    }

    private boolean executeSend(SoftSendWr wr) {
        SoftQueuePair p = peer;
        if (p == null || p.destroyed || p.state == QpState.ERR) {
            fail(wr, WcStatus.RETRY_EXC_ERR); // the responder does not answer: transport retries exhausted
            return true;
        }
        if (!localSgesValid(wr, false)) {
            fail(wr, WcStatus.LOC_PROT_ERR);
            return true;
        }
        // With a shared receive queue, whichever of its queue pairs a Send reaches first consumes the next receive.
        SlotRing<SoftRecvWr> receives = p.srq != null ? p.srq.rq : p.rq;
        SoftRecvWr r = receives.peek();
        if (r == null && fabric.likeSiw) {
            // iWARP has no receiver-not-ready retry: an untagged message without a posted receive is a DDP error
            // ("no buffer available", RFC 5041 §7.2; siw_qp_rx.c siw_proc_send), fatal to the connection.
            p.toError();
            terminatedByPeer(wr);
            return true;
        }
        if (r == null) {
            if (rnrRetryCount == RNR_RETRY_INFINITE || wr.rnrAttempts++ < rnrRetryCount) {
                return false;
            }
            fail(wr, WcStatus.RNR_RETRY_EXC_ERR);
            return true;
        }
        receives.poll();
        int len = (int) wr.totalLength;
        if (len > r.length) {
            p.completeRecv(r.wrId, WcStatus.LOC_LEN_ERR, 0, 0, 0);
            p.toError();
            if (fabric.likeSiw) {
                terminatedByPeer(wr);
            } else {
                fail(wr, WcStatus.REM_INV_REQ_ERR);
            }
            return true;
        }
        if (len > 0 && !p.localValid(r.lkey, r.address, len, true)) {
            p.completeRecv(r.wrId, WcStatus.LOC_PROT_ERR, 0, 0, 0);
            p.toError();
            if (fabric.likeSiw) {
                terminatedByPeer(wr);
            } else {
                fail(wr, WcStatus.REM_OP_ERR);
            }
            return true;
        }
        SoftMemoryWindow invalidate = null;
        if (wr.opcode == WrOpcode.SEND_WITH_INV && fabric.likeSiw) {
            // siw_invalidate_stag: any STag of the receiver's PD, window or region; the user completion says nothing.
            Object o = fabric.keyObject(wr.invalidateRkey);
            boolean ok = false;
            if (o instanceof SoftMemoryRegion && ((SoftMemoryRegion) o).pd == p.pd && !((SoftMemoryRegion) o).closed
                    && ((SoftMemoryRegion) o).key == wr.invalidateRkey) {
                ((SoftMemoryRegion) o).invalidated = true;
                ok = true;
            }
            if (!ok) {
                p.completeRecv(r.wrId, WcStatus.REM_INV_REQ_ERR, 0, 0, 0);
                p.toError();
                fail(wr, WcStatus.REM_INV_REQ_ERR);
                return true;
            }
            gather(wr, r.address);
            p.completeRecv(r.wrId, WcStatus.SUCCESS, len, 0, 0);
            succeed(wr, 0);
            return true;
        }
        if (wr.opcode == WrOpcode.SEND_WITH_INV) {
            Object o = fabric.keyObject(wr.invalidateRkey);
            if (!(o instanceof SoftMemoryWindow) || !((SoftMemoryWindow) o).isBound()
                    || ((SoftMemoryWindow) o).qp != p || ((SoftMemoryWindow) o).rkey != wr.invalidateRkey) {
                p.completeRecv(r.wrId, WcStatus.REM_INV_REQ_ERR, 0, 0, 0);
                p.toError();
                fail(wr, WcStatus.REM_INV_REQ_ERR);
                return true;
            }
            invalidate = (SoftMemoryWindow) o;
        }
        gather(wr, r.address);
        int flags = 0;
        int invalidated = 0;
        if (invalidate != null) {
            invalidate.unbind();
            flags = WcFlags.WITH_INV;
            invalidated = wr.invalidateRkey;
        }
        p.completeRecv(r.wrId, WcStatus.SUCCESS, len, flags, invalidated);
        succeed(wr, 0);
        return true;
    }

    private void executeRdma(SoftSendWr wr, boolean write) {
        SoftQueuePair p = peer;
        if (p == null || p.destroyed || p.state == QpState.ERR) {
            fail(wr, WcStatus.RETRY_EXC_ERR);
            return;
        }
        if (!localSgesValid(wr, !write)) {
            fail(wr, WcStatus.LOC_PROT_ERR);
            return;
        }
        if (!write && fabric.likeSiw && !readSinkRemotelyWritable(wr)) {
            // iWARP: the Read Response is a tagged message aimed at the sink's STag (RFC 5040 §4.4), which iWARP
            // hardware refuses without remote write access.
            fail(wr, WcStatus.LOC_PROT_ERR);
            return;
        }
        long len = wr.totalLength;
        if (!p.remoteValid(wr.rkey, wr.remoteAddress, len,
                write ? AccessFlags.REMOTE_WRITE : AccessFlags.REMOTE_READ)) {
            // RC responder NAK "remote access error": the responder's QP goes to error as well.
            p.toError();
            if (write && fabric.likeSiw) {
                // iWARP: a Write is complete at the requester once it was sent; the responder answers the bad
                // STag with a TERMINATE (RFC 5040 §7.4, siw_check_mem/siw_init_terminate).
                terminatedByPeer(wr);
            } else {
                fail(wr, WcStatus.REM_ACCESS_ERR);
                SoftCmId id = cmId;
                if (fabric.likeSiw && id != null) {
                    // iWARP: the responder answers the Read Request's bad STag with a TERMINATE too, which ends the
                    // connection (RFC 5040 §7.4): both sides get DISCONNECTED.
                    id.connectionTerminated();
                }
            }
            return;
        }
        if (write) {
            gather(wr, wr.remoteAddress);
            succeed(wr, 0);
        } else {
            long src = wr.remoteAddress;
            // siw reads into the first SGE only (SIW_MAX_SGE_RD 1; siw_qp_tx.c ignores the rest without an error).
            int sges = fabric.likeSiw ? Math.min(1, wr.numSge) : wr.numSge;
            if (sges < wr.numSge) {
                len = wr.sgeLength[0];
            }
            for (int i = 0; i < sges; i++) {
                PlatformDependent.copyMemory(src, wr.sgeAddress[i], wr.sgeLength[i]);
                src += wr.sgeLength[i];
            }
            succeed(wr, (int) len);
        }
    }

    private void executeBind(SoftSendWr wr) {
        SoftMemoryWindow mw = wr.bindWindow;
        SoftMemoryRegion mr = wr.bindRegion;
        boolean ok = mw != null && !mw.closed && mw.pd == pd && !mw.isBound()
                && mr != null && !mr.closed && mr.pd == pd
                && (mr.access & AccessFlags.MW_BIND) != 0
                && mr.contains(wr.bindAddress, wr.bindLength)
                && (wr.bindNewRkey >>> 8) == (mw.rkey >>> 8)
                && ((wr.bindAccess & AccessFlags.REMOTE_WRITE) == 0 || (mr.access & AccessFlags.LOCAL_WRITE) != 0);
        if (!ok) {
            fail(wr, WcStatus.MW_BIND_ERR);
            return;
        }
        mw.bind(this, wr.bindNewRkey, mr, wr.bindAddress, wr.bindLength, wr.bindAccess);
        succeed(wr, 0);
    }

    /**
     * {@code IBV_WR_LOCAL_INV} of a type-2 window bound through this queue pair under exactly that rkey: the binding
     * ends (the rkey stops working) and the window can be bound again. Anything else (a region's key, another queue
     * pair's window, a stale rkey) fails with {@code LOC_QP_OP_ERR}, as rxe's {@code rxe_invalidate_mw} checks do;
     * so does any window when the fabric behaves {@linkplain SoftwareFabric#likeRxe like rxe} (whose kernel oopses).
     */
    private void executeLocalInvalidate(SoftSendWr wr) {
        Object o = fabric.keyObject(wr.invalidateRkey);
        if (fabric.likeRxe || !(o instanceof SoftMemoryWindow)) {
            fail(wr, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        SoftMemoryWindow mw = (SoftMemoryWindow) o;
        if (mw.closed || !mw.isBound() || mw.qp != this || mw.rkey != wr.invalidateRkey) {
            fail(wr, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        mw.unbind();
        succeed(wr, 0);
    }

    private void gather(SoftSendWr wr, long dst) {
        if (wr.isInline) {
            PlatformDependent.copyMemory(wr.inline, 0, dst, wr.totalLength);
            return;
        }
        for (int i = 0; i < wr.numSge; i++) {
            PlatformDependent.copyMemory(wr.sgeAddress[i], dst, wr.sgeLength[i]);
            dst += wr.sgeLength[i];
        }
    }

    private boolean readSinkRemotelyWritable(SoftSendWr wr) {
        for (int i = 0; i < wr.numSge; i++) {
            Object o = fabric.keyObject(wr.sgeLkey[i]);
            if (wr.sgeLength[i] > 0 && (!(o instanceof SoftMemoryRegion)
                    || (((SoftMemoryRegion) o).access & AccessFlags.REMOTE_WRITE) == 0)) {
                return false;
            }
        }
        return true;
    }

    private boolean localSgesValid(SoftSendWr wr, boolean needWrite) {
        if (wr.isInline) {
            return true;
        }
        for (int i = 0; i < wr.numSge; i++) {
            if (wr.sgeLength[i] > 0 && !localValid(wr.sgeLkey[i], wr.sgeAddress[i], wr.sgeLength[i], needWrite)) {
                return false;
            }
        }
        return true;
    }

    boolean localValid(int lkey, long address, long length, boolean needWrite) {
        Object o = fabric.keyObject(lkey);
        if (!(o instanceof SoftMemoryRegion)) {
            return false;
        }
        SoftMemoryRegion mr = (SoftMemoryRegion) o;
        return !mr.closed && !mr.invalidated && mr.key == lkey && mr.pd == pd && mr.contains(address, length)
                && (!needWrite || (mr.access & AccessFlags.LOCAL_WRITE) != 0);
    }

    /** Responder-side rkey check (IB: a zero-length RDMA operation does not validate the R_Key). */
    boolean remoteValid(int rkey, long address, long length, int right) {
        if (length == 0) {
            return true;
        }
        Object o = fabric.keyObject(rkey);
        if (o instanceof SoftMemoryRegion) {
            SoftMemoryRegion mr = (SoftMemoryRegion) o;
            return !mr.closed && !mr.invalidated && mr.key == rkey && mr.pd == pd && (mr.access & right) != 0
                    && mr.contains(address, length);
        }
        if (o instanceof SoftMemoryWindow) {
            SoftMemoryWindow mw = (SoftMemoryWindow) o;
            return !mw.closed && mw.isBound() && mw.rkey == rkey && mw.qp == this && !mw.region.closed
                    && (mw.access & right) != 0 && mw.contains(address, length);
        }
        return false;
    }

    private void succeed(SoftSendWr wr, int byteLength) {
        sq.poll();
        completeSend(wr, WcStatus.SUCCESS, byteLength);
    }

    /**
     * iWARP (like siw): a Send or RDMA Write completes successfully at the requester once it was handed to TCP
     * (RDMAP gives no delivery acknowledgement, RFC 5040 §5); the responder reports its error with a TERMINATE
     * message (RFC 5040 §7.4), whose arrival moves the requester's QP to error too, flushing what is queued behind.
     */
    private void terminatedByPeer(SoftSendWr wr) {
        succeed(wr, 0);
        toError();
        SoftCmId id = cmId;
        if (id != null) {
            id.connectionTerminated();
        }
    }

    private void fail(SoftSendWr wr, int status) {
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

    private void completeRecv(long wrId, int status, int byteLength, int flags, int invalidatedRkey) {
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
