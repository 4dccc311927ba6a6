package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory regions and type-2 memory windows one {@link RdmaChannel} registered on its protection domain, and
 * the bound windows by rkey (a primitive map: a Send With Invalidate names the rkey it invalidated, RFC 8166 §3.4.3
 * remote invalidation). Registration and allocation may come from any thread (they are system calls, and the
 * channel's closing must see every one of them, so the live sets are guarded by this object's lock); binding,
 * invalidation and deregistration run on the channel's event loop, which alone touches the rkey map.
 * {@link #closeRegistrations()} (when closing starts) makes any later registration fail, so none races with the
 * protection domain's destruction; {@link #releaseAll()} (after every work request was flushed) deallocates the
 * windows and deregisters the regions.
 */
final class MemoryRegistry {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(MemoryRegistry.class);

    private final RdmaChannel channel;
    private final List<RdmaMemory> memories = new ArrayList<>();
    private final List<RdmaMemoryWindow> windows = new ArrayList<>();
    /** Bound windows by the rkey of their binding (event loop). */
    private final IntObjectHashMap<RdmaMemoryWindow> bound = new IntObjectHashMap<>();
    private boolean closed;

    MemoryRegistry(RdmaChannel channel) {
        this.channel = channel;
    }

    RdmaMemory register(ProtectionDomain pd, ByteBuf buffer, long address, int length, int access)
            throws IOException {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("channel closed");
            }
            MemoryRegion mr = pd.registerMemory(address, length, access | RdmaAccess.LOCAL_WRITE);
            RdmaMemory m = new RdmaMemory(channel, buffer.retain(), mr, address, length);
            memories.add(m);
            return m;
        }
    }

    RdmaMemoryWindow allocateWindow(ProtectionDomain pd) throws IOException {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("channel closed");
            }
            RdmaMemoryWindow w = new RdmaMemoryWindow(channel, pd.allocMemoryWindow());
            windows.add(w);
            return w;
        }
    }

    /** No registration or allocation succeeds after this. */
    synchronized void closeRegistrations() {
        closed = true;
    }

    /** A Bind Memory Window completed: {@code window} is bound under {@code rkey}. Event loop. */
    void bound(RdmaMemoryWindow window, int rkey, RdmaMemory memory) {
        int previous = window.rkey();
        if (window.isBound() && bound.get(previous) == window) {
            bound.remove(previous);
        }
        window.bound(rkey, memory);
        bound.put(rkey, window);
    }

    /** The peer invalidated {@code rkey} (Send With Invalidate). Event loop. */
    void invalidated(int rkey) {
        RdmaMemoryWindow w = bound.remove(rkey);
        if (w != null) {
            w.invalidated();
        }
    }

    /** {@code window}'s binding under {@code rkey} was invalidated by a Local Invalidate. Event loop. */
    void invalidatedLocally(RdmaMemoryWindow window, int rkey) {
        if (bound.get(rkey) == window) {
            bound.remove(rkey);
            window.invalidated();
        }
    }

    /** Deregisters {@code m} now (no posted work request uses it any more). Event loop. */
    void deregister(RdmaMemory m) {
        synchronized (this) {
            if (!memories.remove(m)) {
                return;
            }
        }
        try {
            m.region().close();
        } catch (IOException e) {
            logger.warn("{} failed to deregister memory", channel, e);
        }
        m.markDeregistered();
    }

    /** Deallocates {@code w}, invalidating its binding. Event loop. */
    void close(RdmaMemoryWindow w) {
        synchronized (this) {
            if (w.closed) {
                return;
            }
            w.closed = true;
            windows.remove(w);
        }
        if (w.isBound() && bound.get(w.rkey()) == w) {
            bound.remove(w.rkey());
        }
        w.invalidated();
        try {
            w.window.close();
        } catch (IOException e) {
            logger.warn("{} failed to deallocate a memory window", channel, e);
        }
    }

    /**
     * Deallocates every window still allocated, once the queue pair is in error (no bind runs after that) and before
     * it is destroyed: a bound type-2 window holds a reference that a destroy may wait for (Linux
     * {@code drivers/infiniband/sw/rxe/rxe_mw.c} {@code rxe_do_bind_mw}). Event loop.
     */
    void releaseWindows() {
        List<RdmaMemoryWindow> ws;
        synchronized (this) {
            ws = new ArrayList<>(windows);
        }
        for (RdmaMemoryWindow w : ws) {
            close(w);
        }
    }

    /** Deallocates every window and deregisters every region; after every work request completed. Event loop. */
    void releaseAll() {
        List<RdmaMemoryWindow> ws;
        List<RdmaMemory> ms;
        synchronized (this) {
            ws = new ArrayList<>(windows);
            ms = new ArrayList<>(memories);
        }
        for (RdmaMemoryWindow w : ws) {
            close(w);
        }
        for (RdmaMemory m : ms) {
            deregister(m);
        }
    }
}
