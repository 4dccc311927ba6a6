package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.List;

/**
 * Decodes each record (one {@link ByteBuf}) into an {@link dev.rpcrdma.oncrpc.message.InboundRpcMessage} with
 * {@link RpcMessageCodec#decode(ByteBuf)}. A record whose header cannot be decoded (truncated, msg_type other
 * than CALL/REPLY, ...) carries no usable xid to answer: it is logged, counted in
 * {@link RpcStats#malformedMessages()} and dropped; the connection stays open (records are self-delimiting).
 */
@ChannelHandler.Sharable
public final class RpcMessageDecoder extends MessageToMessageDecoder<ByteBuf> {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcMessageDecoder.class);

    private final RpcStats stats;

    /** A decoder counting dropped records in {@code stats}. */
    public RpcMessageDecoder(RpcStats stats) {
        super(ByteBuf.class);
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf record, List<Object> out) {
        int length = record.readableBytes();
        try {
            // decode() takes ownership; the superclass releases the record after we return.
            out.add(RpcMessageCodec.decode(record.retain()));
        } catch (XdrException e) {
            stats.recordMalformedMessage();
            logger.warn("{} dropped an undecodable RPC message of {} bytes: {}", ctx.channel(), length,
                    e.getMessage());
        }
    }
}
