package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.MemoryWindow;

/**
 * A type-2 memory window of an {@link RdmaChannel} ({@link RdmaChannel#allocateMemoryWindow()}): bound to a range
 * of {@link RdmaMemory} by writing an {@link RdmaBindWindow}, usable by the peer only through this connection, and
 * invalidated either by the peer's Send With Invalidate (the channel marks it unbound when the
 * {@link RdmaReceive} reports its rkey), locally by an {@link RdmaLocalInvalidate} where the device takes it
 * ({@link RdmaConnection#localInvalidateSupported()}), or by {@link #close()} (deallocation, the way where the
 * device does not take a Local Invalidate). After either invalidation the window can be
 * bound again, under the next rkey ({@code ibv_inc_rkey}). Event-loop confined apart from {@link #rkey()}.
 */
public final class RdmaMemoryWindow {
    private final RdmaChannel channel;
    final MemoryWindow window;
    private volatile int rkey;
    private int reservedRkey;
    boolean bound;
    RdmaMemory boundMemory;
    boolean closed;

    RdmaMemoryWindow(RdmaChannel channel, MemoryWindow window) {
        this.channel = channel;
        this.window = window;
        this.reservedRkey = window.rkey();
    }

    /** The rkey of the current or last binding (0 before the first). */
    public int rkey() {
        return rkey;
    }

    /** True while a binding is in force (bound and not invalidated). */
    public boolean isBound() {
        return bound;
    }

    public RdmaChannel channel() {
        return channel;
    }

    /** {@code ibv_inc_rkey} of the last reserved key: the rkey the next {@link RdmaBindWindow} will bind. */
    synchronized int reserveRkey() {
        reservedRkey = (reservedRkey & 0xffffff00) | ((reservedRkey + 1) & 0xff);
        return reservedRkey;
    }

    void bound(int rkey, RdmaMemory memory) {
        this.rkey = rkey;
        this.bound = true;
        this.boundMemory = memory;
    }

    void invalidated() {
        bound = false;
        boundMemory = null;
    }

    /** Deallocates the window (invalidating any binding); done on the channel's event loop. */
    public void close() {
        if (channel.eventLoop().inEventLoop()) {
            channel.closeWindow(this);
        } else {
            channel.eventLoop().execute(() -> channel.closeWindow(this));
        }
    }
}
