package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaDeviceResolvedEvent;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.RdmaReceiveHandler;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.backchannel.BackwardMessages;
import dev.rpcrdma.handlers.backchannel.BackwardResponder;
import dev.rpcrdma.handlers.credits.RequesterCredits;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderException;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcCallFailedEvent;
import dev.rpcrdma.oncrpc.client.RpcConnectionClosedException;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.MsgType;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The requester (client) side of RPC-over-RDMA Version 1 on one connection, between the RDMA channel and
 * {@code RpcClientHandler}: credits, chunk reduction, reply checks (RFC 8166). A call's write promise completes when
 * its Send is posted; its reply goes up as an {@link InboundRpcMessage}, an RDMA_ERROR answer as an
 * {@link RpcCallFailedEvent} carrying an {@link RpcRdmaErrorException}. Event-loop confined; the design is in the
 * package documentation.
 */
public final class RpcRdmaRequester extends RdmaReceiveHandler {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaRequester.class);
    private static final int REPLY = MsgType.REPLY.intValue();

    /** This side's private data; the R bit is withdrawn when the device cannot keep it ({@link #userEventTriggered}). */
    private RpcRdmaPrivateData local;
    private final RdmaConnection connection;
    private final RpcRdmaStats stats;
    private final RpcStats rpcStats;
    private final RpcRdmaHeaderDecoder decoder;
    private final RequesterCredits credits;
    private final CallReduction reduction;
    private final int configuredMaxReply;
    /** Calls sent and not yet answered, by xid. */
    private final IntObjectHashMap<RequesterCall> calls = new IntObjectHashMap<>();
    /** Calls waiting for a credit, in order. */
    private final ArrayDeque<RequesterCall> queue = new ArrayDeque<>();
    /**
     * Call objects nothing reaches any more (reply handled, Send and exposure completions reaped), reused for the
     * next calls; at most {@link #freeCapacity}.
     */
    private final ArrayDeque<RequesterCall> free = new ArrayDeque<>();
    private final int freeCapacity;
    /** Serves backward calls (RFC 8167 backchannel), or null without a callback service. */
    private final BackwardResponder callbacks;
    /** The form of calls and replies above: RPC messages or whole-message {@code ByteBuf}s. */
    private final RequesterForm form;
    /** Replies go up as decoded RPC messages ({@link RequesterMessages}): a common one is decoded in one pass. */
    private final boolean decodedReplies;
    private volatile InlineThresholds thresholds;
    private boolean inactive;
    private boolean upperLayerWritable = true;
    /** The head of the queue waits for registered memory (the pool's {@code whenAvailable} will drain again). */
    private boolean waitingForMemory;
    private int maxOutstandingSeen;
    /** Inside a batch of receives (from the first to channelReadComplete): flushes wait for its end. */
    private boolean reading;
    /** A flush was asked for during the batch. */
    private boolean flushDeferred;
    /**
     * The last write through this handler was one call whose Send took the direct lane and nothing else
     * ({@link RdmaConnection#sendDirect}): the flush of the writer's {@code writeAndFlush} that follows has nothing
     * of it to flush.
     */
    private boolean sentDirect;

    /** A requester made of {@code setup}: see {@link RequesterSetup}. */
    public RpcRdmaRequester(RequesterSetup setup) {
        RpcRdmaConfig config = setup.config;
        this.callbacks = setup.callbacks;
        this.local = setup.local;
        this.thresholds = setup.thresholds;
        this.connection = setup.connection;
        this.stats = setup.stats;
        this.rpcStats = setup.rpcStats;
        this.decoder = new RpcRdmaHeaderDecoder(config.limits());
        this.credits = new RequesterCredits(config.maxRequests());
        this.reduction = new CallReduction(connection, new WindowCache(2 * config.maxRequests(), stats), stats,
                config.maxReplySize());
        this.configuredMaxReply = config.maxReplySize();
        this.freeCapacity = config.maxRequests();
        if (setup.framing == null) {
            this.form = new RequesterMessages(rpcStats);
        } else {
            this.form = new RequesterBytes(setup.framing, stats, callbacks);
        }
        this.decodedReplies = setup.framing == null;
    }

    /** The negotiated thresholds (null before the channel is active). */
    public InlineThresholds thresholds() {
        return thresholds;
    }

    /** The credit grant in force. */
    public int creditGrant() {
        return credits.grant();
    }

    /** Calls sent and not yet answered. */
    public int outstandingCalls() {
        return credits.outstanding();
    }

    /** Calls waiting for a credit. */
    public int queuedCalls() {
        return queue.size();
    }

    /** The largest number of calls that were outstanding at once. */
    public int maxOutstandingSeen() {
        return maxOutstandingSeen;
    }

    /**
     * Once the device is known ({@link RdmaDeviceResolvedEvent}, before the connect request leaves): withdraws the
     * RFC 8797 R bit where the device does not report remote invalidation in receive completions
     * ({@link RdmaConnection#remoteInvalidationSupported()} false: there a Send With Invalidate could reach any
     * key of the protection domain), so the responder never invalidates this side's memory remotely.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt == RdmaDeviceResolvedEvent.INSTANCE && connection != null && local.remoteInvalidation()
                && !connection.remoteInvalidationSupported()) {
            local = RpcRdmaPrivateData.of(false, local.sendSize(), local.receiveSize());
            ctx.channel().config().setOption(RdmaChannelOption.PRIVATE_DATA, local.encode());
            logger.debug("{}: the device does not report remote invalidation: R bit withdrawn", ctx.channel());
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (thresholds == null) {
            RpcRdmaPrivateData peer = connection != null
                    ? RpcRdmaPrivateData.parseOrDefaults(connection.peerPrivateData())
                    : RpcRdmaPrivateData.DEFAULTS;
            thresholds = InlineThresholds.negotiate(local, peer);
            logger.debug("{} RPC-over-RDMA thresholds {} (local {}, peer {})", ctx.channel(), thresholds, local,
                    peer);
        }
        if (callbacks != null) {
            callbacks.negotiated(ctx, thresholds);
        }
        super.channelActive(ctx);
        drain(ctx);
    }

    // ------------------------------------------------------------------ calls

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        sentDirect = false;
        msg = form.outbound(ctx, msg, promise);
        if (msg == null) {
            return;
        }
        if (!(msg instanceof OutboundRpcMessage)) {
            ctx.write(msg, promise);
            return;
        }
        OutboundRpcMessage call = (OutboundRpcMessage) msg;
        if (callbacks != null && call.header() instanceof RpcReply) {
            callbacks.reply(ctx, call, promise); // the callback programs' answer to a backward call
            return;
        }
        if (!(call.header() instanceof RpcCall)) {
            call.release();
            promise.tryFailure(new IllegalArgumentException("a requester sends calls, not " + call.header()));
            return;
        }
        if (inactive) {
            int xid = call.header().xid();
            call.release();
            failCall(ctx, xid, promise, new ClosedChannelException());
            return;
        }
        RequesterCall rpc = free.poll();
        if (rpc == null) {
            rpc = new RequesterCall(this);
        }
        rpc.init(call, promise);
        if (queue.isEmpty() && thresholds != null && !waitingForMemory && credits.canSend()) {
            // A credit is free and no call waits for one (RFC 8166 §3.3.1): straight out, not through the queue.
            // The writer's flush posts it.
            send(ctx, rpc);
            updateUpperLayerWritability();
            return;
        }
        // The writer's flush posts this call; calls queued before it that go out now are flushed here.
        boolean queuedBefore = !queue.isEmpty();
        queue.add(rpc);
        drain(ctx, queuedBefore);
    }

    private void drain(ChannelHandlerContext ctx) {
        drain(ctx, true);
    }

    /** Sends the queued calls that have credits; flushes them if {@code flush} (at the end of a batch if in one). */
    private void drain(ChannelHandlerContext ctx, boolean flush) {
        boolean sent = false;
        while (thresholds != null && !inactive && !waitingForMemory && !queue.isEmpty() && credits.canSend()) {
            sent |= send(ctx, queue.poll());
        }
        if (sent && flush) {
            flush(ctx);
        }
        updateUpperLayerWritability();
    }

    private void updateUpperLayerWritability() {
        // RFC 8166 §3.3.1: no credit, or calls waiting for one: the upper layer should hold back.
        boolean writable = queue.isEmpty() && credits.canSend();
        if (writable != upperLayerWritable && connection != null) {
            upperLayerWritable = writable;
            connection.setUpperLayerWritable(writable);
        }
    }

    /** Reduces, exposes and writes one call; returns true if something was written. */
    private boolean send(ChannelHandlerContext ctx, RequesterCall rpc) {
        OutboundRpcMessage message = rpc.takeMessage();
        RpcCall call = (RpcCall) message.header();
        rpc.declaredMaxReply = call.maxReplySize();
        try {
            ByteBuf send = reduction.reduce(ctx, thresholds, credits.maxRequests(), call, message, rpc);
            if (send == null) {
                // The registered memory pool is exhausted: the call waits at the head of the queue, keeping its
                // message, until a piece is released (back-pressure; nothing fails).
                ctx.flush();
                rpc.exposure.finish(false, false, 0, stats);
                rpc.exposure.reset();
                rpc.keepMessage(message);
                message = null;
                queue.addFirst(rpc);
                waitForMemory(ctx);
                return false;
            }
            credits.onCallSent();
            maxOutstandingSeen = Math.max(maxOutstandingSeen, credits.outstanding());
            calls.put(rpc.xid, rpc);
            ChannelPromise promise = rpc.promise;
            if (promise.isVoid()) {
                // Nobody listens (RpcClientHandler's allocation-free write): a Send that cannot be posted or
                // completes in error breaks the connection, and its close finishes the call (channelInactive).
                // Straight to the channel's send queue when the write would go there anyway
                // (RdmaConnection.sendDirect): posted at once, or inside the channel's batch of completions with
                // the calls the batch made, in one chain at its end; the writer's flush then has nothing to flush.
                if (connection != null && connection.sendDirect(ctx, send, promise)) {
                    sentDirect = true;
                } else {
                    sentDirect = false;
                    ctx.write(send, promise);
                }
            } else {
                sentDirect = false;
                ctx.write(send, promise);
                rpc.retain(); // the promise's listener holds the call until the Send completed
                promise.addListener(rpc);
            }
            return true;
        } catch (Throwable t) {
            // RFC 8166 §4.5.4: the call could not be constructed: it fails at once. Binds already written are
            // posted, and their windows deallocated once they completed.
            ctx.flush();
            rpc.exposure.finish(false, false, 0, stats);
            ChannelPromise promise = rpc.promise;
            int xid = rpc.xid;
            if (calls.get(xid) != rpc) {
                rpc.release(); // neither queued nor outstanding: the requester lets go of it
            }
            failCall(ctx, xid, promise, t);
            return false;
        } finally {
            if (message != null) {
                message.release();
            }
        }
    }

    /**
     * Fails one call that could not be sent: through its write promise, or, written with a void promise (the RPC
     * client's allocation-free path), as an {@link RpcCallFailedEvent} for its xid, with the failure the promise's
     * listener would have reported, so the call fails at once and the connection stays up.
     */
    private static void failCall(ChannelHandlerContext ctx, int xid, ChannelPromise promise, Throwable cause) {
        if (promise.isVoid()) {
            ctx.fireUserEventTriggered(new RpcCallFailedEvent(xid,
                    new RpcConnectionClosedException("could not send the call", cause)));
        } else {
            promise.tryFailure(cause);
        }
    }

    /** Drains again once the connection's memory pool released a piece. */
    private void waitForMemory(ChannelHandlerContext ctx) {
        waitingForMemory = true;
        stats.recordMemoryWait();
        connection.memoryPool().whenAvailable(() -> {
            waitingForMemory = false;
            drain(ctx);
        });
    }

    /** The Send of {@code rpc} failed: if it is still outstanding, its credit and exposure are given back. */
    void sendFailed(RequesterCall rpc) {
        if (calls.get(rpc.xid) == rpc) {
            calls.remove(rpc.xid);
            credits.onCallAbandoned();
            rpc.exposure.finish(false, false, 0, stats);
            rpc.release();
        }
    }

    /** {@code rpc} is unreachable (see {@link RequesterCall#release()}): kept for a next call if there is room. */
    void recycle(RequesterCall rpc) {
        if (free.size() < freeCapacity) {
            free.push(rpc);
        }
    }

    /** Call objects ready for reuse (for tests). */
    int freeCalls() {
        return free.size();
    }

    // ------------------------------------------------------------------ replies

    /**
     * Flushes at once, or at the end of the batch of receives being handled ({@code channelReadComplete}, which the
     * RDMA channel fires once per poll batch): the calls that the replies of one poll brought (each answered call's
     * callback making the next one) go out in one chain of work requests, one {@code ibv_post_send}, instead of one
     * each. As with Netty's {@code FlushConsolidationHandler}, this relies on the channel's contract that a batch of
     * {@code channelRead}s ends with {@code channelReadComplete} (a handler below this one must pass it on), and
     * the batch also ends, its deferred flush done, when an error is caught, the channel is closed or disconnected,
     * or this handler is removed; a connection that went inactive drops it (nothing can be posted any more).
     */
    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (sentDirect) {
            sentDirect = false;
            return;
        }
        if (reading) {
            flushDeferred = true;
            return;
        }
        ctx.flush();
    }

    /** The batch of receives is over: the flush it deferred, if any, now. */
    private void endBatch(ChannelHandlerContext ctx) {
        reading = false;
        if (flushDeferred) {
            flushDeferred = false;
            ctx.flush();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        endBatch(ctx);
        ctx.fireChannelReadComplete();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        endBatch(ctx);
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        endBatch(ctx);
        ctx.close(promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        endBatch(ctx);
        ctx.disconnect(promise);
    }

    @Override
    protected void received(ChannelHandlerContext ctx, RdmaReceive r) {
        reading = true;
        ByteBuf in = r.content();
        long common = decodedReplies ? PlainWords.commonReply(in) : 0;
        if (common != 0 ? commonReply(ctx, r, in, common)
                : RpcRdmaHeaderDecoder.isPlainMsg(in) && plainReply(ctx, r, in)) {
            return;
        }
        RpcRdmaHeader header;
        try {
            header = decoder.decode(in);
        } catch (RpcRdmaHeaderException e) {
            // RFC 8166 §4.5: errors in the header of a reply are silently discarded.
            discard(ctx, "malformed reply header: " + e.getMessage());
            return;
        }
        if (BackwardMessages.isCall(header, in)) {
            backwardCall(ctx, header, in);
            return;
        }
        RequesterCall rpc = calls.get(header.xid());
        if (rpc == null) {
            discard(ctx, "reply to no outstanding call: " + header);
            return;
        }
        boolean invalidated = r.hasInvalidatedRkey();
        int invalidatedRkey = r.invalidatedRkey();
        if (invalidated && !rpc.exposure.owns(invalidatedRkey)) {
            // RFC 8797 §4.1: the responder may invalidate only a key of this XID; some other memory is now gone.
            logger.warn("{} closing: the reply to xid {} invalidated rkey 0x{} which is not one of its keys",
                    ctx.channel(), Integer.toUnsignedString(header.xid()), Integer.toHexString(invalidatedRkey));
            ctx.close();
            return;
        }
        if (RdmaProcedure.RDMA_ERROR.equals(header.procedure())) {
            calls.remove(rpc.xid);
            stats.recordErrorReceived();
            rpc.exposure.finish(true, invalidated, invalidatedRkey, stats);
            logger.debug("{} RDMA_ERROR {} for xid {}", ctx.channel(), header.errorCode(),
                    Integer.toUnsignedString(rpc.xid));
            credits.onReply(header.credits());
            // Reported once: the RPC layer fails this call with the typed exception itself.
            RpcCallFailedEvent failed = new RpcCallFailedEvent(rpc.xid,
                    RdmaErrorCause.of(header, rpc, configuredMaxReply));
            rpc.release();
            ctx.fireUserEventTriggered(failed);
            drain(ctx);
            return;
        }
        String problem = rpc.checkReply(header, in);
        if (problem != null) {
            discard(ctx, "reply to xid " + Integer.toUnsignedString(rpc.xid) + " " + problem);
            return;
        }
        calls.remove(rpc.xid);
        credits.onReply(header.credits());
        ByteBuf stream = rpc.replyStream(header, in, stats);
        List<ByteBuf> placed = rpc.placedItems(header, stats);
        replied(ctx, rpc, stream, placed, invalidated, invalidatedRkey);
    }

    /**
     * The common reply, handled without a header object: a plain RDMA_MSG header (version 1, no chunk lists, RFC
     * 8166 §4.1) answering an outstanding call that provided no Write chunk (a Reply chunk it provided simply went
     * unused, §3.5.2), followed by its RPC REPLY whose xid is rdma_xid. Returns false, having consumed nothing, for
     * anything else (no such call, a backward call, Write chunks provided, a key invalidated that is not the call's,
     * an xid mismatch, a short message): the full path then decodes, checks and answers it as it always did.
     */
    private boolean plainReply(ChannelHandlerContext ctx, RdmaReceive r, ByteBuf in) {
        int xid = RpcRdmaHeaderDecoder.plainXid(in);
        RequesterCall rpc = calls.get(xid);
        if (rpc == null || !rpc.writeList.isEmpty()) {
            return false; // a call that provided Write chunks expects them back, even empty (RFC 8166 §3.4.6)
        }
        int start = in.readerIndex() + RpcRdmaHeader.MIN_MSG_LENGTH;
        // RFC 8166 §4.5.2: the RPC message's xid must be rdma_xid; an RPC CALL is a backward call (RFC 8167).
        if (in.writerIndex() - start < 8 || in.getInt(start) != xid || in.getInt(start + 4) != REPLY) {
            return false;
        }
        boolean invalidated = r.hasInvalidatedRkey();
        int invalidatedRkey = r.invalidatedRkey();
        if (invalidated && !rpc.exposure.owns(invalidatedRkey)) {
            return false; // RFC 8797 §4.1: the full path closes the connection
        }
        int credit = RpcRdmaHeaderDecoder.plainCredits(in);
        in.skipBytes(RpcRdmaHeader.MIN_MSG_LENGTH);
        calls.remove(xid);
        credits.onReply(credit);
        // The receive's own buffer, positioned after the transport header: no slice object, nothing placed.
        replied(ctx, rpc, in.retain(), List.of(), invalidated, invalidatedRkey);
        return true;
    }

    /**
     * {@link #plainReply} for the commonest reply, whose headers {@link PlainWords#commonReply} found at
     * {@code address} in one pass: a plain RDMA_MSG header and a MSG_ACCEPTED SUCCESS RPC reply with an AUTH_NONE
     * verifier and rdma_xid as its xid, handed up as a decoded message without reading its header again. Returns
     * false, having consumed nothing, for what {@link #plainReply} does not take either (no such call, Write chunks
     * provided, a key invalidated that is not the call's): the full path answers it.
     */
    private boolean commonReply(ChannelHandlerContext ctx, RdmaReceive r, ByteBuf in, long address) {
        int xid = PlainWords.xid(address);
        // Taken out of the table at once (one probe): put back in the rare case the full path must answer it.
        RequesterCall rpc = calls.remove(xid);
        if (rpc == null) {
            return false;
        }
        boolean invalidated = r.hasInvalidatedRkey();
        int invalidatedRkey = r.invalidatedRkey();
        // A call that provided Write chunks expects them back, even empty (RFC 8166 §3.4.6); RFC 8797 §4.1: a key
        // invalidated that is not the call's closes the connection. The full path answers both.
        if (!rpc.writeList.isEmpty() || invalidated && !rpc.exposure.owns(invalidatedRkey)) {
            calls.put(xid, rpc);
            return false;
        }
        in.skipBytes(RpcRdmaHeader.MIN_MSG_LENGTH);
        credits.onReply(PlainWords.credits(address));
        ChannelFuture invalidation = rpc.exposure.finish(true, invalidated, invalidatedRkey, stats);
        rpc.release(); // answered: the requester lets go of it (deferred completions still hold it)
        // The receive's own buffer, positioned at the RPC reply: no slice object, nothing placed.
        handUp(ctx, invalidation, RpcMessageCodec.successReply(xid, in.retain()));
        return true;
    }

    /**
     * Ends {@code rpc} (removed from the table, its credit counted) with its reply's {@code stream} and
     * {@code placed} items (both owned), and hands the reply up once its memory is invalidated.
     */
    private void replied(ChannelHandlerContext ctx, RequesterCall rpc, ByteBuf stream, List<ByteBuf> placed,
                         boolean invalidated, int invalidatedRkey) {
        int xid = rpc.xid;
        // Invalidate before the data is used (RFC 8166 §3.4.5.1 / RFC 8797 §3.2): a Local Invalidate completes later,
        // and the reply goes up then.
        ChannelFuture invalidation = rpc.exposure.finish(true, invalidated, invalidatedRkey, stats);
        rpc.release(); // answered: the requester lets go of it (deferred completions still hold it)
        handUp(ctx, invalidation, form.reply(ctx, xid, stream, placed));
    }

    /** Hands {@code message} (null: none, dropped) up once {@code invalidation} (null: none) is done; drains. */
    private void handUp(ChannelHandlerContext ctx, ChannelFuture invalidation, Object message) {
        if (message == null) {
            drain(ctx);
            return;
        }
        if (invalidation == null || invalidation.isDone()) {
            ctx.fireChannelRead(message);
        } else {
            invalidation.addListener(f -> {
                if (inactive) {
                    ReferenceCountUtil.release(message); // the RPC layer fails the call with the connection
                } else {
                    ctx.fireChannelRead(message);
                }
            });
        }
        drain(ctx);
    }

    /** An RPC CALL arriving at a requester: a backward call (RFC 8167 §5.1). */
    private void backwardCall(ChannelHandlerContext ctx, RpcRdmaHeader header, ByteBuf in) {
        if (callbacks != null) {
            callbacks.received(ctx, header, in);
            return;
        }
        // No callback service: dropped and counted, as the Linux client does (RFC 8167 §6).
        rpcStats.recordUnexpectedMessage();
        rpcStats.recordBackwardDrop();
        logger.warn("{} dropped backward call xid {}: no callback service on this connection", ctx.channel(),
                Integer.toUnsignedString(header.xid()));
    }

    private void discard(ChannelHandlerContext ctx, String why) {
        stats.recordDiscarded();
        logger.warn("{} discarded a reply (RFC 8166 §4.5): {}", ctx.channel(), why);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        inactive = true;
        reading = false;
        flushDeferred = false;
        if (callbacks != null) {
            callbacks.inactive();
        }
        // Sent calls' promises belong to their Sends (the channel fails the unwritten ones); the RPC layer fails
        // the calls themselves when it sees the connection go.
        for (RequesterCall rpc : calls.values()) {
            rpc.exposure.finish(false, false, 0, stats);
        }
        for (RequesterCall rpc : calls.values()) {
            credits.onCallAbandoned(); // no reply will come: the count of calls in flight goes back to zero
            rpc.release(); // after every finish: a recycled object may not be finished twice
        }
        calls.clear();
        failQueued();
        reduction.release();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        endBatch(ctx);
        failQueued();
        reduction.release();
    }

    private void failQueued() {
        ClosedChannelException closed = new ClosedChannelException();
        RequesterCall q;
        while ((q = queue.poll()) != null) {
            q.failQueued(closed);
        }
    }
}
