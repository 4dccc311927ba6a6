package dev.rpcrdma.channel;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.Recycler;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;

/**
 * A retained slice of a lent receive buffer that comes from the event loop's pool, as Netty's pooled buffers hand
 * out {@code PooledSlicedByteBuf}s: what a decoder's {@code readRetainedSlice} of a received message costs no object
 * (an inline opaque argument, the reply to it). It holds one reference to its parent, its own count, and gives both
 * back at its last release; every access is the parent's at {@code index + adjustment}, bounds-checked against this
 * slice. Its capacity is fixed (a receive never grows).
 */
final class ReceiveSlice extends AbstractReferenceCountedByteBuf {

    private static final Recycler<ReceiveSlice> POOL = new Recycler<ReceiveSlice>() {
        @Override
        protected ReceiveSlice newObject(Handle<ReceiveSlice> handle) {
            return new ReceiveSlice(handle);
        }
    };

    private final Recycler.Handle<ReceiveSlice> handle;
    private ByteBuf parent;
    private int adjustment;
    private int length;

    private ReceiveSlice(Recycler.Handle<ReceiveSlice> handle) {
        super(Integer.MAX_VALUE);
        this.handle = handle;
    }

    /** A slice of {@code parent}'s bytes {@code [index, index + length)}; takes one reference to {@code parent}. */
    static ReceiveSlice newInstance(ByteBuf parent, int index, int length) {
        ReceiveSlice s = POOL.get();
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
        handle.recycle(this);
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
            throw new UnsupportedOperationException("a slice of a receive buffer keeps its capacity (" + length + ')');
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
