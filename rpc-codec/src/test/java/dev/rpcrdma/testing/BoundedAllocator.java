package dev.rpcrdma.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.internal.ObjectUtil;

/**
 * A {@link ByteBufAllocator} that fails every request for an initial capacity above a bound: the proof, in fuzz
 * targets and fault tests, that no buffer is sized by a length read from the wire before it was checked (the
 * CVE-2017-8779 "rpcbomb" class). The failure is an {@link OversizedAllocationError}, an {@link Error} so that no
 * decoder's {@code catch (RuntimeException)} can hide it, and {@link #oversizedRequests()} counts it besides.
 * Buffers come from an unpooled, leak-tracked allocator; the wrapper is thread-safe.
 */
public final class BoundedAllocator implements ByteBufAllocator {

    /** Thrown on a request above the bound. */
    public static final class OversizedAllocationError extends AssertionError {
        private static final long serialVersionUID = 1L;

        OversizedAllocationError(String message) {
            super(message);
        }
    }

    private final ByteBufAllocator delegate;
    private final int bound;
    private volatile int oversized;
    private volatile int largest;

    /** Fails requests of more than {@code bound} bytes. */
    public BoundedAllocator(int bound) {
        this(new UnpooledByteBufAllocator(true, false, false), bound);
    }

    public BoundedAllocator(ByteBufAllocator delegate, int bound) {
        this.delegate = ObjectUtil.checkNotNull(delegate, "delegate");
        this.bound = ObjectUtil.checkPositiveOrZero(bound, "bound");
    }

    /** Requests refused so far. */
    public int oversizedRequests() {
        return oversized;
    }

    /** The largest initial capacity granted so far. */
    public int largestRequest() {
        return largest;
    }

    private int check(int initialCapacity) {
        if (initialCapacity > bound) {
            synchronized (this) {
                oversized++;
            }
            throw new OversizedAllocationError("allocation of " + initialCapacity + " bytes, over the bound "
                    + bound);
        }
        if (initialCapacity > largest) {
            synchronized (this) {
                largest = Math.max(largest, initialCapacity);
            }
        }
        return initialCapacity;
    }

    @Override
    public ByteBuf buffer() {
        return delegate.buffer(check(256));
    }

    @Override
    public ByteBuf buffer(int initialCapacity) {
        return delegate.buffer(check(initialCapacity));
    }

    @Override
    public ByteBuf buffer(int initialCapacity, int maxCapacity) {
        return delegate.buffer(check(initialCapacity), maxCapacity);
    }

    @Override
    public ByteBuf ioBuffer() {
        return delegate.ioBuffer(check(256));
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity) {
        return delegate.ioBuffer(check(initialCapacity));
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity, int maxCapacity) {
        return delegate.ioBuffer(check(initialCapacity), maxCapacity);
    }

    @Override
    public ByteBuf heapBuffer() {
        return delegate.heapBuffer(check(256));
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity) {
        return delegate.heapBuffer(check(initialCapacity));
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity, int maxCapacity) {
        return delegate.heapBuffer(check(initialCapacity), maxCapacity);
    }

    @Override
    public ByteBuf directBuffer() {
        return delegate.directBuffer(check(256));
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity) {
        return delegate.directBuffer(check(initialCapacity));
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity, int maxCapacity) {
        return delegate.directBuffer(check(initialCapacity), maxCapacity);
    }

    @Override
    public CompositeByteBuf compositeBuffer() {
        return delegate.compositeBuffer();
    }

    @Override
    public CompositeByteBuf compositeBuffer(int maxNumComponents) {
        return delegate.compositeBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer() {
        return delegate.compositeHeapBuffer();
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
        return delegate.compositeHeapBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer() {
        return delegate.compositeDirectBuffer();
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
        return delegate.compositeDirectBuffer(maxNumComponents);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return delegate.isDirectBufferPooled();
    }

    @Override
    public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
        return delegate.calculateNewCapacity(minNewCapacity, maxCapacity);
    }
}
