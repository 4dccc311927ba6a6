package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;

import java.util.ArrayList;
import java.util.List;

/**
 * One forward call of a requester, from its write to its reply: the per-call context the requester's call table
 * holds by xid. While it waits for a credit it holds the RPC message; once sent, what {@link CallReduction} made of
 * it: its exposure (the memory the responder may reach), the Write list and Reply chunk it provisioned and where
 * each lies in the write region. It checks a reply's transport header against what it provided (RFC 8166 §3.4.6,
 * §4.5), cuts the reply's stream and placed items out of its memory, and listens to its Send's write promise so a
 * Send that fails gives its credit and exposure back. Pooled per requester (no allocation per call): it
 * counts what may still reach it and goes back to the requester's free list only when nothing can, see
 * {@link #release()}. Event-loop confined, like its requester.
 */
final class RequesterCall implements ChannelFutureListener {

    private static final int[] NO_OFFSETS = new int[0];

    private final RpcRdmaRequester requester;
    int xid;
    /** The Send's write promise: completes when the Send is written (posted), not when the reply arrives. */
    ChannelPromise promise;
    /** The call while it is queued for a credit or for registered memory; null once sent. */
    private OutboundRpcMessage message;
    final CallExposure exposure = new CallExposure(this);
    List<WriteChunk> writeList = List.of();
    int[] writeOffsets = NO_OFFSETS;
    WriteChunk replyChunk;
    /** The call's own maximum reply size ({@code RpcCall.maxReplySize()}; 0: none declared). */
    int declaredMaxReply;
    int replyOffset;
    /**
     * What may still reach this call: the requester (while the call is queued or outstanding), its Send's promise
     * (until that completes) and each deferred completion of its exposure (a bind or Local Invalidate not yet
     * reaped). At zero nothing can, and the object goes back to its requester's free list for another call.
     */
    private int refs;

    RequesterCall(RpcRdmaRequester requester) {
        this.requester = requester;
    }

    /** Starts a call (a new or recycled object): the requester holds it. */
    RequesterCall init(OutboundRpcMessage message, ChannelPromise promise) {
        this.xid = message.header().xid();
        this.message = message;
        this.promise = promise;
        this.refs = 1;
        return this;
    }

    /** One more holder: the Send's promise listener, or a deferred exposure completion. */
    void retain() {
        refs++;
    }

    /** A holder let go; the last one recycles the call. */
    void release() {
        if (refs <= 0) {
            throw new IllegalStateException("RequesterCall released more often than retained (xid "
                    + Integer.toUnsignedString(xid) + ")");
        }
        if (--refs == 0) {
            message = null;
            promise = null;
            exposure.reset();
            writeList = List.of();
            writeOffsets = NO_OFFSETS;
            replyChunk = null;
            replyOffset = 0;
            requester.recycle(this);
        }
    }

    /** The queued message, handed over to the caller (which then owns it). */
    OutboundRpcMessage takeMessage() {
        OutboundRpcMessage m = message;
        message = null;
        return m;
    }

    /** Keeps the call's message (takes it back) while it waits for registered memory. */
    void keepMessage(OutboundRpcMessage message) {
        this.message = message;
    }

    /** Fails a call that was never sent: releases its message, fails its promise; the requester lets go of it. */
    void failQueued(Throwable cause) {
        OutboundRpcMessage m = takeMessage();
        if (m != null) {
            m.release();
        }
        ChannelPromise p = promise;
        release();
        if (!p.isVoid()) {
            p.tryFailure(cause); // a void promise's call fails with the connection (the RPC layer's close)
        }
    }

    /** The Send's completion: a Send that failed gives back what the call holds; the promise lets go of it. */
    @Override
    public void operationComplete(ChannelFuture future) {
        try {
            if (!future.isSuccess()) {
                requester.sendFailed(this);
            }
        } finally {
            release();
        }
    }

    /** Null if the reply fits what the call provided, else what is wrong (RFC 8166 §3.4.6, §4.5). */
    String checkReply(RpcRdmaHeader header, ByteBuf in) {
        if (!header.readList().isEmpty()) {
            return "carries a Read list";
        }
        if (header.writeList().size() != writeList.size()) {
            return "returns " + header.writeList().size() + " Write chunks; the call provided " + writeList.size();
        }
        for (int i = 0; i < header.writeList().size(); i++) {
            String p = checkChunk(writeList.get(i), header.writeList().get(i), "Write chunk " + i);
            if (p != null) {
                return p;
            }
        }
        boolean nomsg = RdmaProcedure.RDMA_NOMSG.equals(header.procedure());
        if (header.replyChunk() != null) {
            if (replyChunk == null) {
                return "returns a Reply chunk the call did not provide";
            }
            String p = checkChunk(replyChunk, header.replyChunk(), "Reply chunk");
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
            ByteBuf b = exposure.write.buffer;
            if (length < 4 || b.getInt(b.readerIndex() + replyOffset) != xid) {
                return "has a Reply chunk whose RPC xid differs from rdma_xid";
            }
        } else if (in.readableBytes() < 4 || in.getInt(in.readerIndex()) != xid) {
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

    /**
     * The reply's RPC message (retained): the Reply chunk's bytes of an RDMA_NOMSG (Long Reply, RFC 8166 §3.5.3),
     * else what followed the header inline. Only after {@link #checkReply} passed.
     */
    ByteBuf replyStream(RpcRdmaHeader header, ByteBuf in, RpcRdmaStats stats) {
        if (RdmaProcedure.RDMA_NOMSG.equals(header.procedure())) {
            stats.recordLongReply();
            return exposure.write.buffer.retainedSlice(replyOffset, (int) header.replyChunk().totalLength());
        }
        return in.retain(); // the receive's own buffer, positioned after the transport header: no slice object
    }

    /**
     * One placement slot per Write chunk, in order (RFC 8166 §4.3.2.1), each retained: a chunk returned empty or
     * unused placed nothing and its item is inline (§3.4.6, §4.3.2.2, §4.3.2.3). Only after {@link #checkReply}.
     */
    List<ByteBuf> placedItems(RpcRdmaHeader header, RpcRdmaStats stats) {
        List<WriteChunk> returned = header.writeList();
        if (returned.isEmpty()) {
            return List.of();
        }
        List<ByteBuf> placed = new ArrayList<>(returned.size());
        for (int i = 0; i < returned.size(); i++) {
            long used = returned.get(i).totalLength();
            if (used > 0) {
                placed.add(exposure.write.buffer.retainedSlice(writeOffsets[i], (int) used));
                stats.recordWriteChunkUsed();
            } else {
                placed.add(Unpooled.EMPTY_BUFFER);
            }
        }
        return placed;
    }
}
