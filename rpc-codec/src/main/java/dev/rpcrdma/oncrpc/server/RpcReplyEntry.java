package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Internal to this project's transports, not an API for applications (it may change or go without notice): a
 * transport handler that takes the replies of the {@link RpcDispatcher} right above it without the pipeline's write
 * and flush machinery. A transport names itself on each call it hands up
 * ({@link dev.rpcrdma.oncrpc.message.InboundRpcMessage#replyEntry(RpcReplyEntry)}); the dispatcher then answers
 * through it when the reply is one nobody waits on.
 */
public interface RpcReplyEntry {

    /**
     * The connection's void promise for replies that nobody waits on: a reply it carries that fails is dropped
     * silently (see {@link RpcCallContext#voidPromise()}). The same object for every call on the connection.
     */
    ChannelPromise voidPromise();

    /**
     * Writes and flushes {@code reply} with {@link #voidPromise()} exactly as {@code from.writeAndFlush(reply,
     * voidPromise())} would, and returns true; returns false, having touched nothing, unless that is provable: the
     * caller is on the connection's event loop and the pipeline's next outbound context from {@code from} is this
     * handler's (nothing between them). The caller then writes it into the pipeline.
     */
    boolean writeAndFlush(ChannelHandlerContext from, OutboundRpcMessage reply);

    /**
     * Sends the reply of the built-in NULL procedure to the call {@code xid} (MSG_ACCEPTED SUCCESS, AUTH_NONE
     * verifier, no results: {@link dev.rpcrdma.oncrpc.message.RpcMessageCodec#writeEmptySuccess}) as
     * {@link #writeAndFlush} of that reply would, without the reply's objects, and returns true; returns false,
     * having touched nothing, where {@link #writeAndFlush} would, or where the reply takes more than the plain
     * inline path. The caller then writes the reply as a message.
     */
    boolean writeEmptySuccess(ChannelHandlerContext from, int xid);
}
