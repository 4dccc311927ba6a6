package dev.rpcrdma.handlers.requester;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

import java.util.List;

/**
 * The form in which a requester's upper layer writes calls and reads replies: RPC messages
 * ({@link RequesterMessages}) or whole-message {@code ByteBuf}s ({@link RequesterBytes}). Chosen once per requester.
 */
interface RequesterForm {

    /**
     * An outbound {@code msg} as the requester handles it: an {@code OutboundRpcMessage} call (or reply to a
     * backward call) made from a message of this form, {@code msg} itself when it is not of this form, or null when
     * it was consumed here (sent as a backward reply, or refused with its promise failed).
     */
    Object outbound(ChannelHandlerContext ctx, Object msg, ChannelPromise promise);

    /**
     * The reply to {@code xid} to hand up, from its {@code stream} and {@code placed} items (both owned), or null
     * when it cannot be (logged and counted here).
     */
    Object reply(ChannelHandlerContext ctx, int xid, ByteBuf stream, List<ByteBuf> placed);
}
