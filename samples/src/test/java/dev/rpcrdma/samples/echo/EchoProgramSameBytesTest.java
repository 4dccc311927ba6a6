package dev.rpcrdma.samples.echo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The echo client's comparison of sent and echoed bytes ({@link EchoProgram#sameBytes}). */
class EchoProgramSameBytesTest {

    private static ByteBuf pattern(ByteBuf b, int size) {
        for (int i = 0; i < size; i++) {
            b.writeByte(i * 31 + 7);
        }
        return b;
    }

    @Test
    void equalBytesAcrossBufferKindsAndOffsets() {
        int size = (1 << 20) + 3; // not a multiple of a vector or a long
        ByteBuf direct = pattern(Unpooled.directBuffer(size), size);
        ByteBuf heap = pattern(Unpooled.buffer(size + 5).writerIndex(5).readerIndex(5), size);
        try {
            assertTrue(EchoProgram.sameBytes(direct, heap));
            assertTrue(EchoProgram.sameBytes(heap, direct));
            assertTrue(EchoProgram.sameBytes(direct.slice(1, 100), heap.slice(6, 100)));
            assertEquals(5, heap.readerIndex(), "indices are not changed");
            assertEquals(0, direct.readerIndex());
        } finally {
            direct.release();
            heap.release();
        }
    }

    @Test
    void anyDifferingByteOrLengthIsSeen() {
        int size = 4099;
        ByteBuf a = pattern(Unpooled.directBuffer(size), size);
        ByteBuf b = pattern(Unpooled.directBuffer(size), size);
        try {
            for (int at : new int[] {0, 1, 15, 16, 2048, size - 1}) {
                b.setByte(at, b.getByte(at) ^ 0x40);
                assertFalse(EchoProgram.sameBytes(a, b), "byte " + at + " differs");
                b.setByte(at, b.getByte(at) ^ 0x40);
            }
            assertTrue(EchoProgram.sameBytes(a, b));
            assertFalse(EchoProgram.sameBytes(a, b.slice(0, size - 1)));
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void compositeFallsBackToByteBufUtil() {
        ByteBuf whole = pattern(Unpooled.buffer(64), 64);
        ByteBuf copy = pattern(Unpooled.directBuffer(64), 64);
        CompositeByteBuf parts = Unpooled.compositeBuffer();
        parts.addComponent(true, copy.retainedSlice(0, 20));
        parts.addComponent(true, copy.retainedSlice(20, 44));
        copy.release();
        try {
            assertTrue(parts.nioBufferCount() > 1);
            assertTrue(EchoProgram.sameBytes(whole, parts));
            whole.setByte(63, 0);
            assertFalse(EchoProgram.sameBytes(whole, parts));
        } finally {
            parts.release();
            whole.release();
        }
    }
}
