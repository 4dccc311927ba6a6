package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.backchannel.BackwardRequester;
import dev.rpcrdma.handlers.binding.RpcMessageLayout;
import dev.rpcrdma.handlers.binding.UpperLayerBinding;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.MsgType;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The byte framing ({@link ByteFraming}): each call goes up as one {@code ByteBuf} holding the whole message (reader
 * index 0, Read chunks spliced in at their positions, a Long Call from position zero); each reply, or backward call,
 * comes down as one {@code ByteBuf} holding a whole message (record marks taken off when the framing says so), its
 * DDP-eligible items located by the framing's {@link UpperLayerBinding} for the call's Write chunks.
 */
final class ResponderBytes implements ResponderForm {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaResponder.class);
    private static final int CALL = MsgType.CALL.intValue();

    private final RpcRdmaResponder responder;
    private final ByteFraming framing;
    private final RpcRdmaStats stats;
    private final RpcStats rpcStats;
    /** The located items of the reply being placed, (position, length) pairs. */
    private final int[] items;

    ResponderBytes(RpcRdmaResponder responder, ByteFraming framing, int maxWriteChunks, RpcRdmaStats stats,
                   RpcStats rpcStats) {
        this.responder = responder;
        this.framing = framing;
        this.stats = stats;
        this.rpcStats = rpcStats;
        // Room for an item per Write chunk a call may offer: each located item that has a chunk is placed in it
        // (RFC 8267 §6.4.1); the binding leaves any further ones inline.
        this.items = new int[2 * Math.max(UpperLayerBinding.MAX_ITEMS, maxWriteChunks)];
    }

    /**
     * In byte framing an RDMA_MSG call's chunks are pulled to their positions, the inline parts copied around them
     * afterwards: the stack above gets one contiguous buffer, not a composite it would merge into a copy of its own
     * (Hadoop's XDR views each message as one {@code ByteBuffer}).
     */
    @Override
    public boolean contiguous() {
        return true;
    }

    /**
     * The call's whole message goes up as one {@code ByteBuf} at reader index 0 (a slice of the receive or of the
     * reassembled stream, or a heap copy, {@link ByteFraming#handUp}); its program, version and procedure are kept
     * for its reply's binding. Anything too short to be an RPC call, or not a CALL, is answered as the message form
     * does.
     */
    @Override
    public void deliver(ChannelHandlerContext ctx, ResponderCall call, ByteBuf stream) {
        int start = stream.readerIndex();
        if (stream.readableBytes() < RpcMessageLayout.MIN_CALL || stream.getInt(start + 4) != CALL) {
            boolean isCall = stream.readableBytes() >= 8 && stream.getInt(start + 4) == CALL;
            stream.release();
            rpcStats.recordMalformedMessage();
            responder.refuse(ctx, call, isCall ? "an RPC call shorter than its fixed header"
                    : "a responder received an RPC reply");
            return;
        }
        call.program = stream.getInt(start + RpcMessageLayout.PROGRAM);
        call.version = stream.getInt(start + RpcMessageLayout.VERSION);
        call.procedure = stream.getInt(start + RpcMessageLayout.PROCEDURE);
        call.delivered = true;
        responder.fireBytes(ctx, framing.handUp(stream));
    }

    /**
     * {@code msg} (a {@code ByteBuf}, owned) is one whole RPC message, a reply to a call received here or a backward
     * call. A reply that fits inline with no Write chunk offered is copied once into the Send; any other goes
     * through the same placement as the message form, its DDP-eligible items located by the binding.
     */
    @Override
    public boolean write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf)) {
            return false;
        }
        ByteBuf m;
        try {
            m = framing.unframe((ByteBuf) msg);
        } catch (IllegalArgumentException e) {
            logger.warn("{} dropped an outbound message: {}", ctx.channel(), e.getMessage());
            promise.tryFailure(e);
            return true;
        }
        int length = m.readableBytes();
        if (length < 8) {
            m.release();
            promise.tryFailure(new IllegalArgumentException("an outbound RPC message of " + length + " bytes"));
            return true;
        }
        int xid = m.getInt(m.readerIndex());
        if (m.getInt(m.readerIndex() + 4) == CALL) {
            BackwardRequester backward = responder.backward();
            if (backward != null) {
                backward.call(ctx, xid, XdrPayload.wrap(ctx.alloc(), m), promise);
            } else {
                m.release();
                promise.tryFailure(new IllegalArgumentException("a responder without a backchannel sends replies "
                        + "only (RpcRdmaFraming.withBackchannel())"));
            }
            return true;
        }
        ResponderCall call = responder.answered(ctx, xid, promise);
        if (call == null) {
            m.release();
            return true;
        }
        if (call.header.writeList().isEmpty() && responder.fitsInline(length)) {
            responder.sendInline(ctx, call, m, promise);
            return true;
        }
        responder.place(ctx, call, locate(ctx, call, m), promise);
        return true;
    }

    /**
     * The reply {@code m} (owned) as a payload whose DDP-eligible items the binding located, for the call's Write
     * chunks (RFC 8166 §3.4.5, RFC 8267); without Write chunks, or when the binding cannot locate them (logged,
     * counted), the whole reply as one plain segment: it then goes inline or into the Reply chunk, or the call is
     * answered ERR_CHUNK when it offered none (RFC 8166 §4.5.3).
     */
    private XdrPayload locate(ChannelHandlerContext ctx, ResponderCall call, ByteBuf m) {
        if (call.header.writeList().isEmpty()) {
            return XdrPayload.wrap(ctx.alloc(), m);
        }
        UpperLayerBinding binding = framing.binding();
        String why;
        try {
            int n = binding.replyItems(call.program, call.version, call.procedure, m, items);
            if (n >= 0) {
                XdrPayload located = XdrPayload.slices(ctx.alloc(), m.retain(), items, n);
                m.release();
                return located;
            }
            why = "its layout is unknown to the binding";
        } catch (XdrException e) {
            why = e.getMessage();
        }
        stats.recordBindingMiss();
        logger.warn("{} binding {} could not locate the DDP-eligible items of the reply to xid {} (program {} version "
                + "{} procedure {}): {}; it goes in the Reply chunk if the call offered one, else ERR_CHUNK",
                ctx.channel(), binding.name(), Integer.toUnsignedString(call.xid()), call.program, call.version,
                call.procedure, why);
        return XdrPayload.wrap(ctx.alloc(), m);
    }
}
