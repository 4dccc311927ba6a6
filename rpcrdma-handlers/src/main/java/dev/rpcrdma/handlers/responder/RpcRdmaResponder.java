package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaRead;
import dev.rpcrdma.channel.RdmaReceive;
import dev.rpcrdma.channel.RdmaSend;
import dev.rpcrdma.channel.RdmaWrite;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.credits.ResponderCredits;
import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderDecoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderException;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.DdpItem;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The responder (server) side of RPC-over-RDMA Version 1 on one connection, between an {@link RdmaChannel} and the
 * transport-agnostic {@code RpcDispatcher}.
 *
 * <p>Inbound: each {@link RdmaReceive} is a transport header (RFC 8166 §4.1) checked by
 * {@link RpcRdmaHeaderDecoder}; shorter than 28 bytes it is silently discarded (logged, counted); a bad version is
 * answered with RDMA_ERROR ERR_VERS 1..1 and any other header or chunk error with ERR_CHUNK (RFC 8166 §4.5). A call
 * beyond every credit grant closes the connection ({@link ResponderCredits}). Read chunks are pulled with RDMA Read
 * into memory registered for local write only, reassembled with their XDR pads ({@link CallReassembly}) and the
 * stream decoded by {@link RpcMessageCodec}; its XID must equal the header's.
 *
 * <p>Outbound: the {@link OutboundRpcMessage} reply of a call received here. DDP-eligible result item i goes into
 * the call's Write chunk i with RDMA Write (RFC 8166 §4.3.2.1: the requester matches chunks to items by position);
 * an item whose chunk is empty (RFC 8166 §4.3.2.3) or too small stays inline and that chunk comes back empty or
 * with zero lengths, as does a chunk with no item (RFC 8166 §3.4.6, §4.3.2.2). The rest is sent inline
 * (RDMA_MSG) when it fits the server-to-client inline threshold, else written into the Reply chunk (RDMA_NOMSG,
 * Long Reply); with no or too small a Reply chunk the call is answered with ERR_CHUNK (RFC 8166 §4.5.3) and logged.
 * When both peers set the R bit and every segment of the call names one handle, the reply is a Send With
 * Invalidate of that handle (RFC 8797 §4.1).
 *
 * <p>Event-loop confined; not sharable.
 */
