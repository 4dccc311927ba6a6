package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

/**
 * Copies bytes between buffers without allocating. {@code ByteBuf.writeBytes(ByteBuf, int, int)} may create a
 * temporary {@link java.nio.ByteBuffer} view per copy (Netty's adaptive allocator does, and so does a
 * {@code CompositeByteBuf} of several components); on the per-call path that is garbage for every message.
 */
final class ByteBufCopy {

    private ByteBufCopy() {
    }

    /**
     * Appends {@code length} bytes of {@code src} from {@code index} at the writer index of {@code out}: a plain
     * memory copy when both have native addresses, otherwise Netty's own copy.
     */
    static void append(ByteBuf src, int index, int length, ByteBuf out) {
        if (index < 0 || length < 0 || index > src.capacity() - length) {
            throw new IndexOutOfBoundsException("index " + index + " length " + length + " capacity "
                    + src.capacity());
        }
        out.ensureWritable(length);
        int to = out.writerIndex();
        if (src.hasMemoryAddress() && out.hasMemoryAddress()) {
            PlatformDependent.copyMemory(src.memoryAddress() + index, out.memoryAddress() + to, length);
        } else if (src.hasMemoryAddress() && out.hasArray()) {
            PlatformDependent.copyMemory(src.memoryAddress() + index, out.array(), out.arrayOffset() + to, length);
        } else if (src.hasArray() && out.hasMemoryAddress()) {
            PlatformDependent.copyMemory(src.array(), src.arrayOffset() + index, out.memoryAddress() + to, length);
        } else {
            out.writeBytes(src, index, length);
            return;
        }
        out.writerIndex(to + length);
    }
}
