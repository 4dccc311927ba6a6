package dev.rpcrdma.handlers.header;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

/**
 * One connection's buffer for small Sends (a transport header and an inline message), reused from Send to Send.
 *
 * <p>The RDMA channel copies a Send's bytes when it posts it (inline into the work request, or into a registered
 * send slot) and releases the buffer then, so the buffer handed out for one Send is free again once it was posted.
 * {@link #take} returns this kept buffer, cleared and retained for the caller, whenever the keeper holds the only
 * reference to it (the last Send made from it was posted and released), and a buffer from the allocator otherwise
 * (the previous Send still waits in the outbound buffer, or some handler holds it): the allocator's
 * per-message work (a pooled buffer taken and given back per Send) is saved in the common case of one Send at a time,
 * and a buffer still referenced elsewhere is never written. With Netty's leak detection on, every Send gets its own
 * buffer from the allocator, as a kept buffer would be one tracked object living as long as the connection.
 *
 * <p>Ownership: the caller of {@link #take} owns one reference, as with the allocator's buffers; the keeper's own
 * reference goes with {@link #release()}, when the handler is done with the connection. Event-loop confined.
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
