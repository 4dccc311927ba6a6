package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaSend;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.SendBuffer;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.DdpItem;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.util.List;

/**
 * The sending half of a {@link RpcRdmaResponder} (Linux's svc_rdma_sendto.c to its svc_rdma_recvfrom.c): builds and
 * posts the reply to a call received on the connection: inline in an RDMA_MSG (RFC 8166 §4.1), DDP-eligible items in
 * the call's Write chunks by RDMA Write (§3.4.5, §4.3.2), the rest in its Reply chunk as an RDMA_NOMSG Long Reply
 * (§3.5.4), or an RDMA_ERROR when the reply cannot be conveyed (§4.5.3); a Send With Invalidate of the call's one
 * handle when both peers set the R bit (RFC 8797 §4.1). Each message carries the responder's credit grant. Confined
 * to the responder's event loop, as the responder is.
 */
final class ReplySender {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaResponder.class);

    private final RpcRdmaResponder responder;
    private final InlineThresholds thresholds;
    private final RdmaConnection connection;
    private final RpcRdmaStats stats;
    private final ChunkMover mover;
    /** The buffer of inline replies, reused from one posted Send to the next. */
    private final SendBuffer sendBuffer = new SendBuffer();

    ReplySender(RpcRdmaResponder responder, InlineThresholds thresholds, RdmaConnection connection,
                RpcRdmaStats stats, ChunkMover mover) {
        this.responder = responder;
        this.mover = mover;
        this.thresholds = thresholds;
        this.connection = connection;
        this.stats = stats;
    }

    /**
     * The common reply: the call offered no Write chunk and the reply fits inline, so the transport header and the
     * RPC message go straight into the Send (one copy, no intermediate stream). Consumes {@code reply}.
     */
    void sendInline(ChannelHandlerContext ctx, ResponderCall call, OutboundRpcMessage reply, int inline,
                            ChannelPromise promise) {
        ByteBuf send = null;
        try {
            send = sendBuffer.take(ctx.alloc(), RpcRdmaHeader.MIN_MSG_LENGTH + inline);
            RpcRdmaHeaderEncoder.encodePlainMsg(call.xid(), responder.grant(call.credits), send);
            RpcMessageCodec.writeInline(reply, send);
        } catch (Throwable t) {
            notSent(ctx, call, send, promise, t);
            return;
        } finally {
            reply.release();
        }
        send(ctx, call.header, send, promise, null);
    }

    /**
     * The built-in NULL procedure's reply (MSG_ACCEPTED SUCCESS, no results) to {@code call}, which offered no Write
     * chunk: the same Send as {@link #sendInline(ChannelHandlerContext, ResponderCall, OutboundRpcMessage, int,
     * ChannelPromise)} makes of that reply, written without it.
     */
    void sendEmptySuccess(ChannelHandlerContext ctx, ResponderCall call, ChannelPromise promise) {
        ByteBuf send = null;
        try {
            send = sendBuffer.take(ctx.alloc(), RpcRdmaHeader.MIN_MSG_LENGTH + RpcMessageCodec.EMPTY_SUCCESS_LENGTH);
            RpcRdmaHeaderEncoder.encodePlainMsg(call.xid(), responder.grant(call.credits), send);
            RpcMessageCodec.writeEmptySuccess(call.xid(), send);
        } catch (Throwable t) {
            notSent(ctx, call, send, promise, t);
            return;
        }
        send(ctx, call.header, send, promise, null);
    }

    /** A reply's Send that could not be built: released, the promise failed, the connection closed (RFC 8166 §4.5.4). */
    private void notSent(ChannelHandlerContext ctx, ResponderCall call, ByteBuf send, ChannelPromise promise,
                         Throwable t) {
        if (send != null) {
            send.release();
        }
        logger.warn("{} could not send the reply to xid {}; closing (RFC 8166 §4.5.4)", ctx.channel(),
                Integer.toUnsignedString(call.xid()), t);
        promise.tryFailure(t);
        responder.close(ctx);
    }

    /**
     * Byte framing's common reply: the whole RPC message {@code m} (owned), which fits inline with no Write chunk
     * offered, copied once after a plain RDMA_MSG header.
     */
    void sendInline(ChannelHandlerContext ctx, ResponderCall call, ByteBuf m, ChannelPromise promise) {
        int length = m.readableBytes();
        ByteBuf send;
        try {
            send = sendBuffer.take(ctx.alloc(), RpcRdmaHeader.MIN_MSG_LENGTH + length);
            RpcRdmaHeaderEncoder.encodePlainMsg(call.xid(), responder.grant(call.credits), send);
            send.writeBytes(m, m.readerIndex(), length);
        } finally {
            m.release();
        }
        send(ctx, call.header, send, promise, null);
    }

    void sendReply(ChannelHandlerContext ctx, ResponderCall call, XdrPayload payload,
                              ChannelPromise promise) throws IOException {
        RpcRdmaHeader request = call.header;
        int xid = call.xid();
        ReplyPlacement placement = new ReplyPlacement(request.writeList(), payload.ddpItems(),
                payload.inlineLength(), connection != null);
        int remainder = placement.remainder;
        int grant = responder.grant(call.credits);
        RpcRdmaHeader header = RpcRdmaHeader.msg(xid, grant, List.of(), placement.returned, null);
        WriteChunk replyChunk = request.replyChunk();
        boolean nomsg;
        if (header.encodedLength() + (long) remainder <= thresholds.sendThreshold()) {
            nomsg = false;
        } else if (connection != null && replyChunk != null && remainder <= replyChunk.totalLength()) {
            nomsg = true;
            header = RpcRdmaHeader.nomsg(xid, grant, List.of(), placement.returned,
                    ReplyPlacement.fill(replyChunk, remainder));
            stats.recordLongReply();
        } else {
            // RFC 8166 §4.5.3: the reply cannot be conveyed; report ERR_CHUNK instead of a broken Send.
            logger.warn("{} reply to xid {} is {} bytes inline (threshold {}) and the call provided {}; answering "
                            + "ERR_CHUNK", ctx.channel(), Integer.toUnsignedString(xid), remainder,
                    thresholds.sendThreshold(), replyChunk == null ? "no Reply chunk"
                            : "a Reply chunk of only " + replyChunk.totalLength() + " bytes");
            sendError(ctx, RpcRdmaHeader.errChunk(xid, grant));
            promise.tryFailure(new IOException("reply of " + remainder + " bytes exceeds the inline threshold "
                    + thresholds.sendThreshold() + " and no adequate Reply chunk was provided: sent ERR_CHUNK"));
            return;
        }
        int full = placement.full;
        if (placement.placed == 0 && !nomsg) {
            ByteBuf send = sendBuffer.take(ctx.alloc(), header.encodedLength() + full);
            RpcRdmaHeaderEncoder.encode(header, send);
            payload.writeInline(send);
            send(ctx, request, send, promise, null);
            return;
        }
        if (!nomsg && placement.placed == 1 && placement.items.size() == 1
                && connection.memoryPool().memoryOf(placement.items.get(0).data()) != null) {
            sendInPlace(ctx, call, payload, header, placement, promise);
            return;
        }
        // The whole inline stream in the connection's registered memory pool (local access only; nothing is
        // registered per reply); RDMA Writes push parts of it, written with the Send and flushed once: one chain.
        // A reply never waits for pool memory: calls being pulled may hold all of it until their replies are sent.
        // When the pool is exhausted, the region is registered for this reply alone (counted as a memory wait).
        // A Long Reply with no item in a Write chunk (every reply under RPCSEC_GSS integrity or privacy, RFC 8166
        // §8.2.2) is the inline stream itself: the Reply chunk is written from it, not from a second copy after it.
        boolean reducedCopy = nomsg && placement.placed > 0;
        ByteBuf region = connection.memoryPool().tryAllocate(full + (reducedCopy ? remainder : 0));
        RdmaMemory registered = null;
        if (region == null) {
            stats.recordMemoryWait();
            region = ctx.alloc().directBuffer(full + (reducedCopy ? remainder : 0));
        }
        payload.writeInline(region);
        int[] ranges = placement.inlineRanges();
        if (reducedCopy) {
            for (int i = 0; i < ranges.length; i += 2) {
                region.writeBytes(region, ranges[i], ranges[i + 1] - ranges[i]);
            }
        }
        RdmaMemory memory = connection.memoryPool().memoryOf(region);
        int base;
        if (memory != null) {
            base = (int) (region.memoryAddress() - memory.address());
        } else {
            try {
                memory = registered = connection.registerMemory(region, 0);
            } catch (IOException | RuntimeException e) {
                region.release();
                throw e;
            }
            base = 0;
        }
        for (int i = 0; i < placement.candidates; i++) {
            if (placement.inChunk[i]) {
                DdpItem item = placement.items.get(i);
                mover.push(ctx, memory, base + item.position(), item.length(), request.writeList().get(i));
                stats.recordWriteChunkUsed();
            }
        }
        ByteBuf send;
        if (nomsg) {
            mover.push(ctx, memory, base + (reducedCopy ? full : 0), remainder, replyChunk);
            send = ctx.alloc().directBuffer(header.encodedLength());
            RpcRdmaHeaderEncoder.encode(header, send);
        } else {
            send = ctx.alloc().directBuffer(header.encodedLength() + remainder);
            RpcRdmaHeaderEncoder.encode(header, send);
            for (int i = 0; i < ranges.length; i += 2) {
                send.writeBytes(region, ranges[i], ranges[i + 1] - ranges[i]);
            }
        }
        call.replying(region, registered);
        send(ctx, request, send, promise, call);
        return;
    }

    /**
     * The reply's one DDP-eligible item already lies in the connection's registered memory pool (typically the data
     * a Read chunk brought in, echoed or served back; or results the application wrote into
     * {@code memoryPool().allocator()}): its RDMA Writes go out of it where it is, zero copies (RFC 8166 §3.4.5),
     * and the Send carries the reduced stream (§3.4.6). The item's buffer is held until the Send, which follows the
     * Writes on the one send queue, completed.
     */
    private void sendInPlace(ChannelHandlerContext ctx, ResponderCall call, XdrPayload payload, RpcRdmaHeader header,
                             ReplyPlacement placement, ChannelPromise promise) {
        RpcRdmaHeader request = call.header;
        DdpItem item = placement.items.get(0);
        ByteBuf data = item.data();
        RdmaMemory memory = connection.memoryPool().memoryOf(data);
        int offset = (int) (data.memoryAddress() + data.readerIndex() - memory.address());
        // The Send first (nothing is posted if it cannot be built), then the call owns the item's memory before
        // any Write reads it: the payload is released when this returns, the Writes complete later.
        ByteBuf send = ctx.alloc().directBuffer(header.encodedLength() + payload.reducedLength());
        RpcRdmaHeaderEncoder.encode(header, send);
        payload.writeReduced(send);
        call.replying(data.retain(), null);
        mover.push(ctx, memory, offset, item.length(), request.writeList().get(0));
        stats.recordWriteChunkUsed();
        stats.recordWriteChunkInPlace();
        send(ctx, request, send, promise, call);
    }

    /** Writes and flushes the reply's Send; {@code memoryOwner} (if any) releases the reply's memory after it. */
    void send(ChannelHandlerContext ctx, RpcRdmaHeader request, ByteBuf send, ChannelPromise promise,
                      ResponderCall memoryOwner) {
        Object message = send;
        int rkey = thresholds.remoteInvalidation() ? ReplyPlacement.singleHandle(request) : 0;
        if (rkey != 0) {
            // RFC 8797 §4.1: both peers set R; the key belongs to this XID only.
            message = RdmaSend.withInvalidate(send, rkey);
            stats.recordRemoteInvalidation();
        }
        if (memoryOwner == null) {
            // A void promise stays void: nothing to give back after the Send. Straight to the channel's send queue
            // when the responder's write would go there anyway (RdmaConnection.sendDirect), else through the pipeline.
            if (connection == null || !connection.sendDirect(ctx, message, promise)) {
                ctx.writeAndFlush(message, promise);
            }
            return;
        }
        ChannelPromise p = promise.unvoid();
        ctx.writeAndFlush(message, p);
        p.addListener(memoryOwner);
    }

    /** The responder is done with the connection: the kept Send buffer goes. */
    void release() {
        sendBuffer.release();
    }

    void errChunk(ChannelHandlerContext ctx, RpcRdmaHeader call, String why) {
        errChunk(ctx, call.xid(), call.credits(), why);
    }

    void errChunk(ChannelHandlerContext ctx, int xid, int requested, String why) {
        logger.warn("{} answering ERR_CHUNK to xid {}: {}", ctx.channel(), Integer.toUnsignedString(xid), why);
        sendError(ctx, RpcRdmaHeader.errChunk(xid, responder.grant(requested)));
    }

    void sendError(ChannelHandlerContext ctx, RpcRdmaHeader error) {
        stats.recordErrorSent();
        ByteBuf buf = ctx.alloc().directBuffer(error.encodedLength());
        RpcRdmaHeaderEncoder.encode(error, buf);
        ctx.writeAndFlush(buf);
    }
}
