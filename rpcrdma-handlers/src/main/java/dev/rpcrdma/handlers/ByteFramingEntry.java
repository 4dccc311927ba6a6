package dev.rpcrdma.handlers;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Internal to this project's bridges, not an API for applications (it may change or go without notice): the byte
 * framing's responder taking the whole-message replies of the handler right above it without the pipeline's write
 * and flush machinery, and, once that handler has written through it, handing it each call straight into its
 * {@code channelRead} while nothing sits between the two. A handler that calls {@link #writeAndFlush} thereby says
 * that its {@code channelRead} takes the framing's calls (one whole RPC message per {@code ByteBuf}).
 */
public interface ByteFramingEntry {

    /**
     * Writes and flushes {@code msg} (owned) with {@code promise} (a new one of this channel's) exactly as
     * {@code from.writeAndFlush(msg, promise)} would, and returns true; returns false, having touched nothing, unless
     * that is provable: the caller is on the connection's event loop, the pipeline's next outbound context from
     * {@code from} is this handler's (nothing between them) and leak detection is off. The caller then writes
     * {@code msg} into the pipeline.
     */
    boolean writeAndFlush(ChannelHandlerContext from, ByteBuf msg, ChannelPromise promise);
}
