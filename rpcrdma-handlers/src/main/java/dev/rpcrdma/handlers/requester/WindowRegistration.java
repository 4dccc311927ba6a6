package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaBindWindow;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaLocalInvalidate;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import dev.rpcrdma.handlers.RpcRdmaStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.Future;

import java.io.IOException;

/**
 * Chunk memory exposed through a type-2 memory window bound over exactly the buffer (in the connection's memory pool,
 * whose slabs are registered once with {@code MW_BIND} only, so their MR grants nothing remotely) with exactly the
 * rights its chunks need. Nothing is registered per call: a bind is a work request, and windows come from the
 * requester's {@link WindowCache}.
 *
 * <p>Ending it: a window the responder invalidated with Send With Invalidate (RFC 8166 §3.4.3) goes back to the cache
 * at once; any other answered one is invalidated by a Local Invalidate work request where the device takes it (back
 * to the cache when it completes), else deallocated ({@code RdmaConnection.localInvalidateSupported()}); a call that
 * ends unanswered deallocates its windows once their binds executed. A buffer is released only after its window's
 * binding ended, and a window is cached only after it did, so a window is never bound again while the peer may hold
 * its rkey. Event-loop confined.
 */
final class WindowRegistration implements ChunkRegistration {

    private static final class Bound extends Region {
        final RdmaMemoryWindow window;
        /** The bind work request: the window is never released while its bind may still be posted. */
        final ChannelFuture bind;
        /** Where the bind was written: a Local Invalidate goes the same way. */
        final ChannelHandlerContext ctx;

        Bound(ByteBuf buffer, RdmaMemoryWindow window, int rkey, long address, ChannelFuture bind,
              ChannelHandlerContext ctx) {
            super(buffer, rkey, address);
            this.window = window;
            this.bind = bind;
            this.ctx = ctx;
        }
    }

    private final RdmaConnection connection;
    private final WindowCache windows;

    WindowRegistration(RdmaConnection connection, WindowCache windows) {
        this.connection = connection;
        this.windows = windows;
    }

    @Override
    public Region register(ChannelHandlerContext ctx, ByteBuf buffer, int access) throws IOException {
        RdmaMemoryWindow window;
        RdmaMemory memory;
        try {
            memory = connection.memoryPool().memoryOf(buffer);
            if (memory == null) {
                throw new IllegalArgumentException("the buffer is not in the connection's registered memory pool");
            }
            window = windows.acquire(connection);
        } catch (IOException | RuntimeException e) {
            buffer.release();
            throw e;
        }
        int offset = (int) (buffer.memoryAddress() + buffer.readerIndex() - memory.address());
        RdmaBindWindow bind = new RdmaBindWindow(window, memory, offset, buffer.readableBytes(), access);
        ChannelFuture bound = ctx.write(bind);
        return new Bound(buffer, window, bind.rkey(), bind.address(), bound, ctx);
    }

    @Override
    public ChannelFuture unregister(Region region, boolean replied, boolean invalidated, int invalidatedRkey,
                                    RpcRdmaStats stats, RequesterCall owner) {
        Bound r = (Bound) region;
        if (!replied) {
            stats.recordLocalInvalidation();
            if (r.bind.isDone()) {
                deallocate(r);
            } else {
                // The bind is written but may not be executed (the call failed before its Send): after it.
                owner.retain();
                r.bind.addListener(f -> {
                    try {
                        deallocate(r);
                    } finally {
                        owner.release();
                    }
                });
            }
            return null;
        }
        // A reply proves the bind was executed: it was posted before the Send the responder answered, and the send
        // queue runs in order (its completion may not have been reaped yet, so isBound() may still say false).
        if (invalidated && r.rkey == invalidatedRkey) {
            stats.recordRemoteInvalidation();
            if (r.bind.isDone()) {
                reuseOrDeallocate(r, r.bind);
            } else {
                // The bind's completion has not been reaped: the channel would mark the window bound after this.
                owner.retain();
                r.bind.addListener(f -> reuseOrDeallocateThenRelease(r, f, owner));
            }
            return null;
        }
        stats.recordLocalInvalidation();
        if (!connection.localInvalidateSupported()) {
            deallocate(r);
            return null;
        }
        ChannelFuture inv = r.ctx.writeAndFlush(new RdmaLocalInvalidate(r.window, r.rkey));
        owner.retain();
        inv.addListener(f -> reuseOrDeallocateThenRelease(r, f, owner));
        return inv;
    }

    /** A deferred completion: {@link #reuseOrDeallocate}, then the call is no longer held by it. */
    private void reuseOrDeallocateThenRelease(Bound r, Future<?> last, RequesterCall owner) {
        try {
            reuseOrDeallocate(r, last);
        } finally {
            owner.release();
        }
    }

    /**
     * {@code last} (the bind, or the Local Invalidate after it) completed: a window whose binding is no longer in
     * force goes back to the cache; otherwise (the connection is failing) the window is deallocated. The memory goes
     * back to the pool either way.
     */
    private void reuseOrDeallocate(Bound r, Future<?> last) {
        if (last.isSuccess() && !r.window.isBound()) {
            windows.put(r.window);
            r.buffer.release();
        } else {
            deallocate(r);
        }
    }

    /** Deallocation invalidates a binding still in force and frees the window; then the buffer goes back. */
    private static void deallocate(Bound r) {
        r.window.close();
        r.buffer.release();
    }
}
