package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.handlers.RpcRdmaStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;

import java.io.IOException;

/**
 * How a call's chunk memory is exposed to the responder and how that ends, chosen once per connection from what the
 * device offers ({@link #of}): {@link WindowRegistration} (type-2 memory windows bound over pool memory) or
 * {@link RegionRegistration} (a memory region registered per call, where the device has no windows). The kernel's
 * xprtrdma keeps its registration modes behind one ops table the same way ({@code frwr_ops.c}). Event-loop confined.
 */
interface ChunkRegistration {

    /** The registration {@code connection}'s device supports: windows where it has them, else per-call regions. */
    static ChunkRegistration of(RdmaConnection connection, WindowCache windows) {
        return connection.memoryWindowsSupported() ? new WindowRegistration(connection, windows)
                : new RegionRegistration(connection);
    }

    /**
     * Exposes the readable bytes of {@code buffer} (takes ownership; released when this throws) with
     * {@code access}; work requests it needs are written (not flushed) ahead of the Send that advertises the key.
     */
    Region register(ChannelHandlerContext ctx, ByteBuf buffer, int access) throws IOException;

    /**
     * Ends {@code r}'s exposure so the peer can no longer reach it, then gives its buffer back (RFC 8166 §3.4.5.1);
     * returns the future of a Local Invalidate the caller must wait for before using the bytes, or null. A completion
     * deferred past this call holds {@code owner} (retained).
     *
     * @param replied the responder answered (so every work request written before the call's Send was executed)
     * @param invalidated the reply came as Send With Invalidate of {@code invalidatedRkey} (RFC 8166 §3.4.3)
     */
    ChannelFuture unregister(Region r, boolean replied, boolean invalidated, int invalidatedRkey, RpcRdmaStats stats,
                             RequesterCall owner);

    /** One exposed buffer: its steering tag and address, and what the registration needs to end it. */
    abstract class Region {
        final ByteBuf buffer;
        final int rkey;
        final long address;

        Region(ByteBuf buffer, int rkey, long address) {
            this.buffer = buffer;
            this.rkey = rkey;
            this.address = address;
        }
    }
}
