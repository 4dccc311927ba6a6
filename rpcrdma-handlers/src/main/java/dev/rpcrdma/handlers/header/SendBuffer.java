package dev.rpcrdma.handlers.header;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

/**
 * One connection's buffer for small Sends (a transport header and an inline message), reused from Send to Send: the
 * channel copies a Send's bytes when it posts it and releases the buffer then, so {@link #take} hands out the kept
 * buffer whenever nobody else holds it, else (or with Netty's leak detection on) a buffer from the allocator. The
 * caller of {@link #take} owns one reference; the keeper's goes with {@link #release()}. Event-loop confined.
 */
public final class SendBuffer {

    /** Sends larger than this are always allocated (a kept buffer is at most this large). */
    static final int MAX_KEPT = 16 * 1024;
    /** The smallest buffer kept: a NULL call or reply and most small ones fit without regrowing it. */
    static final int MIN_KEPT = 1024;

    private ByteBuf kept;

    /** A direct buffer of at least {@code size} bytes, empty, owned by the caller. */
    public ByteBuf take(ByteBufAllocator alloc, int size) {
        ByteBuf b = kept;
        if (b != null && b.refCnt() == 1 && size <= b.capacity()) {
            b.clear();
            return b.retain();
        }
        if (size > MAX_KEPT || b != null && b.refCnt() != 1) {
            return alloc.directBuffer(size); // too large to keep, or the previous Send is not posted yet
        }
        if (b != null) {
            kept = null; // too small: a larger one replaces it
            b.release();
        }
        if (ResourceLeakDetector.isEnabled()) {
            return alloc.directBuffer(size);
        }
        b = alloc.directBuffer(Math.max(size, MIN_KEPT));
        kept = b;
        return b.retain();
    }

    /** Lets go of the kept buffer (a Send made from it and not posted yet keeps it until then). Idempotent. */
    public void release() {
        ByteBuf b = kept;
        if (b != null) {
            kept = null;
            b.release();
        }
    }
}
