package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.VerbsDevice;
import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.fabric.WcStatus;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An RC connection over RDMA-CM as a Netty channel, created by {@code Bootstrap.connect} or accepted by an
 * {@link RdmaServerChannel}: received Sends are fired as {@link RdmaReceive}s, a written {@link ByteBuf} or
 * {@link RdmaSend} is one Send, and closing never blocks the event loop. The package documentation describes
 * connection set-up, buffer ownership and close.
 */
public final class RdmaChannel extends AbstractRdmaChannel implements RdmaConnection {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaChannel.class);
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final int UPPER_LAYER_WRITABILITY_BIT = 2;
    private static final byte[] EMPTY = new byte[0];

    private final int channelId = IDS.incrementAndGet() & 0xffffff;
    private final RdmaChannelConfig config = new RdmaChannelConfig(this);
    private final MemoryRegistry registry = new MemoryRegistry(this);
    private volatile boolean localInvalidate;
    /** An accepted channel (the passive side of RDMA-CM). */
    final boolean passive;
    volatile byte[] peerPrivateData = EMPTY;
    /** The verbs objects, from route resolution (client) or accept (server) until the close. */
    private volatile RdmaEndpoint ep;
    private volatile ReceiveQueue receives;
    private SendQueue sends;
    ConnectionState state = ConnectionState.NEW;
    private final CmConnection cm = new CmConnection(this);
    /** Fires the read events at the pipeline's first handler where that is what the pipeline would do. */
    final InboundEntry inbound = new InboundEntry(this);
    /** The first failure: the channel closes (after the completion batch that found it). */
    final ChannelFailures failures = new ChannelFailures(this);
    private boolean readPending;
    /**
     * Messages the outbound buffer took since the last flush reached {@link #doWrite} (unflushed writes are not
     * visible in the buffer's public view): while any is there, the direct send lane is not taken.
     */
    private int unflushedWrites;

    /** Inside a poll batch of the loop ({@link EventLoopDevice#poll}): a close from a handler waits for its end. */
    private boolean polling;
    /** The current poll batch fired an RdmaReceive, and had this many completions. */
    private boolean batchRead;
    private int batchCompletions;
    /** The close waiting for the drain. */
    private final DrainingClose closing = new DrainingClose(this);
    /**
     * The device (its capabilities, queried once per device by the fabric), kept so that capability questions from
     * any thread never touch a CM id that may be destroyed: set from the connect request (accepted channels) or when
     * the route is resolved (clients).
     */
    private volatile VerbsDevice device;

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
        device = id.device();
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
     * The peer's private data: on a client the server's accept reply (once established), on an accepted channel the
     * client's connect request. On InfiniBand/RoCE it arrives zero padded to the CM message's field (196 bytes for the
     * reply, 56 for the request); on iWARP exactly as long as it was sent (MPA carries its length, RFC 5044 §7.1).
     * A copy.
     */
    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /**
     * Receives currently posted, counted up to {@link RdmaChannelOption#RECEIVE_QUEUE_DEPTH}: the credits this side
     * can grant (RFC 8166 §3.3.1). The depth while reading keeps up. Reposts go out in batches, so up to 7 more are
     * posted at times; they are not counted, so a grant never relies on a receive the next batch may not yet have
     * replaced. An accepted channel receiving through its loop's shared receive queue
     * ({@link RdmaChannelOption#SHARED_RECEIVE_QUEUE_DEPTH}) returns its fair share of that queue, at least 1 (the
     * module README explains the RNR back-pressure beyond it).
     */
    @Override
    public int postedReceives() {
        ReceiveQueue r = receives;
        return r == null ? 0 : r.creditable();
    }

    @Override
    public void setUpperLayerWritable(boolean writable) {
        ChannelOutboundBuffer out = unsafe().outboundBuffer();
        if (out != null) {
            out.setUserDefinedWritability(UPPER_LAYER_WRITABILITY_BIT, writable);
        }
    }

    /**
     * Sends up to this size are posted inline: {@link RdmaChannelOption#MAX_INLINE_DATA} as far as the device
     * granted it; 0 before the queue pair exists (read it once the channel is active).
     */
    public int maxInlineData() {
        RdmaEndpoint e = ep;
        return e == null ? 0 : e.maxInline;
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
            cm.accept(data, p);
        } else {
            eventLoop().execute(() -> cm.accept(data, p));
        }
        return p;
    }

    /** Rejects the pending connect request with {@code privateData} (at most 148 bytes) and closes the channel. */
    public ChannelFuture reject(byte[] privateData) {
        ChannelPromise p = newPromise();
        byte[] data = privateData == null ? EMPTY : privateData.clone();
        eventLoop().execute(() -> cm.reject(data, p));
        return p;
    }

    /**
     * Registers the readable bytes of a direct {@code buffer} with {@code access} ({@link RdmaAccess}; local write
     * is always added) on this connection's protection domain. The buffer is retained until
     * {@link RdmaMemory#deregister()} (or channel close). Any thread.
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
        return registry.register(e.pd, buffer, buffer.memoryAddress() + buffer.readerIndex(),
                buffer.readableBytes(), access);
    }

    /** Allocates a type-2 memory window on this connection's protection domain. Any thread. */
    @Override
    public RdmaMemoryWindow allocateMemoryWindow() throws IOException {
        RdmaEndpoint e = ep;
        if (e == null || !isOpen()) {
            throw new IllegalStateException("no connection resources (not connected or accepted yet, or closed)");
        }
        return registry.allocateWindow(e.pd);
    }

    /**
     * This connection's registered memory pool (chunk buffers exposed through memory windows, no registration per
     * use). Any thread; fails before the connection has resources (connected or accepted) and after close.
     */
    @Override
    public RdmaMemoryPool memoryPool() {
        RdmaEndpoint e = ep;
        if (e == null || e.pool == null || !isOpen()) {
            throw new IllegalStateException("no connection resources (not connected or accepted yet, or closed)");
        }
        return e.pool;
    }

    /**
     * Whether {@link RdmaLocalInvalidate} may be written: false where the device does not take it
     * ({@link dev.rpcrdma.channel.fabric.VerbsDevice#localInvalidateSupported()}) and before the connection has
     * resources. Any thread.
     */
    @Override
    public boolean localInvalidateSupported() {
        return localInvalidate;
    }

    /** From the device's {@code ibv_query_device} answer; false while no device is known. Any thread. */
    @Override
    public boolean memoryWindowsSupported() {
        VerbsDevice d = device;
        return d != null && d.memoryWindowsSupported();
    }

    /** From the device ({@code IBV_TRANSPORT_IWARP}); false while no device is known. Any thread. */
    @Override
    public boolean iwarp() {
        VerbsDevice d = device;
        return d != null && d.iwarp();
    }

    /** True on iWARP devices. Any thread. */
    @Override
    public boolean readSinkNeedsRemoteWrite() {
        VerbsDevice d = device;
        return d != null && d.iwarp();
    }

    /** From the device; false while no device is known. Any thread. */
    @Override
    public boolean remoteInvalidationSupported() {
        VerbsDevice d = device;
        return d != null && d.remoteInvalidationSupported();
    }

    MemoryRegistry registry() {
        return registry;
    }

    /** Fault injection (the test-jar's {@code RdmaFaults}): the queue pair to error, as on a fatal device error. */
    void injectQueuePairError() throws IOException {
        RdmaEndpoint e = ep;
        if (e != null) {
            e.qp.modifyToError();
        }
    }

    /** Fault injection (the test-jar's {@code RdmaFaults}): the queue pair, or null before it exists or once gone. */
    QueuePair queuePairForFaults() {
        RdmaEndpoint e = ep;
        return e == null ? null : e.qp;
    }

    void deregisterNow(RdmaMemory m) {
        registry.deregister(m);
    }

    void closeWindow(RdmaMemoryWindow w) {
        registry.close(w);
    }

    // ------------------------------------------------------------------ connection setup (RDMA-CM)

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaChannelUnsafe();
    }

    @Override
    void onRegistered() throws IOException {
        if (passive && config.autoAccept()) {
            // No queue pair yet: accept0 creates it after initializers and channelRegistered had their say (they
            // may read peerPrivateData() and set PRIVATE_DATA, the queue depths and buffer sizes).
            eventLoop().execute(() -> {
                if (!state.requestAnswered() && isOpen()) {
                    cm.accept(config.privateData(), voidPromise());
                }
            });
        }
    }

    /** Creates the verbs objects sized by the options as they are now, and posts the receives. */
    void setUpEndpoint() throws IOException {
        int sharedDepth = passive ? parent().config().sharedReceiveQueueDepth() : 0;
        RdmaEndpoint e = RdmaEndpoint.create(cmId, config, config.getAllocator(), ioHandler, this, channelId,
                sharedDepth);
        device = cmId.device();
        localInvalidate = device.localInvalidateSupported();
        e.pool = new RdmaMemoryPool(this, e.pd, config.getAllocator(), eventLoop(), config.memoryPoolSlabSize(),
                config.memoryPoolMaxBytes());
        ep = e;
        sends = new SendQueue(this, e, channelId);
        ReceiveQueue r = new ReceiveQueue(this, e, channelId);
        receives = r;
        r.postAll();
    }

    RdmaEndpoint endpoint() {
        return ep;
    }

    void clearEndpoint() {
        ep = null;
    }

    SendQueue sendQueue() {
        return sends;
    }

    ReceiveQueue receiveQueue() {
        return receives;
    }

    CmConnection cm() {
        return cm;
    }

    VerbsDevice device() {
        return device;
    }

    /** Inside a poll batch of the loop: a close from a handler finishes after the batch. */
    boolean polling() {
        return polling;
    }

    RdmaChannelUnsafe rdmaUnsafe() {
        return (RdmaChannelUnsafe) unsafe();
    }

    /** The loop's completion queue this channel's queue pair completes into, or null. */
    EventLoopDevice.Cq completionQueue() {
        RdmaEndpoint e = ep;
        return e == null ? null : e.cq;
    }

    // ------------------------------------------------------------------ completions (routed by EventLoopDevice)

    /** The loop found a completion of this channel: true if this is the first of the current batch. */
    boolean startCompletions() {
        if (polling) {
            return false;
        }
        polling = true;
        batchRead = false;
        batchCompletions = 0;
        return true;
    }

    /**
     * Polls this channel's completion queues now, so that messages already received are delivered while the channel
     * is still active (before a close the peer caused: the CM's event can be handled before the queue is polled).
     * Event loop only; not from inside a poll.
     */
    void deliverCompleted() {
        RdmaEndpoint e = ep;
        EventLoopDevice l = e != null ? e.loop : null;
        if (l != null && !state.closing()) {
            l.poll(true);
        }
    }

    /**
     * Processes one completion by its kind: a receive to the {@link ReceiveQueue}, a send-queue entry to the
     * {@link SendQueue}. While draining, the flush completions come this way too.
     */
    void completion(CompletionArray wc, int i) {
        batchCompletions++;
        if (ep == null) {
            return;
        }
        long wrId = wc.wrId(i);
        int slot = WorkRequestIds.slot(wrId);
        if (WorkRequestIds.kind(wrId) != WorkRequestIds.SEND_QUEUE) { // own or shared receive queue
            boolean inv = (wc.flags(i) & WcFlags.WITH_INV) != 0;
            // The passive side may see receives before RDMA_CM_EVENT_ESTABLISHED: held until active.
            boolean deliverNow = state == ConnectionState.ESTABLISHED && (config.isAutoRead() || readPending);
            batchRead |= receives.complete(slot, wc.status(i), wc.byteLength(i), inv,
                    inv ? wc.invalidatedRkey(i) : 0, state.closing(), deliverNow);
            return;
        }
        sends.retire(slot, wc.status(i));
    }

    /**
     * The batch that brought this channel's completions is over: {@code channelReadComplete} if something was read,
     * then the delayed close finishes once everything is back, a failure closes, or more writes are posted.
     */
    void completionsDone() {
        polling = false;
        SendQueue s = sends;
        if (s != null) {
            s.postDirect(true); // the Sends the direct lane staged during the batch
        }
        if (batchRead) {
            batchRead = false;
            if (!config.isAutoRead()) {
                readPending = false; // one read() asks for one batch
            }
            inbound.fireChannelReadComplete();
        }
        if (state.closing()) {
            closing.batchDone();
        } else if (failures.first() != null) {
            if (awaitingConnectVerdict()) {
                // A reject moves the connecting queue pair to error, and its flushed receives can come before the
                // REJECTED event (iWARP: in the same wake-up, completions being polled first): the CM's verdict
                // says why the connect failed; ESTABLISHED with the failure recorded fails it, as does the timeout.
                logger.debug("{} queue pair in error while connecting; waiting for the CM's verdict", this);
            } else {
                unsafe().close(unsafe().voidPromise());
            }
        } else if (batchCompletions > 0 && isActive()) {
            sends.writeMore();
        }
    }

    @Override
    void onCmEvent(CmEvent event) {
        if (state.closing()) {
            logger.debug("{} (closing) ignores {}", this, event);
            return;
        }
        cm.onEvent(event);
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("pass the local address to connect()");
    }

    // ------------------------------------------------------------------ failures

    /** The active side's connect is in flight: its outcome comes as a CM event (or the connect timeout). */
    boolean awaitingConnectVerdict() {
        return !passive && state == ConnectionState.CONNECTING && cm.connectPending();
    }

    /** The first failure recorded (closing follows), or null. */
    Throwable failure() {
        return failures.first();
    }

    /** Posting is allowed: not closing, not failed. */
    boolean canPost() {
        return !state.closing() && failures.first() == null && ep != null;
    }

    /** Records the first failure without telling the pipeline; the channel closes after the current batch. */
    void recordFailure(Throwable cause) {
        failures.record(cause);
    }

    /** A failure the pipeline hears of (once), then the channel closes. */
    void fail(Throwable cause) {
        failures.fail(cause);
    }

    // ------------------------------------------------------------------ reads

    @Override
    protected void doBeginRead() {
        readPending = true;
        ReceiveQueue r = receives;
        if (r != null && r.hasHeld() && state == ConnectionState.ESTABLISHED) {
            while (r.hasHeld() && canPost()) {
                r.deliverHeld();
            }
            if (!config.isAutoRead()) {
                readPending = false;
            }
            inbound.fireChannelReadComplete();
        }
    }

    // ------------------------------------------------------------------ writes

    @Override
    protected Object filterOutboundMessage(Object msg) throws Exception {
        Object checked = OutboundMessages.check(this, msg, config.maxSendSize());
        unflushedWrites++;
        return checked;
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        unflushedWrites = 0; // every message written before this flush is a flushed one now
        SendQueue s = sends;
        if (s != null) {
            s.write(in);
        }
    }

    /**
     * The direct send lane of the RPC-over-RDMA handlers ({@link RdmaConnection#sendDirect}): taken only where it
     * does what {@code ctx.writeAndFlush} would, the Send staged by the {@link SendQueue} and posted at once, or,
     * with a void promise inside this channel's completion batch, with the batch's other Sends at its end
     * ({@link #completionsDone()}): one {@code ibv_post_send} per batch.
     */
    @Override
    public boolean sendDirect(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        SendQueue s = sends;
        // First in this channel's own pipeline: its write goes to the head, nothing in between.
        if (s == null || unflushedWrites != 0 || !active || pipeline().firstContext() != ctx
                || promise.channel() != this || !eventLoop().inEventLoop()) {
            return false;
        }
        ChannelOutboundBuffer out = unsafe().outboundBuffer();
        return out != null && out.isEmpty() && s.sendDirect(out, msg, promise, polling);
    }

    /** Sends the direct lane took on this channel (for tests: {@code DirectSends} in the test-jar). Loop thread. */
    int directSends() {
        SendQueue s = sends;
        return s == null ? 0 : s.directSends();
    }

    // ------------------------------------------------------------------ close

    /** The channel's own teardown: everything drained (or abandoned), destroy in verbs order. */
    @Override
    protected void doClose() throws Exception {
        closing.destroy();
    }

    @Override
    public String toString() {
        return "RdmaChannel(" + channelId + ", " + (passive ? "accepted " : "") + local + " <-> " + remote + ')';
    }

    /**
     * Drives the channel's I/O: connect, completion polling and dispatch by work-request kind, the delayed close.
     */
    final class RdmaChannelUnsafe extends RdmaUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            if (!promise.setUncancellable() || !ensureOpen(promise)) {
                return;
            }
            try {
                if (passive || state == ConnectionState.ESTABLISHED) {
                    throw new AlreadyConnectedException();
                }
                if (cm.connectPending() || state != ConnectionState.NEW) {
                    throw new ConnectionPendingException();
                }
                cm.connect(remoteAddress, localAddress, promise);
            } catch (Throwable t) {
                cm.connectNotStarted();
                promise.tryFailure(annotateConnectException(t, remoteAddress));
                closeIfClosed();
            }
        }

        /** The delayed close ({@link DrainingClose}). */
        @Override
        protected void close(ChannelPromise promise, Throwable cause, ClosedChannelException closeCause) {
            if (closeFuture().isDone()) {
                safeSetSuccess(promise);
                return;
            }
            closing.close(promise, cause, closeCause);
        }

        /** Netty's close, once the queue pair is drained and destroyed. */
        void closeNetty(ChannelPromise promise, Throwable cause, ClosedChannelException closeCause) {
            super.close(promise, cause, closeCause);
        }

        @Override
        public boolean draining() {
            return closing.draining();
        }

        @Override
        public void checkDrain() {
            closing.checkDrain();
        }

        @Override
        public boolean terminate(boolean abandon) {
            return closing.terminate(abandon);
        }
    }
}
