package dev.rpcrdma.channel;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * The {@link io.netty.buffer.ByteBufAllocator} view of an {@link RdmaMemoryPool}: direct buffers (the default) are
 * pool pieces, their max capacity capped to the piece size; heap buffers are plain unpooled ones. Buffers are
 * tracked by Netty's leak detector like any allocator's.
 */
final class PoolAllocator extends AbstractByteBufAllocator {
    private final RdmaMemoryPool pool;

    PoolAllocator(RdmaMemoryPool pool) {
        super(true);
        this.pool = pool;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    }

    /**
     * A pool piece of at least {@code initialCapacity} bytes.
     *
     * @throws IllegalStateException when the pool is exhausted (use {@link RdmaMemoryPool#tryAllocate} to wait)
     */
    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b;
        try {
            b = pool.allocate(initialCapacity);
        } catch (RdmaException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        if (b == null) {
            throw new IllegalStateException("registered memory pool exhausted (" + pool.maxBytes()
                    + " bytes, MEMORY_POOL_MAX_BYTES)");
        }
        return b;
    }

    /** Wraps a piece for Netty's leak detector (what {@code directBuffer} does for {@link #newDirectBuffer}). */
    ByteBuf leakAware(ByteBuf buf) {
        return toLeakAwareBuffer(buf);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }
}
