package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import dev.rpcrdma.handlers.RpcRdmaStats;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * The type-2 memory windows of one connection's requester that are ready to be bound again: their last binding was
 * invalidated, remotely by the responder's Send With Invalidate (RFC 8166 §3.4.3, RFC 8797) or locally by a
 * completed Local Invalidate, so the rkey the peer knew no longer works and binding the window again (a work
 * request under the next rkey) exposes nothing the peer may still hold. A window whose binding may still be in
 * force is never put here. Allocation ({@code ibv_alloc_mw}, a system call) happens only when the cache is empty;
 * at most {@code capacity} windows are kept, the rest are deallocated. The channel deallocates what is left when it
 * closes. Event-loop confined.
 */
final class WindowCache {
    private final ArrayDeque<RdmaMemoryWindow> ready = new ArrayDeque<>();
    private final int capacity;
    private final RpcRdmaStats stats;

    WindowCache(int capacity, RpcRdmaStats stats) {
        this.capacity = capacity;
        this.stats = stats;
    }

    /** An unbound window: a cached one, else a newly allocated one. */
    RdmaMemoryWindow acquire(RdmaConnection connection) throws IOException {
        RdmaMemoryWindow w = ready.poll();
        if (w != null) {
            return w;
        }
        stats.recordWindowAllocation();
        return connection.allocateMemoryWindow();
    }

    /** {@code window}'s last binding was invalidated (and its bind executed): it may be bound again. */
    void put(RdmaMemoryWindow window) {
        if (window.isBound()) {
            throw new IllegalStateException("a window whose binding is in force cannot be reused");
        }
        if (ready.size() < capacity) {
            ready.push(window);
        } else {
            window.close();
        }
    }
}
