package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaAccess;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.SendBuffer;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.DdpItem;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Chunk reduction of one call (RFC 8166 §3.5): decides how a call travels and builds its Send (transport header and
 * inline part), placing its chunks in the connection's registered memory pool (a DDP-eligible item already there
 * is not copied), exposing them through {@link CallExposure} and recording in its {@link RequesterCall}
 * the Write list and Reply chunk provisioned. Inline (RDMA_MSG) when it fits the send threshold; else with its
 * DDP-eligible items in Read chunks (§3.4.5); else a Long Call (§3.5.3). Without an {@link RdmaConnection} (a
 * channel that is not RDMA) every message is inline and one too large fails. Event-loop confined, one per requester.
 */
final class CallReduction {

    private final RdmaConnection connection;
    private final WindowCache windows;
    /**
     * How chunk memory is exposed on this connection, chosen at its first chunk (the device is known only once the
     * connection is up: the requester is made before).
     */
    private ChunkRegistration registration;
    private final RpcRdmaStats stats;
    /** The reply size assumed for a call that gives none ({@code RpcRdmaConfig.maxReplySize()}). */
    private final int defaultMaxReply;
    /** The buffer of inline calls, reused from one posted Send to the next. */
    private final SendBuffer sendBuffer = new SendBuffer();

    /** {@code connection} null: no chunks, inline only. */
    CallReduction(RdmaConnection connection, WindowCache windows, RpcRdmaStats stats, int defaultMaxReply) {
        this.connection = connection;
        this.windows = windows;
        this.stats = stats;
        this.defaultMaxReply = defaultMaxReply;
    }

    private ChunkRegistration registration() {
        ChunkRegistration r = registration;
        if (r == null) {
            registration = r = ChunkRegistration.of(connection, windows);
        }
        return r;
    }

    /** The requester is done with the connection: the kept Send buffer goes. */
    void release() {
        sendBuffer.release();
    }

    /** The largest reply {@code call} provisions for: its own hint, else the connection's configured maximum. */
    int maxReply(RpcCall call) {
        return call.maxReplySize() > 0 ? call.maxReplySize() : defaultMaxReply;
    }

    /**
     * Builds the Send of {@code call} (the caller owns it) and exposes its memory into {@code rpc}; binds are
     * written (not flushed) ahead of the Send. Returns null when the connection's registered memory pool cannot
     * hold the call's chunks now: the caller finishes what was exposed and tries again when memory was released
     * (back-pressure, never a failure). On failure what was exposed is left in {@code rpc} for the caller to finish.
     */
    ByteBuf reduce(ChannelHandlerContext ctx, InlineThresholds thresholds, int credit, RpcCall call,
                   OutboundRpcMessage message, RequesterCall rpc) throws IOException {
        boolean rdma = connection != null;
        int sendThreshold = thresholds.sendThreshold();
        // RFC 8166 §4.3.2.1: one Write chunk per expected DDP-eligible result item, in order. Trailing items hinted 0
        // need no chunk (items beyond the Write list are inline); earlier ones get an empty chunk (§4.3.2.3).
        // Transport neutrality: without a hint the reply may be as large as the connection's configured maximum, so
        // a Reply chunk of that size is offered (RFC 8166 §3.5.4) and any reply up to it arrives.
        int maxReply = maxReply(call);
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
        if ((ddpBytes > 0 || replyChunk)
                && !provisionReply(ctx, call, chunks, (int) ddpBytes, replyChunk ? maxReply : 0, rpc)) {
            return null;
        }
        boolean noChunks = rpc.writeList.isEmpty() && rpc.replyChunk == null;
        if (noChunks && PlainWords.isCommonCall(call)) {
            // The commonest call (AUTH_NONE, no chunk): both headers stored in one pass, then the arguments.
            XdrPayload args = message.body();
            long length = (long) PlainWords.CALL_HEADERS + args.inlineLength();
            if (length <= sendThreshold) {
                ByteBuf send = sendBuffer.take(ctx.alloc(), (int) length);
                PlainWords.writeCall(credit, call, send);
                args.writeInline(send);
                return send;
            }
        }
        int inline = RpcMessageCodec.inlineLength(message);
        if (noChunks && (long) RpcRdmaHeader.MIN_MSG_LENGTH + inline <= sendThreshold) {
            // The common call: no chunk at all, header and message written straight into the Send (one copy).
            ByteBuf send = sendBuffer.take(ctx.alloc(), RpcRdmaHeader.MIN_MSG_LENGTH + inline);
            RpcRdmaHeaderEncoder.encodePlainMsg(call.xid(), credit, send);
            RpcMessageCodec.writeInline(message, send);
            return send;
        }
        RpcRdmaHeader header = RpcRdmaHeader.msg(call.xid(), credit, List.of(), rpc.writeList, rpc.replyChunk);
        if ((long) header.encodedLength() + inline <= sendThreshold) {
            ByteBuf send = sendBuffer.take(ctx.alloc(), header.encodedLength() + inline);
            RpcRdmaHeaderEncoder.encode(header, send);
            RpcMessageCodec.writeInline(message, send);
            return send;
        }
        if (!rdma) {
            throw new IOException("call of " + inline + " bytes exceeds the inline threshold " + sendThreshold
                    + " and chunks need an RDMA connection");
        }
        XdrPayload payload = RpcMessageCodec.encode(ctx.alloc(), message);
        try {
            return reduceToChunks(ctx, credit, call, payload, header, inline, sendThreshold, rpc);
        } finally {
            payload.release();
        }
    }

