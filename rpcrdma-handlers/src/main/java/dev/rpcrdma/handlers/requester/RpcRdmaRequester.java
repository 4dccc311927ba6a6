package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaAccess;
import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.credits.RequesterCredits;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderException;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.negotiation.RpcRdmaPrivateData;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcCallFailedEvent;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.DdpItem;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The requester (client) side of RPC-over-RDMA Version 1 on one connection, between an {@link RdmaChannel} and the
 * transport-agnostic {@code RpcClientHandler}.
 *
 * <p>Outbound: each {@link OutboundRpcMessage} call waits for a credit (RFC 8166 §3.3.1: never more calls
 * outstanding than the last grant; the rest queue here, and the channel is not writable while they do), then is
 * reduced to fit the client-to-server inline threshold: sent whole inline (RDMA_MSG); else with its DDP-eligible
 * items moved into Read chunks at their XDR positions, without XDR pad (RFC 8166 §3.4.5.2); else as a Long Call
 * (the whole message in a position-zero Read chunk, RDMA_NOMSG). One Write chunk is provisioned per expected
 * DDP-eligible result item, in order ({@code RpcCall.replyDdpItems()}, RFC 8166 §4.3.2.1; an item hinted 0 gets an
 * empty Write chunk so it comes back inline, RFC 8166 §4.3.2.3), and a Reply chunk when the reply may exceed the
 * server-to-client threshold ({@code RpcCall.maxReplySize()}); both may be present together. The call's memory is
 * exposed per {@link CallExposure}.
 *
 * <p>The write promise of a call completes when the RPC-over-RDMA transaction does: successfully when its reply
 * arrived (its memory no longer exposed), or with {@link RpcRdmaErrorException} when the responder answered
 * RDMA_ERROR (RFC 8166 §4.5). In that case an {@link RpcCallFailedEvent} carrying the same exception is fired up
 * the pipeline first, so {@code RpcClient} fails the call with the {@link RpcRdmaErrorException} itself. A call
 * the RPC layer gave up on (timeout) keeps its credit and its exposure until its reply or RDMA_ERROR arrives, or
 * the connection closes: the responder may still use its chunks.
 *
 * <p>Inbound: replies whose transport header is malformed or does not fit what the call provided (a Read list, more
 * Write chunks, longer segments, foreign handles, xid mismatch) are silently discarded, logged and counted
 * (RFC 8166 §4.5). A Send With Invalidate of the RPC's only key is recognised and that key not invalidated again;
 * everything else the RPC exposed is invalidated before its buffers are used.
 *
 * <p>Event-loop confined; not sharable.
 */
