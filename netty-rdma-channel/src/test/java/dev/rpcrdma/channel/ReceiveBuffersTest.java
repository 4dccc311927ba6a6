package dev.rpcrdma.channel;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** {@link ReceiveBuffers} lending its slots and their reusable views, as a loop and a handler's thread use them. */
class ReceiveBuffersTest {
    private static final int HEADER = 28;
    private static final int LENGTH = 100;

    /** An allocator that keeps the last direct buffer it made (the slab). */
    private static final class SlabAllocator extends AbstractByteBufAllocator {
        ByteBuf slab;

        SlabAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
            if (initialCapacity > LENGTH) {
                slab = b;
            }
            return b;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    /**
     * A loop lends receives (in place while a slot is free, else copied) and hands the bytes past a fixed header to
     * another thread, which reads them after a while and releases them from there, as a pipeline on its own executor
     * (Hadoop's gateway) does, with leak detection off (the reusable views). No byte a handler holds changes before
     * it releases it (no slot or view is lent again while held), and every slot comes back: the slab is freed at close.
     */
    @Test
    void viewsReleasedOnAnotherThreadAreNeverLentAgainWhileHeld() throws Exception {
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        try {
            for (int round = 0; round < 4; round++) {
                handUps(20_000, false);
                handUps(20_000, true);
            }
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    /**
     * {@code count} receives lent; with {@code loopKnown} the buffers know their loop (this thread), which then keeps
     * about a quarter of them itself and releases them here (given back without the lock), the rest going to the
     * handler's thread (given back under the lock, taken by a later lend).
     */
    private static void handUps(int count, boolean loopKnown) throws Exception {
        SlabAllocator alloc = new SlabAllocator();
        Thread loop = Thread.currentThread();
        ReceiveBuffers rb = new ReceiveBuffers(alloc, 256, 4, 4, !loopKnown ? null : new ThreadAwareExecutor() {
            @Override
            public boolean isExecutorThread(Thread thread) {
                return thread == loop;
            }

            @Override
            public void execute(Runnable command) {
                throw new UnsupportedOperationException();
            }
        });
        ByteBuf slab = alloc.slab;
        ArrayDeque<Integer> posted = new ArrayDeque<>(java.util.List.of(0, 1, 2, 3));
        BlockingQueue<ByteBuf> handedUp = new ArrayBlockingQueue<>(16);
        BlockingQueue<Integer> sequence = new ArrayBlockingQueue<>(16);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread handler = new Thread(() -> {
            try {
                while (true) {
                    int expected = sequence.take();
                    if (expected < 0) {
                        break;
                    }
                    ByteBuf b = handedUp.take();
                    ByteBuf s = b.slice(4, b.readableBytes() - 4);
                    if (ThreadLocalRandom.current().nextInt(8) == 0) {
                        Thread.yield();
                    }
                    int first = b.getInt(0);
                    int last = s.getInt(s.readableBytes() - 4);
                    s.release();
                    if (first != expected || last != expected) {
                        throw new AssertionError("hand-up " + expected + " read " + first + " / " + last);
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }, "handler");
        handler.start();
        try {
            for (int i = 0; i < count && failure.get() == null; i++) {
                int slot = posted.poll();
                // The device writes the receive: the sequence number first and last past the header.
                long at = rb.slotAddress(slot);
                int big = PlatformDependent.BIG_ENDIAN_NATIVE_ORDER ? i : Integer.reverseBytes(i); // as ByteBuf reads
                PlatformDependent.putInt(at + HEADER, big);
                PlatformDependent.putInt(at + LENGTH - 4, big);
                int spare = rb.lend(slot);
                ByteBuf content;
                if (spare < 0) {
                    content = rb.copy(slot, LENGTH);
                    posted.add(slot);
                } else {
                    content = rb.lent(LENGTH);
                    posted.add(spare);
                }
                content.skipBytes(HEADER);
                ByteBuf message = ReceiveBuffers.retainedTail(content);
                content.release();
                if (loopKnown && ThreadLocalRandom.current().nextInt(4) == 0) {
                    int first = message.getInt(0);
                    message.release(); // on the loop
                    assertEquals(i, first, "a kept receive's bytes");
                    continue;
                }
                sequence.put(i);
                handedUp.put(message);
            }
        } finally {
            sequence.offer(-1, 30, java.util.concurrent.TimeUnit.SECONDS); // bounded: a failed handler takes no more
            handler.join(30_000);
        }
        assertNull(failure.get(), () -> "the handler saw bytes change under it: " + failure.get());
        assertEquals(1, slab.refCnt(), "the slab is held until close");
        rb.close();
        assertEquals(0, slab.refCnt(), "every slot came back: the slab is freed at close");
    }
}
