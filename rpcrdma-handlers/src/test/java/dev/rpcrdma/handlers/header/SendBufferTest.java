package dev.rpcrdma.handlers.header;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SendBuffer}: one kept buffer, written again only once nothing else holds it. */
class SendBufferTest {

    private final PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private ResourceLeakDetector.Level level;

    @BeforeEach
    void leakDetectionOff() {
        level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @AfterEach
    void restore() {
        ResourceLeakDetector.setLevel(level);
    }

    @Test
    void aPostedSendsBufferServesTheNext() {
        SendBuffer keeper = new SendBuffer();
        ByteBuf first = keeper.take(alloc, 52);
        assertEquals(2, first.refCnt()); // the caller's reference and the keeper's
        first.writeLong(1);
        first.release(); // the channel posted it
        ByteBuf second = keeper.take(alloc, 100);
        assertSame(first, second);
        assertEquals(0, second.readableBytes());
        assertEquals(0, second.readerIndex());
        second.release();
        keeper.release();
        assertEquals(0, first.refCnt());
    }

    @Test
    void aBufferStillHeldIsNeverWritten() {
        SendBuffer keeper = new SendBuffer();
        ByteBuf first = keeper.take(alloc, 52);
        first.writeLong(0x0102030405060708L);
        ByteBuf second = keeper.take(alloc, 52); // the first is not posted yet
        assertNotSame(first, second);
        assertEquals(1, second.refCnt());
        assertEquals(0x0102030405060708L, first.getLong(0));
        second.release();
        first.release();
        ByteBuf third = keeper.take(alloc, 52);
        assertSame(first, third);
        third.release();
        keeper.release();
        assertEquals(0, first.refCnt());
    }

    @Test
    void aLargerSendReplacesTheKeptBufferAndAHugeOneIsNeverKept() {
        SendBuffer keeper = new SendBuffer();
        ByteBuf small = keeper.take(alloc, 10);
        small.release();
        ByteBuf larger = keeper.take(alloc, SendBuffer.MIN_KEPT + 1);
        assertEquals(0, small.refCnt()); // let go of, not written
        assertTrue(larger.capacity() >= SendBuffer.MIN_KEPT + 1);
        larger.release();
        ByteBuf huge = keeper.take(alloc, SendBuffer.MAX_KEPT + 1);
        assertEquals(1, huge.refCnt());
        huge.release();
        assertSame(larger, keeper.take(alloc, 10));
        larger.release();
        keeper.release();
        keeper.release(); // idempotent
        assertEquals(0, larger.refCnt());
    }

    @Test
    void withLeakDetectionOnEverySendHasItsOwnBuffer() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        SendBuffer keeper = new SendBuffer();
        ByteBuf first = keeper.take(alloc, 52);
        assertEquals(1, first.refCnt());
        first.release();
        ByteBuf second = keeper.take(alloc, 52);
        assertEquals(1, second.refCnt());
        second.release();
        keeper.release();
    }

    @Test
    void releasedWhileASendIsPendingTheBufferLivesUntilThatSendIsPosted() {
        SendBuffer keeper = new SendBuffer();
        ByteBuf pending = keeper.take(alloc, 52);
        keeper.release(); // the connection went inactive
        assertEquals(1, pending.refCnt());
        pending.release(); // the channel fails or posts it
        assertEquals(0, pending.refCnt());
    }
}
