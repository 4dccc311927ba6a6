package dev.rpcrdma.channel.verbs;

import com.kenai.jffi.MemoryIO;

/**
 * One block of native memory (malloc/free) whose lifetime the code controls: nothing is freed by the GC. Use it
 * for memory that is registered with {@code ibv_reg_mr} or posted to a device (work requests, SGE lists, work
 * completions, registered buffers). The owner MUST call {@link #close()} after the memory is deregistered and no
 * posted work request refers to it any more (RDMA: never before its completion or flush).
 *
 * <p>Not thread-safe; {@link #close()} is idempotent.
 */
final class NativeMemory implements AutoCloseable {
    static final MemoryIO IO = MemoryIO.getInstance();

    private final long size;
    private long address;

    private NativeMemory(long address, long size) {
        this.address = address;
        this.size = size;
    }

    /** Allocates {@code size} bytes, zeroed, aligned to at least 16 bytes (malloc). */
    public static NativeMemory allocate(long size) {
        if (size <= 0) {
            throw new IllegalArgumentException("size: " + size + " (expected: > 0)");
        }
        long address = IO.allocateMemory(size, true);
        if (address == 0) {
            throw new OutOfMemoryError("malloc(" + size + ") failed");
        }
        return new NativeMemory(address, size);
    }

    /** The start address; throws once closed. */
    public long address() {
        if (address == 0) {
            throw new IllegalStateException("native memory already freed");
        }
        return address;
    }

    public long size() {
        return size;
    }

    public boolean isOpen() {
        return address != 0;
    }

    /** Copies {@code length} bytes from {@code src[srcIndex...]} to {@code offset}. */
    public void put(long offset, byte[] src, int srcIndex, int length) {
        checkRange(offset, length);
        IO.putByteArray(address + offset, src, srcIndex, length);
    }

    /** Copies {@code length} bytes at {@code offset} into {@code dst[dstIndex...]}. */
    public void get(long offset, byte[] dst, int dstIndex, int length) {
        checkRange(offset, length);
        IO.getByteArray(address + offset, dst, dstIndex, length);
    }

    /** Fills {@code length} bytes at {@code offset} with {@code value}. */
    public void fill(long offset, long length, byte value) {
        checkRange(offset, length);
        IO.setMemory(address + offset, length, value);
    }

    private void checkRange(long offset, long length) {
        address();
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new IndexOutOfBoundsException("offset " + offset + " length " + length + " size " + size);
        }
    }

    /** Frees the memory. Call only once nothing (device, peer, posted work request) can still use it. */
    @Override
    public void close() {
        long a = address;
        if (a != 0) {
            address = 0;
            IO.freeMemory(a);
        }
    }
}
