package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventType;
import dev.rpcrdma.channel.fabric.ConnectionParameters;
import dev.rpcrdma.channel.fabric.FabricException;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.TimeUnit;

/**
 * The RDMA-CM side of one {@link RdmaChannel}: a client's address and route resolution and connect request, an
 * accepted channel's accept or reject, the events that answer them ({@code ESTABLISHED}, {@code REJECTED},
 * {@code UNREACHABLE}, the errors, {@code DISCONNECTED}), and the promises and timeout of connection setup. It moves
 * the channel's {@link ConnectionState} through setup; closing belongs to the channel. Event-loop confined.
 */
final class CmConnection {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(CmConnection.class);

    private final RdmaChannel channel;
    private ChannelPromise connectPromise;
    private Future<?> connectTimeout;
    private InetSocketAddress requestedRemote;
    private ChannelPromise acceptPromise;

    CmConnection(RdmaChannel channel) {
        this.channel = channel;
    }

    boolean connectPending() {
        return connectPromise != null;
    }

    private int resolveTimeoutMillis() {
        int t = channel.config().getConnectTimeoutMillis();
        return t > 0 ? t : 2000;
    }

    /**
     * A client starts connecting: resolve the address (then the route, then connect, as the events come). Throws,
     * having started nothing, for an address RDMA-CM cannot take or connect private data beyond
     * {@value ConnectionParameters#MAX_CONNECT_PRIVATE_DATA} bytes.
     */
    void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) throws IOException {
        if (!(remoteAddress instanceof InetSocketAddress)
                || localAddress != null && !(localAddress instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("unsupported address type: "
                    + (remoteAddress instanceof InetSocketAddress ? localAddress : remoteAddress));
        }
        InetSocketAddress remote = (InetSocketAddress) remoteAddress;
        if (remote.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        int privateData = channel.config().privateData().length;
        if (privateData > ConnectionParameters.MAX_CONNECT_PRIVATE_DATA) {
            throw new IllegalArgumentException("connect private data of " + privateData + " bytes exceeds "
                    + ConnectionParameters.MAX_CONNECT_PRIVATE_DATA);
        }
        InetSocketAddress local = (InetSocketAddress) localAddress;
        connectPromise = promise;
        requestedRemote = remote;
        channel.remote = remote;
        channel.state = ConnectionState.RESOLVING;
        channel.cmId = channel.cmEvents.createId(channel);
        channel.cmId.resolveAddress(local, remote, resolveTimeoutMillis());
        int timeout = channel.config().getConnectTimeoutMillis();
        if (timeout > 0) {
            connectTimeout = channel.eventLoop().schedule(() -> failConnect(
                    new ConnectTimeoutException("RDMA connection timed out after " + timeout + " ms: " + remote)),
                    timeout, TimeUnit.MILLISECONDS);
        }
    }

    /** The connect attempt failed before it started. */
    void connectNotStarted() {
        connectPromise = null;
    }

    /** An accepted channel answers its connect request with {@code privateData}. */
    void accept(byte[] privateData, ChannelPromise promise) {
        try {
            if (!channel.passive) {
                throw new IllegalStateException("only accepted channels accept");
            }
            if (channel.state.requestAnswered()) {
                throw new IllegalStateException("connect request already answered");
            }
            if (privateData.length > ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA) {
                throw new IllegalArgumentException("accept private data of " + privateData.length
                        + " bytes exceeds " + ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
            }
            if (!channel.isOpen() || channel.state.closing()) {
                throw new ClosedChannelException();
            }
            if (channel.endpoint() == null) {
                channel.setUpEndpoint(); // sized by the options as they are now; receives posted before the accept
            }
            channel.state = ConnectionState.ACCEPTING;
            acceptPromise = promise;
            channel.cmId.accept(channel.config().connectionParameters(privateData));
        } catch (Throwable t) {
            promise.tryFailure(t);
            if (!promise.isVoid()) {
                return;
            }
            logger.warn("{} failed to accept", channel, t);
            channel.close();
        }
    }

    /** Rejects the pending connect request with {@code privateData}, then closes the channel. */
    void reject(byte[] privateData, ChannelPromise promise) {
        try {
            if (!channel.passive || channel.state.requestAnswered()) {
                throw new IllegalStateException("no connect request to reject");
            }
            channel.state = ConnectionState.REJECTED;
            channel.cmId.reject(privateData);
            promise.setSuccess();
        } catch (Throwable t) {
            promise.tryFailure(t);
        }
        channel.close();
    }

    void onEvent(CmEvent event) {
        switch (event.type()) {
            case CmEventType.ADDR_RESOLVED:
                try {
                    channel.cmId.resolveRoute(resolveTimeoutMillis());
                } catch (Throwable t) {
                    // e.g. ENODEV when the address has no RDMA device (127.0.0.1): the connect
                    // fails with that cause instead of a bare ClosedChannelException.
                    ConnectException e = new ConnectException("no RDMA route to " + requestedRemote
                            + " (does an RDMA device own that address?): " + t.getMessage());
                    e.initCause(t);
                    failConnect(e);
                }
                break;
            case CmEventType.ROUTE_RESOLVED:
                try {
                    channel.setUpEndpoint();
                    // Handlers may adapt the connect request's private data to the device (e.g. the RFC 8797 R bit).
                    channel.pipeline().fireUserEventTriggered(RdmaDeviceResolvedEvent.INSTANCE);
                    if (!channel.isOpen()) {
                        break;
                    }
                    channel.state = ConnectionState.CONNECTING;
                    channel.cmId.connect(channel.config().connectionParameters(channel.config().privateData()));
                } catch (Throwable t) {
                    failConnect(refused(t) ? noListener("connection refused", t) : t);
                }
                break;
            case CmEventType.ESTABLISHED:
                onEstablished(event);
                break;
            case CmEventType.REJECTED:
                if (event.status() == CmEventType.REJECT_INVALID_SERVICE_ID || tcpRefused(event)) {
                    failConnect(noListener(event.status() == CmEventType.REJECT_INVALID_SERVICE_ID
                            ? "IB CM reject reason 8, invalid service ID" : "TCP connection refused", null));
                } else {
                    failConnect(new RdmaConnectionRejectedException("RDMA connection to " + requestedRemote
                            + " rejected by the peer (reason " + event.status() + ')', event.status(),
                            event.privateData()));
                }
                break;
            case CmEventType.UNREACHABLE:
                // RDMA-CM cannot tell "no route" from "nobody answers on that port" here.
                failConnect(new ConnectException("no RDMA listener at " + peer()
                        + ", or the peer is unreachable (" + CmEventType.name(event.type()) + ", status "
                        + event.status() + ')'));
                break;
            case CmEventType.ADDR_ERROR:
            case CmEventType.ROUTE_ERROR:
            case CmEventType.CONNECT_ERROR:
                failConnect(new ConnectException(CmEventType.name(event.type()) + " (status " + event.status()
                        + ") connecting to " + peer()));
                break;
            case CmEventType.DISCONNECTED:
                logger.debug("{}: {}", channel, event);
                // What arrived before the disconnect is delivered first: a closing channel drops its receives.
                channel.deliverCompleted();
                channel.close();
                break;
            case CmEventType.DEVICE_REMOVAL:
                logger.debug("{}: {}", channel, event);
                channel.close();
                break;
            default:
                logger.debug("{} ignores {}", channel, event);
        }
    }

    /**
     * Whether a failed {@code rdma_connect} means nobody listens there. On iWARP the connection is a TCP connection
     * (RFC 5044 §7: MPA starts once TCP is established); a device that connects TCP inside {@code rdma_connect} fails
     * the call itself with {@code ECONNREFUSED} where nobody listens (Linux {@code drivers/infiniband/sw/siw/siw_cm.c}).
     */
    private static boolean refused(Throwable t) {
        return t instanceof FabricException && ((FabricException) t).errno() == FabricException.ECONNREFUSED;
    }

    /**
     * Whether a REJECTED event is iWARP's refused TCP connection rather than a consumer's reject: RDMA-CM maps an
     * iWARP connect reply with {@code -ECONNREFUSED} or {@code -ECONNRESET} to REJECTED with that negative status
     * ({@code cma_iw_handler}), where IB CM reports a positive reject reason. A consumer's MPA reject
     * (RFC 5044 §7.1.1, the R bit) arrives the same way, so only a reject without private data counts as refused:
     * an iWARP peer that rejects with empty private data is reported as nobody listening (RDMA-CM cannot tell).
     */
    private static boolean tcpRefused(CmEvent event) {
        byte[] pd = event.privateData();
        return (event.status() == -FabricException.ECONNREFUSED || event.status() == -FabricException.ECONNRESET)
                && (pd == null || pd.length == 0);
    }

    private ConnectException noListener(String why, Throwable cause) {
        ConnectException e = new ConnectException("no RDMA listener at " + requestedRemote + " (" + why + ')');
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    private InetSocketAddress peer() {
        return channel.passive ? channel.remote : requestedRemote;
    }

    private void onEstablished(CmEvent event) {
        if (!channel.passive && channel.failure() != null) {
            // The queue pair went to error while connecting (RdmaChannel.completionsDone waited for this verdict).
            ConnectException e = new ConnectException("RDMA connection to " + requestedRemote
                    + " established with its queue pair in error");
            e.initCause(channel.failure());
            failConnect(e);
            return;
        }
        if (!channel.passive) {
            channel.peerPrivateData = event.privateData();
        }
        channel.local = channel.cmId.localAddress();
        channel.remote = channel.cmId.remoteAddress();
        channel.state = ConnectionState.ESTABLISHED;
        channel.active = true;
        if (channel.passive) {
            ChannelPromise p = acceptPromise;
            acceptPromise = null;
            if (p != null) {
                p.trySuccess();
            }
            channel.pipeline().fireChannelActive();
            return;
        }
        ChannelPromise p = connectPromise;
        connectPromise = null;
        cancelConnectTimeout();
        // channelActive first: handlers that negotiate there (RPC-over-RDMA thresholds, the backchannel's size) are
        // done when the connect future completes, so connect().sync() returns a connection ready to use.
        channel.pipeline().fireChannelActive();
        boolean promiseSet = p != null && p.trySuccess();
        if (!promiseSet) {
            channel.close();
        }
    }

    private void failConnect(Throwable cause) {
        ChannelPromise p = channel.passive ? acceptPromise : connectPromise;
        connectPromise = null;
        acceptPromise = null;
        cancelConnectTimeout();
        if (p != null && !p.isVoid()) {
            p.tryFailure(cause);
        }
        if (channel.passive && (p == null || p.isVoid())) {
            logger.warn("{} connection setup failed", channel, cause);
        }
        channel.close();
    }

    private void cancelConnectTimeout() {
        Future<?> f = connectTimeout;
        connectTimeout = null;
        if (f != null) {
            f.cancel(false);
        }
    }

    /**
     * Closing: pending connect/accept fail, an unanswered connect request is rejected, an established connection
     * disconnected ({@code was}: the state before closing).
     */
    void close(ConnectionState was) {
        cancelConnectTimeout();
        ClosedChannelException closed = new ClosedChannelException();
        if (connectPromise != null) {
            connectPromise.tryFailure(closed);
            connectPromise = null;
        }
        if (acceptPromise != null) {
            if (!acceptPromise.isVoid()) { // auto-accept's: a close while accepting is no error to report
                acceptPromise.tryFailure(closed);
            }
            acceptPromise = null;
        }
        if (channel.passive && !was.requestAnswered() && channel.cmId != null) {
            try {
                channel.cmId.reject(null);
            } catch (IOException e) {
                logger.debug("rdma_reject failed", e);
            }
        }
        if (was == ConnectionState.ESTABLISHED) {
            try {
                channel.cmId.disconnect();
            } catch (IOException e) {
                logger.debug("rdma_disconnect: {}", e.getMessage());
            }
        }
    }
}
