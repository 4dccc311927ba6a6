package dev.rpcrdma.channel;

import dev.rpcrdma.testing.EventLoopThread;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.concurrent.ThreadAwareExecutor;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ownership of {@link RdmaReceive}: its reference count, its content's, and the pool its channel uses. */
class RdmaReceiveTest {

    /** Free holders owned by the calling thread, as a loop's are by the loop. */
    private static ReceiveHolders holders() {
        Thread owner = Thread.currentThread();
        return new ReceiveHolders(new ThreadAwareExecutor() {
            @Override
            public boolean isExecutorThread(Thread thread) {
                return thread == owner;
            }

            @Override
            public void execute(Runnable command) {
                throw new UnsupportedOperationException();
            }
        });
    }

    private static ByteBuf bytes(int n) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(n);
        for (int i = 0; i < n; i++) {
            b.writeByte(i);
        }
        return b;
    }

    @Test
    void releaseReleasesTheContentAndADoubleReleaseFailsLoudly() {
        for (RdmaReceive r : new RdmaReceive[] {new RdmaReceive(bytes(8), false, 0),
            RdmaReceive.newInstance(holders(), bytes(8), false, 0)}) {
            ByteBuf content = r.content();
            assertEquals(1, r.refCnt());
            assertTrue(r.release());
            assertEquals(0, content.refCnt(), "the content is released with the receive");
            assertEquals(0, r.refCnt());
            assertThrows(IllegalReferenceCountException.class, r::release);
            assertThrows(IllegalReferenceCountException.class, r::content);
            assertThrows(IllegalReferenceCountException.class, r::retain);
            assertEquals("RdmaReceive(released)", r.toString());
        }
    }

    @Test
    void retainKeepsTheReceiveAliveUntilTheLastRelease() {
        RdmaReceive r = RdmaReceive.newInstance(holders(), bytes(8), true, 0x1234);
        ByteBuf content = r.content();
        assertSame(r, r.retain());
        assertEquals(2, r.refCnt());
        assertEquals(2, content.refCnt());
        assertFalse(r.release());
        assertEquals(1, content.refCnt());
        assertEquals(8, r.byteLength(), "still usable after the first of two releases");
        assertTrue(r.hasInvalidatedRkey());
        assertEquals(0x1234, r.invalidatedRkey());
        assertTrue(r.release());
        assertEquals(0, content.refCnt());
        assertThrows(IllegalReferenceCountException.class, () -> r.release(1));
    }

    @Test
    void forwardingTheContentAndReleasingTheReceiveHandsTheBytesOver() {
        RdmaReceive r = RdmaReceive.newInstance(holders(), bytes(16), false, 0);
        ByteBuf forwarded = r.content().retain();
        assertTrue(r.release(), "the receive ends although its content lives on");
        assertEquals(1, forwarded.refCnt());
        assertEquals(15, forwarded.getByte(15), "the bytes are intact for the new owner");
        assertThrows(IllegalReferenceCountException.class, r::content);
        assertTrue(forwarded.release());
    }

    @Test
    void contentReleasedBehindTheReceivesBackFailsOnTheReceivesRelease() throws Throwable {
        EventLoopThread.run(() -> {
            ReceiveHolders holders = holders();
            RdmaReceive r = RdmaReceive.newInstance(holders, bytes(4), false, 0);
            ByteBuf content = r.content();
            content.release();
            assertThrows(IllegalReferenceCountException.class, r::release);
            assertEquals(0, r.refCnt());
            // Not recycled: the pool never hands this receive out again.
            for (int i = 0; i < 100; i++) {
                ByteBuf fresh = bytes(2);
                RdmaReceive next = RdmaReceive.newInstance(holders, fresh, false, 0);
                assertNotSame(r, next, "a receive whose release failed must not go back to the pool");
                assertSame(fresh, next.content());
                next.release();
            }
        });
    }

    @Test
    void aRecycledReceiveIsClean() throws Throwable {
        AtomicBoolean reusedOne = new AtomicBoolean();
        EventLoopThread.run(() -> {
            ReceiveHolders holders = holders();
            RdmaReceive previous = RdmaReceive.newInstance(holders, bytes(4), true, 0xabcd);
            for (int i = 0; i < 1000 && !reusedOne.get(); i++) {
                previous.release();
                ByteBuf next = bytes(3);
                RdmaReceive r = RdmaReceive.newInstance(holders, next, false, 0);
                if (r == previous) {
                    reusedOne.set(true);
                    assertSame(next, r.content(), "the new content, not the old one");
                    assertEquals(1, r.refCnt());
                    assertEquals(3, r.byteLength());
                    assertFalse(r.hasInvalidatedRkey(), "no invalidation carried over");
                    assertEquals(0, r.invalidatedRkey());
                }
                previous = r;
            }
            previous.release();
        });
        assertTrue(reusedOne.get(), "released receives are reused by the pool");
    }

    @Test
    void onlyReceivesEndedOnTheLoopThreadGoBack() throws Throwable {
        ReceiveHolders holders = holders();
        RdmaReceive r = RdmaReceive.newInstance(holders, bytes(4), false, 0);
        assertTrue(r.release());
        assertEquals(1, holders.free());
        assertSame(r, RdmaReceive.newInstance(holders, bytes(4), false, 0), "the one free holder is taken");
        assertEquals(0, holders.free());
        EventLoopThread.run(() -> assertTrue(r.release()));
        assertEquals(0, holders.free(), "a receive ended on another thread is not kept");
        RdmaReceive fresh = RdmaReceive.newInstance(holders, bytes(2), false, 0);
        assertNotSame(r, fresh);
        assertTrue(fresh.release());
    }

    @Test
    void freeHoldersAreBounded() {
        ReceiveHolders holders = holders();
        RdmaReceive[] live = new RdmaReceive[ReceiveHolders.MAX_FREE + 3];
        for (int i = 0; i < live.length; i++) {
            live[i] = RdmaReceive.newInstance(holders, Unpooled.EMPTY_BUFFER, false, 0);
        }
        for (RdmaReceive r : live) {
            r.release();
        }
        assertEquals(ReceiveHolders.MAX_FREE, holders.free());
    }

    @Test
    void derivedReceivesAreUnpooledAndOwnTheirContent() {
        RdmaReceive r = RdmaReceive.newInstance(holders(), bytes(8), true, 7);
        RdmaReceive copy = r.copy();
        RdmaReceive dup = r.retainedDuplicate();
        assertTrue(copy.hasInvalidatedRkey());
        assertEquals(7, dup.invalidatedRkey());
        assertEquals(2, r.content().refCnt(), "the retained duplicate holds a reference");
        assertTrue(dup.release());
        assertEquals(1, r.content().refCnt());
        assertTrue(copy.release());
        assertTrue(r.release());
        RdmaReceive unpooled = new RdmaReceive(Unpooled.EMPTY_BUFFER, false, 0);
        assertEquals(0, unpooled.byteLength());
    }
}