public final class RpcRdmaRequester extends ChannelDuplexHandler {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaRequester.class);

    /** User-defined writability bit used for "no credit": the transport uses bit 1. */
    static final int WRITABILITY_BIT = 2;

    private final RpcRdmaConfig config;
    private final RpcRdmaPrivateData local;
    private final RpcRdmaStats stats;
    private final RpcStats rpcStats;
    private final RpcRdmaHeaderDecoder decoder;
    private final RequesterCredits credits;
    private final Map<Integer, PendingRpc> rpcs = new HashMap<>();
    private final ArrayDeque<QueuedCall> queue = new ArrayDeque<>();
    private volatile InlineThresholds thresholds;
    private boolean inactive;

    /**
     * A requester that negotiates its thresholds when the channel becomes active: {@code local} is the private data
     * this side sent, the peer's is read from {@link RdmaChannel#peerPrivateData()} (RFC 8797 §5.1 defaults when
     * absent or unrecognisable).
     */
    public RpcRdmaRequester(RpcRdmaConfig config, RpcRdmaPrivateData local, RpcRdmaStats stats, RpcStats rpcStats) {
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.local = ObjectUtil.checkNotNull(local, "local");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.rpcStats = ObjectUtil.checkNotNull(rpcStats, "rpcStats");
        this.decoder = new RpcRdmaHeaderDecoder(config.limits());
        this.credits = new RequesterCredits(config.maxRequests());
    }

    /** A requester with fixed thresholds (no negotiation; e.g. over an {@code EmbeddedChannel}). */
    public RpcRdmaRequester(RpcRdmaConfig config, InlineThresholds thresholds, RpcRdmaStats stats,
                            RpcStats rpcStats) {
        this(config, RpcRdmaPrivateData.DEFAULTS, stats, rpcStats);
        this.thresholds = ObjectUtil.checkNotNull(thresholds, "thresholds");
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

    private int maxOutstandingSeen;

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (thresholds == null) {
            RpcRdmaPrivateData peer = ctx.channel() instanceof RdmaChannel
                    ? RpcRdmaPrivateData.parseOrDefaults(((RdmaChannel) ctx.channel()).peerPrivateData())
                    : RpcRdmaPrivateData.DEFAULTS;
            thresholds = InlineThresholds.negotiate(local, peer);
            logger.debug("{} RPC-over-RDMA thresholds {} (local {}, peer {})", ctx.channel(), thresholds, local,
                    peer);
        }
        super.channelActive(ctx);
        drain(ctx);
    }

    // ------------------------------------------------------------------ calls

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof OutboundRpcMessage)) {
            ctx.write(msg, promise);
            return;
        }
        OutboundRpcMessage call = (OutboundRpcMessage) msg;
        if (!(call.header() instanceof RpcCall)) {
            call.release();
            promise.tryFailure(new IllegalArgumentException("a requester sends calls, not " + call.header()));
            return;
        }
        if (inactive) {
            call.release();
            promise.tryFailure(new ClosedChannelException());
            return;
        }
        queue.add(new QueuedCall(call, promise));
        drain(ctx);
    }

    private void drain(ChannelHandlerContext ctx) {
        boolean sent = false;
        while (thresholds != null && !inactive && !queue.isEmpty() && credits.canSend()) {
            QueuedCall q = queue.poll();
            sent |= sendCall(ctx, q.message, q.promise);
        }
        if (sent) {
            ctx.flush();
        }
        updateWritability(ctx);
    }

    private void updateWritability(ChannelHandlerContext ctx) {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        if (out != null) {
            out.setUserDefinedWritability(WRITABILITY_BIT, queue.isEmpty() && credits.canSend());
        }
    }

    /** Reduces, exposes and sends one call; returns true if something was written. */
    private boolean sendCall(ChannelHandlerContext ctx, OutboundRpcMessage message, ChannelPromise promise) {
        RpcCall call = (RpcCall) message.header();
        XdrPayload payload;
        try {
            payload = RpcMessageCodec.encode(ctx.alloc(), message);
        } finally {
            message.release();
        }
        PendingRpc rpc = new PendingRpc(call.xid(), promise);
        try {
            ByteBuf send = reduce(ctx, call, payload, rpc);
            credits.onCallSent();
            maxOutstandingSeen = Math.max(maxOutstandingSeen, credits.outstanding());
            rpcs.put(rpc.xid, rpc);
            ctx.write(send).addListener(f -> {
                if (!f.isSuccess()) {
                    PendingRpc p = rpcs.remove(rpc.xid);
                    if (p != null) {
                        credits.onCallAbandoned();
                        p.exposure.finish(false, false, 0, stats);
                        p.promise.tryFailure(f.cause());
                    }
                }
            });
            return true;
        } catch (Throwable t) {
            // RFC 8166 §4.5.4: the call could not be constructed: it fails at once. Binds already written are
            // posted, and their windows deallocated once they completed.
            ctx.flush();
            rpc.exposure.finish(false, false, 0, stats);
            promise.tryFailure(t);
            return false;
        } finally {
            payload.release();
        }
    }

    /** Chunk reduction (RFC 8166 §3.5): builds the Send (header and inline part) and the exposure. */
    private ByteBuf reduce(ChannelHandlerContext ctx, RpcCall call, XdrPayload payload, PendingRpc rpc)
            throws IOException {
        boolean rdma = ctx.channel() instanceof RdmaChannel;
        int sendThreshold = thresholds.sendThreshold();
        // RFC 8166 §4.3.2.1: one Write chunk per expected DDP-eligible result item, in order. Trailing items hinted 0
        // need no chunk (items beyond the Write list are inline); earlier ones get an empty chunk (§4.3.2.3).
        int maxReply = call.maxReplySize();
        // As the Linux client does (rpcrdma_results_inline), a reply known to fit inline gets no Write chunks: its
        // DDP-eligible items come back inline, and no memory is exposed for them.
        boolean replyFitsInline = maxReply > 0
                && (long) RpcRdmaHeader.MIN_MSG_LENGTH + maxReply <= thresholds.receiveThreshold();
        int chunks = rdma && !replyFitsInline ? call.replyDdpItemCount() : 0;
        while (chunks > 0 && call.replyDdpItem(chunks - 1) == 0) {
            chunks--;
        }
        long ddpBytes = 0;
        int replyHeader = RpcRdmaHeader.MIN_MSG_LENGTH;
        for (int i = 0; i < chunks; i++) {
            ddpBytes += call.replyDdpItem(i);
            replyHeader += 4 + (call.replyDdpItem(i) > 0 ? 4 + RdmaSegment.ENCODED_LENGTH : 4);
        }
        // The reply's header returns the same Write list (RFC 8166 §3.4.6), so it counts against the threshold.
        boolean replyChunk = rdma && maxReply > 0 && (long) replyHeader + maxReply > thresholds.receiveThreshold();
        if (ddpBytes + (replyChunk ? maxReply : 0) > Integer.MAX_VALUE - 8) {
            throw new IOException("reply hints of " + ddpBytes + " + " + maxReply + " bytes are too large");
        }
        // Write and Reply chunks share one region exposed for remote write only.
        if (ddpBytes > 0 || replyChunk) {
            ByteBuf region = ctx.alloc().directBuffer((int) ddpBytes + (replyChunk ? maxReply : 0));
            region.writeZero(region.capacity());
            rpc.exposure.write = CallExposure.expose(ctx, region, RdmaAccess.REMOTE_WRITE);
            CallExposure.Region w = rpc.exposure.write;
            List<WriteChunk> writeList = new ArrayList<>(chunks);
            rpc.writeOffsets = new int[chunks];
            int offset = 0;
            for (int i = 0; i < chunks; i++) {
                int size = call.replyDdpItem(i);
                writeList.add(size > 0 ? WriteChunk.of(new RdmaSegment(w.rkey, size, w.address + offset))
                        : new WriteChunk(List.of()));
                rpc.writeOffsets[i] = offset;
                offset += size;
            }
            rpc.writeList = writeList;
            if (replyChunk) {
                rpc.replyChunk = WriteChunk.of(new RdmaSegment(w.rkey, maxReply, w.address + offset));
                rpc.replyOffset = offset;
            }
        }
        int credit = credits.maxRequests();
        int inline = payload.inlineLength();
        RpcRdmaHeader header = RpcRdmaHeader.msg(call.xid(), credit, List.of(), rpc.writeList, rpc.replyChunk);
        if ((long) header.encodedLength() + inline <= sendThreshold) {
            ByteBuf send = ctx.alloc().directBuffer(header.encodedLength() + inline);
            RpcRdmaHeaderEncoder.encode(header, send);
            payload.writeInline(send);
            return send;
        }
        if (!rdma) {
            throw new IOException("call of " + inline + " bytes exceeds the inline threshold " + sendThreshold
                    + " and chunks need an RdmaChannel");
        }
        List<DdpItem> items = payload.ddpItems();
        long itemBytes = 0;
        for (DdpItem item : items) {
            itemBytes += item.length();
        }
        int reduced = payload.reducedLength();
        long readHeader = header.encodedLength() + (long) items.size() * (4 + ReadSegment.ENCODED_LENGTH);
        if (itemBytes > 0 && readHeader + reduced <= sendThreshold) {
            // RFC 8166 §3.4.5: each DDP-eligible item moves into a Read chunk at its XDR position, no pad.
            ByteBuf region = ctx.alloc().directBuffer((int) itemBytes);
            for (DdpItem item : items) {
                region.writeBytes(item.data(), item.data().readerIndex(), item.length());
            }
            rpc.exposure.read = CallExposure.expose(ctx, region, RdmaAccess.REMOTE_READ);
            CallExposure.Region r = rpc.exposure.read;
            List<ReadSegment> reads = new ArrayList<>(items.size());
            long offset = 0;
            for (DdpItem item : items) {
                reads.add(new ReadSegment(item.position(), new RdmaSegment(r.rkey, item.length(), r.address + offset)));
                offset += item.length();
                stats.recordReadChunk();
            }
            header = RpcRdmaHeader.msg(call.xid(), credit, reads, rpc.writeList, rpc.replyChunk);
            ByteBuf send = ctx.alloc().directBuffer(header.encodedLength() + reduced);
            RpcRdmaHeaderEncoder.encode(header, send);
            payload.writeReduced(send);
            return send;
        }
        // RFC 8166 §3.5.3 Long Call: the whole message in a position-zero Read chunk.
        ByteBuf region = ctx.alloc().directBuffer(inline);
        payload.writeInline(region);
        rpc.exposure.read = CallExposure.expose(ctx, region, RdmaAccess.REMOTE_READ);
        CallExposure.Region r = rpc.exposure.read;
        header = RpcRdmaHeader.nomsg(call.xid(), credit,
                List.of(new ReadSegment(0, new RdmaSegment(r.rkey, inline, r.address))), rpc.writeList,
                rpc.replyChunk);
        if (header.encodedLength() > sendThreshold) {
            throw new IOException("even a Long Call header exceeds the inline threshold " + sendThreshold);
        }
        stats.recordLongCall();
        stats.recordReadChunk();
        ByteBuf send = ctx.alloc().directBuffer(header.encodedLength());
        RpcRdmaHeaderEncoder.encode(header, send);
        return send;
    }

    // ------------------------------------------------------------------ replies

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RdmaReceive)) {
            ctx.fireChannelRead(msg);
            return;
        }
        RdmaReceive r = (RdmaReceive) msg;
        try {
            onReply(ctx, r);
        } catch (Throwable t) {
            logger.warn("{} closing after an unexpected error handling a reply", ctx.channel(), t);
            ctx.close();
        } finally {
            r.release();
        }
    }

    private void onReply(ChannelHandlerContext ctx, RdmaReceive r) {
        ByteBuf in = r.content();
        RpcRdmaHeader header;
        try {
            header = decoder.decode(in);
        } catch (RpcRdmaHeaderException e) {
            // RFC 8166 §4.5: errors in the header of a reply are silently discarded.
            discard(ctx, "malformed reply header: " + e.getMessage());
            return;
        }
        PendingRpc rpc = rpcs.get(header.xid());
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
            rpcs.remove(rpc.xid);
            stats.recordErrorReceived();
            rpc.exposure.finish(true, invalidated, invalidatedRkey, stats);
            logger.debug("{} RDMA_ERROR {} for xid {}", ctx.channel(), header.errorCode(),
                    Integer.toUnsignedString(rpc.xid));
            credits.onReply(header.credits());
            RpcRdmaErrorException error = new RpcRdmaErrorException(rpc.xid, header.errorCode(), header.lowVersion(),
                    header.highVersion());
            // The RPC layer fails this call with the typed exception itself; then the transaction's promise.
            ctx.fireUserEventTriggered(new RpcCallFailedEvent(rpc.xid, error));
            rpc.promise.tryFailure(error);
            drain(ctx);
            return;
        }
        String problem = checkShape(rpc, header, in);
        if (problem != null) {
            discard(ctx, "reply to xid " + Integer.toUnsignedString(rpc.xid) + " " + problem);
            return;
        }
        rpcs.remove(rpc.xid);
        credits.onReply(header.credits());
        ByteBuf stream;
        CallExposure.Region w = rpc.exposure.write;
        if (RdmaProcedure.RDMA_NOMSG.equals(header.procedure())) {
            stream = w.buffer.retainedSlice(rpc.replyOffset, (int) header.replyChunk().totalLength());
            stats.recordLongReply();
        } else {
            stream = in.retainedSlice();
        }
        // One placement slot per Write chunk, in order (RFC 8166 §4.3.2.1): a chunk returned empty or unused
        // placed nothing and its item is inline (§3.4.6, §4.3.2.2, §4.3.2.3).
        List<ByteBuf> placed = new ArrayList<>(header.writeList().size());
        for (int i = 0; i < header.writeList().size(); i++) {
            long used = header.writeList().get(i).totalLength();
            if (used > 0) {
                placed.add(w.buffer.retainedSlice(rpc.writeOffsets[i], (int) used));
                stats.recordWriteChunkUsed();
            } else {
                placed.add(Unpooled.EMPTY_BUFFER);
            }
        }
        // Invalidate before the data is used (RFC 8166 §3.4.5.1 / RFC 8797 §3.2).
        rpc.exposure.finish(true, invalidated, invalidatedRkey, stats);
        rpc.promise.trySuccess();
        InboundRpcMessage message;
        try {
            message = RpcMessageCodec.decode(stream, placed);
        } catch (XdrException e) {
            rpcStats.recordMalformedMessage();
            logger.warn("{} dropped an undecodable reply to xid {}: {}", ctx.channel(),
                    Integer.toUnsignedString(rpc.xid), e.getMessage());
            drain(ctx);
            return;
        }
        ctx.fireChannelRead(message);
        drain(ctx);
    }

    /** Null if the reply fits what the call provided, else what is wrong (RFC 8166 §3.4.6, §4.5). */
    private static String checkShape(PendingRpc rpc, RpcRdmaHeader header, ByteBuf in) {
        if (!header.readList().isEmpty()) {
            return "carries a Read list";
        }
        if (header.writeList().size() != rpc.writeList.size()) {
            return "returns " + header.writeList().size() + " Write chunks; the call provided "
                    + rpc.writeList.size();
        }
        for (int i = 0; i < header.writeList().size(); i++) {
            String p = checkChunk(rpc.writeList.get(i), header.writeList().get(i), "Write chunk " + i);
            if (p != null) {
                return p;
            }
        }
        boolean nomsg = RdmaProcedure.RDMA_NOMSG.equals(header.procedure());
        if (header.replyChunk() != null) {
            if (rpc.replyChunk == null) {
                return "returns a Reply chunk the call did not provide";
            }
            String p = checkChunk(rpc.replyChunk, header.replyChunk(), "Reply chunk");
            if (p != null) {
                return p;
            }
        }
        if (nomsg) {
            if (header.replyChunk() == null) {
                return "is RDMA_NOMSG without a Reply chunk";
            }
            if (in.isReadable()) {
                return "is RDMA_NOMSG followed by inline bytes";
            }
            long length = header.replyChunk().totalLength();
            ByteBuf b = rpc.exposure.write.buffer;
            if (length < 4 || b.getInt(b.readerIndex() + rpc.replyOffset) != rpc.xid) {
                return "has a Reply chunk whose RPC xid differs from rdma_xid";
            }
        } else if (in.readableBytes() < 4 || in.getInt(in.readerIndex()) != rpc.xid) {
            return "has an RPC message whose xid differs from rdma_xid";
        }
        return null;
    }

    private static String checkChunk(WriteChunk provided, WriteChunk returned, String what) {
        if (returned.segments().size() != provided.segments().size()) {
            return what + " has " + returned.segments().size() + " segments; the call provided "
                    + provided.segments().size();
        }
        for (int i = 0; i < provided.segments().size(); i++) {
            RdmaSegment p = provided.segments().get(i);
            RdmaSegment s = returned.segments().get(i);
            if (s.handle() != p.handle() || s.offset() != p.offset()) {
                return what + " segment " + i + " names memory the call did not provide";
            }
            if (s.unsignedLength() > p.unsignedLength()) {
                return what + " segment " + i + " is " + s.unsignedLength() + " bytes, longer than the "
                        + p.unsignedLength() + " provisioned";
            }
        }
        return null;
    }

    private void discard(ChannelHandlerContext ctx, String why) {
        stats.recordDiscarded();
        logger.warn("{} discarded a reply (RFC 8166 §4.5): {}", ctx.channel(), why);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        inactive = true;
        ClosedChannelException closed = new ClosedChannelException();
        for (PendingRpc rpc : rpcs.values()) {
            rpc.exposure.finish(false, false, 0, stats);
            rpc.promise.tryFailure(closed);
        }
        rpcs.clear();
        QueuedCall q;
        while ((q = queue.poll()) != null) {
            q.message.release();
            q.promise.tryFailure(closed);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        QueuedCall q;
        while ((q = queue.poll()) != null) {
            q.message.release();
            q.promise.tryFailure(new ClosedChannelException());
        }
    }

    private static final class QueuedCall {
        final OutboundRpcMessage message;
        final ChannelPromise promise;

        QueuedCall(OutboundRpcMessage message, ChannelPromise promise) {
            this.message = message;
            this.promise = promise;
        }
    }

    /** One call sent and not yet answered. */
    private static final class PendingRpc {
        final int xid;
        final ChannelPromise promise;
        final CallExposure exposure = new CallExposure();
        List<WriteChunk> writeList = List.of();
        int[] writeOffsets = new int[0];
        WriteChunk replyChunk;
        int replyOffset;

        PendingRpc(int xid, ChannelPromise promise) {
            this.xid = xid;
            this.promise = promise;
        }
    }
}
