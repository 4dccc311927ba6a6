package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmEventType;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.ConnectionParameters;
import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SharedReceiveQueue;
import dev.rpcrdma.channel.fabric.VerbsDevice;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * An RDMA-CM id. Events are delivered asynchronously by the engine thread, in order. Connection establishment
 * pairs the two queue pairs; the private data of REQ/REP/REJ is bounded and zero-padded like IB CM's.
 */
final class SoftCmId implements CmId {
    private final SoftwareFabric fabric;
    private SoftCmEventChannel channel;
    private volatile Object context;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    private boolean addressResolved;
    private boolean routeResolved;
    private String listenKey;
    /** Bound with {@link #bind}: holds its port in the fabric's bind list until closed. */
    private boolean bound;
    private SoftDevice device;
    private SoftQueuePair qp;
    private ConnectionParameters connectParameters;
    /** On a passive-side id: the connecting id waiting for accept/reject. */
    private SoftCmId pendingConnector;
    private SoftCmId peer;
    private boolean connecting;
    private boolean connected;
    private boolean disconnected;
    private boolean disconnectEventSent;
    boolean destroyed;

    SoftCmId(SoftwareFabric fabric, SoftCmEventChannel channel, Object context) {
        this.fabric = fabric;
        this.channel = channel;
        this.context = context;
        fabric.count("cm_id", 1);
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
        synchronized (fabric.lock) {
            checkAlive();
            if (address.isUnresolved()) {
                throw new FabricException("rdma_bind_addr: unresolved " + address, FabricException.EINVAL);
            }
            if (bound) {
                throw new FabricException("rdma_bind_addr: already bound", FabricException.EINVAL);
            }
            int port = address.getPort() == 0 ? fabric.ephemeralPort() : address.getPort();
            InetSocketAddress a = new InetSocketAddress(address.getAddress(), port);
            fabric.bindPort(a, this);
            bound = true;
            local = a;
            device = fabric.device;
        }
    }

