package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.List;

/** Calls written as {@code OutboundRpcMessage}s; replies handed up decoded, as {@link InboundRpcMessage}s. */
final class RequesterMessages implements RequesterForm {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaRequester.class);

    private final RpcStats rpcStats;

    RequesterMessages(RpcStats rpcStats) {
        this.rpcStats = rpcStats;
    }

    @Override
    public Object outbound(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        return msg;
    }

    @Override
    public Object reply(ChannelHandlerContext ctx, int xid, ByteBuf stream, List<ByteBuf> placed) {
        try {
            return RpcMessageCodec.decode(stream, placed);
        } catch (XdrException e) {
            rpcStats.recordMalformedMessage();
            logger.warn("{} dropped an undecodable reply to xid {}: {}", ctx.channel(),
                    Integer.toUnsignedString(xid), e.getMessage());
            return null;
        }
    }
}
