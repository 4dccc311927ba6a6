package dev.rpcrdma.channel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slices of lent receive buffers ({@link ReceiveSlice}): the bytes they show, the references they hold on the slot,
 * their reuse on an event-loop thread, and Netty's own slices while a leak detector watches the slot.
 */
class ReceiveSliceTest {

    interface Body {
        void run() throws Throwable;
    }

    /** Runs {@code body} on a FastThreadLocalThread (Netty's Recycler pools only there, as on an event loop). */
    private static void onEventLoopThread(ResourceLeakDetector.Level level, Body body) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(level);
        try {
            Thread t = new FastThreadLocalThread(() -> {
                try {
                    body.run();
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            t.start();
            t.join();
        } finally {
            ResourceLeakDetector.setLevel(before);
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    /** Lends slot 0 of {@code buffers} holding the bytes 0, 1, ... {@code length - 1}. */
    private static ByteBuf lendSlot0(ReceiveBuffers buffers, int length) {
        assertTrue(buffers.lend(0) >= 0, "a spare slot is free");
        ByteBuf b = buffers.lent(length);
        for (int i = 0; i < length; i++) {
            b.setByte(i, i);
        }
        return b;
    }

    @Test
    void aSliceShowsItsBytesHoldsTheSlotUntilItsLastReleaseAndIsReused() throws Throwable {
        onEventLoopThread(ResourceLeakDetector.Level.DISABLED, () -> {
            ReceiveBuffers buffers = new ReceiveBuffers(UnpooledByteBufAllocator.DEFAULT, 64, 1, 1);
            ByteBuf received = lendSlot0(buffers, 32);
            received.skipBytes(4);
            ByteBuf slice = received.readRetainedSlice(8);
            assertInstanceOf(ReceiveSlice.class, slice);
            assertEquals(12, received.readerIndex());
            assertEquals(0, slice.readerIndex());
            assertEquals(8, slice.readableBytes());
            assertEquals(8, slice.capacity());
            assertEquals(0x04050607, slice.getInt(0));
            assertEquals(0x0b, slice.getByte(7));
            assertEquals(received.memoryAddress() + 4, slice.memoryAddress());
            byte[] copy = new byte[8];
            slice.getBytes(0, copy);
            assertEquals(4, copy[0]);
            assertEquals(11, copy[7]);
            assertThrows(IndexOutOfBoundsException.class, () -> slice.getByte(8), "bounded by the slice");
            assertThrows(UnsupportedOperationException.class, () -> slice.capacity(16));
            assertEquals(2, received.refCnt(), "the slice holds one reference to the slot");

            ByteBuf inner = slice.retainedSlice(2, 4);
            assertInstanceOf(ReceiveSlice.class, inner);
            assertEquals(0x06070809, inner.readInt());
            assertEquals(3, received.refCnt());

            assertFalse(received.release(), "the slices still hold the slot");
            assertEquals(0x04, slice.getByte(0), "readable after the message's own release");
            assertTrue(inner.release(), "a slice has a count of its own");
            assertEquals(1, received.refCnt(), "and gave its reference to the slot back");
            assertTrue(slice.release());
            assertEquals(0, slice.refCnt());
            assertThrows(IllegalReferenceCountException.class, () -> slice.getByte(0));
            assertEquals(0, received.refCnt(), "the last slice gave the slot back");

            ByteBuf again = lendSlot0(buffers, 16);
            ByteBuf next = again.retainedSlice(0, 4);
            assertSame(slice, next, "the slice object is reused on the loop");
            assertEquals(0x00010203, next.getInt(0));
            next.release();
            again.release();
            buffers.close();
        });
    }

    @Test
    void aSlotWatchedByTheLeakDetectorHandsOutNettysSlices() throws Throwable {
        onEventLoopThread(ResourceLeakDetector.Level.PARANOID, () -> {
            ReceiveBuffers buffers = new ReceiveBuffers(UnpooledByteBufAllocator.DEFAULT, 64, 1, 1);
            ByteBuf received = lendSlot0(buffers, 16);
            ByteBuf slice = received.readRetainedSlice(4);
            assertFalse(slice instanceof ReceiveSlice, "a slice sharing the slot's count and leak record");
            assertEquals(0x00010203, slice.getInt(0));
            slice.release();
            assertTrue(received.release());
            buffers.close();
        });
    }
}
