package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmEventType;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.ConnectionParameters;
import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.PostException;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.SendWorkRequest;
import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.UnresolvedAddressException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An RC connection over RDMA-CM as a Netty channel: created by {@code Bootstrap.connect} (client) or accepted by an
 * {@link RdmaServerChannel}.
 *
 * <h2>Connection</h2>
 * The connect request carries {@link RdmaChannelOption#PRIVATE_DATA}; the peer's private data (the server's accept
 * reply on a client, the client's request on an accepted channel) is {@link #peerPrivateData()}, set before the
 * channel becomes active. An accepted channel is registered (so {@code channelRegistered} can read the request and
 * set the reply's private data) and then accepts — automatically unless {@link RdmaChannelOption#AUTO_ACCEPT} is
 * off, in which case the application calls {@link #accept(byte[])} or {@link #reject(byte[])}.
 *
 * <h2>Accept-time sizing</h2>
 * An accepted channel creates its queue pair, registers its buffer slabs and posts its receives when it accepts,
 * not when it is registered: options set after reading {@link #peerPrivateData()} — in a
 * {@code ChannelInitializer}'s {@code initChannel}, in {@code channelRegistered}, or before calling
 * {@link #accept(byte[])} — size that connection ({@link RdmaChannelOption#RECEIVE_BUFFER_SIZE},
 * {@link RdmaChannelOption#RECEIVE_QUEUE_DEPTH}, {@link RdmaChannelOption#SEND_QUEUE_DEPTH},
 * {@link RdmaChannelOption#MAX_SEND_SIZE}, {@link RdmaChannelOption#MAX_INLINE_DATA}, and the connection
 * parameters). {@code ServerBootstrap.childOption} values are the starting point. Until it accepts, an accepted
 * channel has no protection domain: {@link #registerMemory} and {@link #allocateMemoryWindow} fail.
 *
 * <h2>Inbound</h2>
 * {@link RdmaChannelOption#RECEIVE_QUEUE_DEPTH} receives of {@link RdmaChannelOption#RECEIVE_BUFFER_SIZE} bytes are
 * posted before connecting (before accepting on an accepted channel), with
 * {@link RdmaChannelOption#RECEIVE_SPARE_BUFFERS} more registered and free. Each received Send is fired as an
 * {@link RdmaReceive} (pooled; the reader releases it, which returns it to the pool) whose content is the receive
 * buffer itself, lent without a copy while a spare buffer is free to post in its place (releasing the receive gives
 * the buffer back), else a copy in a buffer from the channel's allocator with the receive buffer itself reposted
 * ({@link ReceiveBuffers}). Receives are reposted in batches of an eighth of the depth (at most 8, one
 * {@code ibv_post_recv} each, as the Linux RPC-over-RDMA transports do), the receive queue having that many entries
 * more than the depth less one, so between the depth and depth + 7 receives are posted while reading keeps up
 * ({@link #postedReceives()} counts up to the depth). With
 * auto-read off and no read pending, received buffers are held (not reposted) until {@code read()}: the peer then
 * meets RNR, real back-pressure.
 *
 * <h2>Outbound</h2>
 * A {@link ByteBuf} or {@link RdmaSend} is one Send: inline (gathered from the buffer's components) up to
 * {@link RdmaChannelOption#MAX_INLINE_DATA}, else copied into a registered send slot. Either way its bytes are copied
 * when it is posted, so the message is released and its write promise completes then (as a TCP write completes once
 * its bytes are in the socket buffer); a Send that fails later breaks the connection: the channel closes, after
 * {@code exceptionCaught} with the {@link RdmaWorkRequestException} when the Send itself was refused (length,
 * protection, remote operation error), with an INFO log line when the peer stopped answering (transport or RNR
 * retries exceeded: the connection is lost, as when a TCP peer goes away). {@link RdmaWrite}, {@link RdmaRead} and
 * {@link RdmaBindWindow} are posted as such and stay in the outbound buffer until their completion, which completes
 * their promise (a Read's data is in place, a Write's source may be reused, a window is bound); a Send flushed behind
 * one of them waits with it, so promises complete in write order. Work requests are signalled selectively: one in half the send queue, and
 * the last of each flush that has a message waiting for its completion; a signalled completion retires every earlier
 * one (completions are in order). A Send-only exchange (an RPC ping-pong) thus makes no send completion per message,
 * like perftest. The work requests of one write pass are posted as chains of up to {@link QueuePair#MAX_POST_CHAIN}
 * with one {@code ibv_post_send} each (one doorbell; on rxe one system call); a request the device rejects ends
 * the chain, is unaccounted with those after it, and fails the channel. At most
 * {@link RdmaChannelOption#SEND_QUEUE_DEPTH} work requests are outstanding (the queue pair has one entry more, for
 * the drain marker of close); while they are the channel is not writable (user-defined
 * writability bit 1).
 *
 * <h2>Close</h2>
 * Disconnect, queue pair to error, drain every flush completion (outstanding writes fail with
 * {@link RdmaWorkRequestException} {@code IBV_WC_WR_FLUSH_ERR}; unposted ones with {@link ClosedChannelException}),
 * deregister everything registered through the channel, destroy QP, CQ, completion channel, PD, id. If the device
 * does not flush within {@value #DRAIN_TIMEOUT_MILLIS} ms the registered memory is deliberately leaked (logged)
 * rather than freed under the device.
 */
public final class RdmaChannel extends AbstractRdmaChannel implements RdmaConnection {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaChannel.class);
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final int WRITABILITY_BIT = 1;
    private static final int UPPER_LAYER_WRITABILITY_BIT = 2;
    private static final int DRAIN_TIMEOUT_MILLIS = 5000;
    private static final int ACK_BATCH = 32;
    private static final int COMPLETION_ARRAY = 32;
    private static final byte[] EMPTY = new byte[0];

    private final int channelId = IDS.incrementAndGet() & 0xffffff;
    private final RdmaChannelConfig config = new RdmaChannelConfig(this);
    private final boolean passive;
    private volatile byte[] peerPrivateData = EMPTY;
    private volatile RdmaEndpoint ep;
    private volatile int postedReceives;
    /** The receive queue depth once the endpoint exists: what {@link #postedReceives()} counts up to. */
    private volatile int creditableReceives = Integer.MAX_VALUE;

    private ChannelPromise connectPromise;
    private Future<?> connectTimeout;
    private InetSocketAddress requestedRemote;
    private ChannelPromise acceptPromise;
    private boolean acceptStarted;
    private boolean established;

    private final List<RdmaMemory> memories = new ArrayList<>();
    private final List<RdmaMemoryWindow> windows = new ArrayList<>();
    /** Set (holding both list locks) when closing starts: no registration may race with the PD's destruction. */
    private boolean registrationsClosed;
    private boolean closed;

    /** The drain marker's request (posted alone, outside {@link #doWrite}). */
    private final SendWorkRequest drainMarker = new SendWorkRequest();
    /** Requests staged by one write pass and posted as one chain (one {@code ibv_post_send}, one doorbell). */
    private final SendWorkRequest[] chain = newChain();
    private int chained;
    private final FlushedMessages flushed = new FlushedMessages();
    private final HeadSends headSends = new HeadSends();
    /** In {@link #doWrite}: a promise listener that flushes from inside it only asks for another pass. */
    private boolean writing;
    private boolean writeAgain;
    /** One entry per send queue entry: {@code sendDepth} for writes plus one for the drain marker of close. */
    private InFlight[] inFlight;
    /** Work requests the channel may have outstanding (writability); the queue pair has one entry more. */
    private int sendDepth;
    private int head;
    private int tail;
    private int unsignaledRun;
    /** Posted work requests whose message is still in the outbound buffer (its promise waits for the completion). */
    private int heldInBuffer;
    private boolean lastPostedSignaled = true;
    private ChannelOutboundBuffer outbound;
    private boolean closing;
    private Throwable failure;
    private boolean readPending;
    /**
     * Receives completed but not fired yet (auto-read off and no read pending, or before ESTABLISHED), in completion
     * order: a ring of receive slots (at most the receive depth, as each holds its slot), with each slot's byte_len,
     * invalidation flag and rkey. Preallocated with the endpoint: holding a receive allocates nothing.
     */
    private int[] heldSlots;
    private int[] heldLength;
    private boolean[] heldInvalidated;
    private int[] heldRkey;
    private int heldHead;
    private int heldCount;
    /** The batch being processed: a close inside it (from a handler) finishes it before draining. */
    private CompletionArray batch;
    private int batchNext;
    private int batchCount;

    private static SendWorkRequest[] newChain() {
        SendWorkRequest[] c = new SendWorkRequest[QueuePair.MAX_POST_CHAIN];
        for (int i = 0; i < c.length; i++) {
            c[i] = new SendWorkRequest();
        }
        return c;
    }

    /** A client channel (for {@code Bootstrap.channel(RdmaChannel.class)}). */
    public RdmaChannel() {
        super(null);
        passive = false;
    }

    /** An accepted channel: {@code id} (of the connect request) was migrated to {@code events}, now its own. */
    RdmaChannel(RdmaServerChannel parent, CmId id, CmEventChannel events, byte[] requestPrivateData) {
        super(parent);
        passive = true;
        cmId = id;
        cmEvents = events;
        id.context(this);
        peerPrivateData = requestPrivateData.clone();
        local = id.localAddress();
        remote = id.remoteAddress();
    }

    @Override
    public RdmaChannelConfig config() {
        return config;
    }

    @Override
    public RdmaServerChannel parent() {
        return (RdmaServerChannel) super.parent();
    }

    /**
     * The peer's private data: on a client the server's accept reply (196 bytes, zero padded, once
     * established), on an accepted channel the client's connect request (56 bytes, zero padded). A copy.
     */
    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * Receives currently posted, counted up to {@link RdmaChannelOption#RECEIVE_QUEUE_DEPTH}: the credits this side
     * can grant (RFC 8166 §3.3.1). The depth while reading keeps up. Reposts go out in batches, so up to 7 more are
     * posted at times; they are not counted, so a grant never relies on a receive the next batch may not yet have
     * replaced.
     */
    @Override
    public int postedReceives() {
        return Math.min(postedReceives, creditableReceives);
    }

    @Override
    public void setUpperLayerWritable(boolean writable) {
        ChannelOutboundBuffer out = unsafe().outboundBuffer();
        if (out != null) {
            out.setUserDefinedWritability(UPPER_LAYER_WRITABILITY_BIT, writable);
        }
    }

    /** The largest Send this channel writes ({@link RdmaChannelOption#MAX_SEND_SIZE}). */
    @Override
    public int maxSendSize() {
        return config.maxSendSize();
    }

    /** Accepts the pending connect request of an accepted channel with {@code privateData} (at most 196 bytes). */
    public ChannelFuture accept(byte[] privateData) {
        ChannelPromise p = newPromise();
        byte[] data = privateData == null ? EMPTY : privateData.clone();
        if (eventLoop().inEventLoop()) {
            accept0(data, p);
        } else {
            eventLoop().execute(() -> accept0(data, p));
        }
        return p;
    }

    /** Rejects the pending connect request with {@code privateData} (at most 148 bytes) and closes the channel. */
    public ChannelFuture reject(byte[] privateData) {
        ChannelPromise p = newPromise();
        byte[] data = privateData == null ? EMPTY : privateData.clone();
        eventLoop().execute(() -> {
            try {
                if (!passive || acceptStarted) {
                    throw new IllegalStateException("no connect request to reject");
                }
                acceptStarted = true;
                cmId.reject(data);
                p.setSuccess();
            } catch (Throwable t) {
                p.tryFailure(t);
            }
            close();
        });
        return p;
    }

    /**
     * Registers the readable bytes of a direct {@code buffer} with {@code access} ({@link AccessFlags}; local
     * write is always added) on this connection's protection domain. The buffer is retained until
     * {@link RdmaMemory#deregister()} (or channel close).
     */
    @Override
    public RdmaMemory registerMemory(ByteBuf buffer, int access) throws IOException {
        ObjectUtil.checkNotNull(buffer, "buffer");
        if (!buffer.hasMemoryAddress()) {
            throw new IllegalArgumentException("only direct buffers with a memory address can be registered");
        }
        if (buffer.readableBytes() == 0) {
            throw new IllegalArgumentException("nothing readable to register");
        }
        RdmaEndpoint e = ep;
        if (e == null || !isOpen()) {
            throw new IllegalStateException("no connection resources (not connected or accepted yet, or closed)");
        }
        long address = buffer.memoryAddress() + buffer.readerIndex();
        int length = buffer.readableBytes();
        synchronized (memories) {
            if (registrationsClosed) {
                throw new IllegalStateException("channel closed");
            }
            MemoryRegion mr = e.pd.registerMemory(address, length, access | AccessFlags.LOCAL_WRITE);
            RdmaMemory m = new RdmaMemory(this, buffer.retain(), mr, address, length);
            memories.add(m);
            return m;
        }
    }

    /** Allocates a type-2 memory window on this connection's protection domain. */
    @Override
    public RdmaMemoryWindow allocateMemoryWindow() throws IOException {
        RdmaEndpoint e = ep;
        if (e == null || !isOpen()) {
            throw new IllegalStateException("no connection resources (not connected or accepted yet, or closed)");
        }
        synchronized (windows) {
            if (registrationsClosed) {
                throw new IllegalStateException("channel closed");
            }
            RdmaMemoryWindow w = new RdmaMemoryWindow(this, e.pd.allocMemoryWindow());
            windows.add(w);
            return w;
        }
    }

    void deregisterNow(RdmaMemory m) {
        synchronized (memories) {
            if (!memories.remove(m)) {
                return;
            }
        }
        try {
            m.region().close();
        } catch (IOException e) {
            logger.warn("{} failed to deregister memory", this, e);
        }
        m.markDeregistered();
    }

    void closeWindow(RdmaMemoryWindow w) {
        synchronized (windows) {
            if (w.closed) {
                return;
            }
            w.closed = true;
            windows.remove(w);
        }
        w.invalidated();
        try {
            w.window.close();
        } catch (IOException e) {
            logger.warn("{} failed to deallocate a memory window", this, e);
        }
    }

    // ------------------------------------------------------------------ connection setup

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaChannelUnsafe();
    }

    private final class RdmaChannelUnsafe extends RdmaUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            try {
                if (passive || established) {
                    throw new AlreadyConnectedException();
                }
                if (connectPromise != null) {
                    throw new ConnectionPendingException();
                }
                if (!(remoteAddress instanceof InetSocketAddress)) {
                    throw new IllegalArgumentException("unsupported address type: " + remoteAddress);
                }
                InetSocketAddress r = (InetSocketAddress) remoteAddress;
                if (r.isUnresolved()) {
                    throw new UnresolvedAddressException();
                }
                if (config.privateData().length > ConnectionParameters.MAX_CONNECT_PRIVATE_DATA) {
                    throw new IllegalArgumentException("connect private data of " + config.privateData().length
                            + " bytes exceeds " + ConnectionParameters.MAX_CONNECT_PRIVATE_DATA);
                }
                connectPromise = promise;
                requestedRemote = r;
                remote = r;
                cmId = cmEvents.createId(RdmaChannel.this);
                cmId.resolveAddress((InetSocketAddress) localAddress, r, resolveTimeoutMillis());
                int timeout = config.getConnectTimeoutMillis();
                if (timeout > 0) {
                    connectTimeout = eventLoop().schedule(() -> failConnect(
                            new ConnectTimeoutException("RDMA connection timed out after " + timeout + " ms: " + r)),
                            timeout, TimeUnit.MILLISECONDS);
                }
            } catch (Throwable t) {
                connectPromise = null;
                promise.tryFailure(annotateConnectException(t, remoteAddress));
                closeIfClosed();
            }
        }
    }

    private int resolveTimeoutMillis() {
        int t = config.getConnectTimeoutMillis();
        return t > 0 ? t : 2000;
    }

    @Override
    void onRegistered() throws IOException {
        if (passive) {
            // No queue pair yet: it is created by accept0, after initializers and channelRegistered had their say.
            if (config.autoAccept()) {
                // Runs after channelRegistered: handlers there may read peerPrivateData() and set PRIVATE_DATA, the
                // queue depths and buffer sizes.
                eventLoop().execute(() -> {
                    if (!acceptStarted && isOpen()) {
                        accept0(config.privateData(), voidPromise());
                    }
                });
            }
        }
    }

    private void setUpEndpoint() throws IOException {
        RdmaEndpoint e = RdmaEndpoint.create(cmId, config, config.getAllocator(), COMPLETION_ARRAY);
        ep = e;
        sendDepth = e.sendDepth;
        inFlight = new InFlight[e.sendDepth + 1];
        for (int i = 0; i < inFlight.length; i++) {
            inFlight[i] = new InFlight();
        }
        creditableReceives = e.receiveDepth;
        int slots = e.receives.slots();
        heldSlots = new int[e.receiveQueueSize];
        heldLength = new int[slots];
        heldInvalidated = new boolean[slots];
        heldRkey = new int[slots];
        registration.submit(RdmaIoOps.watchCompletions(e.compChannel.fd()));
        for (int slot = 0; slot < e.receiveQueueSize; slot++) {
            e.postReceive(channelId, slot);
            postedReceives++;
        }
    }

    private void accept0(byte[] privateData, ChannelPromise promise) {
        try {
            if (!passive) {
                throw new IllegalStateException("only accepted channels accept");
            }
            if (acceptStarted) {
                throw new IllegalStateException("connect request already answered");
            }
            if (privateData.length > ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA) {
                throw new IllegalArgumentException("accept private data of " + privateData.length
                        + " bytes exceeds " + ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
            }
            if (!isOpen()) {
                throw new ClosedChannelException();
            }
            if (ep == null) {
                setUpEndpoint(); // sized by the options as they are now; receives posted before the accept
            }
            acceptStarted = true;
            acceptPromise = promise;
            cmId.accept(config.connectionParameters(privateData));
        } catch (Throwable t) {
            promise.tryFailure(t);
            if (!promise.isVoid()) {
                return;
            }
            logger.warn("{} failed to accept", this, t);
            close();
        }
    }

    @Override
    void onCmEvent(CmEvent event) throws Exception {
        switch (event.type()) {
            case CmEventType.ADDR_RESOLVED:
                try {
                    cmId.resolveRoute(resolveTimeoutMillis());
                } catch (Throwable t) {
                    // e.g. ENODEV when the address has no RDMA device (127.0.0.1 with Soft-RoCE): the connect
                    // fails with that cause instead of a bare ClosedChannelException.
                    ConnectException e = new ConnectException("no RDMA route to " + requestedRemote
                            + " (does an RDMA device own that address?): " + t.getMessage());
                    e.initCause(t);
                    failConnect(e);
                }
                break;
            case CmEventType.ROUTE_RESOLVED:
                try {
                    setUpEndpoint();
                    cmId.connect(config.connectionParameters(config.privateData()));
                } catch (Throwable t) {
                    failConnect(t);
                }
                break;
            case CmEventType.ESTABLISHED:
                onEstablished(event);
                break;
            case CmEventType.REJECTED:
                failConnect(event.status() == CmEventType.REJECT_INVALID_SERVICE_ID
                        ? new ConnectException("no RDMA listener at " + requestedRemote)
                        : new RdmaConnectionRejectedException("RDMA connection to " + requestedRemote
                        + " rejected by the peer (reason " + event.status() + ')', event.status(), event.privateData()));
                break;
            case CmEventType.UNREACHABLE:
                // RDMA-CM cannot tell "no route" from "nobody answers on that port" here.
                failConnect(new ConnectException("no RDMA listener at " + (passive ? remote : requestedRemote)
                        + ", or the peer is unreachable (" + CmEventType.name(event.type()) + ", status "
                        + event.status() + ')'));
                break;
            case CmEventType.ADDR_ERROR:
            case CmEventType.ROUTE_ERROR:
            case CmEventType.CONNECT_ERROR:
                failConnect(new ConnectException(CmEventType.name(event.type()) + " (status " + event.status()
                        + ") connecting to " + (passive ? remote : requestedRemote)));
                break;
            case CmEventType.DISCONNECTED:
            case CmEventType.DEVICE_REMOVAL:
                logger.debug("{}: {}", this, event);
                close();
                break;
            default:
                logger.debug("{} ignores {}", this, event);
        }
    }

    private void onEstablished(CmEvent event) {
        if (!passive) {
            peerPrivateData = event.privateData();
        }
        local = cmId.localAddress();
        remote = cmId.remoteAddress();
        established = true;
        active = true;
        if (passive) {
            ChannelPromise p = acceptPromise;
            acceptPromise = null;
            if (p != null) {
                p.trySuccess();
            }
            pipeline().fireChannelActive();
            return;
        }
        ChannelPromise p = connectPromise;
        connectPromise = null;
        cancelConnectTimeout();
        boolean promiseSet = p != null && p.trySuccess();
        pipeline().fireChannelActive();
        if (!promiseSet) {
            close();
        }
    }

    private void failConnect(Throwable cause) {
        ChannelPromise p = passive ? acceptPromise : connectPromise;
        connectPromise = null;
        acceptPromise = null;
        cancelConnectTimeout();
        if (p != null) {
            p.tryFailure(cause);
        }
        if (passive && (p == null || p.isVoid())) {
            logger.warn("{} connection setup failed", this, cause);
        }
        close();
    }

    private void cancelConnectTimeout() {
        Future<?> f = connectTimeout;
        connectTimeout = null;
        if (f != null) {
            f.cancel(false);
        }
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("pass the local address to connect()");
    }

    // ------------------------------------------------------------------ completions

    @Override
    boolean armCompletions() {
        RdmaEndpoint e = ep;
        if (e == null || closing) {
            return false;
        }
        try {
            e.cq.requestNotify(false);
            return true;
        } catch (IOException ex) {
            fail(ex);
            return false;
        }
    }

    @Override
    void onCompletionEvent() {
        RdmaEndpoint e = ep;
        if (e == null || e.compChannel == null) {
            return;
        }
        try {
            // One event per readiness: the epoll set is level-triggered, so another queued event wakes the loop
            // again, and reading until EAGAIN would cost a failing read(2) on every wake-up.
            if (e.compChannel.getEvent() != null && ++e.unackedEvents >= ACK_BATCH) {
                e.ackEvents();
            }
        } catch (IOException ex) {
            fail(ex);
        }
    }

    @Override
    int pollCompletions(int budget) {
        RdmaEndpoint e = ep;
        if (e == null || closing) {
            return 0;
        }
        int total = 0;
        boolean read = false;
        try {
            CompletionArray wc = e.completions;
            while (total < budget && !closing) {
                int n = e.cq.poll(wc);
                batch = wc;
                batchCount = n;
                batchNext = 0;
                while (batchNext < batchCount) {
                    read |= complete(wc, batchNext++);
                }
                batch = null;
                total += n;
                if (n < wc.capacity()) {
                    break;
                }
            }
        } catch (IOException ex) {
            fail(ex);
        }
        if (read) {
            if (!config.isAutoRead()) {
                readPending = false; // one read() asks for one batch
            }
            pipeline().fireChannelReadComplete();
        }
        if (failure != null) {
            close();
        } else if (total > 0) {
            writeMore();
        }
        return total;
    }

    private void fail(Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
        if (!closing) {
            logger.debug("{} failed", this, cause);
            pipeline().fireExceptionCaught(cause);
            close();
        }
    }

    /** Processes one completion; true if an RdmaReceive was fired. */
    private boolean complete(CompletionArray wc, int i) {
        long wrId = wc.wrId(i);
        int status = wc.status(i);
        if (WorkRequestIds.kind(wrId) == WorkRequestIds.RECEIVE) {
            postedReceives--;
            int slot = WorkRequestIds.slot(wrId);
            if (status != WcStatus.SUCCESS) {
                if (status != WcStatus.WR_FLUSH_ERR && failure == null) {
                    failure = new RdmaWorkRequestException("receive", status, null);
                    pipeline().fireExceptionCaught(failure);
                } else if (!closing && failure == null) {
                    // The queue pair went to error (e.g. the peer broke an access rule): the connection is dead.
                    failure = new RdmaWorkRequestException("receive", status, "queue pair in error");
                }
                return false;
            }
            if (closing) {
                return false;
            }
            int length = wc.byteLength(i);
            if (length < 0 || length > ep.receiveBufferSize) {
                // The device bounds byte_len by the posted buffer; never trust it further than that.
                if (failure == null) {
                    failure = new RdmaException("receive completion with byte_len " + (length & 0xffffffffL)
                            + " > posted " + ep.receiveBufferSize);
                }
                return false;
            }
            boolean inv = (wc.flags(i) & WcFlags.WITH_INV) != 0;
            int rkey = inv ? wc.invalidatedRkey(i) : 0;
            if (inv) {
                markInvalidated(rkey);
            }
            // The passive side may see receives before RDMA_CM_EVENT_ESTABLISHED: hold them until active.
            if (established && heldCount == 0 && (config.isAutoRead() || readPending)) {
                deliver(slot, length, inv, rkey);
                return true;
            }
            hold(slot, length, inv, rkey);
            return false;
        }
        retire(WorkRequestIds.slot(wrId), status);
        return false;
    }

    private void markInvalidated(int rkey) {
        synchronized (windows) {
            for (int i = 0; i < windows.size(); i++) { // indexed: no iterator per Send With Invalidate
                RdmaMemoryWindow w = windows.get(i);
                if (w.isBound() && w.rkey() == rkey) {
                    w.invalidated();
                }
            }
        }
    }

    /** Keeps a completed receive for a later read; its slot is not reposted until then. */
    private void hold(int slot, int length, boolean invalidated, int invalidatedRkey) {
        // Each held receive keeps its own slot, so the ring (receive depth) cannot overflow.
        heldSlots[(heldHead + heldCount) % heldSlots.length] = slot;
        heldCount++;
        heldLength[slot] = length;
        heldInvalidated[slot] = invalidated;
        heldRkey[slot] = invalidatedRkey;
    }

    /** Fires the oldest held receive. */
    private void deliverHeld() {
        int slot = heldSlots[heldHead];
        heldHead = (heldHead + 1) % heldSlots.length;
        heldCount--;
        deliver(slot, heldLength[slot], heldInvalidated[slot], heldRkey[slot]);
    }

    /**
     * Fires a completed receive: in place (its slot lent, a free slot reposted instead) when a slot is free, else as
     * a copy (its slot reposted). Reposts go out in batches ({@link RdmaEndpoint#repost}). See
     * {@link ReceiveBuffers}.
     */
    private void deliver(int slot, int length, boolean invalidated, int invalidatedRkey) {
        RdmaEndpoint e = ep;
        ReceiveBuffers receives = e.receives;
        int spare = receives.lend(slot);
        ByteBuf buf = spare >= 0 ? receives.lent(length) : receives.copy(slot, length);
        try {
            postedReceives += e.repost(channelId, spare >= 0 ? spare : slot);
        } catch (IOException ex) {
            if (ex instanceof PostException) {
                postedReceives += ((PostException) ex).posted();
            }
            buf.release();
            fail(ex);
            return;
        }
        pipeline().fireChannelRead(RdmaReceive.newInstance(buf, invalidated, invalidatedRkey));
    }

    @Override
    protected void doBeginRead() {
        readPending = true;
        if (heldCount > 0 && established) {
            while (heldCount > 0 && !closing) {
                deliverHeld();
            }
            if (!config.isAutoRead()) {
                readPending = false;
            }
            pipeline().fireChannelReadComplete();
        }
    }

    // ------------------------------------------------------------------ send queue

    /** What one posted work request holds until it is retired; one per send-queue entry, reused. */
    private static final class InFlight {
        String what;
        int sendSlot = -1;
        RdmaMemory memory;
        RdmaBindWindow bind;
        /** The message is still in the outbound buffer: retiring this entry completes its promise. */
        boolean held;
        boolean signaled;

        InFlight reset(String what) {
            this.what = what;
            sendSlot = -1;
            memory = null;
            bind = null;
            held = false;
            signaled = false;
            return this;
        }
    }

    private static final String DRAIN_MARKER = "drain marker";

    private int inFlightCount() {
        return tail - head;
    }

    /** Retires every work request up to and including sequence {@code seq}. */
    private void retire(int seq, int status) {
        RdmaEndpoint e = ep;
        while (head - seq <= 0 && head != tail) {
            int index = Integer.remainderUnsigned(head, inFlight.length);
            InFlight f = inFlight[index];
            int st = head == seq ? status : WcStatus.SUCCESS;
            head++;
            if (f.sendSlot >= 0) {
                e.freeSendSlot(f.sendSlot);
            }
            if (f.memory != null) {
                f.memory.unuse();
            }
            Throwable cause = null;
            if (st == WcStatus.SUCCESS) {
                if (f.bind != null) {
                    f.bind.window().bound(f.bind.rkey(), f.bind.memory());
                }
            } else if (f.what != DRAIN_MARKER) { // (the marker is posted to a queue pair in error: it flushes)
                cause = new RdmaWorkRequestException(f.what, st,
                        st == WcStatus.WR_FLUSH_ERR ? (closing ? "channel closed" : "queue pair in error") : null);
                if (failure == null && (st != WcStatus.WR_FLUSH_ERR || !closing)) {
                    failure = cause;
                    if (!f.held && !closing) {
                        // A Send whose promise completed when it was posted: the error has no promise to fail.
                        if (st == WcStatus.RETRY_EXC_ERR || st == WcStatus.RNR_RETRY_EXC_ERR) {
                            // The peer stopped answering (gone, or not receiving): the connection is lost, which
                            // the close reports (channelInactive), as a TCP peer going away is not an exception.
                            logger.info("{}: connection lost: {}", this, cause.getMessage());
                        } else {
                            // The Send itself was refused (length, protection, remote operation error).
                            pipeline().fireExceptionCaught(cause);
                        }
                    }
                }
            }
            boolean held = f.held;
            f.reset(null);
            if (held) {
                heldInBuffer--;
                ChannelOutboundBuffer in = outbound;
                skipCancelled(in);
                if (in != null && in.current() != null) {
                    if (cause == null) {
                        in.remove();
                    } else {
                        in.remove(cause);
                    }
                }
            }
        }
        if (outbound != null && inFlight != null) {
            outbound.setUserDefinedWritability(WRITABILITY_BIT, inFlightCount() < sendDepth);
        }
    }

    /**
     * Removes writes cancelled before they were flushed from the head: the outbound buffer keeps them as flushed
     * entries holding {@link Unpooled#EMPTY_BUFFER} but never shows them to {@code forEachFlushedMessage}.
     */
    private static void skipCancelled(ChannelOutboundBuffer in) {
        while (in != null && in.current() == Unpooled.EMPTY_BUFFER) {
            in.remove();
        }
    }

    private void writeMore() {
        ChannelOutboundBuffer in = outbound;
        if (in != null && isActive() && in.size() > heldInBuffer) {
            doWrite(in);
        }
    }

    @Override
    protected Object filterOutboundMessage(Object msg) throws Exception {
        if (msg == Unpooled.EMPTY_BUFFER) {
            // ChannelOutboundBuffer marks cancelled writes with this very instance; keep it unambiguous.
            return Unpooled.buffer(0, 1); // (buffer(0, 0) would be EMPTY_BUFFER again)
        }
        if (msg instanceof ByteBuf || msg instanceof RdmaSend) {
            ByteBuf content = msg instanceof ByteBuf ? (ByteBuf) msg : ((RdmaSend) msg).content();
            if (content.readableBytes() > config.maxSendSize()) {
                throw new RdmaException("a Send of " + content.readableBytes() + " bytes exceeds MAX_SEND_SIZE "
                        + config.maxSendSize());
            }
            return msg;
        }
        if (msg instanceof RdmaRemoteAccess) {
            RdmaMemory m = ((RdmaRemoteAccess) msg).local();
            if (m.channel() != this || !m.isRegistered()) {
                throw new IllegalArgumentException("local memory is not registered on this channel");
            }
            return msg;
        }
        if (msg instanceof RdmaBindWindow) {
            RdmaBindWindow b = (RdmaBindWindow) msg;
            if (b.window().channel() != this || b.memory().channel() != this || !b.memory().isRegistered()) {
                throw new IllegalArgumentException("window and memory must belong to this channel");
            }
            return msg;
        }
        throw new UnsupportedOperationException("unsupported message type: " + msg.getClass().getName()
                + " (expected ByteBuf, RdmaSend, RdmaWrite, RdmaRead or RdmaBindWindow)");
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        outbound = in;
        if (writing) {
            // From a promise listener run by postSendsFromHead's removals (writeMore calls doWrite directly, so
            // flush0's own guard does not apply): the running pass picks the new messages up.
            writeAgain = true;
            return;
        }
        writing = true;
        try {
            do {
                writeAgain = false;
                writePass(in);
            } while (writeAgain);
        } finally {
            writing = false;
        }
    }

    private void writePass(ChannelOutboundBuffer in) {
        RdmaEndpoint e = ep;
        if (e == null || closing || failure != null) {
            return;
        }
        try {
            if (heldInBuffer == 0) {
                postSendsFromHead(e, in);
            }
            if (!closing && failure == null && ep == e) {
                postHeld(e, in);
            }
        } catch (IOException ex) {
            // Posting failed: what was posted stays owned by the device; the channel fails as a whole.
            fail(ex);
        }
        in.setUserDefinedWritability(WRITABILITY_BIT, inFlightCount() < sendDepth);
    }

    /**
     * While nothing posted is waiting in the outbound buffer, posts the Sends at its head, in chains of up to
     * {@link QueuePair#MAX_POST_CHAIN}, and removes each posted one: a Send's bytes are copied when it is posted
     * (by the device into the work request when inline, before that into a registered send slot), so its buffer is
     * released and its promise completes then, as a TCP write completes when its bytes are in the socket buffer.
     * These Sends are signalled only one in {@link #signalInterval()}; the signalled completion retires the
     * unsignalled ones before it (completions are in order), freeing their send queue entries and slots. Stops at
     * the first RDMA Read, RDMA Write or Bind, whose promise needs its completion.
     */
    private void postSendsFromHead(RdmaEndpoint e, ChannelOutboundBuffer in) throws IOException {
        while (!closing && failure == null && ep == e) {
            int room = sendDepth - inFlightCount();
            if (room <= 0) {
                return;
            }
            HeadSends h = headSends;
            h.start(e, Math.min(room, QueuePair.MAX_POST_CHAIN));
            try {
                in.forEachFlushedMessage(h);
            } catch (Exception ex) {
                // As in postHeld: whatever stopped the staging fails the channel (writePass -> fail).
                abandonChain();
                throw ex instanceof IOException ? (IOException) ex : new IOException(ex);
            }
            if (h.staged == 0) {
                return;
            }
            postChain(e);
            // in.remove() runs the promise's listeners, which may write, flush (doWrite only marks another pass) or
            // close (which fails what is left in the buffer: nothing to remove then).
            for (int i = 0; i < h.staged && !closing; i++) {
                skipCancelled(in);
                in.remove();
            }
            if (!h.stoppedAtLimit) {
                return;
            }
        }
    }

    /** Stages the Sends at the head of the flushed messages, up to a limit; stops at anything else. */
    private final class HeadSends implements ChannelOutboundBuffer.MessageProcessor {
        private RdmaEndpoint endpoint;
        private int limit;
        int staged;
        boolean stoppedAtLimit;

        void start(RdmaEndpoint endpoint, int limit) {
            this.endpoint = endpoint;
            this.limit = limit;
            staged = 0;
            stoppedAtLimit = false;
        }

        @Override
        public boolean processMessage(Object msg) throws Exception {
            if (!(msg instanceof ByteBuf || msg instanceof RdmaSend)) {
                return false;
            }
            boolean signal = ++unsignaledRun >= signalInterval();
            if (signal) {
                unsignaledRun = 0;
            }
            stage(endpoint, msg, signal, false);
            if (++staged == limit) {
                stoppedAtLimit = true;
                return false;
            }
            return true;
        }
    }

    /**
     * Posts the flushed messages after the {@link #heldInBuffer} already posted ones, keeping each in the outbound
     * buffer until its completion: an RDMA Read, Write or Bind, and every Send behind one (so no promise completes
     * before an earlier one: a handler may free memory that an earlier RDMA Write still reads when a later Send's
     * promise completes). The last one posted is signalled, so every held message gets its completion.
     */
    private void postHeld(RdmaEndpoint e, ChannelOutboundBuffer in) {
        int skip = heldInBuffer;
        int room = sendDepth - inFlightCount();
        if (room <= 0 || in.size() <= skip) {
            return;
        }
        // Count what can be posted now (cancelled entries are not visited), so that the last one is signalled.
        FlushedMessages m = flushed;
        m.start(e, skip, skip + room, false);
        try {
            in.forEachFlushedMessage(m);
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
        int toPost = Math.min(m.visited - skip, room);
        if (toPost > 0) {
            m.start(e, skip, toPost, true);
            try {
                in.forEachFlushedMessage(m);
                postChain(e);
            } catch (Exception ex) {
                // Posting failed: what was posted stays owned by the device; the channel fails as a whole.
                abandonChain();
                fail(ex);
            }
        }
    }

    /** At least one work request in this many is signalled, so that the send queue's entries are reclaimed. */
    private int signalInterval() {
        return Math.max(1, sendDepth / 2);
    }

    /**
     * The two walks of {@link #doWrite} over the flushed messages, as one reusable processor (no allocation per
     * flush): counting the visible ones up to a limit, then posting {@code limit} of them after {@code skip}.
     */
    private final class FlushedMessages implements ChannelOutboundBuffer.MessageProcessor {
        private RdmaEndpoint endpoint;
        private boolean posting;
        private int skip;
        private int limit;
        int visited;
        private int posted;

        void start(RdmaEndpoint endpoint, int skip, int limit, boolean posting) {
            this.endpoint = endpoint;
            this.skip = skip;
            this.limit = limit;
            this.posting = posting;
            visited = 0;
            posted = 0;
        }

        @Override
        public boolean processMessage(Object msg) throws Exception {
            if (!posting) {
                return ++visited < limit;
            }
            if (visited++ < skip) {
                return true;
            }
            boolean last = posted == limit - 1;
            boolean signal = last || ++unsignaledRun >= signalInterval();
            if (signal) {
                unsignaledRun = 0;
            }
            stage(endpoint, msg, signal, true);
            return ++posted < limit;
        }
    }

    /**
     * Stages one message as the next work request of the chain (posted by {@link #postChain}, at once when the chain
     * is full) and accounts for it as posted; {@code held}: it stays in the outbound buffer until retired.
     */
    private void stage(RdmaEndpoint e, Object msg, boolean signal, boolean held) throws IOException {
        int seq = tail;
        SendWorkRequest wr = chain[chained];
        wr.clear().wrId(WorkRequestIds.encode(channelId, WorkRequestIds.SEND_QUEUE, seq))
                .sendFlags(signal ? SendFlags.SIGNALED : 0);
        InFlight f = inFlight[Integer.remainderUnsigned(seq, inFlight.length)];
        if (msg instanceof ByteBuf || msg instanceof RdmaSend) {
            ByteBuf content;
            if (msg instanceof RdmaSend && ((RdmaSend) msg).isInvalidate()) {
                content = ((RdmaSend) msg).content();
                wr.opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(((RdmaSend) msg).invalidateRkey());
                f.reset("Send With Invalidate");
            } else {
                content = msg instanceof ByteBuf ? (ByteBuf) msg : ((RdmaSend) msg).content();
                wr.opcode(WrOpcode.SEND);
                f.reset("Send");
            }
            int length = content.readableBytes();
            if (length > 0 && !(length <= e.maxInline && addInline(wr, content))) {
                wr.clear().wrId(WorkRequestIds.encode(channelId, WorkRequestIds.SEND_QUEUE, seq))
                        .sendFlags(signal ? SendFlags.SIGNALED : 0);
                if (msg instanceof RdmaSend && ((RdmaSend) msg).isInvalidate()) {
                    wr.opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(((RdmaSend) msg).invalidateRkey());
                } else {
                    wr.opcode(WrOpcode.SEND);
                }
                int slot = e.allocateSendSlot();
                if (slot < 0) {
                    throw new IllegalStateException("no free send slot although the send queue has room");
                }
                long address = e.sendSlotAddress(slot);
                content.getBytes(content.readerIndex(), e.sendSlab, slot * e.sendSlotSize, length);
                wr.addSge(address, length, e.sendRegion.lkey());
                f.sendSlot = slot;
            }
        } else if (msg instanceof RdmaRemoteAccess) {
            RdmaRemoteAccess a = (RdmaRemoteAccess) msg;
            boolean write = a instanceof RdmaWrite;
            wr.opcode(write ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_READ)
                    .addSge(a.local().address() + a.offset(), a.length(), a.local().lkey())
                    .remote(a.remoteAddress(), a.rkey());
            f.reset(write ? "RDMA Write" : "RDMA Read");
            f.memory = a.local();
        } else {
            RdmaBindWindow b = (RdmaBindWindow) msg;
            wr.opcode(WrOpcode.BIND_MW).bind(b.window().window, b.rkey(), b.memory().region(), b.address(),
                    b.length(), b.access());
            f.reset("Bind Memory Window");
            f.memory = b.memory();
            f.bind = b;
        }
        if (f.memory != null) {
            f.memory.use();
        }
        f.held = held;
        f.signaled = signal;
        if (held) {
            heldInBuffer++;
        }
        lastPostedSignaled = signal;
        tail++;
        if (++chained == chain.length) {
            postChain(e);
        }
    }

    /** Posts the staged chain with one {@code ibv_post_send}; what the device rejected is unstaged. */
    private void postChain(RdmaEndpoint e) throws IOException {
        int n = chained;
        if (n == 0) {
            return;
        }
        chained = 0;
        try {
            e.qp.postSend(chain, n);
        } catch (PostException ex) {
            unstage(tail - n + ex.posted());
            throw ex;
        } catch (IOException | RuntimeException ex) {
            unstage(tail - n);
            throw ex;
        }
    }

    /** Forgets a chain that will not be posted (a failure while staging it). */
    private void abandonChain() {
        int n = chained;
        chained = 0;
        unstage(tail - n);
    }

    /** Undoes the accounting of the staged requests from sequence {@code from} on (they were never posted). */
    private void unstage(int from) {
        RdmaEndpoint e = ep;
        while (tail - from > 0) {
            tail--;
            InFlight f = inFlight[Integer.remainderUnsigned(tail, inFlight.length)];
            if (f.sendSlot >= 0 && e != null) {
                e.freeSendSlot(f.sendSlot);
            }
            if (f.memory != null) {
                f.memory.unuse();
            }
            if (f.held) {
                heldInBuffer--;
            }
            f.reset(null);
        }
        lastPostedSignaled = tail == head || inFlight[Integer.remainderUnsigned(tail - 1, inFlight.length)].signaled;
    }

    /** Adds the content's components as inline SGEs to {@code wr}; false if a component has no memory address. */
    private static boolean addInline(SendWorkRequest wr, ByteBuf content) {
        int length = content.readableBytes();
        if (content.hasMemoryAddress()) {
            wr.addSge(content.memoryAddress() + content.readerIndex(), length, 0);
        } else if (content instanceof CompositeByteBuf && content.nioBufferCount() <= SendWorkRequest.MAX_SGE) {
            CompositeByteBuf c = (CompositeByteBuf) content;
            int offset = c.readerIndex();
            int end = offset + length;
            while (offset < end) {
                int ci = c.toComponentIndex(offset);
                ByteBuf component = c.internalComponent(ci);
                int componentStart = c.toByteIndex(ci);
                int n = Math.min(end - offset, component.readableBytes() - (offset - componentStart));
                if (!component.hasMemoryAddress() || wr.numSge() == SendWorkRequest.MAX_SGE) {
                    return false;
                }
                if (n > 0) {
                    wr.addSge(component.memoryAddress() + component.readerIndex() + (offset - componentStart), n, 0);
                }
                offset += n;
            }
        } else {
            return false;
        }
        wr.sendFlags(wr.sendFlags() | SendFlags.INLINE);
        return true;
    }

    // ------------------------------------------------------------------ close

    @Override
    protected void doClose() throws Exception {
        if (closed) {
            return; // closeForcibly() after close(), or twice (failed registration, then the acceptor)
        }
        closed = true;
        synchronized (memories) {
            synchronized (windows) {
                registrationsClosed = true;
            }
        }
        boolean wasEstablished = established;
        active = false;
        open = false;
        closing = true;
        cancelConnectTimeout();
        ClosedChannelException closed = new ClosedChannelException();
        if (connectPromise != null) {
            connectPromise.tryFailure(closed);
            connectPromise = null;
        }
        if (acceptPromise != null) {
            acceptPromise.tryFailure(closed);
            acceptPromise = null;
        }
        if (passive && !acceptStarted && cmId != null) {
            try {
                acceptStarted = true;
                cmId.reject(null);
            } catch (IOException e) {
                logger.debug("rdma_reject failed", e);
            }
        }
        if (wasEstablished) {
            try {
                cmId.disconnect();
            } catch (IOException e) {
                logger.debug("rdma_disconnect: {}", e.getMessage());
            }
        }
        RdmaEndpoint e = ep;
        if (e != null) {
            if (drain(e)) {
                registration.submit(RdmaIoOps.unwatch(e.compChannel.fd()));
                // Verbs order: QP, CQ (all its events acked), completion channel, MWs, MRs, PD; the id in closeCm.
                e.destroyQueues();
                releaseRegistrations();
                e.destroyMemory();
            } else {
                logger.error("{}: the device did not flush {} send and {} receive work requests within {} ms; "
                        + "leaking its registered memory rather than freeing it under the device", this,
                        inFlightCount(), postedReceives, DRAIN_TIMEOUT_MILLIS);
            }
            ep = null;
        }
        heldCount = 0;
        heldHead = 0;
        closeCm();
    }

    /** Queue pair to error, then poll until every posted work request has completed (flushed). */
    private boolean drain(RdmaEndpoint e) {
        try {
            e.qp.modifyToError();
        } catch (IOException ex) {
            logger.warn("{}: modify QP to error failed", this, ex);
        }
        // First what a handler interrupted by closing the channel from inside a completion batch.
        CompletionArray current = batch;
        while (current != null && batchNext < batchCount) {
            complete(current, batchNext++);
        }
        batch = null;
        if (inFlightCount() > 0 && !lastPostedSignaled) {
            postDrainMarker(e);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_TIMEOUT_MILLIS);
        CompletionArray wc = e.cq.newCompletionArray(COMPLETION_ARRAY);
        while (inFlightCount() > 0 || postedReceives > 0) {
            int n;
            try {
                n = e.cq.poll(wc);
            } catch (IOException ex) {
                logger.warn("{}: polling the CQ while closing failed", this, ex);
                return false;
            }
            for (int i = 0; i < n; i++) {
                complete(wc, i);
            }
            if (n == 0) {
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                Thread.yield();
            }
        }
        onCompletionEvent();
        return true;
    }

    /**
     * An unsignalled work request that completed successfully leaves no completion, and the flush after the queue
     * pair went to error covers only those still queued. So when the last one posted was unsignalled, a signalled
     * zero-length RDMA Write is posted behind it (into the entry reserved for it): it flushes, and its completion
     * retires everything before it (as the kernel's {@code ib_drain_sq}). Zero length: no memory is touched even if
     * the queue pair did not go to error.
     */
    private void postDrainMarker(RdmaEndpoint e) {
        int seq = tail;
        InFlight f = inFlight[Integer.remainderUnsigned(seq, inFlight.length)];
        drainMarker.clear().wrId(WorkRequestIds.encode(channelId, WorkRequestIds.SEND_QUEUE, seq))
                .sendFlags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_WRITE).remote(0, 0);
        try {
            e.qp.postSend(drainMarker);
        } catch (IOException ex) {
            logger.warn("{}: posting the drain marker failed; unsignalled Sends may never be reported", this, ex);
            return;
        }
        f.reset(DRAIN_MARKER);
        f.signaled = true;
        lastPostedSignaled = true;
        tail++;
    }

    private void releaseRegistrations() {
        List<RdmaMemoryWindow> ws;
        synchronized (windows) {
            ws = new ArrayList<>(windows);
        }
        for (RdmaMemoryWindow w : ws) {
            closeWindow(w);
        }
        List<RdmaMemory> ms;
        synchronized (memories) {
            ms = new ArrayList<>(memories);
        }
        for (RdmaMemory m : ms) {
            deregisterNow(m);
        }
    }

    @Override
    public String toString() {
        return "RdmaChannel(" + channelId + ", " + (passive ? "accepted " : "") + local + " <-> " + remote + ')';
    }

}