public final class RpcRdmaResponder extends ChannelDuplexHandler {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaResponder.class);

    private final RpcRdmaConfig config;
    private final InlineThresholds thresholds;
    private final RpcRdmaStats stats;
    private final RpcStats rpcStats;
    private final RpcRdmaHeaderDecoder decoder;
    private final ResponderCredits credits;
    private final Map<Integer, RpcRdmaHeader> calls = new HashMap<>();
    private boolean closed;

    /**
     * @param thresholds the negotiated inline thresholds (this side's send threshold is server-to-client)
     */
    public RpcRdmaResponder(RpcRdmaConfig config, InlineThresholds thresholds, RpcRdmaStats stats,
                            RpcStats rpcStats) {
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.thresholds = ObjectUtil.checkNotNull(thresholds, "thresholds");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.rpcStats = ObjectUtil.checkNotNull(rpcStats, "rpcStats");
        this.decoder = new RpcRdmaHeaderDecoder(config.limits());
        this.credits = new ResponderCredits(config.minGrant(), config.maxGrant());
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
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RdmaReceive)) {
            ctx.fireChannelRead(msg);
            return;
        }
        RdmaReceive r = (RdmaReceive) msg;
        try {
            if (!closed) {
                onReceive(ctx, r.content());
            }
        } catch (Throwable t) {
            logger.warn("{} closing after an unexpected error handling a call", ctx.channel(), t);
            close(ctx);
        } finally {
            r.release();
        }
    }

    private void onReceive(ChannelHandlerContext ctx, ByteBuf in) {
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
                sendError(ctx, e.errorReply(grant(ctx, requested)));
            }
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
            errChunk(ctx, header, "a call with this xid is already in progress");
            return;
        }
        CallReassembly plan;
        try {
            plan = CallReassembly.plan(header, inline, config.maxMessageSize());
        } catch (RpcRdmaHeaderException e) {
            errChunk(ctx, header, e.getMessage());
            return;
        }
        boolean nomsg = RdmaProcedure.RDMA_NOMSG.equals(header.procedure());
        if (!nomsg && (inline < 4 || in.getInt(in.readerIndex()) != xid)) {
            // RFC 8166 §4.5.2: rdma_xid must match the XID of the RPC message.
            errChunk(ctx, header, inline < 4 ? "no RPC message follows the header"
                    : "rdma_xid differs from the RPC message's xid " + Integer.toUnsignedString(
                    in.getInt(in.readerIndex())));
            return;
        }
        calls.put(xid, header);
        if (header.readList().isEmpty()) {
            deliver(ctx, header, in.retainedSlice());
            return;
        }
        if (!(ctx.channel() instanceof RdmaChannel)) {
            errChunk(ctx, header, "Read chunks need an RDMA channel");
            return;
        }
        pull(ctx, header, plan, nomsg ? null : in.retainedSlice());
    }

    /** Issues the RDMA Reads of every chunk into one buffer registered for local write only. */
    private void pull(ChannelHandlerContext ctx, RpcRdmaHeader header, CallReassembly plan, ByteBuf inline) {
        RdmaChannel ch = (RdmaChannel) ctx.channel();
        int total = (int) plan.totalRead;
        List<ReadChunk> all = new ArrayList<>(plan.inserted.size() + 1);
        if (plan.positionZero != null) {
            all.add(plan.positionZero);
            stats.recordLongCall();
        }
        all.addAll(plan.inserted);
        if (total == 0) {
            finishPull(ctx, header, plan, inline, ctx.alloc().directBuffer(0), all);
            return;
        }
        ByteBuf target = ctx.alloc().directBuffer(total);
        target.writerIndex(total);
        RdmaMemory memory;
        try {
            memory = ch.registerMemory(target, 0);
        } catch (IOException | RuntimeException e) {
            target.release();
            ReferenceCountUtil.release(inline);
            logger.warn("{} cannot register memory for Read chunks; closing (RFC 8166 §4.5.4)", ctx.channel(), e);
            close(ctx);
            return;
        }
        List<ChannelFuture> reads = new ArrayList<>();
        int offset = 0;
        for (ReadChunk c : all) {
            stats.recordReadChunk();
            for (RdmaSegment s : c.segments()) {
                if (s.length() != 0) {
                    reads.add(ctx.write(new RdmaRead(memory, offset, s.length(), s.offset(), s.handle())));
                    offset += s.length();
                }
            }
        }
        ctx.flush();
        int[] remaining = {reads.size()};
        boolean[] failed = {false};
        for (ChannelFuture f : reads) {
            f.addListener(done -> {
                if (!done.isSuccess() && !failed[0]) {
                    failed[0] = true;
                    logger.warn("{} an RDMA Read of xid {} failed: {}", ctx.channel(),
                            Integer.toUnsignedString(header.xid()), done.cause().toString());
                }
                if (--remaining[0] == 0) {
                    memory.deregister();
                    if (failed[0] || closed) {
                        // RFC 8166 §4.5.3: RDMA errors are fatal to the connection.
                        target.release();
                        ReferenceCountUtil.release(inline);
                        calls.remove(header.xid());
                        close(ctx);
                    } else {
                        finishPull(ctx, header, plan, inline, target, all);
                    }
                }
            });
        }
    }

    private void finishPull(ChannelHandlerContext ctx, RpcRdmaHeader header, CallReassembly plan, ByteBuf inline,
                            ByteBuf target, List<ReadChunk> all) {
        try {
            int offset = 0;
            ByteBuf base = inline;
            List<ByteBuf> data = new ArrayList<>(plan.inserted.size());
            for (ReadChunk c : all) {
                ByteBuf slice = target.retainedSlice(offset, (int) c.length());
                offset += (int) c.length();
                if (c == plan.positionZero) {
                    base = slice;
                } else {
                    data.add(slice);
                }
            }
            deliver(ctx, header, plan.assemble(ctx.alloc(), base, data));
        } finally {
            target.release();
        }
    }

    private void deliver(ChannelHandlerContext ctx, RpcRdmaHeader header, ByteBuf stream) {
        int xid = header.xid();
        if (stream.readableBytes() < 4 || stream.getInt(stream.readerIndex()) != xid) {
            stream.release();
            calls.remove(xid);
            errChunk(ctx, header, "rdma_xid differs from the RPC message's xid (RFC 8166 §4.5.2)");
            return;
        }
        InboundRpcMessage message;
        try {
            message = RpcMessageCodec.decode(stream, List.of());
        } catch (XdrException e) {
            rpcStats.recordMalformedMessage();
            calls.remove(xid);
            errChunk(ctx, header, "undecodable RPC message: " + e.getMessage());
            return;
        }
        if (!(message.header() instanceof RpcCall)) {
            message.release();
            calls.remove(xid);
            rpcStats.recordUnexpectedMessage();
            errChunk(ctx, header, "a responder received an RPC reply");
            return;
        }
        ctx.fireChannelRead(message);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof OutboundRpcMessage)) {
            ctx.write(msg, promise);
            return;
        }
        OutboundRpcMessage reply = (OutboundRpcMessage) msg;
        int xid = reply.header().xid();
        RpcRdmaHeader call = calls.remove(xid);
        if (call == null) {
            reply.release();
            logger.warn("{} dropped a reply to no call in progress: xid {}", ctx.channel(),
                    Integer.toUnsignedString(xid));
            promise.tryFailure(new IllegalStateException("no RPC-over-RDMA call with xid "
                    + Integer.toUnsignedString(xid)));
            return;
        }
        XdrPayload payload;
        try {
            payload = RpcMessageCodec.encode(ctx.alloc(), reply);
        } finally {
            reply.release();
        }
        try {
            sendReply(ctx, call, payload, promise);
        } catch (Throwable t) {
            logger.warn("{} could not send the reply to xid {}; closing (RFC 8166 §4.5.4)", ctx.channel(),
                    Integer.toUnsignedString(xid), t);
            promise.tryFailure(t);
            close(ctx);
        } finally {
            payload.release();
        }
    }

    private void sendReply(ChannelHandlerContext ctx, RpcRdmaHeader call, XdrPayload payload,
                           ChannelPromise promise) throws IOException {
        int xid = call.xid();
        boolean rdma = ctx.channel() instanceof RdmaChannel;
        List<DdpItem> items = payload.ddpItems();
        List<WriteChunk> writeList = call.writeList();
        // RFC 8166 §4.3.2.1: item i into chunk i, unless that chunk is empty (§4.3.2.3) or too small.
        int candidates = rdma ? Math.min(items.size(), writeList.size()) : 0;
        boolean[] inChunk = new boolean[candidates];
        int placed = 0;
        long placedBytes = 0;
        for (int i = 0; i < candidates; i++) {
            WriteChunk chunk = writeList.get(i);
            DdpItem item = items.get(i);
            if (!chunk.segments().isEmpty() && item.length() <= chunk.totalLength()) {
                inChunk[i] = true;
                placed++;
                placedBytes += item.length() + item.padLength();
            }
        }
        int full = payload.inlineLength();
        int remainder = (int) (full - placedBytes);
        List<WriteChunk> returned = new ArrayList<>(writeList.size());
        for (int i = 0; i < writeList.size(); i++) {
            // RFC 8166 §3.4.6: every provided Write chunk comes back; unused ones with zero lengths.
            returned.add(fill(writeList.get(i), i < candidates && inChunk[i] ? items.get(i).length() : 0));
        }
        int grant = grant(ctx, call.credits());
        RpcRdmaHeader header = RpcRdmaHeader.msg(xid, grant, List.of(), returned, null);
        WriteChunk replyChunk = call.replyChunk();
        boolean nomsg;
        if (header.encodedLength() + (long) remainder <= thresholds.sendThreshold()) {
            nomsg = false;
        } else if (rdma && replyChunk != null && remainder <= replyChunk.totalLength()) {
            nomsg = true;
            header = RpcRdmaHeader.nomsg(xid, grant, List.of(), returned, fill(replyChunk, remainder));
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
        if (placed == 0 && !nomsg) {
            ByteBuf send = ctx.alloc().directBuffer(header.encodedLength() + full);
            RpcRdmaHeaderEncoder.encode(header, send);
            payload.writeInline(send);
            send(ctx, call, send, promise, null, null);
            return;
        }
        // The whole inline stream in memory registered for local access only; RDMA Writes push parts of it.
        ByteBuf region = ctx.alloc().directBuffer(full + (nomsg ? remainder : 0));
        payload.writeInline(region);
        // The inline stream without the placed items' data and pad: placed + 1 ranges.
        int[] ranges = new int[2 * (placed + 1)];
        int cursor = 0;
        int r = 0;
        for (int i = 0; i < candidates; i++) {
            if (inChunk[i]) {
                DdpItem item = items.get(i);
                ranges[r++] = cursor;
                ranges[r++] = item.position();
                cursor = item.position() + item.length() + item.padLength();
            }
        }
        ranges[r++] = cursor;
        ranges[r] = full;
        if (nomsg) {
            for (int i = 0; i < ranges.length; i += 2) {
                region.writeBytes(region, ranges[i], ranges[i + 1] - ranges[i]);
            }
        }
        RdmaMemory memory;
        try {
            memory = ((RdmaChannel) ctx.channel()).registerMemory(region, 0);
        } catch (IOException | RuntimeException e) {
            region.release();
            throw e;
        }
        for (int i = 0; i < candidates; i++) {
            if (inChunk[i]) {
                DdpItem item = items.get(i);
                writeInto(ctx, memory, item.position(), item.length(), writeList.get(i));
                stats.recordWriteChunkUsed();
            }
        }
        ByteBuf send;
        if (nomsg) {
            writeInto(ctx, memory, full, remainder, replyChunk);
            send = ctx.alloc().directBuffer(header.encodedLength());
            RpcRdmaHeaderEncoder.encode(header, send);
        } else {
            send = ctx.alloc().directBuffer(header.encodedLength() + remainder);
            RpcRdmaHeaderEncoder.encode(header, send);
            for (int i = 0; i < ranges.length; i += 2) {
                send.writeBytes(region, ranges[i], ranges[i + 1] - ranges[i]);
            }
        }
        send(ctx, call, send, promise, memory, region);
    }

    /** RDMA Writes {@code length} bytes at {@code offset} of {@code memory} into the chunk's segments, in order. */
    private static void writeInto(ChannelHandlerContext ctx, RdmaMemory memory, int offset, int length,
                                  WriteChunk chunk) {
        int remaining = length;
        for (RdmaSegment s : chunk.segments()) {
            if (remaining == 0) {
                break;
            }
            int n = (int) Math.min(remaining, s.unsignedLength());
            if (n > 0) {
                ctx.write(new RdmaWrite(memory, offset, n, s.offset(), s.handle()));
                offset += n;
                remaining -= n;
            }
        }
    }

    /** The chunk with its segment lengths set to how much of {@code length} each holds. */
    static WriteChunk fill(WriteChunk chunk, long length) {
        List<RdmaSegment> segments = new ArrayList<>(chunk.segments().size());
        long remaining = length;
        for (RdmaSegment s : chunk.segments()) {
            long n = Math.min(remaining, s.unsignedLength());
            segments.add(new RdmaSegment(s.handle(), (int) n, s.offset()));
            remaining -= n;
        }
        return new WriteChunk(segments);
    }

    private void send(ChannelHandlerContext ctx, RpcRdmaHeader call, ByteBuf send, ChannelPromise promise,
                      RdmaMemory memory, ByteBuf region) {
        Object message = send;
        int rkey = thresholds.remoteInvalidation() ? singleHandle(call) : 0;
        if (rkey != 0) {
            // RFC 8797 §4.1: both peers set R; the key belongs to this XID only.
            message = RdmaSend.withInvalidate(send, rkey);
            stats.recordRemoteInvalidation();
        }
        ctx.writeAndFlush(message).addListener(f -> {
            if (memory != null) {
                memory.deregister();
                region.release();
            }
            if (f.isSuccess()) {
                promise.trySuccess();
            } else {
                promise.tryFailure(f.cause());
            }
        });
    }

    /** The one handle every segment of the call names (as Linux decides), or 0 when there is none or several. */
    static int singleHandle(RpcRdmaHeader call) {
        int handle = 0;
        boolean any = false;
        List<RdmaSegment> all = new ArrayList<>();
        for (ReadSegment r : call.readList()) {
            all.add(r.segment());
        }
        for (WriteChunk w : call.writeList()) {
            all.addAll(w.segments());
        }
        if (call.replyChunk() != null) {
            all.addAll(call.replyChunk().segments());
        }
        for (RdmaSegment s : all) {
            if (!any) {
                handle = s.handle();
                any = true;
            } else if (s.handle() != handle) {
                return 0;
            }
        }
        return handle;
    }

    private void errChunk(ChannelHandlerContext ctx, RpcRdmaHeader call, String why) {
        logger.warn("{} answering ERR_CHUNK to xid {}: {}", ctx.channel(), Integer.toUnsignedString(call.xid()), why);
        sendError(ctx, RpcRdmaHeader.errChunk(call.xid(), grant(ctx, call.credits())));
    }

    private void sendError(ChannelHandlerContext ctx, RpcRdmaHeader error) {
        stats.recordErrorSent();
        ByteBuf buf = ctx.alloc().directBuffer(error.encodedLength());
        RpcRdmaHeaderEncoder.encode(error, buf);
        ctx.writeAndFlush(buf);
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

    private int grant(ChannelHandlerContext ctx, int requested) {
        int posted = ctx.channel() instanceof RdmaChannel ? ((RdmaChannel) ctx.channel()).postedReceives()
                : config.maxGrant();
        return credits.grantForReply(requested, posted);
    }

    private void close(ChannelHandlerContext ctx) {
        closed = true;
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed = true;
        calls.clear();
        super.channelInactive(ctx);
    }
}
