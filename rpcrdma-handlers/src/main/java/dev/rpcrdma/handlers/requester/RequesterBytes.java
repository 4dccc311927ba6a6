package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.backchannel.BackwardResponder;
import dev.rpcrdma.handlers.binding.UpperLayerBinding;
import dev.rpcrdma.oncrpc.message.MsgType;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.List;

/**
 * The byte framing ({@link ByteFraming}): calls, and replies to backward calls, are written as {@code ByteBuf}s each
 * holding one whole RPC message; replies go up as such, at reader index 0. A call's DDP-eligible argument items,
 * located by the framing's binding, go into Read chunks when the call does not fit inline (else it is a Long Call).
 */
final class RequesterBytes implements RequesterForm {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaRequester.class);
    private static final int REPLY = MsgType.REPLY.intValue();

    private final ByteFraming framing;
    private final RpcRdmaStats stats;
    /** Serves backward calls (RFC 8167), or null. */
    private final BackwardResponder callbacks;
    /** The located items of the call being built, (position, length) pairs; reused per call. */
    private final int[] items = new int[2 * UpperLayerBinding.MAX_ITEMS];

    RequesterBytes(ByteFraming framing, RpcRdmaStats stats, BackwardResponder callbacks) {
        this.framing = framing;
        this.stats = stats;
        this.callbacks = callbacks;
    }

    /**
     * {@code msg} (a {@code ByteBuf}, owned) is a whole RPC call, or a reply to a backward call (sent here, null
     * returned). A call becomes an {@link OutboundRpcMessage} whose header is the call's own (credential and
     * verifier kept byte for byte) and whose arguments are slices of {@code msg} with their DDP-eligible items
     * located by the binding (none when it cannot: logged, counted). Null when {@code msg} was refused.
     */
    @Override
    public Object outbound(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf)) {
            return msg;
        }
        ByteBuf m;
        try {
            m = framing.unframe((ByteBuf) msg);
        } catch (IllegalArgumentException e) {
            promise.tryFailure(e);
            return null;
        }
        int start = m.readerIndex();
        if (m.readableBytes() >= 8 && m.getInt(start + 4) == REPLY) {
            if (callbacks != null) {
                callbacks.reply(ctx, m.getInt(start), XdrPayload.wrap(ctx.alloc(), m), promise);
            } else {
                m.release();
                promise.tryFailure(new IllegalArgumentException("a requester without callbacks sends calls only"));
            }
            return null;
        }
        RpcMessage header;
        int arguments;
        try {
            XdrReader reader = new XdrReader(m.slice());
            header = RpcMessageCodec.decodeHeader(reader);
            arguments = m.readableBytes() - reader.readableBytes();
            if (!(header instanceof RpcCall) || ((RpcCall) header).authError() != null
                    || ((RpcCall) header).rpcvers() != RpcCall.RPC_VERSION) {
                throw new XdrException("not an RPC version 2 call with credentials of at most 400 bytes");
            }
        } catch (XdrException e) {
            m.release();
            promise.tryFailure(new IllegalArgumentException("an outbound message that is not an RPC call: "
                    + e.getMessage(), e));
            return null;
        }
        int n;
        try {
            n = framing.binding().callItems(m, items);
        } catch (XdrException e) {
            n = UpperLayerBinding.UNKNOWN;
        }
        if (n < 0) {
            stats.recordBindingMiss();
            logger.debug("{} binding {} could not locate the items of call xid {}: it goes inline or as a Long Call",
                    ctx.channel(), framing.binding().name(), Integer.toUnsignedString(header.xid()));
            n = 0;
        }
        for (int i = 0; i < n; i++) {
            items[2 * i] -= arguments; // positions within the arguments
        }
        ByteBuf args = m.retainedSlice(start + arguments, m.readableBytes() - arguments);
        m.release();
        try {
            return new OutboundRpcMessage(header, XdrPayload.slices(ctx.alloc(), args, items, n));
        } catch (XdrException e) {
            promise.tryFailure(new IllegalStateException("binding " + framing.binding().name()
                    + " located items that are not in the call", e));
            return null;
        }
    }

    /** The reply's whole message at reader index 0. A byte-framed call offers no Write chunk: nothing was placed. */
    @Override
    public Object reply(ChannelHandlerContext ctx, int xid, ByteBuf stream, List<ByteBuf> placed) {
        for (ByteBuf b : placed) {
            b.release();
        }
        return framing.handUp(stream);
    }
}
