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
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;

/**
 * The memory one RPC exposes to the responder: at most two regions, each a buffer in the connection's registered
 * memory pool ({@code RdmaConnection.memoryPool()}: slabs registered once with {@code MW_BIND} only, so their MR
 * grants nothing remotely) reached through a type-2 memory window bound over exactly that buffer with exactly the
 * rights its chunks need: remote read for the Read chunks, remote write for the Write and Reply chunks. Nothing is
 * registered per RPC: a bind is a work request, and windows come from the requester's {@link WindowCache}.
 *
 * <p>{@link #finish} ends the exposure so the peer can no longer reach the memory, then gives the buffer back:
 * a window the responder invalidated with Send With Invalidate (RFC 8166 §3.4.3) goes back to the cache at once
 * (the fast path); any other answered one is invalidated by an {@code IBV_WR_LOCAL_INV} work request where the
 * device takes it (back to the cache when it completes; {@code RdmaConnection.localInvalidateSupported()}) and
 * deallocated where it does not. A call that ends unanswered (failed, connection gone)
 * deallocates its windows once their binds executed. A buffer is released only after its window's binding
 * ended, and a window is cached only after it did, so a window is never re-bound while the peer may hold its rkey.
 * A completion still pending holds its call (retained), so a call object is reused only after all of them ran.
 *
 * <p>On a device without memory windows ({@code RdmaConnection.memoryWindowsSupported()} false) each region is instead a memory region registered for this RPC over exactly that buffer with
 * exactly those rights ({@code ibv_reg_mr}), and {@link #finish} deregisters it ({@code ibv_dereg_mr}: the key is
 * dead when it returns) before the buffer goes back to the pool. The guarantee is the same (the peer reaches only
 * this RPC's buffers, and only until the reply or the call's end); the cost is two system calls and the pinning of
 * the buffer's pages per exposed region instead of a bind work request, so only RPCs with chunks (large payloads)
 * pay it. Remote invalidation is not offered on such devices
 * ({@code RdmaConnection.remoteInvalidationSupported()} false), so every region is deregistered locally.
 *
 * <p>Event-loop confined.
 */
final class CallExposure {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(CallExposure.class);

    /** One pool buffer and the window (or, without windows, the per-RPC memory region) that exposes it. */
    static final class Region {
        final ByteBuf buffer;
        final RdmaMemoryWindow window;
        /** The memory region registered for this RPC where the device has no windows (then window is null). */
        final RdmaMemory registered;
        final int rkey;
        final long address;
        /** The bind work request: the window is never released while its bind may still be posted. */
        final ChannelFuture bind;

        Region(ByteBuf buffer, RdmaMemoryWindow window, int rkey, long address, ChannelFuture bind) {
            this.buffer = buffer;
            this.window = window;
            this.registered = null;
            this.rkey = rkey;
            this.address = address;
            this.bind = bind;
        }

        Region(ByteBuf buffer, RdmaMemory registered) {
            this.buffer = buffer;
            this.window = null;
            this.registered = registered;
            this.rkey = registered.rkey();
            this.address = registered.address();
            this.bind = null;
        }
    }

    /** The call this exposure belongs to, held (retained) while a completion of its exposure is deferred. */
    private final RequesterCall owner;
    Region read;
    Region write;
    private boolean finished;
    private ChannelHandlerContext ctx;
    private RdmaConnection connection;
    private WindowCache windows;

    CallExposure(RequesterCall owner) {
        this.owner = owner;
    }

    /**
     * Binds a window over the readable bytes of {@code buffer} (takes ownership; its readable bytes must lie in the
     * connection's memory pool) with {@code access}; the bind is written (not flushed) ahead of the Send that
     * advertises it, so the send queue orders them.
     */
    Region expose(ChannelHandlerContext ctx, RdmaConnection connection, WindowCache windows, ByteBuf buffer,
                  int access) throws IOException {
        this.ctx = ctx;
        this.connection = connection;
        this.windows = windows;
        if (!connection.memoryWindowsSupported()) {
            RdmaMemory registered;
            try {
                registered = connection.registerMemory(buffer, access);
            } catch (IOException | RuntimeException e) {
                buffer.release();
                throw e;
            }
            return new Region(buffer, registered);
        }
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
        return new Region(buffer, window, bind.rkey(), bind.address(), bound);
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
     * Ends the exposure (see the class documentation). Buffers the caller still needs must have been retained
     * (sliced) before; their bytes are safe to use once the returned future completes (null: at once), which is
     * when the last Local Invalidate completed (RFC 8166 §3.4.5.1: invalidate before the data is used).
     *
     * @param replied the responder answered (so every bind of this RPC was executed)
     */
    ChannelFuture finish(boolean replied, boolean invalidated, int invalidatedRkey, RpcRdmaStats stats) {
        if (finished) {
            return null;
        }
        finished = true;
        ChannelFuture a = finish(read, replied, invalidated, invalidatedRkey, stats);
        ChannelFuture b = finish(write, replied, invalidated, invalidatedRkey, stats);
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

    private ChannelFuture finish(Region r, boolean replied, boolean invalidated, int invalidatedRkey,
                                 RpcRdmaStats stats) {
        if (r == null) {
            return null;
        }
        if (r.registered != null) {
            // No windows: the per-RPC region is deregistered (its key dies) before the buffer may be reused.
            stats.recordLocalInvalidation();
            r.registered.deregister().addListener(f -> {
                if (!f.isSuccess()) {
                    logger.debug("{}: deregistering an RPC's memory region failed", ctx.channel(), f.cause());
                }
                r.buffer.release();
            });
            return null;
        }
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
            // A window a Send With Invalidate freed binds again on every device, even where LOCAL_INV is refused.
            if (r.bind.isDone()) {
                reuseOrDeallocate(r, r.bind);
            } else {
                // The bind's completion has not been reaped: the channel would mark the window bound after this.
                owner.retain();
                r.bind.addListener(f -> reuseOrDeallocateThenRelease(r, f));
            }
            return null;
        }
        stats.recordLocalInvalidation();
        if (!connection.localInvalidateSupported()) {
            deallocate(r); // the device does not take LOCAL_INV of a bound window: deallocation invalidates
            return null;
        }
        ChannelFuture inv = ctx.writeAndFlush(new RdmaLocalInvalidate(r.window, r.rkey));
        owner.retain();
        inv.addListener(f -> reuseOrDeallocateThenRelease(r, f));
        return inv;
    }

    /** A deferred completion: {@link #reuseOrDeallocate}, then the call is no longer held by it. */
    private void reuseOrDeallocateThenRelease(Region r, Future<?> last) {
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
    private void reuseOrDeallocate(Region r, Future<?> last) {
        if (last.isSuccess() && !r.window.isBound()) {
            windows.put(r.window);
            r.buffer.release();
        } else {
            deallocate(r);
        }
    }

    /** Deallocation invalidates a binding still in force and frees the window; then the buffer goes back. */
    private static void deallocate(Region r) {
        r.window.close();
        r.buffer.release();
    }
}
