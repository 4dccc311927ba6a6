package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.ConnectionParameters;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SharedReceiveQueue;
import dev.rpcrdma.channel.fabric.VerbsDevice;
import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.verbs.RdmaCm;

import java.io.IOException;
import java.net.InetSocketAddress;

/** {@code rdma_cm_id}. */
final class NativeCmId implements CmId {
    private final NativeFabric fabric;
    final long id;
    private volatile Object context;
    private NativeQueuePair qp;
    private boolean destroyed;

    NativeCmId(NativeFabric fabric, long id, Object context) {
        this.fabric = fabric;
        this.id = id;
        this.context = context;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void context(Object context) {
        this.context = context;
    }

    @Override
    public void bind(InetSocketAddress address) throws IOException {
        try {
            RdmaCm.bindAddr(id, address);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void listen(int backlog) throws IOException {
        try {
            RdmaCm.listen(id, backlog);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void resolveAddress(InetSocketAddress source, InetSocketAddress destination, int timeoutMillis)
            throws IOException {
        try {
            RdmaCm.resolveAddr(id, source, destination, timeoutMillis);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void resolveRoute(int timeoutMillis) throws IOException {
        try {
            RdmaCm.resolveRoute(id, timeoutMillis);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public VerbsDevice device() {
        try {
            return fabric.device(RdmaCm.verbs(id));
        } catch (IOException e) {
            throw new IllegalStateException("ibv_query_device failed", e);
        }
    }

    @Override
    public QueuePair createQueuePair(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                                     QpCapabilities c) throws IOException {
        return createQueuePair(pd, sendCq, recvCq, null, c);
    }

    @Override
    public QueuePair createQueuePair(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                                     SharedReceiveQueue srq, QpCapabilities c) throws IOException {
        NativeDevice device = (NativeDevice) device();
        // With an SRQ the QP has no receive queue of its own: max_recv_wr and max_recv_sge are ignored.
        QpCapabilities granted = RdmaCm.createQp(id, ((NativeProtectionDomain) pd).pd,
                ((NativeCompletionQueue) sendCq).cq, ((NativeCompletionQueue) recvCq).cq,
                srq == null ? 0 : ((NativeSharedReceiveQueue) srq).srq,
                srq == null ? c : new QpCapabilities(c.maxSendWr, 0, c.maxSendSge, 0, c.maxInlineData), false);
        qp = new NativeQueuePair(this, RdmaCm.qp(id), granted, device, srq != null);
        return qp;
    }

    @Override
    public QueuePair queuePair() {
        return qp;
    }

    private ConnectionParameters param(ConnectionParameters p) {
        NativeDevice d = (NativeDevice) device();
        int rr = p.responderResources;
        int id = p.initiatorDepth;
        if (d != null) {
            rr = Math.min(rr, d.attributes.maxQpRdAtom());
            id = Math.min(id, d.attributes.maxQpInitRdAtom());
        }
        return new ConnectionParameters(p.privateData, rr, id, p.retryCount, p.rnrRetryCount);
    }

    @Override
    public void connect(ConnectionParameters parameters) throws IOException {
        NativeErrors.checkPrivateData("rdma_connect", parameters.privateData,
                ConnectionParameters.MAX_CONNECT_PRIVATE_DATA);
        try {
            RdmaCm.connect(id, param(parameters));
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void accept(ConnectionParameters parameters) throws IOException {
        NativeErrors.checkPrivateData("rdma_accept", parameters.privateData,
                ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
        try {
            RdmaCm.accept(id, param(parameters));
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void reject(byte[] privateData) throws IOException {
        NativeErrors.checkPrivateData("rdma_reject", privateData, ConnectionParameters.MAX_REJECT_PRIVATE_DATA);
        try {
            RdmaCm.reject(id, privateData);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void disconnect() throws IOException {
        try {
            RdmaCm.disconnect(id);
        } catch (NativeCallException e) {
            throw NativeErrors.of(e);
        }
    }

    @Override
    public void migrate(CmEventChannel channel) throws IOException {
        RdmaCm.migrateId(id, ((NativeCmEventChannel) channel).channel);
    }

    @Override
    public InetSocketAddress localAddress() {
        return RdmaCm.localAddress(id);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return RdmaCm.remoteAddress(id);
    }

    void queuePairDestroyed() {
        qp = null;
    }

    @Override
    public void close() throws IOException {
        if (destroyed) {
            return;
        }
        destroyed = true;
        fabric.ids.remove(id);
        if (qp != null) {
            qp.close();
        }
        RdmaCm.destroyId(id);
    }
}
