package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.handlers.RpcRdmaStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;

import java.io.IOException;

/**
 * The memory one RPC exposes to the responder: at most two buffers, one with remote read for its Read chunks, one
 * with remote write for its Write and Reply chunks, each exposed by the connection's {@link ChunkRegistration} and
 * ended by {@link #finish} when the reply arrived or the call ended (RFC 8166 §3.4.5.1). A completion still pending
 * holds its call (retained), so a call object is reused only after all of them ran. Event-loop confined.
 */
final class CallExposure {

    /** The call this exposure belongs to, held (retained) while a completion of its exposure is deferred. */
    private final RequesterCall owner;
    ChunkRegistration.Region read;
    ChunkRegistration.Region write;
    private ChunkRegistration registration;
    private boolean finished;

    CallExposure(RequesterCall owner) {
        this.owner = owner;
    }

    /** Exposes the readable bytes of {@code buffer} (takes ownership) with {@code access} through {@code registration}. */
    ChunkRegistration.Region expose(ChannelHandlerContext ctx, ChunkRegistration registration, ByteBuf buffer,
                                    int access) throws IOException {
        this.registration = registration;
        return registration.register(ctx, buffer, access);
    }

    /** Number of keys this RPC exposed. */
    int keyCount() {
        return (read != null ? 1 : 0) + (write != null ? 1 : 0);
    }

    /** True if {@code rkey} is one of this RPC's keys. */
    boolean owns(int rkey) {
        return read != null && read.rkey == rkey || write != null && write.rkey == rkey;
    }

    /**
     * Ends the exposure. Buffers the caller still needs must have been retained (sliced) before; their bytes are safe
     * to use once the returned future completes (null: at once), which is when the last Local Invalidate completed.
     *
     * @param replied the responder answered (so every work request written before the call's Send was executed)
     */
    ChannelFuture finish(boolean replied, boolean invalidated, int invalidatedRkey, RpcRdmaStats stats) {
        if (finished) {
            return null;
        }
        finished = true;
        ChannelFuture a = read == null ? null
                : registration.unregister(read, replied, invalidated, invalidatedRkey, stats, owner);
        ChannelFuture b = write == null ? null
                : registration.unregister(write, replied, invalidated, invalidatedRkey, stats, owner);
        // Local Invalidates complete in the order they were written: the later one covers both.
        return b != null ? b : a;
    }

    /**
     * Forgets a finished exposure so the call can expose memory again: a retry after the pool was exhausted, or the
     * next call of a recycled {@link RequesterCall}. The regions' deferred completions hold their own references
     * (and the call, see {@link RequesterCall#release()}), so forgetting them here frees or reuses nothing early.
     */
    void reset() {
        read = null;
        write = null;
        finished = false;
    }
}
