package dev.rpcrdma.channel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;

/**
 * One {@link RdmaMemoryPool} piece as a {@link ByteBuf}: an unsafe direct buffer over the piece's memory, whose
 * capacity and max capacity are the piece size (it can never grow into unregistered memory), and whose last
 * release gives the piece back to the pool instead of freeing memory.
 */
final class PoolByteBuf extends UnpooledUnsafeDirectByteBuf {
    private final RdmaMemoryPool pool;
    private RdmaMemoryPool.Piece piece;

    PoolByteBuf(PoolAllocator alloc, RdmaMemoryPool pool, RdmaMemoryPool.Piece piece) {
        super(alloc, piece.memory.clear(), piece.size);
        this.pool = pool;
        this.piece = piece;
        clear(); // the wrapping constructor marks the bytes written
    }

    /** The capacity is fixed: a pool piece never reallocates (that would leave registered memory). */
    @Override
    public ByteBuf capacity(int newCapacity) {
        if (newCapacity != capacity()) {
            throw new UnsupportedOperationException("a registered pool buffer has a fixed capacity of " + capacity()
                    + " bytes (asked " + newCapacity + ')');
        }
        return this;
    }

    @Override
    protected void deallocate() {
        super.deallocate(); // drops the ByteBuffer; never frees it (not ours to free)
        RdmaMemoryPool.Piece p = piece;
        piece = null;
        if (p != null) {
            pool.release(p);
        }
    }
}
