package dev.rpcrdma.oncrpc.xdr;

import dev.rpcrdma.testing.EventLoopThread;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RetainedSlice}: the bytes it shows, the reference it holds on its parent, nesting, its reuse on an
 * event-loop thread, and the readers that hand it out.
 */
class RetainedSliceTest {

    private static ByteBuf bytes(int n) {
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(n);
        for (int i = 0; i < n; i++) {
            b.writeByte(i);
        }
        return b;
    }

    @Test
    void aSliceShowsItsBytesHoldsItsParentUntilItsLastReleaseAndIsReused() throws Throwable {
        EventLoopThread.run(() -> {
            ByteBuf received = bytes(32);
            received.skipBytes(4);
            ByteBuf slice = RetainedSlice.readRetainedSlice(received, 8);
            assertInstanceOf(RetainedSlice.class, slice);
            assertEquals(12, received.readerIndex());
            assertEquals(0, slice.readerIndex());
            assertEquals(8, slice.readableBytes());
            assertEquals(8, slice.capacity());
            assertEquals(0x04050607, slice.getInt(0));
            assertEquals(0x0b, slice.getByte(7));
            assertEquals(received.memoryAddress() + 4, slice.memoryAddress());
            byte[] copy = new byte[8];
            slice.getBytes(0, copy);
            assertArrayEquals(new byte[] {4, 5, 6, 7, 8, 9, 10, 11}, copy);
            assertThrows(IndexOutOfBoundsException.class, () -> slice.getByte(8), "bounded by the slice");
            assertThrows(UnsupportedOperationException.class, () -> slice.capacity(16));
            assertEquals(2, received.refCnt(), "the slice holds one reference to its parent");

            ByteBuf inner = slice.retainedSlice(2, 4);
            ByteBuf inner2 = RetainedSlice.of(slice, 2, 4);
            assertEquals(0x06070809, inner.readInt());
            assertEquals(0x06070809, inner2.getInt(0));
            assertSame(received, inner.unwrap(), "a slice of a slice refers to the first parent");
            assertEquals(4, received.refCnt());
            assertTrue(inner.release(), "a slice has a count of its own");
            assertTrue(inner2.release());
            assertEquals(2, received.refCnt(), "and gave its reference to the parent back");

            assertFalse(received.release(), "the slice still holds its parent");
            assertEquals(0x04, slice.getByte(0), "readable after the parent's owner released it");
            assertTrue(slice.release());
            assertEquals(0, slice.refCnt());
            assertThrows(IllegalReferenceCountException.class, () -> slice.getByte(0));
            assertEquals(0, received.refCnt(), "the last slice released the parent");

            ByteBuf again = bytes(16);
            ByteBuf next = RetainedSlice.of(again, 0, 4);
            assertSame(slice, next, "the slice object is reused on the loop");
            assertEquals(0x00010203, next.getInt(0));
            next.release();
            again.release();
        });
    }

    @Test
    void outOfRangeSlicesAreRefusedAndTakeNoReference() {
        ByteBuf b = bytes(8);
        assertThrows(IndexOutOfBoundsException.class, () -> RetainedSlice.of(b, 4, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> RetainedSlice.of(b, -1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> RetainedSlice.readRetainedSlice(b, 9));
        assertEquals(1, b.refCnt());
        assertEquals(0, b.readerIndex());
        b.release();
    }

    @Test
    void theReadersHandOutSlicesOfTheirInputAndOfOneComponentOfAComposite() throws Throwable {
        EventLoopThread.run(() -> {
            ByteBuf inline = Unpooled.directBuffer(16).writeInt(3).writeBytes(new byte[] {7, 8, 9, 0});
            ByteBuf opaque = new XdrReader(inline).readOpaqueSlice(16);
            assertInstanceOf(RetainedSlice.class, opaque);
            assertEquals(3, opaque.readableBytes());
            assertEquals(7, opaque.getByte(0));
            opaque.release();
            assertTrue(inline.release());

            ByteBuf data = Unpooled.directBuffer(8).writeBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            CompositeByteBuf stream = Unpooled.compositeBuffer()
                    .addComponent(true, Unpooled.directBuffer(4).writeInt(8))
                    .addComponent(true, data.retain());
            ByteBuf fromComponent = new XdrReader(stream).readOpaqueSlice(8);
            assertInstanceOf(RetainedSlice.class, fromComponent);
            assertSame(data, fromComponent.unwrap(), "a slice of the component itself, not of the composite");
            assertEquals(data.memoryAddress(), fromComponent.memoryAddress());
            assertTrue(stream.release());
            assertEquals(2, data.refCnt());
            fromComponent.release();
            assertTrue(data.release());
        });
    }
}
