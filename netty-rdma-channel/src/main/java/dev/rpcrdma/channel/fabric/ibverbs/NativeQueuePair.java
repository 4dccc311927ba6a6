package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import dev.rpcrdma.channel.fabric.WrOpcode;
import dev.rpcrdma.channel.verbs.RdmaCm;
import dev.rpcrdma.channel.verbs.RecvWorkRequests;
import dev.rpcrdma.channel.verbs.SendWorkRequests;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/**
 * RC {@code ibv_qp} of an RDMA-CM id. Each post copies the SPI request into a one-entry native work-request
 * flyweight owned by the queue pair (the queue pair is used by one event loop).
 */
final class NativeQueuePair implements QueuePair {
    private final NativeCmId id;
    private final long qp;
    private final QpCapabilities caps;
    private final SendWorkRequests sendWr;
    private final RecvWorkRequests recvWr;
    private boolean destroyed;

    NativeQueuePair(NativeCmId id, long qp, QpCapabilities caps, NativeDevice device) {
        this.id = id;
        this.qp = qp;
        this.caps = caps;
        this.sendWr = new SendWorkRequests(1, Math.max(1, Math.min(caps.maxSendSge, SendWorkRequest.MAX_SGE)));
        this.recvWr = new RecvWorkRequests(1, 1);
    }

    @Override
    public int qpNum() {
        return Verbs.qpNum(qp);
    }

    @Override
    public QpCapabilities capabilities() {
        return caps;
    }

    @Override
    public void postSend(SendWorkRequest wr) throws IOException {
        sendWr.clear();
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
        Verbs.postSend(qp, sendWr);
        if (wr.opcode() == WrOpcode.BIND_MW) {
            ((NativeMemoryWindow) wr.bindWindow()).posted(wr.bindNewRkey());
        }
    }

    @Override
    public void postReceive(long wrId, long address, int length, int lkey) throws IOException {
        recvWr.clear();
        int i = recvWr.add(wrId);
        recvWr.addSge(i, address, length, lkey);
        Verbs.postRecv(qp, recvWr);
    }

    @Override
    public void modifyToError() throws IOException {
        Verbs.modifyQpToError(qp);
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
            recvWr.close();
        }
    }
}
