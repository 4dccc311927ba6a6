package dev.rpcrdma.channel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.internal.ObjectUtil;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One received Send, fired down the pipeline of an {@link RdmaChannel}: {@link #content()} holds the received bytes,
 * the registered receive buffer itself (lent without a copy) or, when the pipeline holds
 * {@link RdmaChannelOption#RECEIVE_SPARE_BUFFERS} receives, a copy. The handler that consumes it releases it
 * ({@link #release()} releases the content too; a double release throws {@link IllegalReferenceCountException}).
 * Receives are pooled by the event loop, so never touch one after releasing it; to forward the bytes:
 * <pre>{@code
 * RdmaReceive r = (RdmaReceive) msg;
 * ctx.write(r.content().retain());
 * r.release();
 * }</pre>
 */
public final class RdmaReceive implements ByteBufHolder {
    private static final AtomicIntegerFieldUpdater<RdmaReceive> REFS =
            AtomicIntegerFieldUpdater.newUpdater(RdmaReceive.class, "refs");

    /** The loop's free holders this receive returns to; null for an unpooled receive. */
    private final ReceiveHolders home;
    private ByteBuf content;
    private boolean invalidated;
    private int invalidatedRkey;
    private volatile int refs;

    /**
     * An unpooled receive (tests, decoders fed by hand) owning {@code content}: releasing the receive releases it.
     */
    public RdmaReceive(ByteBuf content, boolean invalidated, int invalidatedRkey) {
        home = null;
        init(content, invalidated, invalidatedRkey);
    }

    private RdmaReceive(ReceiveHolders home) {
        this.home = home;
    }

    /** A new holder that returns to {@code home} when a receive it holds ends. */
    static RdmaReceive pooled(ReceiveHolders home) {
        return new RdmaReceive(home);
    }

    /**
     * The readable bytes of {@code content} (a receive's content, or any buffer) as a buffer of their own starting at
     * reader index 0, retained; {@code content} keeps its own reference. A receive lent in place gives its receive
     * buffer's reusable tail view when asked at the same reader index as the receives before it (a transport header of
     * fixed length): no copy and, in steady state, no allocation; anything else gives a retained slice. The view is
     * used with Netty's leak detection off ({@code -Dio.netty.leakDetection.level=disabled}); with it on, each call
     * gets a retained slice, which the detector follows as an object of its own.
     */
    public static ByteBuf retainedReadable(ByteBuf content) {
        return ReceiveBuffers.retainedTail(ObjectUtil.checkNotNull(content, "content"));
    }

    /**
     * A receive owning {@code content}, in a holder from {@code holders} (loop thread only), given back to them when
     * its reference count reaches 0.
     */
    static RdmaReceive newInstance(ReceiveHolders holders, ByteBuf content, boolean invalidated, int invalidatedRkey) {
        RdmaReceive r = holders.take();
        r.init(content, invalidated, invalidatedRkey);
        return r;
    }

    private void init(ByteBuf content, boolean invalidated, int invalidatedRkey) {
        this.content = ObjectUtil.checkNotNull(content, "content");
        this.invalidated = invalidated;
        this.invalidatedRkey = invalidatedRkey;
        REFS.set(this, 1);
    }

    /** The received bytes. Throws {@link IllegalReferenceCountException} once the receive was released. */
    @Override
    public ByteBuf content() {
        ByteBuf c = content;
        if (refs <= 0 || c == null) {
            throw new IllegalReferenceCountException(0);
        }
        return c;
    }

    /** The number of bytes the peer sent ({@code wc.byte_len}). */
    public int byteLength() {
        return content().readableBytes();
    }

    /** True if the peer used Send With Invalidate (the {@code IBV_WC_WITH_INV} flag). */
    public boolean hasInvalidatedRkey() {
        return invalidated;
    }

    /** The rkey the peer invalidated when {@link #hasInvalidatedRkey()}, else 0. */
    public int invalidatedRkey() {
        return invalidatedRkey;
    }

    /** The receive's own reference count (0 once released). */
    @Override
    public int refCnt() {
        return refs;
    }

    @Override
    public RdmaReceive retain() {
        return retain(1);
    }

    @Override
    public RdmaReceive retain(int increment) {
        ObjectUtil.checkPositive(increment, "increment");
        for (;;) {
            int r = refs;
            if (r <= 0 || r + increment < r) {
                throw new IllegalReferenceCountException(r, increment);
            }
            if (REFS.compareAndSet(this, r, r + increment)) {
                break;
            }
        }
        content.retain(increment);
        return this;
    }

    @Override
    public boolean release() {
        return release(1);
    }

    /**
     * Releases {@code decrement} references of the receive and of its content; true when that ended the receive
     * (which a pooled receive then returns to the pool: do not use it afterwards).
     */
    @Override
    public boolean release(int decrement) {
        ObjectUtil.checkPositive(decrement, "decrement");
        int left;
        for (;;) {
            int r = refs;
            if (r < decrement) {
                throw new IllegalReferenceCountException(r, -decrement);
            }
            left = r - decrement;
            if (REFS.compareAndSet(this, r, left)) {
                break;
            }
        }
        ByteBuf c = content;
        if (left == 0) {
            content = null;
        }
        // Throws if the content was released behind the receive's back: then the receive is not recycled either.
        c.release(decrement);
        if (left != 0) {
            return false;
        }
        invalidated = false;
        invalidatedRkey = 0;
        if (home != null) {
            home.giveBack(this);
        }
        return true;
    }

    @Override
    public RdmaReceive touch() {
        return touch(null);
    }

    @Override
    public RdmaReceive touch(Object hint) {
        content().touch(hint);
        return this;
    }

    /** An unpooled receive with a copy of the content. */
    @Override
    public RdmaReceive copy() {
        return replace(content().copy());
    }

    /** An unpooled receive sharing the content (not retained). */
    @Override
    public RdmaReceive duplicate() {
        return replace(content().duplicate());
    }

    /** An unpooled receive sharing the content (retained). */
    @Override
    public RdmaReceive retainedDuplicate() {
        return replace(content().retainedDuplicate());
    }

    /** An unpooled receive with {@code content} and this one's invalidation. */
    @Override
    public RdmaReceive replace(ByteBuf content) {
        return new RdmaReceive(content, invalidated, invalidatedRkey);
    }

    @Override
    public String toString() {
        ByteBuf c = content;
        if (refs <= 0 || c == null) {
            return "RdmaReceive(released)";
        }
        return "RdmaReceive(" + c.readableBytes() + " B" + (invalidated ? ", invalidated rkey 0x"
                + Integer.toHexString(invalidatedRkey) : "") + ')';
    }
}
