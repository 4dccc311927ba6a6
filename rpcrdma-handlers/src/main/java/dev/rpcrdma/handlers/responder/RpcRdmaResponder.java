package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.ByteFramingEntry;
import dev.rpcrdma.handlers.RdmaReceiveHandler;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.backchannel.BackwardRequester;
import dev.rpcrdma.handlers.backchannel.BackwardMessages;
import dev.rpcrdma.handlers.credits.ResponderCredits;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderException;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.MsgType;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.server.RpcConnectionUse;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcReplyEntry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The responder (server) side of RPC-over-RDMA Version 1 on one connection, between the RDMA channel and the
 * transport-agnostic {@code RpcDispatcher}: checks each call's transport header, admits it under the credit grant and
 * hands its reassembled RPC message up; sends each reply through {@link ReplySender}. Event-loop confined; the package
 * documentation describes the rules it follows.
 */
public final class RpcRdmaResponder extends RdmaReceiveHandler
        implements RpcConnectionUse, RpcReplyEntry, ByteFramingEntry {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaResponder.class);
    private static final int CALL = MsgType.CALL.intValue();

    private final RpcRdmaConfig config;
    private final InlineThresholds thresholds;
    private final RdmaConnection connection;
    /** Moves chunk data by RDMA Read and Write (null without a connection). */
    private final ChunkMover mover;
    private final RpcRdmaStats stats;
    private final RpcStats rpcStats;
    private final RpcRdmaHeaderDecoder decoder;
    private final ResponderCredits credits;
    /** Calls received and not yet answered, by xid. */
    private final IntObjectHashMap<ResponderCall> calls = new IntObjectHashMap<>();
    /** Backward calls to the client (RFC 8167 backchannel), or null without one. */
    private final BackwardRequester backward;
    /** Call objects whose reply was sent, reused for the next calls; at most the largest grant. */
    private final ArrayDeque<ResponderCall> free = new ArrayDeque<>();
    /** The form of calls and replies above: RPC messages or whole-message {@code ByteBuf}s. */
    private final ResponderForm form;
    /** {@link ResponderForm#contiguous()}, asked once. */
    private final boolean contiguous;
    /** Builds and posts replies and RDMA_ERRORs. */
    private final ReplySender replies;
    private ChannelHandlerContext ctx;
    /** The connection's void promise for replies nobody waits on ({@link #voidPromise()}). */
    private ChannelPromise voidPromise;
    /** As the pipeline decided when it was made: with leak detection on it touches each message per hop. */
    private final boolean touching = ResourceLeakDetector.isEnabled();
    /** Replies the dispatcher handed over directly ({@link #writeAndFlush(ChannelHandlerContext, OutboundRpcMessage)}). */
    private int directReplies;
    /** The dispatcher, adopted from a direct reply; calls go straight to it while it is the next context. */
    private final UpperEntry upper = new UpperEntry(RpcDispatcher.class);
    /**
     * In byte framing, the handler that wrote a reply straight into this one
     * ({@link #writeAndFlush(ChannelHandlerContext, ByteBuf, ChannelPromise)}); calls go straight to it likewise.
     */
    private final UpperEntry bytesUpper = new UpperEntry(ChannelInboundHandler.class);
    private boolean closed;
    /** Messages received and written, for the idle timeout ({@link #uses()}). */
    private int uses;
    /**
     * The last write through this handler was a reply whose Send was flushed as it was written ({@link ReplySender}):
     * the flush of the caller's {@code writeAndFlush} that follows has nothing of it to flush.
     */
    private boolean replyFlushed;

    /** A responder made of {@code setup}: see {@link ResponderSetup}. */
    public RpcRdmaResponder(ResponderSetup setup) {
        this.config = setup.config;
        this.backward = setup.backward;
        this.thresholds = setup.thresholds;
        this.connection = setup.connection;
        this.stats = setup.stats;
        this.rpcStats = setup.rpcStats;
        this.decoder = new RpcRdmaHeaderDecoder(config.limits());
        this.credits = new ResponderCredits(config.minGrant(), config.maxGrant());
        this.mover = connection == null ? null : new ChunkMover(connection, stats);
        this.replies = new ReplySender(this, thresholds, connection, stats, mover);
        this.form = setup.framing == null ? new ResponderMessages(this, rpcStats)
                : new ResponderBytes(this, setup.framing, config.limits().maxWriteChunks(), stats, rpcStats);
        this.contiguous = form.contiguous();
    }

    /** The negotiated thresholds. */
    public InlineThresholds thresholds() {
        return thresholds;
    }

    /** Calls received and not yet answered. */
    public int outstandingCalls() {
        return credits.outstanding();
    }

    @Override
    public int uses() {
        return uses;
    }

    /** Calls received and not yet answered ({@link #outstandingCalls()}). */
    @Override
    public int callsInProgress() {
        return credits.outstanding();
    }

    /** The backward caller, or null without a backchannel. */
    public BackwardRequester backward() {
        return backward;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        voidPromise = new VoidChannelPromise(ctx.channel(), false);
        if (backward != null) {
            backward.negotiated(ctx, thresholds);
        }
    }

    // ------------------------------------------------------------------ calls

    @Override
    protected void received(ChannelHandlerContext ctx, RdmaReceive r) {
        uses++;
        if (closed) {
            return;
        }
        ByteBuf in = r.content();
        if (RpcRdmaHeaderDecoder.isPlainMsg(in) && plainCall(ctx, in)) {
            return;
        }
        int requested = in.readableBytes() >= 12 ? in.getInt(in.readerIndex() + 8) : 0;
        RpcRdmaHeader header;
        try {
            header = decoder.decode(in);
        } catch (RpcRdmaHeaderException e) {
            if (e.action() == RpcRdmaHeaderException.Action.DISCARD) {
                stats.recordDiscarded();
                logger.warn("{} discarded a message: {}", ctx.channel(), e.getMessage());
                return;
            }
            if (admit(ctx)) {
                logger.warn("{} answering {} to xid {}: {}", ctx.channel(), e.action(),
                        Integer.toUnsignedString(e.xid()), e.getMessage());
                replies.sendError(ctx, e.errorReply(grant(requested)));
            }
            return;
        }
        if (backward != null && BackwardMessages.isReply(header, in)) {
            backward.received(ctx, header, in); // a reply to a backward call: no forward credit involved
            return;
        }
        if (RdmaProcedure.RDMA_ERROR.equals(header.procedure())) {
            stats.recordDiscarded();
            logger.warn("{} discarded an RDMA_ERROR sent to a responder: {}", ctx.channel(), header);
            return;
        }
        if (!admit(ctx)) {
            return;
        }
        int xid = header.xid();
        int inline = in.readableBytes();
        if (calls.containsKey(xid)) {
            replies.errChunk(ctx, header, "a call with this xid is already in progress");
            return;
        }
        CallReassembly plan;
        try {
            plan = CallReassembly.plan(header, inline, config.maxMessageSize());
        } catch (RpcRdmaHeaderException e) {
            replies.errChunk(ctx, header, e.getMessage());
            return;
        }
        boolean nomsg = RdmaProcedure.RDMA_NOMSG.equals(header.procedure());
        if (!nomsg && (inline < 4 || in.getInt(in.readerIndex()) != xid)) {
            // RFC 8166 §4.5.2: rdma_xid must match the XID of the RPC message.
            replies.errChunk(ctx, header, inline < 4 ? "no RPC message follows the header"
                    : "rdma_xid differs from the RPC message's xid " + Integer.toUnsignedString(
                    in.getInt(in.readerIndex())));
            return;
        }
        if (!header.readList().isEmpty() && connection == null) {
            replies.errChunk(ctx, header, "Read chunks need an RDMA connection");
            return;
        }
        ResponderCall call = newCall(header, xid, header.credits());
        calls.put(xid, call);
        if (header.readList().isEmpty()) {
            // The receive's own buffer, positioned after the transport header, rather than a slice object.
            deliver(ctx, call, in.retain());
            return;
        }
        pull(ctx, call, plan, nomsg ? null : in.retainedSlice());
    }

    /**
     * The common call, admitted without a header object: a plain RDMA_MSG header (version 1, no chunk lists, RFC
     * 8166 §4.1) followed inline by an RPC CALL whose xid is rdma_xid (§4.5.2), no larger than the largest message,
     * with no call of that xid in progress. Returns false, having consumed and counted nothing, for anything else:
     * the full path then decodes, checks and answers it as it always did.
     */
    private boolean plainCall(ChannelHandlerContext ctx, ByteBuf in) {
        int xid = RpcRdmaHeaderDecoder.plainXid(in);
        int start = in.readerIndex() + RpcRdmaHeader.MIN_MSG_LENGTH;
        int inline = in.writerIndex() - start;
        if (inline < 8 || inline > config.maxMessageSize() || in.getInt(start) != xid
                || in.getInt(start + 4) != CALL || calls.containsKey(xid)) {
            return false;
        }
        int credit = RpcRdmaHeaderDecoder.plainCredits(in);
        in.skipBytes(RpcRdmaHeader.MIN_MSG_LENGTH);
        if (!admit(ctx)) {
            return true;
        }
        ResponderCall call = newCall(ResponderCall.PLAIN, xid, credit);
        calls.put(xid, call);
        // The receive's own buffer, positioned after the transport header, rather than a slice object; its xid was
        // checked above (deliver's check, §4.5.2).
        form.deliver(ctx, call, in.retain());
        return true;
    }

    private ResponderCall newCall(RpcRdmaHeader header, int xid, int credit) {
        ResponderCall call = free.poll();
        if (call == null) {
            call = new ResponderCall(this);
        }
        return call.init(header, xid, credit);
    }

    /**
     * {@code call} was answered (removed from the table): once nothing in flight references it (its reply memory
     * waits for the Send's completion, which calls this again) it is kept for a next call, if there is room.
     */
    void recycle(ResponderCall call) {
        if (call.pooled || !call.idle()) {
            return;
        }
        call.clear();
        if (free.size() < config.maxGrant()) {
            call.pooled = true;
            free.push(call);
        }
    }

    /** Call objects ready for reuse (for tests). */
    int freeCalls() {
        return free.size();
    }

    /**
     * Issues the RDMA Reads of every chunk, all written before one flush (posted together), into one buffer of the
     * connection's registered memory pool (registered for local write only: nothing is registered per call). When
     * the pool is exhausted the pull waits for memory (back-pressure, never a failure). When the form asks for
     * {@linkplain ResponderForm#contiguous() contiguous} calls, an RDMA_MSG call's chunks are pulled to their
     * positions in a buffer as long as the whole message, the inline parts copied around them afterwards
     * ({@link CallReassembly#assembleInPlace}).
     */
    private void pull(ChannelHandlerContext ctx, ResponderCall call, CallReassembly plan, ByteBuf inline) {
        int total = (int) plan.totalRead;
        List<ReadChunk> all = new ArrayList<>(plan.inserted.size() + 1);
        if (plan.positionZero != null) {
            all.add(plan.positionZero);
            stats.recordLongCall();
        }
        all.addAll(plan.inserted);
        if (total == 0) {
            call.pulling(plan, all, inline, ctx.alloc().directBuffer(0), 0, false);
            deliver(ctx, call, call.assemble(ctx.alloc()));
            return;
        }
        boolean inPlace = contiguous && plan.positionZero == null;
        int size = inPlace ? plan.messageLength(inline.readableBytes()) : total;
        ByteBuf target;
        try {
            target = connection.memoryPool().tryAllocate(size);
        } catch (IOException | RuntimeException e) {
            ReferenceCountUtil.release(inline);
            calls.remove(call.xid());
            logger.warn("{} has no registered memory for Read chunks; closing (RFC 8166 §4.5.4)", ctx.channel(), e);
            close(ctx);
            return;
        }
        if (target == null) {
            stats.recordMemoryWait();
            connection.memoryPool().whenAvailable(() -> {
                if (closed) {
                    ReferenceCountUtil.release(inline);
                } else {
                    pull(ctx, call, plan, inline);
                }
            });
            return;
        }
        target.writerIndex(size);
        int[] offsets = null;
        if (inPlace) {
            offsets = new int[all.size()];
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = plan.streamOffset(i);
            }
        }
        call.pulling(plan, all, inline, target, ChunkMover.readCount(all), inPlace);
        try {
            mover.pull(ctx, target, all, offsets, call);
        } catch (IOException | RuntimeException e) {
            call.releasePull();
            calls.remove(call.xid());
            logger.warn("{} cannot register a Read sink; closing (RFC 8166 §4.5.4)", ctx.channel(), e);
            close(ctx);
        }
    }

    /** The first RDMA Read of {@code call} that failed. */
    void readFailed(ResponderCall call, Throwable cause) {
        logger.warn("{} an RDMA Read of xid {} failed: {}", ctx.channel(), Integer.toUnsignedString(call.xid()),
                cause.toString());
    }

    /** Every RDMA Read of {@code call} completed (the pulled bytes are in its pool buffer). */
    void pulled(ResponderCall call, boolean failed) {
        if (failed || closed) {
            // RFC 8166 §4.5.3: RDMA errors are fatal to the connection.
            call.releasePull();
            calls.remove(call.xid());
            close(ctx);
            return;
        }
        deliver(ctx, call, call.assemble(ctx.alloc()));
    }

    private void deliver(ChannelHandlerContext ctx, ResponderCall call, ByteBuf stream) {
        int xid = call.xid();
        if (stream.readableBytes() < 4 || stream.getInt(stream.readerIndex()) != xid) {
            stream.release();
            refuse(ctx, call, "rdma_xid differs from the RPC message's xid (RFC 8166 §4.5.2)");
            return;
        }
        form.deliver(ctx, call, stream);
    }

    /** {@code call} cannot be handed up: it leaves the table, answered with ERR_CHUNK (RFC 8166 §4.5.3). */
    void refuse(ChannelHandlerContext ctx, ResponderCall call, String why) {
        calls.remove(call.xid());
        replies.errChunk(ctx, call.xid(), call.credits, why);
    }

    // ------------------------------------------------------------------ replies

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        uses++;
        replyFlushed = false;
        if (form.write(ctx, msg, promise)) {
            return;
        }
        if (!(msg instanceof OutboundRpcMessage)) {
            ctx.write(msg, promise);
            return;
        }
        OutboundRpcMessage reply = (OutboundRpcMessage) msg;
        if (reply.header() instanceof RpcCall) {
            if (backward != null) {
                backward.call(ctx, reply, promise);
            } else {
                reply.release();
                promise.tryFailure(new IllegalArgumentException("a responder without a backchannel sends replies "
                        + "only (RpcRdmaServerInitializer.withBackchannel())"));
            }
            return;
        }
        ResponderCall call = answered(ctx, reply.header().xid(), promise);
        if (call == null) {
            reply.release();
            return;
        }
        if (call.header.writeList().isEmpty()) {
            int inline = RpcMessageCodec.inlineLength(reply);
            if (RpcRdmaHeader.MIN_MSG_LENGTH + (long) inline <= thresholds.sendThreshold()) {
                replies.sendInline(ctx, call, reply, inline, promise);
                recycle(call);
                replyFlushed = true;
                return;
            }
        }
        XdrPayload payload;
        try {
            payload = RpcMessageCodec.encode(ctx.alloc(), reply);
        } finally {
            reply.release();
        }
        place(ctx, call, payload, promise);
    }

    @Override
    public ChannelPromise voidPromise() {
        return voidPromise;
    }

    /**
     * The dispatcher's reply straight into {@link #write} and {@link #flush}, as its {@code writeAndFlush} with
     * {@link #voidPromise()} would do them, when that is provable: this handler's context is the next outbound one
     * from {@code from} (nothing between them: Netty's own link, {@link OutboundAdjacency}), the caller is on its
     * executor, and leak detection is off (the pipeline then touches nothing). Netty's hop (the promise's checks, the
     * walk to the next context, the handler's invocation for the write and again for the flush) is what goes.
     */
    @Override
    public boolean writeAndFlush(ChannelHandlerContext from, OutboundRpcMessage reply) {
        ChannelHandlerContext c = ctx;
        if (!provable(c, from)) {
            return false;
        }
        upper.adopt(c, from);
        writeAndFlushDirect(c, reply, voidPromise);
        return true;
    }

    /** Whether a write from {@code from} may go straight into this handler at {@code c} (see the entries above). */
    private boolean provable(ChannelHandlerContext c, ChannelHandlerContext from) {
        return !touching && c != null && OutboundAdjacency.isNextOutbound(from, c) && c.executor().inEventLoop();
    }

    /** {@link #write} and {@link #flush} as the pipeline's {@code writeAndFlush} would invoke them. */
    private void writeAndFlushDirect(ChannelHandlerContext c, Object msg, ChannelPromise promise) {
        directReplies++;
        try {
            write(c, msg, promise);
        } catch (Throwable t) {
            promise.tryFailure(t); // as the pipeline does for a handler's write that throws
        }
        try {
            flush(c);
        } catch (Throwable t) {
            c.fireExceptionCaught(t); // as the pipeline does for a flush that throws (the handler passes it on)
        }
    }

    /**
     * NULL's reply without its objects: as {@link #writeAndFlush(ChannelHandlerContext, OutboundRpcMessage)} under
     * the same conditions, for a call in progress that offered no Write chunk (its reply goes inline, as the
     * message's would): the RPC reply's six words written after the transport header into the Send.
     */
    @Override
    public boolean writeEmptySuccess(ChannelHandlerContext from, int xid) {
        ChannelHandlerContext c = ctx;
        if (!provable(c, from) || !fitsInline(RpcMessageCodec.EMPTY_SUCCESS_LENGTH)) {
            return false;
        }
        ResponderCall call = calls.remove(xid);
        if (call == null) {
            return false; // the message's path answers it (logged, counted as it always was)
        }
        if (!call.header.writeList().isEmpty()) {
            calls.put(xid, call); // untouched: the message's path places the reply
            return false;
        }
        directReplies++;
        upper.adopt(c, from);
        uses++;
        replyFlushed = false; // as after a write and its flush
        replies.sendEmptySuccess(c, call, voidPromise);
        recycle(call);
        return true;
    }

    /** Replies the dispatcher handed over directly (for tests). */
    int directReplies() {
        return directReplies;
    }

    /** Calls handed straight to the dispatcher (for tests). */
    int directCalls() {
        return upper.calls() + bytesUpper.calls();
    }

    /** Hands a call up as {@code ctx.fireChannelRead(message)} does, straight to the adopted dispatcher where it can. */
    void fireCall(ChannelHandlerContext ctx, InboundRpcMessage message) {
        upper.fire(ctx, message);
    }

    /**
     * Byte framing's reply (or backward call) straight into {@link #write} and {@link #flush}, as
     * {@code from.writeAndFlush(msg, promise)} would do them, when that is provable: as for the dispatcher's replies
     * ({@link #writeAndFlush(ChannelHandlerContext, OutboundRpcMessage)}), with the caller's promise. {@code from}'s
     * handler then gets the calls straight into its {@code channelRead} ({@link #fireBytes}).
     */
    @Override
    public boolean writeAndFlush(ChannelHandlerContext from, ByteBuf msg, ChannelPromise promise) {
        ChannelHandlerContext c = ctx;
        if (!provable(c, from)) {
            return false;
        }
        bytesUpper.adopt(c, from);
        writeAndFlushDirect(c, msg, promise);
        return true;
    }

    /** Hands a byte-framed call up as {@code ctx.fireChannelRead(message)} does, straight where it can. */
    void fireBytes(ChannelHandlerContext ctx, ByteBuf message) {
        bytesUpper.fire(ctx, message);
    }

    /**
     * One flush per reply: a reply's Send is written and flushed together when the reply is written (the transport
     * posts it then), so the flush of the {@code writeAndFlush} that wrote it is not passed on, sparing the
     * transport a second write pass per call. Any other write through this handler, or a flush that does not follow
     * a reply, passes on. (Every write this handler makes on its own flushes itself.)
     */
    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (replyFlushed) {
            replyFlushed = false;
            return;
        }
        ctx.flush();
    }

    /** The call in progress a reply to {@code xid} answers, out of the table; null (promise failed) if none. */
    ResponderCall answered(ChannelHandlerContext ctx, int xid, ChannelPromise promise) {
        ResponderCall call = calls.remove(xid);
        if (call == null) {
            noCall(ctx, xid, promise);
        }
        return call;
    }

    /** Whether an RPC message of {@code length} bytes fits inline after an RDMA_MSG header. */
    boolean fitsInline(int length) {
        return RpcRdmaHeader.MIN_MSG_LENGTH + (long) length <= thresholds.sendThreshold();
    }

    /** Sends the whole-message reply {@code m} (owned) to {@code call} inline, one copy into the Send. */
    void sendInline(ChannelHandlerContext ctx, ResponderCall call, ByteBuf m, ChannelPromise promise) {
        replies.sendInline(ctx, call, m, promise);
        recycle(call);
        replyFlushed = true;
    }

    /**
     * A reply to {@code xid} found no call in progress: after the connection closed that is every reply still on
     * its way (the call table went with the connection; the requester retransmits on its next connection, RFC 8166
     * §4.5.4), logged at debug; before, a reply to no call received here (the upper layer answered twice or made an
     * xid up), a warning.
     */
    private void noCall(ChannelHandlerContext ctx, int xid, ChannelPromise promise) {
        if (closed) {
            logger.debug("{} dropped a reply to xid {}: the connection is closed", ctx.channel(),
                    Integer.toUnsignedString(xid));
            promise.tryFailure(new ClosedChannelException());
            return;
        }
        logger.warn("{} dropped a reply to no call in progress: xid {}", ctx.channel(),
                Integer.toUnsignedString(xid));
        promise.tryFailure(new IllegalStateException("no RPC-over-RDMA call with xid "
                + Integer.toUnsignedString(xid)));
    }

    /**
     * Places and sends the reply {@code payload} (released here) to {@code call} ({@link ReplyPlacement}); a reply
     * that cannot be built fails its promise and closes the connection (RFC 8166 §4.5.4).
     */
    void place(ChannelHandlerContext ctx, ResponderCall call, XdrPayload payload, ChannelPromise promise) {
        try {
            replies.sendReply(ctx, call, payload, promise);
            replyFlushed = true; // its Send (or ERR_CHUNK) written and flushed
            recycle(call); // unless its reply memory waits for the Send: then when the Send completed
        } catch (Throwable t) {
            logger.warn("{} could not send the reply to xid {}; closing (RFC 8166 §4.5.4)", ctx.channel(),
                    Integer.toUnsignedString(call.xid()), t);
            promise.tryFailure(t);
            close(ctx);
        } finally {
            payload.release();
        }
    }

    private boolean admit(ChannelHandlerContext ctx) {
        if (credits.onCallReceived() == ResponderCredits.Admission.EXCEEDED_GRANT) {
            stats.recordCreditViolation();
            logger.warn("{} closing: the requester has {} calls outstanding, more than any grant issued ({}) "
                    + "(RFC 8166 §3.3.1)", ctx.channel(), credits.outstanding(), credits.maxGranted());
            close(ctx);
            return false;
        }
        return true;
    }

    int grant(int requested) {
        int posted = connection != null ? connection.postedReceives() : config.maxGrant();
        if (backward != null) {
            posted -= backward.reserved(); // receives kept for backward replies (RFC 8167 §4.3.2)
        }
        return credits.grantForReply(requested, posted);
    }

    @Override
    protected void receiveFailed(ChannelHandlerContext ctx) {
        close(ctx);
    }

    void close(ChannelHandlerContext ctx) {
        closed = true;
        ctx.close();
    }

    /** Removed without going inactive: backward calls still queued are failed and their payloads released. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        replies.release();
        if (backward != null) {
            backward.inactive();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed = true;
        calls.clear();
        replies.release();
        if (backward != null) {
            backward.inactive();
        }
        super.channelInactive(ctx);
    }
}