    /** The call does not fit inline: its DDP-eligible items in Read chunks, or the whole of it (Long Call). */
    private ByteBuf reduceToChunks(ChannelHandlerContext ctx, int credit, RpcCall call, XdrPayload payload,
                                   RpcRdmaHeader header, int inline, int sendThreshold, RequesterCall rpc)
            throws IOException {
        List<DdpItem> items = payload.ddpItems();
        long itemBytes = 0;
        for (DdpItem item : items) {
            itemBytes += item.length();
        }
        int reduced = payload.reducedLength();
        long readHeader = header.encodedLength() + (long) items.size() * (4 + ReadSegment.ENCODED_LENGTH);
        if (itemBytes > 0 && readHeader + reduced <= sendThreshold) {
            // RFC 8166 §3.4.5: each DDP-eligible item moves into a Read chunk at its XDR position, no pad. One item
            // already in the pool (the application allocated it there) is exposed where it is: zero copies.
            ByteBuf region = poolSlice(items);
            if (region == null) {
                region = connection.memoryPool().tryAllocate((int) itemBytes);
                if (region == null) {
                    return null;
                }
                for (DdpItem item : items) {
                    region.writeBytes(item.data(), item.data().readerIndex(), item.length());
                }
            }
            rpc.exposure.read = rpc.exposure.expose(ctx, registration(), region, RdmaAccess.REMOTE_READ);
            ChunkRegistration.Region r = rpc.exposure.read;
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
        ByteBuf region = connection.memoryPool().tryAllocate(inline);
        if (region == null) {
            return null;
        }
        payload.writeInline(region);
        rpc.exposure.read = rpc.exposure.expose(ctx, registration(), region, RdmaAccess.REMOTE_READ);
        ChunkRegistration.Region r = rpc.exposure.read;
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

    /**
     * Exposes one zeroed region for remote write holding the {@code chunks} Write chunks (item i hinted
     * {@code call.replyDdpItem(i)}; 0 gives an empty chunk, RFC 8166 §4.3.2.3) and then, if {@code replyBytes} is
     * not 0, the Reply chunk.
     */
    private boolean provisionReply(ChannelHandlerContext ctx, RpcCall call, int chunks, int ddpBytes, int replyBytes,
                                   RequesterCall rpc) throws IOException {
        ByteBuf region = connection.memoryPool().tryAllocate(ddpBytes + replyBytes);
        if (region == null) {
            return false;
        }
        // Write chunks zeroed; the Reply chunk is only ever read where the responder says it wrote (RFC 8166 §3.4.6)
        // and the peer cannot read it (remote write only), so its up to maxReplySize bytes are not cleared per call.
        region.writeZero(ddpBytes);
        region.writerIndex(ddpBytes + replyBytes);
        rpc.exposure.write = rpc.exposure.expose(ctx, registration(), region, RdmaAccess.REMOTE_WRITE);
        ChunkRegistration.Region w = rpc.exposure.write;
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
        if (replyBytes > 0) {
            rpc.replyChunk = WriteChunk.of(new RdmaSegment(w.rkey, replyBytes, w.address + offset));
            rpc.replyOffset = offset;
        }
        return true;
    }

    /**
     * A retained slice of the only DDP-eligible item if its bytes already lie in the connection's memory pool (the
     * application wrote them into a buffer of {@code memoryPool().allocator()}), else null.
     */
    private ByteBuf poolSlice(List<DdpItem> items) {
        if (items.size() != 1) {
            return null;
        }
        DdpItem item = items.get(0);
        ByteBuf data = item.data().slice(item.data().readerIndex(), item.length());
        return connection.memoryPool().memoryOf(data) != null ? data.retain() : null;
    }
}
