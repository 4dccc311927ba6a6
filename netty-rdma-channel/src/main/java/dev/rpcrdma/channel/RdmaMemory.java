package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.MemoryRegion;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Promise;

/**
 * Memory registered through {@link RdmaChannel#registerMemory(ByteBuf, int)}: the readable bytes of a direct
 * {@link ByteBuf}, with keys for local work requests ({@link #lkey()}) and, when registered with remote access, for
 * the peer ({@link #rkey()}, {@link #address()}, {@link #length()}).
 *
 * <p>Ownership: registration retains the buffer; {@link #deregister()} releases it. Deregistration is explicit and
 * safe: while a posted {@link RdmaWrite}/{@link RdmaRead}/{@link RdmaBindWindow} of this channel still uses the
 * memory, it is deferred until that work request's completion (or flush). Closing the channel deregisters every
 * region registered through it. What a peer does with an advertised rkey is the protocol's business: deregister only
 * after the peer is done (or expose a {@link RdmaMemoryWindow} and have it invalidated).
 */
public final class RdmaMemory {
    private final RdmaChannel channel;
    private final ByteBuf buffer;
    private final MemoryRegion region;
    private final long address;
    private final int length;
    private int uses;
    private Promise<Void> deregisterPromise;
    private boolean deregistered;
    /** Part of an {@link RdmaMemoryPool}: the pool deregisters it. */
    private boolean pooled;

    RdmaMemory(RdmaChannel channel, ByteBuf buffer, MemoryRegion region, long address, int length) {
        this.channel = channel;
        this.buffer = buffer;
        this.region = region;
        this.address = address;
        this.length = length;
    }

    /** The channel it was registered through. */
    public RdmaChannel channel() {
        return channel;
    }

    /** The registered bytes (a view; the region owns a reference until deregistration). */
    public ByteBuf buffer() {
        return buffer;
    }

    /** Native address of the first registered byte (what a peer uses as the RDMA address). */
    public long address() {
        return address;
    }

    public int length() {
        return length;
    }

    public int lkey() {
        return region.lkey();
    }

    /** The handle (R_key) a peer uses. */
    public int rkey() {
        return region.rkey();
    }

    public int access() {
        return region.access();
    }

    /** True until deregistration has happened. */
    public boolean isRegistered() {
        return !deregistered;
    }

    MemoryRegion region() {
        return region;
    }

    /**
     * Deregisters (now, or after the completions of work requests still using it) and releases the buffer. The
     * future completes when it is done. Idempotent.
     */
    public io.netty.util.concurrent.Future<Void> deregister() {
        Promise<Void> p = channel.eventLoop().newPromise();
        if (channel.eventLoop().inEventLoop()) {
            deregister0(p);
        } else {
            channel.eventLoop().execute(() -> deregister0(p));
        }
        return p;
    }

    private void deregister0(Promise<Void> p) {
        if (pooled) {
            p.tryFailure(new IllegalStateException("pool memory is deregistered by its pool, not by its users"));
            return;
        }
        if (deregistered) {
            p.trySuccess(null);
            return;
        }
        if (deregisterPromise != null) {
            deregisterPromise.addListener(f -> p.trySuccess(null));
            return;
        }
        deregisterPromise = p;
        if (uses == 0) {
            channel.deregisterNow(this);
        }
    }

    /** Marks this a pool slab's memory ({@link #deregister()} refuses it). */
    RdmaMemory pooled() {
        pooled = true;
        return this;
    }

    /** True while a posted work request uses it. Event loop. */
    boolean inUse() {
        return uses != 0;
    }

    /** The pool deregistered the slab (it frees the buffer itself). */
    void markPoolDeregistered() {
        deregistered = true;
    }

    void use() {
        uses++;
    }

    void unuse() {
        if (--uses == 0 && deregisterPromise != null && !deregistered) {
            channel.deregisterNow(this);
        }
    }

    /** Called by the channel (event loop) when the region is really gone. */
    void markDeregistered() {
        deregistered = true;
        buffer.release();
        if (deregisterPromise != null) {
            deregisterPromise.trySuccess(null);
        }
    }
}
