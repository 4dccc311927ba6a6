package dev.rpcrdma.channel;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.ThreadAwareExecutor;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The receive buffers of one connection: one slab of {@code queueSize + spare} slots, registered once, each slot
 * <em>posted</em>, <em>held</em>, <em>lent</em> (fired down the pipeline in place), <em>pending</em> a repost or
 * <em>free</em>. A completed slot is lent while a free one can be posted in its stead, else copied; a lent slot is
 * posted again only after its release. The module README ("Ownership", received Sends) has the rules.
 */
final class ReceiveBuffers {
    private final ByteBufAllocator alloc;
    private final int bufferSize;
    private final int slots;
    /** The loop that lends; null: every give-back takes the lock. */
    private final ThreadAwareExecutor loop;
    /** Released by {@link #close()} or by the last give-back after it. */
    private ByteBuf slab;
    private final long address;
    /**
     * Free slot buffers (a stack) of the loop: popped by {@link #lend} and pushed by a give-back on the loop thread,
     * without a lock. A lent one is referenced only by whoever holds it.
     */
    private final Slot[] free;
    private final Slot[] all;
    private int freeCount;
    /** Slots given back on other threads (under the lock), moved to {@link #free} by a lend that finds it empty. */
    private final Slot[] returned;
    private int returnedCount;
    /** Lends less give-backs on the loop thread before the close. Written by the loop only. */
    private int lentByLoop;
    /** Give-backs on other threads, and all give-backs after the close. Under the lock. */
    private int returnedElsewhere;
    /** Between {@link #lend(int)} and {@link #lent(int)} (event loop). */
    private Slot lending;
    /** Set by the loop under the lock; read without it only on the loop thread. */
    private boolean closed;

    /** Buffers whose every give-back takes the lock (no loop known). */
    ReceiveBuffers(ByteBufAllocator alloc, int bufferSize, int queueSize, int spare) {
        this(alloc, bufferSize, queueSize, spare, null);
    }

    /** Buffers lent by {@code loop}, which takes back the buffers released on its thread without a lock. */
    ReceiveBuffers(ByteBufAllocator alloc, int bufferSize, int queueSize, int spare, ThreadAwareExecutor loop) {
        this.alloc = alloc;
        this.bufferSize = bufferSize;
        this.slots = queueSize + spare;
        this.loop = loop;
        slab = alloc.directBuffer(Math.multiplyExact(slots, bufferSize));
        address = slab.memoryAddress();
        free = new Slot[slots];
        all = new Slot[slots];
        returned = new Slot[slots];
        for (int i = 0; i < slots; i++) {
            all[i] = new Slot(this, i, slab.nioBuffer(i * bufferSize, bufferSize));
        }
        // Slots [0, queueSize) are posted by the channel; the spare ones start free.
        for (int i = slots - 1; i >= queueSize; i--) {
            free[freeCount++] = all[i];
        }
    }

    /** All slots, posted or not. */
    int slots() {
        return slots;
    }

    long address() {
        return address;
    }

    long capacity() {
        return (long) slots * bufferSize;
    }

    long slotAddress(int slot) {
        return address + (long) slot * bufferSize;
    }

    /**
     * Lends completed slot {@code slot} in exchange for a free one, which the caller reposts in its place; the
     * caller then takes the lent buffer with {@link #lent(int)}. Returns the free slot, or -1 when none is free (or
     * after close): then nothing changed and the receive is to be copied. Loop thread; no lock unless the loop's free
     * slots ran out and those given back elsewhere are taken.
     */
    int lend(int slot) {
        if (closed || freeCount == 0 && !takeReturned()) {
            return -1;
        }
        Slot spare = free[--freeCount];
        free[freeCount] = null;
        lending = all[slot];
        // While lent the channel keeps no reference to the buffer: a leaked one is collected and reported.
        all[slot] = null;
        lentByLoop++;
        return spare.index;
    }

    /** Moves the slots given back on other threads to the loop's free stack; true if there were any. */
    private synchronized boolean takeReturned() {
        int n = returnedCount;
        for (int i = 0; i < n; i++) {
            free[freeCount++] = returned[i];
            returned[i] = null;
        }
        returnedCount = 0;
        return n > 0;
    }

    /** The buffer of the slot {@link #lend(int)} just lent, holding {@code length} received bytes (refCnt 1). */
    ByteBuf lent(int length) {
        Slot s = lending;
        lending = null;
        s.lend(length);
        return LeakTracking.track(s);
    }

    /** A copy of {@code length} bytes of slot {@code slot} in a buffer from the allocator (no slot is free). */
    ByteBuf copy(int slot, int length) {
        ByteBuf buf = alloc.directBuffer(length);
        buf.writeBytes(slab, slot * bufferSize, length);
        return buf;
    }

    private void giveBack(Slot s) {
        ThreadAwareExecutor l = loop;
        if (l != null && l.isExecutorThread(Thread.currentThread()) && !closed) {
            all[s.index] = s;
            free[freeCount++] = s;
            lentByLoop--;
            return;
        }
        ByteBuf toRelease = null;
        synchronized (this) {
            all[s.index] = s;
            returnedElsewhere++;
            if (!closed) {
                returned[returnedCount++] = s;
            } else if (lentByLoop == returnedElsewhere) {
                toRelease = slab;
                slab = null;
            }
        }
        if (toRelease != null) {
            toRelease.release();
        }
    }

