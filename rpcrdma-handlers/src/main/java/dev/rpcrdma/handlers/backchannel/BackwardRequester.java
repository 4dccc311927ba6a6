package dev.rpcrdma.handlers.backchannel;

import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.RpcBackchannelException;
import dev.rpcrdma.oncrpc.client.RpcCallFailedEvent;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The server's side of the RPC-over-RDMA backchannel, used by the responder: sends backward calls inline within the
 * client's backward grant (RFC 8167 §4.1, §5.1), queueing the others, and matches their replies (§5.2); the rules
 * it enforces are in the package documentation. Event-loop confined (the responder's).
 */
public final class BackwardRequester {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(BackwardRequester.class);

    private final int reserved;
    private final RpcRdmaStats stats;
    private final RpcStats rpcStats;
    private int maxMessage = BackwardMessages.maxMessageSize(InlineThresholds.DEFAULTS);
    /** The client's backward grant (the rdma_credit of its last backward reply). */
    private int grant = 1;
    private final IntObjectHashMap<Queued> outstanding = new IntObjectHashMap<>();
    /** Byte framing (null: none): backward replies go up as {@code ByteBuf}s, not decoded. */
    private final ByteFraming bytes;
    private final ArrayDeque<Queued> queue = new ArrayDeque<>();

    /**
     * A backward caller made of {@code setup}: it reserves {@link RpcRdmaConfig#backwardCredits()} receives for
     * backward replies (its most backward calls at once) and hands the replies up in the setup's message form.
     */
    public BackwardRequester(BackwardSetup setup) {
        this.reserved = setup.config.backwardCredits();
        this.stats = setup.stats;
        this.rpcStats = setup.rpcStats;
        this.bytes = setup.framing;
    }

    /** The byte framing backward replies go up in, or null: decoded RPC messages. */
    public ByteFraming framing() {
        return bytes;
    }

    /** Receives reserved for backward replies (left out of the forward grant). */
    public int reserved() {
        return reserved;
    }

    /** The client's backward grant in force. */
    public int grant() {
        return grant;
    }

    /** Backward calls sent and not answered. */
    public int outstanding() {
        return outstanding.size();
    }

    /** Backward calls waiting for a credit. */
    public int queued() {
        return queue.size();
    }

    /** The connection's thresholds: sets the backchannel's size limit (also for the upper layer). */
    public void negotiated(ChannelHandlerContext ctx, InlineThresholds thresholds) {
        maxMessage = BackwardMessages.maxMessageSize(thresholds);
        RpcBackchannel b = RpcBackchannel.of(ctx.channel());
        if (b != null) {
            b.maxMessageSize(maxMessage);
        }
    }

    /** Sends (or queues) a backward call. Takes ownership of {@code call}. */
    public void call(ChannelHandlerContext ctx, OutboundRpcMessage call, ChannelPromise promise) {
        int xid = call.header().xid();
        XdrPayload payload;
        try {
            payload = RpcMessageCodec.encode(ctx.alloc(), call);
        } finally {
            call.release();
        }
        call(ctx, xid, payload, promise);
    }

    /**
     * Sends (or queues) a backward call already encoded: {@code rpc} is the whole RPC call message of xid
     * {@code xid} (the byte framing's). Takes ownership of {@code rpc}.
     */
    public void call(ChannelHandlerContext ctx, int xid, XdrPayload rpc, ChannelPromise promise) {
        RpcBackchannel b = RpcBackchannel.of(ctx.channel());
        if (b == null || !b.isEnabled()) {
            rpc.release();
            refuse(ctx, xid, promise, "the client has not enabled a backchannel on " + ctx.channel()
                    + " (RFC 8167 §6)");
            return;
        }
        if (rpc.inlineLength() > maxMessage) {
            int length = rpc.inlineLength();
            rpc.release();
            refuse(ctx, xid, promise, "a backward call of " + length + " bytes exceeds what the backchannel carries ("
                    + maxMessage + " bytes: min(inline send, inline receive, 4096) - 28; backward messages are "
                    + "inline only, RFC 8167 §4.2, §5.3)");
            return;
        }
        if (outstanding.containsKey(xid)) {
            rpc.release();
            refuse(ctx, xid, promise, "a backward call with xid " + Integer.toUnsignedString(xid)
                    + " is already outstanding");
            return;
        }
        Queued q = new Queued(xid, rpc, promise);
        if (!queue.isEmpty() || !canSend()) {
            stats.recordBackwardQueued();
        }
        queue.add(q);
        drain(ctx);
    }

    private boolean canSend() {
        return outstanding.size() < Math.min(grant, reserved);
    }

    private void drain(ChannelHandlerContext ctx) {
        boolean sent = false;
        while (!queue.isEmpty() && canSend()) {
            Queued q = queue.poll();
            outstanding.put(q.xid, q);
            ByteBuf send;
            try {
                send = BackwardMessages.encode(ctx.alloc(), q.xid, reserved, q.payload);
            } finally {
                q.payload.release();
                q.payload = null;
            }
            ctx.write(send, q.promise);
            sent = true;
        }
        if (sent) {
            ctx.flush();
        }
    }

    /** A received RDMA_MSG whose RPC message is a REPLY ({@link BackwardMessages#isReply}); {@code rpc} is borrowed. */
    public void received(ChannelHandlerContext ctx, RpcRdmaHeader header, ByteBuf rpc) {
        String violation = BackwardMessages.violation(header, rpc, maxMessage);
        if (violation != null) {
            stats.recordBackwardViolation();
            rpcStats.recordBackwardDrop();
            logger.warn("{} closing: a backward reply {} (RFC 8167 §5.2, §5.3)",
                    ctx.channel(), violation);
            ctx.close();
            return;
        }
        if (outstanding.remove(header.xid()) == null) {
            stats.recordDiscarded();
            rpcStats.recordUnknownXidReply();
            logger.warn("{} discarded a backward reply to no outstanding backward call: xid {}", ctx.channel(),
                    Integer.toUnsignedString(header.xid()));
            return;
        }
        grant = Math.max(1, header.credits());
        if (bytes != null) {
            ctx.fireChannelRead(bytes.handUp(rpc.retainedSlice())); // byte framing: the whole reply
            drain(ctx);
            return;
        }
        InboundRpcMessage message;
        try {
            message = RpcMessageCodec.decode(rpc.retainedSlice(), List.of());
        } catch (XdrException e) {
            rpcStats.recordMalformedMessage();
            logger.warn("{} dropped an undecodable backward reply to xid {}: {}", ctx.channel(),
                    Integer.toUnsignedString(header.xid()), e.getMessage());
            drain(ctx);
            return;
        }
        ctx.fireChannelRead(message);
        drain(ctx);
    }

    /** The connection went: queued calls fail (the RPC layer fails the outstanding ones). */
    public void inactive() {
        outstanding.clear();
        ClosedChannelException closed = new ClosedChannelException();
        Queued q;
        while ((q = queue.poll()) != null) {
            q.payload.release();
            if (!q.promise.isVoid()) {
                q.promise.tryFailure(closed); // a void promise's call fails with the connection (the RPC layer)
            }
        }
    }

    private void refuse(ChannelHandlerContext ctx, int xid, ChannelPromise promise, String why) {
        RpcBackchannelException e = new RpcBackchannelException(why);
        logger.debug("{} backward call xid {} not sent: {}", ctx.channel(), Integer.toUnsignedString(xid), why);
        // The typed failure reaches the caller first; the promise's failure then finds the call gone.
        ctx.fireUserEventTriggered(new RpcCallFailedEvent(xid, e));
        if (!promise.isVoid()) {
            promise.tryFailure(e);
        }
    }

    /** A backward call waiting for a credit: its encoded RPC message and its write promise. */
    private static final class Queued {
        final int xid;
        XdrPayload payload;
        final ChannelPromise promise;

        Queued(int xid, XdrPayload payload, ChannelPromise promise) {
            this.xid = xid;
            this.payload = payload;
            this.promise = promise;
        }
    }
}
