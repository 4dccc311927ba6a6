package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.util.List;

/**
 * Encodes an {@link OutboundRpcMessage} fully inline (every DDP-eligible item in place: TCP has no chunks) into
 * one {@link io.netty.buffer.ByteBuf} for the {@link RecordMarkingEncoder}, leaving headroom for its record mark.
 * Releases the message.
 */
@ChannelHandler.Sharable
public final class RpcMessageEncoder extends MessageToMessageEncoder<OutboundRpcMessage> {

    /** The encoder. */
    public RpcMessageEncoder() {
        super(OutboundRpcMessage.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, OutboundRpcMessage msg, List<Object> out) {
        out.add(RpcMessageCodec.encodeInline(ctx.alloc(), msg, RecordMarkingEncoder.HEADROOM));
    }
}