    /**
     * The channel is done with the slab (its memory region is deregistered: nothing is posted). The slab is released
     * now, or by the last lent buffer's release. Loop thread (the lending one).
     */
    void close() {
        ByteBuf toRelease = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            Arrays.fill(free, 0, freeCount, null);
            freeCount = 0;
            Arrays.fill(returned, 0, returnedCount, null);
            returnedCount = 0;
            if (lentByLoop == returnedElsewhere) {
                toRelease = slab;
                slab = null;
            }
        }
        if (toRelease != null) {
            toRelease.release();
        }
    }

    /**
     * The buffer of one slot: a view of the slab, made once and reused for every receive lent from that slot. Its
     * capacity is the slot's and cannot change (the memory is the slab's). Releasing it gives the slot back.
     */
    private static final class Slot extends UnpooledUnsafeDirectByteBuf {
        private final ReceiveBuffers owner;
        final int index;
        private final ByteBuffer memory;
        /** The slot's bytes from {@link Tail#offset} on, made at the first {@link #tail} and reused while asked at it. */
        private Tail tail;

        Slot(ReceiveBuffers owner, int index, ByteBuffer view) {
            super(owner.alloc, view, view.remaining());
            this.owner = owner;
            this.index = index;
            this.memory = view;
        }

        /**
         * The bytes [{@code from}, {@code to}) of this lent slot as a buffer of their own (reader index 0), holding a
         * reference to the slot through {@code lent} (the slot as lent: the leak detector's wrapper, if any) until it
         * is released: the slot's reusable tail view when it is free and made at
         * {@code from} (no allocation: a transport header of fixed length strips the same way every time), else a
         * retained slice.
         */
        ByteBuf tail(ByteBuf lent, int from, int to) {
            Tail t = tail;
            if (t != null && (t.offset != from || !t.idle())) {
                return lent.retainedSlice(from, to - from);
            }
            if (t == null) {
                ByteBuffer b = memory.duplicate();
                b.position(from);
                tail = t = new Tail(this, from, b.slice());
            }
            t.lend(lent.retain(), to - from);
            return t;
        }

        void lend(int length) {
            resetRefCnt();
            setIndex(0, 0);
            markReaderIndex();
            markWriterIndex();
            writerIndex(length);
        }

        @Override
        public ByteBuf capacity(int newCapacity) {
            return fixedCapacity(this, newCapacity);
        }

        @Override
        protected void deallocate() {
            // Not super.deallocate(): the memory is the slab's and the object is reused for the slot's next receive.
            owner.giveBack(this);
        }
    }

    /**
     * A lent slot's bytes from a fixed offset on, at index 0: made once per slot, lent again for each receive that asks
     * for the same offset. It holds one reference to its slot while lent; its last release gives that back.
     */
    private static final class Tail extends UnpooledUnsafeDirectByteBuf {
        final int offset;
        /**
         * The reference to the slot this lend holds (the slot as lent); null once the last release gave it back. Read
         * by the loop that lends the view again: a view released (count 0) whose release has not yet given its slot
         * reference back is not idle.
         */
        private volatile ByteBuf lent;

        Tail(Slot slot, int offset, ByteBuffer view) {
            super(slot.alloc(), view, view.remaining());
            this.offset = offset;
            setRefCnt(0);
        }

        /** Released, and its reference to the slot given back: it may be lent again. */
        boolean idle() {
            return refCnt() == 0 && lent == null;
        }

        void lend(ByteBuf lent, int length) {
            this.lent = lent;
            resetRefCnt();
            setIndex(0, length);
            markReaderIndex();
            markWriterIndex();
        }

        @Override
        public ByteBuf capacity(int newCapacity) {
            return fixedCapacity(this, newCapacity);
        }

        @Override
        protected void deallocate() {
            // Not super.deallocate(): the memory is the slot's; the object waits for the slot's next receive.
            ByteBuf l = lent;
            lent = null;
            l.release();
        }
    }

    /** A lent receive buffer's capacity is the slot's: it cannot change (the memory is the slab's). */
    private static ByteBuf fixedCapacity(ByteBuf buf, int newCapacity) {
        if (newCapacity != buf.capacity()) {
            throw new UnsupportedOperationException("a receive buffer lent by an RdmaChannel keeps its capacity ("
                    + buf.capacity() + ')');
        }
        return buf;
    }

    /**
     * The readable bytes of {@code buf} (a receive's content, or any buffer) as a buffer of their own at reader index 0,
     * retained: with leak detection off, for a receive lent in place, its slot's reusable tail view when the slot was
     * last asked at the same offset and that view is idle (no allocation); else a retained slice. {@code buf} keeps
     * its own reference.
     */
    static ByteBuf retainedTail(ByteBuf buf) {
        // With Netty's leak detection on, a retained slice: the detector then follows each hand-up as an object of its
        // own, through the slot's tracker, instead of one view object reused for every receive of the slot (tracking
        // allocates per hand-up anyway). The reusable view is for leak detection off (-Dio.netty.leakDetection.level=
        // disabled), where it saves the only allocation of the hand-up.
        if (ResourceLeakDetector.isEnabled()) {
            return buf.retainedSlice();
        }
        // The slot itself, whose indexes are the slot's (same first byte).
        if (buf instanceof Slot && buf.hasMemoryAddress() && buf.memoryAddress() == ((Slot) buf).memoryAddress()) {
            return ((Slot) buf).tail(buf, buf.readerIndex(), buf.writerIndex());
        }
        return buf.retainedSlice();
    }

    /** Reaches {@link AbstractByteBufAllocator#toLeakAwareBuffer(ByteBuf)}: Netty's leak detector for ByteBufs. */
    private abstract static class LeakTracking extends AbstractByteBufAllocator {
        static ByteBuf track(ByteBuf buf) {
            return toLeakAwareBuffer(buf);
        }
    }
}
