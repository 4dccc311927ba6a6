package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.metrics.RpcMetrics;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Client side of RFC 5531 on one connection: XID allocation, the table of pending calls, per-call timeouts,
 * matching replies ({@link InboundRpcMessage} from the TCP codec or an RPC-over-RDMA handler) to calls, and
 * failing every pending call with {@link RpcConnectionClosedException} when the connection closes, and failing one
 * call when the transport fires an {@link RpcCallFailedEvent} for it. Replies with
 * an unknown xid are logged, counted ({@link RpcStats#unknownXidReplies()}) and dropped; CALLs arriving at a
 * client are counted as unexpected and dropped. Use through {@link RpcClient}. Not sharable.
 *
 * <p>Threading: the pending table, XID allocation and timeouts are confined to the channel's event loop (like
 * Netty's own per-channel state), so a call costs no lock, no boxing and no concurrent map; {@link RpcClient}
 * hands each call to the loop in one task.
 */
public final class RpcClientHandler extends SimpleChannelInboundHandler<InboundRpcMessage> {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcClientHandler.class);

    /** At most this many finished calls are kept for reuse. */
    private static final int MAX_FREE_CALLS = 64;

    /** Pending calls by xid; event loop only. */
    private final IntObjectHashMap<PendingCall<?>> pending = new IntObjectHashMap<>();
    /**
     * Finished listener calls kept for reuse by callers on the event loop (the usual closed loop: the next call made
     * from the last one's outcome), taken and given back without a lock; event loop only.
     */
    private final ArrayDeque<PendingCall<?>> loopFree = new ArrayDeque<>(MAX_FREE_CALLS);
    /** The same for callers on other threads (a caller thread takes one, the loop gives it back); guarded by itself. */
    private final ArrayDeque<PendingCall<?>> free = new ArrayDeque<>(MAX_FREE_CALLS);
    /** Some caller took a call object off the event loop: finished ones go to {@link #free}, which it takes from. */
    private volatile boolean offLoopCallers;
    /** The channel's event loop, once the handler is in a registered pipeline (before: every call uses the lock). */
    private volatile EventExecutor loop;
    /** The connection's backchannel (null: none), looked up once the connection is active, not per call. */
    private RpcBackchannel backchannel;
    private boolean backchannelKnown;
    /** Their deadlines, swept by one task for all (no clock read or timer per call); event loop only. */
    private final CallTimeouts timeouts;
    private final RpcStats stats;
    private final Duration defaultTimeout;
    /** Next xid to try; event loop only (RFC 5531 §9: the client chooses it). */
    private int nextXid = ThreadLocalRandom.current().nextInt();
    private volatile boolean closed;
    /** The error that closed the connection (the cause of the pending calls' failure); event loop only. */
    private Throwable closeCause;
    /** Where calls are recorded, or null. */
    private volatile RpcMetrics metrics;
    /** Whether a reply larger than its call's maximum reply size fails the call (the transport does not). */
    private volatile boolean checkReplySize;

    /** A handler with the given counters and default call timeout. */
    public RpcClientHandler(RpcStats stats, Duration defaultTimeout) {
        this(stats, defaultTimeout, TimeoutSweeper.instance());
    }

    /** A handler whose timeouts on real loops tick with {@code sweeper} (tests drive their own). */
    RpcClientHandler(RpcStats stats, Duration defaultTimeout, TimeoutSweeper sweeper) {
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.defaultTimeout = ObjectUtil.checkNotNull(defaultTimeout, "defaultTimeout");
        this.timeouts = new CallTimeouts(this, ObjectUtil.checkNotNull(sweeper, "sweeper"));
    }

    /**
     * Makes a reply larger than its call's maximum reply size ({@link CallOptions#maxReplySize()}, when not 0; under
     * a {@link CallOptions#security() security flavor}, the sealed call's, with room for its verifier) fail
     * the call with {@link RpcReplyTooLargeException}, as RPC-over-RDMA fails it (ERR_CHUNK): for transports that
     * do not bound replies by the call's maximum themselves. The TCP client initializer turns it on.
     */
    public RpcClientHandler checkReplySize(boolean checkReplySize) {
        this.checkReplySize = checkReplySize;
        return this;
    }

    /** The counters. */
    public RpcStats stats() {
        return stats;
    }

    /**
     * Records this connection's calls into {@code metrics} from now on (null: stop): calls, errors and latency (call
     * to completion) per procedure, bytes of arguments and results. Give each connection its own instance for
     * per-connection figures, or share one.
     */
    public RpcClientHandler metrics(RpcMetrics metrics) {
        this.metrics = metrics;
        return this;
    }

    /** The metrics recorded into, or null. */
    public RpcMetrics metrics() {
        return metrics;
    }

    Duration defaultTimeout() {
        return defaultTimeout;
    }

    /**
     * Number of calls waiting for a reply. Exact on the channel's event loop, or after a call's future completed;
     * elsewhere a recent value.
     */
    public int pendingCalls() {
        return pending.size();
    }

    /** A finished call to reuse, or null; any thread (on the event loop without a lock). */
    PendingCall<?> takeFree() {
        EventExecutor l = loop;
        if (l != null && l.inEventLoop()) {
            PendingCall<?> call = loopFree.pollLast();
            if (call != null || !offLoopCallers) {
                return call;
            }
        } else if (!offLoopCallers) {
            offLoopCallers = true;
        }
        synchronized (free) {
            return free.pollLast();
        }
    }

    /** Keeps a finished call for reuse (or drops it when enough are kept); any thread. */
    void giveBack(PendingCall<?> call) {
        EventExecutor l = loop;
        if (!offLoopCallers && l != null && l.inEventLoop()) {
            if (loopFree.size() < MAX_FREE_CALLS) {
                loopFree.addLast(call);
            }
            return;
        }
        synchronized (free) {
            if (free.size() < MAX_FREE_CALLS) {
                free.addLast(call);
            }
        }
    }

    /**
     * The backchannel of {@code channel}: looked up per call until the connection is active (transports install it
     * in their initializer, before), then kept.
     */
    private RpcBackchannel backchannel(io.netty.channel.Channel channel) {
        if (backchannelKnown) {
            return backchannel;
        }
        RpcBackchannel b = RpcBackchannel.of(channel);
        if (b != null || channel.isActive()) {
            backchannel = b;
            backchannelKnown = true;
        }
        return b;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        loop = ctx.channel().eventLoop(); // called once the channel is registered: RpcClient hands calls to it
    }

    /**
     * Registers {@code call} under an xid no other pending call uses and returns it; event loop only. One probe of
     * the table per call: an xid still in use (a call made 2^32 calls ago is pending) gets its call back.
     */
    private int register(PendingCall<?> call) {
        for (;;) {
            int xid = nextXid++;
            PendingCall<?> before = pending.put(xid, call);
            if (before == null) {
                return xid;
            }
            pending.put(xid, before);
        }
    }

    /**
     * Sends a call handed over by {@link RpcClient}: on the event loop, allocates its xid, registers it, arms its
     * timeout and writes it. Takes ownership of the call's arguments.
     */
    void send(PendingCall<?> call) {
        if (closed) {
            call.args.release();
            call.failWith(new RpcConnectionClosedException("connection closed before the call was sent"));
            return;
        }
        RpcBackchannel backchannel = backchannel(call.channel);
        if (backchannel != null && backchannel.role() == RpcBackchannel.Role.CALLER) {
            if (!backchannel.isEnabled()) {
                // RFC 8167 §6: no backward call before the peer said it is prepared.
                call.args.release();
                call.failWith(new RpcBackchannelException("the client has not enabled a "
                        + "backchannel on " + call.channel + " (RpcBackchannel.enable() when it signals it, e.g. "
                        + "NFSv4.1 CREATE_SESSION with CONN_BACK_CHAN)"));
                return;
            }
            stats.recordBackwardCallSent();
        }
        int xid = register(call);
        call.xid = xid;
        call.argsBytes = call.args.inlineLength();
        RpcMetrics m = metrics;
        if (m != null) {
            call.measure(m.forChannel(call.channel));
        }
        if (call.armTimer) {
            timeouts.add(call, call.channel.eventLoop());
        }
        // The message and its header come from a pool and go back when the transport releases the message.
        OutboundRpcMessage message;
        RpcCallSecurity security = call.options.security();
        call.maxReplySize = call.options.maxReplySize();
        if (security == null) {
            message = OutboundRpcMessage.newCall(xid, call.program, call.version, call.procedure,
                    call.options.credential(), call.options.replyDdpItemsUnsafe(), call.options.maxReplySize(),
                    call.args);
        } else {
            RpcCallSecurity.Sealed sealed;
            try {
                sealed = security.seal(xid, call.program, call.version, call.procedure,
                        call.options.replyDdpItems(), call.options.maxReplySize(), call.args, call.channel.alloc());
            } catch (RpcException | RuntimeException e) {
                fail(xid, e);
                return;
            }
            call.securityState = sealed.state();
            message = sealed.message();
            // The flavor's own bound: room for its verifier and the protection of the results.
            call.maxReplySize = ((RpcCall) message.header()).maxReplySize();
        }
        // No promise per call: a transport that cannot send one call fires an RpcCallFailedEvent for its xid (e.g.
        // RPC-over-RDMA, RFC 8166 §4.5.4), any other write failure reaches exceptionCaught and closes the
        // connection, which fails every pending call; either way the call does not wait for its timeout.
        call.channel.writeAndFlush(message, call.channel.voidPromise());
    }

    /** Removes and fails a pending call (write failure, timeout, transport event); false if none was pending. */
    boolean fail(int xid, Throwable cause) {
        PendingCall<?> call = pending.remove(xid);
        if (call == null) {
            return false;
        }
        timeouts.remove(call);
        call.recordFailure(cause);
        call.failWith(cause);
        return true;
    }

    /** Fails {@code call} if it is still the pending call of its xid; event loop only. */
    void fail(PendingCall<?> call, Throwable cause) {
        if (pending.get(call.xid) == call) {
            fail(call.xid, cause);
        }
    }

    /**
     * {@link SimpleChannelInboundHandler#channelRead}'s work without its type matcher and its release through
     * {@code ReferenceCountUtil} (a call site every message type shares): an {@link InboundRpcMessage} is handled and
     * released, anything else passes on.
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof InboundRpcMessage)) {
            ctx.fireChannelRead(msg);
            return;
        }
        InboundRpcMessage message = (InboundRpcMessage) msg;
        try {
            channelRead0(ctx, message);
        } finally {
            message.release();
        }
    }

    /** A reply completes its pending call; the message is released afterwards (auto-release). */
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, InboundRpcMessage message) {
        if (!(message.header() instanceof RpcReply)) {
            backwardCall(ctx, message);
            return;
        }
        RpcReply reply = (RpcReply) message.header();
        PendingCall<?> call = pending.remove(reply.xid());
        if (call == null) {
            stats.recordUnknownXidReply();
            logger.warn("{} dropped a reply to no pending call: {}", ctx.channel(), reply);
            return;
        }
        timeouts.remove(call);
        RpcBackchannel backchannel = backchannel(ctx.channel());
        if (backchannel != null && backchannel.role() == RpcBackchannel.Role.CALLER) {
            stats.recordBackwardReplyReceived();
        }
        int max = call.maxReplySize;
        if (checkReplySize && max > 0 && message.size() > max) {
            RpcReplyTooLargeException e = new RpcReplyTooLargeException(reply.xid(), message.size(), max);
            call.recordFailure(e);
            call.failWith(e);
            return;
        }
        call.complete(reply, message);
    }

    /**
     * A CALL arriving at a client: a backward call. It goes on to the callback programs behind this handler when the
     * connection serves callbacks and the upper layer enabled them; otherwise it is logged, counted and dropped
     * (RFC 8167 §6: a peer must not call back before it was told it may; dropping
     * the message breaks nothing else on the connection).
     */
    private void backwardCall(ChannelHandlerContext ctx, InboundRpcMessage message) {
        RpcBackchannel backchannel = RpcBackchannel.of(ctx.channel());
        if (backchannel != null && backchannel.role() == RpcBackchannel.Role.CALLBACK_SERVICE
                && backchannel.isEnabled()) {
            stats.recordBackwardCallReceived();
            ctx.fireChannelRead(message.retain());
            return;
        }
        stats.recordUnexpectedMessage();
        stats.recordBackwardDrop();
        logger.warn("{} dropped a CALL received by a client ({}): {}", ctx.channel(), backchannel == null
                ? "no callback service on this connection" : "the backchannel is not enabled", message.header());
    }

    /**
     * Handles {@link RpcCallFailedEvent}: the call fails with the event's cause as is. The event is consumed; other
     * events pass on.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (!(evt instanceof RpcCallFailedEvent)) {
            super.userEventTriggered(ctx, evt);
            return;
        }
        RpcCallFailedEvent failed = (RpcCallFailedEvent) evt;
        if (!fail(failed.xid(), failed.cause())) {
            logger.debug("{} ignored a failure of xid {} (no pending call, e.g. timed out): {}", ctx.channel(),
                    Integer.toUnsignedString(failed.xid()), failed.cause().toString());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        Throwable cause = closeCause;
        failAll(cause == null ? new RpcConnectionClosedException("connection " + ctx.channel() + " closed")
                : new RpcConnectionClosedException("connection " + ctx.channel() + " closed after an error", cause));
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // E.g. a call's write failed (calls are written with the void promise): the pending calls fail with it.
        if (closeCause == null) {
            closeCause = cause;
        }
        if (cause instanceof ClosedChannelException) {
            // A call written into a connection that is already closing: that close reports why, not this.
            logger.debug("{} a call was written after the connection closed", ctx.channel());
        } else {
            logger.warn("{} closing after an error: {}", ctx.channel(), cause.toString());
        }
        ctx.close();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        failAll(new RpcConnectionClosedException("RPC client handler removed from " + ctx.channel()));
    }

    private void failAll(RpcConnectionClosedException cause) {
        closed = true;
        for (PendingCall<?> call : pending.values().toArray(new PendingCall<?>[0])) {
            fail(call.xid, cause);
        }
        timeouts.clear();
    }

    boolean isClosed() {
        return closed;
    }
}
