package dev.rpcrdma.handlers.backchannel;

import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcBackchannelException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.List;

/**
 * The client's side of the RPC-over-RDMA backchannel, used by the requester: serves backward calls within the
 * backward credits it grants (RFC 8167 §4.1) and sends their replies inline; the rules it enforces are in the
 * package documentation. Event-loop confined (the requester's).
 */
public final class BackwardResponder {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(BackwardResponder.class);

    private final int grant;
    private final RpcRdmaStats stats;
    private final RpcStats rpcStats;
    private int maxMessage = BackwardMessages.maxMessageSize(InlineThresholds.DEFAULTS);
    private int outstanding;
    /** Byte framing (null: none): backward calls go up as {@code ByteBuf}s, not decoded. */
    private final ByteFraming bytes;

    /**
     * A callback service made of {@code setup}: it grants {@link RpcRdmaConfig#backwardCredits()} backward credits
     * (receives this client keeps posted for backward calls) and hands the calls up in the setup's message form.
     */
    public BackwardResponder(BackwardSetup setup) {
        this.grant = setup.config.backwardCredits();
        this.stats = setup.stats;
        this.rpcStats = setup.rpcStats;
        this.bytes = setup.framing;
    }

    /** The byte framing backward calls go up in, or null: decoded RPC messages. */
    public ByteFraming framing() {
        return bytes;
    }

    /** The backward credits granted. */
    public int grant() {
        return grant;
    }

    /** Backward calls received and not answered yet. */
    public int outstanding() {
        return outstanding;
    }

    /** The connection's thresholds are known: sets the backchannel's size limit (also for the upper layer). */
    public void negotiated(ChannelHandlerContext ctx, InlineThresholds thresholds) {
        maxMessage = BackwardMessages.maxMessageSize(thresholds);
        RpcBackchannel b = RpcBackchannel.of(ctx.channel());
        if (b != null) {
            b.maxMessageSize(maxMessage);
        }
    }

    /** A received RDMA_MSG whose RPC message is a CALL ({@link BackwardMessages#isCall}); {@code rpc} is borrowed. */
    public void received(ChannelHandlerContext ctx, RpcRdmaHeader header, ByteBuf rpc) {
        if (header.hasChunks()) {
            rpcStats.recordBackwardDrop();
            stats.recordErrorSent();
            logger.warn("{} answering ERR_CHUNK to backward call xid {}: it carries chunk lists, which this "
                    + "backchannel does not take (RFC 8167 §5.3)", ctx.channel(),
                    Integer.toUnsignedString(header.xid()));
            RpcRdmaHeader error = RpcRdmaHeader.errChunk(header.xid(), grant);
            ByteBuf send = ctx.alloc().directBuffer(error.encodedLength());
            RpcRdmaHeaderEncoder.encode(error, send);
            ctx.writeAndFlush(send);
            return;
        }
        String violation = BackwardMessages.violation(header, rpc, maxMessage);
        if (violation != null) {
            dropConnection(ctx, "a backward call " + violation + " (RFC 8167 §4.2, §5.1)");
            return;
        }
        RpcBackchannel b = RpcBackchannel.of(ctx.channel());
        if (b == null || !b.isEnabled()) {
            rpcStats.recordUnexpectedMessage();
            rpcStats.recordBackwardDrop();
            logger.warn("{} dropped backward call xid {}: {} (RFC 8167 §6)",
                    ctx.channel(), Integer.toUnsignedString(header.xid()), b == null
                            ? "no callback service on this connection" : "the backchannel is not enabled");
            return;
        }
        if (outstanding >= grant) {
            dropConnection(ctx, "backchannel overflow: " + (outstanding + 1) + " backward calls outstanding, "
                    + grant + " granted (RFC 8167 §4.1)");
            return;
        }
        if (bytes != null) {
            outstanding++;
            ctx.fireChannelRead(bytes.handUp(rpc.retainedSlice())); // byte framing: the whole call
            return;
        }
        InboundRpcMessage message;
        try {
            message = RpcMessageCodec.decode(rpc.retainedSlice(), List.of());
        } catch (XdrException e) {
            dropConnection(ctx, "an undecodable backward call: " + e.getMessage()
                    + " (RFC 8167 §5.1)");
            return;
        }
        outstanding++;
        ctx.fireChannelRead(message);
    }

    /** Sends the reply to a backward call, inline. Takes ownership of {@code reply}. */
    public void reply(ChannelHandlerContext ctx, OutboundRpcMessage reply, ChannelPromise promise) {
        int xid = reply.header().xid();
        XdrPayload payload;
        try {
            payload = RpcMessageCodec.encode(ctx.alloc(), reply);
        } finally {
            reply.release();
        }
        reply(ctx, xid, payload, promise);
    }

    /**
     * Sends the reply to a backward call already encoded: {@code payload} is the whole RPC reply message of xid
     * {@code xid} (the byte framing's). Takes ownership of {@code payload}.
     */
    public void reply(ChannelHandlerContext ctx, int xid, XdrPayload payload, ChannelPromise promise) {
        if (outstanding > 0) {
            outstanding--;
        }
        Throwable failure = null;
        if (payload.inlineLength() > maxMessage) {
            rpcStats.recordBackwardDrop();
            logger.warn("{} the reply to backward call xid {} is {} bytes, more than the backchannel's {}: "
                    + "answering SYSTEM_ERR", ctx.channel(), Integer.toUnsignedString(xid), payload.inlineLength(),
                    maxMessage);
            failure = new RpcBackchannelException("the reply to backward call " + Integer.toUnsignedString(xid)
                    + " is " + payload.inlineLength() + " bytes, more than the backchannel carries (" + maxMessage
                    + "): SYSTEM_ERR was sent instead");
            payload.release();
            OutboundRpcMessage error = new OutboundRpcMessage(RpcReply.accepted(xid, OpaqueAuth.NONE,
                    AcceptStat.SYSTEM_ERR), XdrPayload.newPayload(ctx.alloc()));
            try {
                payload = RpcMessageCodec.encode(ctx.alloc(), error);
            } finally {
                error.release();
            }
        }
        ByteBuf send;
        try {
            send = BackwardMessages.encode(ctx.alloc(), xid, grant, payload);
        } finally {
            payload.release();
        }
        if (failure == null) {
            ctx.writeAndFlush(send, promise);
        } else {
            ctx.writeAndFlush(send);
            promise.tryFailure(failure);
        }
    }

    /** The connection went: nothing is outstanding any more. */
    public void inactive() {
        outstanding = 0;
    }

    private void dropConnection(ChannelHandlerContext ctx, String why) {
        stats.recordBackwardViolation();
        rpcStats.recordBackwardDrop();
        logger.warn("{} closing: {}", ctx.channel(), why);
        ctx.close();
    }
}
