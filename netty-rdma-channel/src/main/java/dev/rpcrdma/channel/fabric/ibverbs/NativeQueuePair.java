package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SendChain;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import dev.rpcrdma.channel.fabric.WrOpcode;
import dev.rpcrdma.channel.verbs.RdmaCm;
import dev.rpcrdma.channel.verbs.RecvWorkRequests;
import dev.rpcrdma.channel.verbs.SendWorkRequests;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/**
 * RC {@code ibv_qp} of an RDMA-CM id. Each post copies the SPI requests into a native work-request chain
 * flyweight owned by the queue pair (the queue pair is used by one event loop), posted with one
 * {@code ibv_post_send}.
 */
final class NativeQueuePair implements QueuePair {
    private final NativeCmId id;
    private final long qp;
    private final QpCapabilities caps;
    private final SendWorkRequests sendWr;
    private final RecvWorkRequests recvWr;
    private final NativeSendChain sendChain;
    /** Created with a shared receive queue: it has no receive queue of its own. */
    private final boolean sharedReceives;
    private boolean destroyed;

    NativeQueuePair(NativeCmId id, long qp, QpCapabilities caps, NativeDevice device, boolean sharedReceives) {
        this.id = id;
        this.sharedReceives = sharedReceives;
        this.qp = qp;
        this.caps = caps;
        this.sendWr = new SendWorkRequests(MAX_POST_CHAIN,
                Math.max(1, Math.min(caps.maxSendSge, SendWorkRequest.MAX_SGE)));
        this.recvWr = new RecvWorkRequests(MAX_POST_CHAIN, 1);
        this.sendChain = new NativeSendChain(this, qp, Math.max(1, Math.min(caps.maxSendSge, SendWorkRequest.MAX_SGE)));
    }

    @Override
    public SendChain sendChain() {
        return sendChain;
    }

    /** The native blocks are freed with the queue pair: nothing may be written into them after {@link #close()}. */
    void checkNotDestroyed() {
        if (destroyed) {
            throw new IllegalStateException("queue pair destroyed");
        }
    }

    @Override
    public int qpNum() {
        return Verbs.qpNum(qp);
    }

    @Override
    public QpCapabilities capabilities() {
        return caps;
    }

    /**
     * A post after {@link #close()} is refused, as the software fabric refuses it: the work-request blocks and the
     * queue pair are freed then, and writing into them would corrupt native memory.
     */
    private void checkPostable(String verb) throws FabricException {
        if (destroyed) {
            throw new FabricException(verb + ": QP destroyed", FabricException.EINVAL);
        }
    }

    @Override
    public void postSend(SendWorkRequest wr) throws IOException {
        checkPostable("ibv_post_send");
        sendWr.clear();
        add(wr);
        try {
            Verbs.postSend(qp, sendWr);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
        posted(wr);
    }

    @Override
    public void postSend(SendWorkRequest[] wrs, int count) throws IOException {
        if (count > MAX_POST_CHAIN) {
            throw new IllegalArgumentException("a chain of " + count + " > " + MAX_POST_CHAIN + " work requests");
        }
        checkPostable("ibv_post_send");
        sendWr.clear();
        for (int i = 0; i < count; i++) {
            add(wrs[i]);
        }
        int posted = count;
        IOException failure = null;
        try {
            Verbs.postSend(qp, sendWr);
        } catch (NativeCallException e) {
            int bad = sendWr.badIndex();
            posted = bad < 0 ? 0 : bad; // bad_wr unknown: treat none as posted (the channel fails as a whole)
            failure = NativeErrors.of(e);
        }
        for (int i = 0; i < posted; i++) {
            posted(wrs[i]);
        }
        if (failure != null) {
            throw new PostException("ibv_post_send", posted, failure);
        }
    }

    /** Appends {@code wr} to the native chain. */
    private void add(SendWorkRequest wr) {
        int i = sendWr.add(wr.wrId(), wr.opcode(), wr.sendFlags());
        for (int s = 0; s < wr.numSge(); s++) {
            sendWr.addSge(i, wr.sgeAddress(s), wr.sgeLength(s), wr.sgeLkey(s));
        }
        switch (wr.opcode()) {
            case WrOpcode.RDMA_WRITE:
            case WrOpcode.RDMA_READ:
                sendWr.rdma(i, wr.remoteAddress(), wr.rkey());
                break;
            case WrOpcode.SEND_WITH_INV:
            case WrOpcode.LOCAL_INV:
                sendWr.invalidateRkey(i, wr.invalidateRkey());
                break;
            case WrOpcode.BIND_MW:
                sendWr.bindMw(i, ((NativeMemoryWindow) wr.bindWindow()).mw, wr.bindNewRkey(),
                        ((NativeMemoryRegion) wr.bindRegion()).mr, wr.bindAddress(), wr.bindLength(),
                        wr.bindAccess());
                break;
            default:
                break;
        }
    }

    /** After the device took {@code wr}: a bound window now answers to its new rkey. */
    private static void posted(SendWorkRequest wr) {
        if (wr.opcode() == WrOpcode.BIND_MW) {
            ((NativeMemoryWindow) wr.bindWindow()).posted(wr.bindNewRkey());
        }
    }

    @Override
    public void postReceive(long wrId, long address, int length, int lkey) throws IOException {
        checkPostable("ibv_post_recv");
        checkOwnReceiveQueue();
        recvWr.clear();
        int i = recvWr.add(wrId);
        recvWr.addSge(i, address, length, lkey);
        try {
            Verbs.postRecv(qp, recvWr);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void postReceives(long[] wrIds, long[] addresses, int count, int length, int lkey) throws IOException {
        if (count > MAX_POST_CHAIN) {
            throw new IllegalArgumentException("a chain of " + count + " > " + MAX_POST_CHAIN + " work requests");
        }
        checkPostable("ibv_post_recv");
        checkOwnReceiveQueue();
        recvWr.clear();
        for (int i = 0; i < count; i++) {
            recvWr.addSge(recvWr.add(wrIds[i]), addresses[i], length, lkey);
        }
        try {
            Verbs.postRecv(qp, recvWr);
        } catch (NativeCallException e) {
            int bad = recvWr.badIndex();
            throw new PostException("ibv_post_recv", bad < 0 ? 0 : bad, NativeErrors.of(e));
        }
    }

    /**
     * A queue pair that uses a shared receive queue has no receive queue of its own; the post is refused here, as
     * rxe refuses it, because rdma-core's siw provider does not check: its {@code siw_post_recv} divides by the
     * receive queue's size, 0, and kills the process with SIGFPE.
     */
    private void checkOwnReceiveQueue() throws IOException {
        if (sharedReceives) {
            throw new FabricException("ibv_post_recv: the queue pair uses a shared receive queue and has no receive "
                    + "queue of its own", FabricException.EINVAL);
        }
    }

    @Override
    public void modifyToError() throws IOException {
        if (destroyed) {
            return; // gone with its queues: nothing left to move to the error state
        }
        try {
            Verbs.modifyQpToError(qp);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public int state() {
        try {
            return Verbs.queryQpState(qp);
        } catch (IOException e) {
            throw new IllegalStateException("ibv_query_qp failed", e);
        }
    }

    @Override
    public void close() {
        if (!destroyed) {
            destroyed = true;
            RdmaCm.destroyQp(id.id);
            id.queuePairDestroyed();
            sendWr.close();
            sendChain.close();
            recvWr.close();
        }
    }
}
