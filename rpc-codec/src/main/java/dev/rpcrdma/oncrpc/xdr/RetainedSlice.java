package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.Recycler;
import io.netty.util.internal.MathUtil;
import io.netty.util.internal.ObjectUtil;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

/**
 * A retained slice that comes from the event loop's pool, as Netty's pooled buffers hand out
 * {@code PooledSlicedByteBuf}s, whatever buffer it slices: so that what the RPC layer slices out of a received
 * message (a TCP record out of the stream, an inline opaque out of a record or an RDMA receive) costs no object per
 * call. Netty's own {@code retainedSlice} makes a new object for any buffer that is not from its pooled allocator
 * (the adaptive allocator's, the RDMA transport's receive and pool buffers).
 *
 * <p>It holds one reference to the buffer it was made from (the very object given, so a leak detector's wrapper
 * stays open until the slice is released), has a count of its own, and gives its reference back at its last
 * release. Every access is the parent's at {@code index + adjustment}, bounds-checked against the slice; a slice
 * of a slice refers to the first parent. Its capacity is fixed.
 */
public final class RetainedSlice extends AbstractReferenceCountedByteBuf {

    private static final LocalPool<RetainedSlice> POOL = new LocalPool<>(new Recycler<RetainedSlice>() {
        @Override
        protected RetainedSlice newObject(Handle<RetainedSlice> handle) {
            return new RetainedSlice(handle);
        }
    });

    private final Recycler.Handle<RetainedSlice> handle;
    private ByteBuf parent;
    private int adjustment;
    private int length;

    private RetainedSlice(Recycler.Handle<RetainedSlice> handle) {
        super(Integer.MAX_VALUE);
        this.handle = handle;
    }

    /**
     * A slice of {@code buffer}'s bytes {@code [index, index + length)} with reader index 0 and writer index
     * {@code length}, holding one reference to {@code buffer} (or, for a slice of a {@code RetainedSlice}, to its
     * parent) until its last release; what {@code buffer.retainedSlice(index, length)} is, without a new object on
     * an event loop.
     *
     * @throws IndexOutOfBoundsException if the range is not within {@code buffer}'s capacity
     */
    public static ByteBuf of(ByteBuf buffer, int index, int length) {
        ObjectUtil.checkNotNull(buffer, "buffer");
        if (MathUtil.isOutOfBounds(index, length, buffer.capacity())) {
            throw new IndexOutOfBoundsException("slice [" + index + ", " + index + " + " + length + ") of a buffer of "
                    + buffer.capacity() + " bytes");
        }
        if (buffer instanceof RetainedSlice) {
            RetainedSlice outer = (RetainedSlice) buffer;
            outer.ensureAccessible();
            return newInstance(outer.parent, outer.adjustment + index, length);
        }
        return newInstance(buffer, index, length);
    }

    /** {@link #of} of the next {@code length} readable bytes of {@code buffer}, which it skips. */
    public static ByteBuf readRetainedSlice(ByteBuf buffer, int length) {
        ObjectUtil.checkPositiveOrZero(length, "length");
        if (length > buffer.readableBytes()) {
            throw new IndexOutOfBoundsException(length + " bytes to slice, " + buffer.readableBytes() + " readable");
        }
        ByteBuf slice = of(buffer, buffer.readerIndex(), length);
        buffer.skipBytes(length);
        return slice;
    }

    private static RetainedSlice newInstance(ByteBuf parent, int index, int length) {
        RetainedSlice s = POOL.get();
        s.parent = parent.retain();
        s.adjustment = index;
        s.length = length;
        s.resetRefCnt();
        s.setIndex(0, length);
        s.markReaderIndex();
        s.markWriterIndex();
        return s;
    }

    @Override
    protected void deallocate() {
        ByteBuf p = parent;
        parent = null;
        POOL.recycle(this, handle);
        p.release();
    }

    private int idx(int index) {
        return index + adjustment;
    }

    @Override
    public int capacity() {
        return length;
    }

    @Override
    public int maxCapacity() {
        return length;
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        if (newCapacity != length) {
            throw new UnsupportedOperationException("a RetainedSlice keeps its capacity (" + length + ')');
        }
        return this;
    }

    @Override
    public ByteBufAllocator alloc() {
        return parent.alloc();
    }

