package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaAccess;
import dev.rpcrdma.channel.RdmaBindWindow;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import dev.rpcrdma.handlers.RpcRdmaStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;

import java.io.IOException;

/**
 * The memory one RPC exposes to the responder: at most two regions, each its own buffer registered with
 * {@code MW_BIND} only (the region's MR grants nothing remotely) and reached through a type-2 memory window bound
 * with exactly the rights its chunks need: remote read for the Read chunks, remote write for the Write and Reply
 * chunks. {@link #finish} ends the exposure: the window is deallocated (local invalidation; never
 * {@code IBV_WR_LOCAL_INV}, see the package documentation) unless the responder already invalidated it with Send
 * With Invalidate, then the MR is deregistered once no work request uses it.
 *
 * <p>Event-loop confined.
 */
final class CallExposure {

    /** One registered buffer and the window that exposes it. */
    static final class Region {
        final ByteBuf buffer;
        final RdmaMemory memory;
        final RdmaMemoryWindow window;
        final int rkey;
        final long address;
        /** The bind work request: the window is never deallocated while its bind may still be posted. */
        final ChannelFuture bind;

        Region(ByteBuf buffer, RdmaMemory memory, RdmaMemoryWindow window, int rkey, long address,
               ChannelFuture bind) {
            this.buffer = buffer;
            this.memory = memory;
            this.window = window;
            this.rkey = rkey;
            this.address = address;
            this.bind = bind;
        }
    }

    Region read;
    Region write;
    private boolean finished;

    /**
     * Registers {@code buffer} (takes ownership) and binds a fresh window over all of it with {@code access}; the
     * bind is written (not flushed) ahead of the Send that advertises it, so the send queue orders them.
     */
    static Region expose(ChannelHandlerContext ctx, RdmaConnection connection, ByteBuf buffer, int access)
            throws IOException {
        RdmaMemory memory;
        try {
            memory = connection.registerMemory(buffer, RdmaAccess.MW_BIND);
        } catch (IOException | RuntimeException e) {
            buffer.release();
            throw e;
        }
        RdmaMemoryWindow window;
        try {
            window = connection.allocateMemoryWindow();
        } catch (IOException | RuntimeException e) {
            memory.deregister();
            buffer.release();
            throw e;
        }
        RdmaBindWindow bind = new RdmaBindWindow(window, memory, 0, buffer.readableBytes(), access);
        ChannelFuture bound = ctx.write(bind);
        return new Region(buffer, memory, window, bind.rkey(), bind.address(), bound);
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
     * Ends the exposure: every window not invalidated remotely ({@code invalidated} false or another key) is
     * deallocated now, so the peer can no longer reach the memory; then the regions are deregistered and released.
     * Buffers the caller still needs must have been retained (sliced) before.
     *
     * @param replied the responder answered (so every bind of this RPC was executed)
     */
    void finish(boolean replied, boolean invalidated, int invalidatedRkey, RpcRdmaStats stats) {
        if (finished) {
            return;
        }
        finished = true;
        finish(read, replied, invalidated, invalidatedRkey, stats);
        finish(write, replied, invalidated, invalidatedRkey, stats);
    }

    private static void finish(Region r, boolean replied, boolean invalidated, int invalidatedRkey,
                               RpcRdmaStats stats) {
        if (r == null) {
            return;
        }
        if (invalidated && r.rkey == invalidatedRkey) {
            stats.recordRemoteInvalidation();
        } else {
            stats.recordLocalInvalidation();
        }
        if (replied || r.bind.isDone()) {
            // A reply proves the bind was executed: it was posted before the Send the responder answered, and
            // the send queue runs in order (its completion may not have been reaped yet).
            release(r);
        } else {
            // The bind is written but may not be executed (the call failed before its Send): deallocate after it.
            r.bind.addListener(f -> release(r));
        }
    }

    private static void release(Region r) {
        // Deallocation invalidates a binding that is still in force and frees the window either way.
        r.window.close();
        r.memory.deregister();
        r.buffer.release();
    }
}