    @Override
    public void listen(int backlog) throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            if (local == null) {
                throw new FabricException("rdma_listen: not bound", FabricException.EINVAL);
            }
            listenKey = fabric.addListener(local, this);
        }
    }

    @Override
    public void resolveAddress(InetSocketAddress source, InetSocketAddress destination, int timeoutMillis)
            throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            if (destination.isUnresolved()) {
                throw new FabricException("rdma_resolve_addr: unresolved " + destination, FabricException.EINVAL);
            }
            remote = destination;
            InetAddress dst = destination.getAddress();
            if (dst.isAnyLocalAddress() || dst.isMulticastAddress()) {
                post(this, new CmEvent(CmEventType.ADDR_ERROR, -FabricException.EINVAL, this, null, null));
                return;
            }
            if (source != null) {
                local = new InetSocketAddress(source.getAddress(),
                        source.getPort() == 0 ? fabric.ephemeralPort() : source.getPort());
            } else if (local == null) {
                // In-process, every address is local: the route leaves through "the interface" of the destination.
                local = new InetSocketAddress(dst, fabric.ephemeralPort());
            }
            device = fabric.device;
            addressResolved = true;
            post(this, new CmEvent(CmEventType.ADDR_RESOLVED, 0, this, null, null));
        }
    }

    @Override
    public void resolveRoute(int timeoutMillis) throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            if (!addressResolved) {
                throw new FabricException("rdma_resolve_route: address not resolved", FabricException.EINVAL);
            }
            routeResolved = true;
            post(this, new CmEvent(CmEventType.ROUTE_RESOLVED, 0, this, null, null));
        }
    }

    @Override
    public VerbsDevice device() {
        synchronized (fabric.lock) {
            return device;
        }
    }

    @Override
    public QueuePair createQueuePair(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                                     QpCapabilities capabilities) throws IOException {
        return createQueuePair(pd, sendCq, recvCq, null, capabilities);
    }

    @Override
    public QueuePair createQueuePair(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                                     SharedReceiveQueue srq, QpCapabilities capabilities) throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            if (device == null) {
                throw new FabricException("rdma_create_qp: id has no device yet", FabricException.EINVAL);
            }
            if (qp != null && !qp.destroyed) {
                throw new FabricException("rdma_create_qp: id already has a QP", FabricException.EINVAL);
            }
            QpCapabilities c = capabilities;
            if (c.maxSendWr > SoftDevice.MAX_QP_WR || c.maxRecvWr > SoftDevice.MAX_QP_WR
                    || c.maxSendSge > device.maxSge() || c.maxRecvSge > device.maxSge()
                    || c.maxInlineData > device.maxInlineData()) {
                throw new FabricException("rdma_create_qp: capabilities exceed the device: " + c,
                        FabricException.EINVAL);
            }
            SoftProtectionDomain spd = (SoftProtectionDomain) pd;
            SoftSharedReceiveQueue s = (SoftSharedReceiveQueue) srq;
            if (s != null && (s.destroyed || s.pd != spd)) {
                throw new FabricException("rdma_create_qp: the SRQ is destroyed or of another PD",
                        FabricException.EINVAL);
            }
            spd.users++;
            qp = new SoftQueuePair(fabric, spd, (SoftCompletionQueue) sendCq, (SoftCompletionQueue) recvCq, s, c,
                    fabric.nextQpNum());
            qp.cmId = this;
            return qp;
        }
    }

    @Override
    public QueuePair queuePair() {
        synchronized (fabric.lock) {
            return qp;
        }
    }

    @Override
    public void connect(ConnectionParameters parameters) throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            checkPrivateData(parameters.privateData, ConnectionParameters.MAX_CONNECT_PRIVATE_DATA, "rdma_connect");
            if (!routeResolved || qp == null || connecting) {
                throw new FabricException("rdma_connect: route not resolved, no QP, or already connecting",
                        FabricException.EINVAL);
            }
            if (fabric.likeSiw && fabric.findListener(remote) == null) {
                // iWARP runs over TCP, and siw (Linux 6.1) connects it synchronously in rdma_connect (siw_connect,
                // kernel_bindconnect): a port nobody listens on answers with a RST, and the call fails.
                throw new FabricException("rdma_connect: connection refused", FabricException.ECONNREFUSED);
            }
            connecting = true;
            connectParameters = parameters;
            byte[] req = pad(parameters.privateData, ConnectionParameters.MAX_CONNECT_PRIVATE_DATA);
            fabric.engine.execute(() -> deliverConnectRequest(req));
        }
    }

    private void deliverConnectRequest(byte[] req) {
        synchronized (fabric.lock) {
            if (destroyed) {
                return;
            }
            SoftCmId listener = fabric.findListener(remote);
            if (listener == null) {
                deliver(new CmEvent(CmEventType.REJECTED, CmEventType.REJECT_INVALID_SERVICE_ID, this, null, null));
                return;
            }
            SoftCmId child = new SoftCmId(fabric, listener.channel, null);
            child.device = fabric.device;
            child.local = new InetSocketAddress(remote.getAddress(), listener.local.getPort());
            child.remote = local;
            child.pendingConnector = this;
            listener.deliver(new CmEvent(CmEventType.CONNECT_REQUEST, 0, child, listener, req));
        }
    }

    @Override
    public void accept(ConnectionParameters parameters) throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            checkPrivateData(parameters.privateData, ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA, "rdma_accept");
            if (pendingConnector == null || qp == null) {
                throw new FabricException("rdma_accept: no connect request pending or no QP", FabricException.EINVAL);
            }
            SoftCmId c = pendingConnector;
            pendingConnector = null;
            byte[] rep = pad(parameters.privateData, ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
            fabric.engine.execute(() -> establish(c, parameters, rep));
        }
    }

    private void establish(SoftCmId c, ConnectionParameters parameters, byte[] rep) {
        synchronized (fabric.lock) {
            if (destroyed) {
                return;
            }
            if (c.destroyed || c.qp == null || c.qp.destroyed) {
                deliver(new CmEvent(CmEventType.CONNECT_ERROR, -FabricException.ECONNREFUSED, this, null, null));
                return;
            }
            peer = c;
            c.peer = this;
            qp.peer = c.qp;
            c.qp.peer = qp;
            // rnr_retry_count is how often the *peer* retries our RNR NAKs.
            qp.rnrRetryCount = Math.min(c.connectParameters.rnrRetryCount, SoftQueuePair.RNR_RETRY_INFINITE);
            c.qp.rnrRetryCount = Math.min(parameters.rnrRetryCount, SoftQueuePair.RNR_RETRY_INFINITE);
            // retry_count is how often each side retries its own requests (its connect or accept parameters).
            qp.retryCount = Math.min(parameters.retryCount, 7);
            c.qp.retryCount = Math.min(c.connectParameters.retryCount, 7);
            if (qp.state != dev.rpcrdma.channel.fabric.QpState.ERR) {
                qp.state = dev.rpcrdma.channel.fabric.QpState.RTS;
            }
            if (c.qp.state != dev.rpcrdma.channel.fabric.QpState.ERR) {
                c.qp.state = dev.rpcrdma.channel.fabric.QpState.RTS;
            }
            connected = true;
            c.connected = true;
            c.deliver(new CmEvent(CmEventType.ESTABLISHED, 0, c, null, rep));
            deliver(new CmEvent(CmEventType.ESTABLISHED, 0, this, null, null));
        }
    }

    @Override
    public void reject(byte[] privateData) throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            checkPrivateData(privateData, ConnectionParameters.MAX_REJECT_PRIVATE_DATA, "rdma_reject");
            if (pendingConnector == null) {
                throw new FabricException("rdma_reject: no connect request pending", FabricException.EINVAL);
            }
            SoftCmId c = pendingConnector;
            pendingConnector = null;
            // RDMA-CM moves the connector's queue pair to error when a reject arrives (cma_modify_qp_err on
            // IB_CM_REJ_RECEIVED; siw closes its stream, siw_qp_llp_close): its posted receives flush, and their
            // completions may be seen before the REJECTED event.
            if (c.qp != null && !c.qp.destroyed) {
                c.qp.toError();
            }
            // iWARP: an MPA reply with the Reject bit (RFC 5044 §7.1.1) is a connect reply with -ECONNRESET (Linux
            // siw_proc_mpareply), which RDMA-CM reports as REJECTED with that status (cma_iw_handler), not an IB CM
            // reject reason; the private data comes with it.
            post(c, new CmEvent(CmEventType.REJECTED, fabric.likeSiw ? -FabricException.ECONNRESET
                    : CmEventType.REJECT_CONSUMER_DEFINED, c, null,
                    pad(privateData, ConnectionParameters.MAX_REJECT_PRIVATE_DATA)));
        }
    }

    @Override
    public void disconnect() throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            if (!connected || disconnected) {
                throw new FabricException("rdma_disconnect: not connected", FabricException.EINVAL);
            }
            disconnect0(true);
        }
    }

    /**
     * iWARP (like siw): a TERMINATE message ends the connection (RFC 5040 §7.4: the stream is not used after it);
     * siw then closes the TCP connection and both sides get DISCONNECTED ({@code siw_qp_cm_drop},
     * {@code IW_CM_EVENT_CLOSE}). Caller holds the fabric lock.
     */
    void connectionTerminated() {
        if (connected && !disconnected && !destroyed) {
            disconnect0(true);
        }
    }

    private void disconnect0(boolean notifySelf) {
        disconnected = true;
        if (qp != null) {
            qp.toError();
        }
        if (notifySelf && !disconnectEventSent) {
            disconnectEventSent = true;
            post(this, new CmEvent(CmEventType.DISCONNECTED, 0, this, null, null));
        }
        SoftCmId p = peer;
        if (qp != null && qp.severed) {
            return; // the DREQ is lost with the connection (SoftwareFabric.severConnection)
        }
        if (p != null && !p.disconnectEventSent) {
            p.disconnectEventSent = true;
            post(p, new CmEvent(CmEventType.DISCONNECTED, 0, p, null, null));
        }
    }

    @Override
    public void migrate(CmEventChannel channel) throws IOException {
        synchronized (fabric.lock) {
            checkAlive();
            this.channel = (SoftCmEventChannel) channel;
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        synchronized (fabric.lock) {
            return local;
        }
    }

    @Override
    public InetSocketAddress remoteAddress() {
        synchronized (fabric.lock) {
            return remote;
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (fabric.lock) {
            if (destroyed) {
                return;
            }
            if (listenKey != null) {
                fabric.removeListener(listenKey, this);
            }
            if (bound) {
                fabric.unbindPort(local.getPort(), this);
            }
            if (connected && !disconnected) {
                disconnect0(false); // rdma_destroy_id of a connected id sends a DREQ
            }
            if (pendingConnector != null) {
                SoftCmId c = pendingConnector;
                pendingConnector = null;
                post(c, new CmEvent(CmEventType.REJECTED, CmEventType.REJECT_CONSUMER_DEFINED, c, null,
                        new byte[ConnectionParameters.MAX_REJECT_PRIVATE_DATA]));
            }
            destroyed = true;
            fabric.count("cm_id", -1);
        }
    }

    private void checkAlive() throws FabricException {
        if (destroyed) {
            throw new FabricException("cm id destroyed", FabricException.EINVAL);
        }
    }

    /** Queues delivery of an event to {@code target} on the engine thread (asynchronous, in order). */
    private void post(SoftCmId target, CmEvent event) {
        fabric.engine.execute(() -> {
            synchronized (fabric.lock) {
                target.deliver(event);
            }
        });
    }

    /** Caller holds the lock. */
    private void deliver(CmEvent event) {
        if (!destroyed || event.type() == CmEventType.CONNECT_REQUEST) {
            channel.post(event);
        }
    }

    private static void checkPrivateData(byte[] data, int max, String call) throws FabricException {
        if (data != null && data.length > max) {
            throw new FabricException(call + ": private data " + data.length + " B > " + max + " B",
                    FabricException.EINVAL);
        }
    }

    /**
     * Private data as the peer's event reports it: zero padded to the whole field of the IB CM message (REQ 56, REP
     * 196, REJ 148 bytes after RDMA-CM's header); like siw, exactly as long as it was sent: iWARP carries it in the
     * MPA request/reply frame with its length (RFC 5044 §7.1, Private Data Length), and RDMA-CM passes that length on.
     */
    private byte[] pad(byte[] data, int size) {
        byte[] d = data == null ? new byte[0] : data;
        return Arrays.copyOf(d, fabric.likeSiw ? d.length : size);
    }

    @Override
    public String toString() {
        return "SoftCmId(" + local + " -> " + remote + ')';
    }
}