    @Override
    @SuppressWarnings("deprecation")
    public ByteOrder order() {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public ByteBuf unwrap() {
        return parent;
    }

    @Override
    public boolean isDirect() {
        return parent.isDirect();
    }

    @Override
    public ByteBuf retainedSlice(int index, int length) {
        checkIndex(index, length);
        return newInstance(parent, idx(index), length);
    }

    @Override
    public ByteBuf retainedSlice() {
        return retainedSlice(readerIndex(), readableBytes());
    }

    @Override
    protected byte _getByte(int index) {
        return parent.getByte(idx(index));
    }

    @Override
    protected short _getShort(int index) {
        return parent.getShort(idx(index));
    }

    @Override
    protected short _getShortLE(int index) {
        return parent.getShortLE(idx(index));
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        return parent.getUnsignedMedium(idx(index));
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        return parent.getUnsignedMediumLE(idx(index));
    }

    @Override
    protected int _getInt(int index) {
        return parent.getInt(idx(index));
    }

    @Override
    protected int _getIntLE(int index) {
        return parent.getIntLE(idx(index));
    }

    @Override
    protected long _getLong(int index) {
        return parent.getLong(idx(index));
    }

    @Override
    protected long _getLongLE(int index) {
        return parent.getLongLE(idx(index));
    }

    @Override
    protected void _setByte(int index, int value) {
        parent.setByte(idx(index), value);
    }

    @Override
    protected void _setShort(int index, int value) {
        parent.setShort(idx(index), value);
    }

    @Override
    protected void _setShortLE(int index, int value) {
        parent.setShortLE(idx(index), value);
    }

    @Override
    protected void _setMedium(int index, int value) {
        parent.setMedium(idx(index), value);
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        parent.setMediumLE(idx(index), value);
    }

    @Override
    protected void _setInt(int index, int value) {
        parent.setInt(idx(index), value);
    }

    @Override
    protected void _setIntLE(int index, int value) {
        parent.setIntLE(idx(index), value);
    }

    @Override
    protected void _setLong(int index, long value) {
        parent.setLong(idx(index), value);
    }

    @Override
    protected void _setLongLE(int index, long value) {
        parent.setLongLE(idx(index), value);
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        checkIndex(index, length);
        parent.getBytes(idx(index), dst, dstIndex, length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkIndex(index, length);
        parent.getBytes(idx(index), dst, dstIndex, length);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        checkIndex(index, dst.remaining());
        parent.getBytes(idx(index), dst);
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) throws IOException {
        checkIndex(index, length);
        parent.getBytes(idx(index), out, length);
        return this;
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int length) throws IOException {
        checkIndex(index, length);
        return parent.getBytes(idx(index), out, length);
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int length) throws IOException {
        checkIndex(index, length);
        return parent.getBytes(idx(index), out, position, length);
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        checkIndex(index, length);
        parent.setBytes(idx(index), src, srcIndex, length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        checkIndex(index, length);
        parent.setBytes(idx(index), src, srcIndex, length);
        return this;
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        checkIndex(index, src.remaining());
        parent.setBytes(idx(index), src);
        return this;
    }

    @Override
    public int setBytes(int index, InputStream in, int length) throws IOException {
        checkIndex(index, length);
        return parent.setBytes(idx(index), in, length);
    }

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int length) throws IOException {
        checkIndex(index, length);
        return parent.setBytes(idx(index), in, length);
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int length) throws IOException {
        checkIndex(index, length);
        return parent.setBytes(idx(index), in, position, length);
    }

    @Override
    public ByteBuf copy(int index, int length) {
        checkIndex(index, length);
        return parent.copy(idx(index), length);
    }

    @Override
    public int nioBufferCount() {
        return parent.nioBufferCount();
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        checkIndex(index, length);
        return parent.nioBuffer(idx(index), length);
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int length) {
        checkIndex(index, length);
        return parent.nioBuffer(idx(index), length);
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int length) {
        checkIndex(index, length);
        return parent.nioBuffers(idx(index), length);
    }

    @Override
    public boolean isContiguous() {
        return parent.isContiguous();
    }

    @Override
    public boolean hasArray() {
        return parent.hasArray();
    }

    @Override
    public byte[] array() {
        return parent.array();
    }

    @Override
    public int arrayOffset() {
        return parent.arrayOffset() + adjustment;
    }

    @Override
    public boolean hasMemoryAddress() {
        return parent.hasMemoryAddress();
    }

    @Override
    public long memoryAddress() {
        return parent.memoryAddress() + adjustment;
    }
}
