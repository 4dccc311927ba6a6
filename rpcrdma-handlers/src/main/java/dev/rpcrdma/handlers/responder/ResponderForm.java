package dev.rpcrdma.handlers.responder;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * The form in which a responder's upper layer reads calls and writes replies: RPC messages
 * ({@link ResponderMessages}) or whole-message {@code ByteBuf}s ({@link ResponderBytes}). Chosen once per responder.
 */
interface ResponderForm {

    /**
     * Whether a call's Read chunks are pulled to their places in one buffer as long as the whole message (RDMA_MSG
     * calls), so the upper layer gets one contiguous buffer ({@link CallReassembly#assembleInPlace}).
     */
    boolean contiguous();

    /** Hands up {@code call}'s reassembled {@code stream} (owned; its xid already checked), or answers it ERR_CHUNK. */
    void deliver(ChannelHandlerContext ctx, ResponderCall call, ByteBuf stream);

    /**
     * Takes an outbound {@code msg} of this form (true: sent or refused here) or leaves it alone (false: an
     * {@code OutboundRpcMessage} or anything else, which the responder handles).
     */
    boolean write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise);
}
