package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class XdrReaderTest {

    @Test
    void roundTripsEveryPrimitive() throws XdrException {
        ByteBuf buf = Unpooled.buffer();
        try {
            new XdrWriter(buf).writeInt(-7).writeUnsignedInt(0xFFFF_FFFEL).writeHyper(Long.MIN_VALUE + 3)
                    .writeBool(true).writeBool(false).writeEnum(5)
                    .writeFixedOpaque(new byte[] {1, 2, 3})
                    .writeOpaque(new byte[] {9, 8, 7, 6, 5})
                    .writeString("héllo")
                    .writeInt(2).writeInt(11).writeInt(12);
            // Every item is padded to a multiple of 4 (RFC 4506 §3).
            assertEquals(4 + 4 + 8 + 4 + 4 + 4 + 4 + 4 + 8 + 4 + 8 + 12, buf.readableBytes());
            XdrReader in = new XdrReader(buf);
            assertEquals(-7, in.readInt());
            assertEquals(0xFFFF_FFFEL, in.readUnsignedInt());
            assertEquals(Long.MIN_VALUE + 3, in.readHyper());
            assertTrue(in.readBool());
            assertFalse(in.readBool());
            assertEquals(5, in.readEnum());
            assertArrayEquals(new byte[] {1, 2, 3}, in.readFixedOpaque(3));
            assertArrayEquals(new byte[] {9, 8, 7, 6, 5}, in.readOpaque(5));
            assertEquals("héllo", in.readString(6));
            int n = in.readArrayLength(2, 4);
            assertEquals(2, n);
            assertEquals(11, in.readInt());
            assertEquals(12, in.readInt());
            assertEquals(0, in.readableBytes());
        } finally {
            buf.release();
        }
    }

    @Test
    void opaqueLongerThanItsBoundIsRefusedBeforeReading() {
        ByteBuf buf = Unpooled.buffer();
        try {
            new XdrWriter(buf).writeOpaque(new byte[10]);
            XdrException e = assertThrows(XdrException.class, () -> new XdrReader(buf).readOpaque(8));
            assertTrue(e.getMessage().contains("over its bound 8"), e.getMessage());
        } finally {
            buf.release();
        }
    }

    @Test
    void opaqueLongerThanTheRemainingBytesIsRefusedBeforeAllocating() {
        // rpcbomb (CVE-2017-8779): a length word of ~4 GiB followed by nothing.
        ByteBuf buf = Unpooled.buffer().writeInt(0xFFFF_FFF0);
        ByteBuf buf2 = Unpooled.buffer().writeInt(100).writeZero(50);
        try {
            assertThrows(XdrException.class, () -> new XdrReader(buf).readOpaque(Integer.MAX_VALUE));
            XdrException e = assertThrows(XdrException.class, () -> new XdrReader(buf2).readOpaqueSlice(1000));
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        } finally {
            buf.release();
            buf2.release();
        }
    }

    @Test
    void missingPadIsTruncation() {
        ByteBuf buf = Unpooled.buffer().writeInt(3).writeBytes(new byte[] {1, 2, 3});
        try {
            assertThrows(XdrException.class, () -> new XdrReader(buf).readOpaque(10));
        } finally {
            buf.release();
        }
    }

    @Test
    void stringOverBoundAndOverRemainingAreRefused() {
        ByteBuf over = Unpooled.buffer();
        ByteBuf truncated = Unpooled.buffer().writeInt(64).writeBytes("short".getBytes(StandardCharsets.US_ASCII));
        try {
            new XdrWriter(over).writeString("a-machine-name");
            assertThrows(XdrException.class, () -> new XdrReader(over).readString(4));
            assertThrows(XdrException.class, () -> new XdrReader(truncated).readString(255));
        } finally {
            over.release();
            truncated.release();
        }
    }

    @Test
    void arrayCountOverBoundOrOverRemainingIsRefused() {
        ByteBuf over = Unpooled.buffer().writeInt(17).writeZero(17 * 4);
        ByteBuf truncated = Unpooled.buffer().writeInt(1_000_000).writeZero(8);
        try {
            assertThrows(XdrException.class, () -> new XdrReader(over).readArrayLength(16, 4));
            XdrException e = assertThrows(XdrException.class,
                    () -> new XdrReader(truncated).readArrayLength(Integer.MAX_VALUE, 4));
            assertTrue(e.getMessage().contains("1000000"), e.getMessage());
        } finally {
            over.release();
            truncated.release();
        }
    }

    @Test
    void truncatedPrimitivesAndBadBoolAreXdrExceptions() {
        ByteBuf three = Unpooled.buffer().writeZero(3);
        ByteBuf seven = Unpooled.buffer().writeZero(7);
        ByteBuf badBool = Unpooled.buffer().writeInt(2);
        try {
            assertThrows(XdrException.class, () -> new XdrReader(three).readInt());
            assertThrows(XdrException.class, () -> new XdrReader(seven).readHyper());
            assertThrows(XdrException.class, () -> new XdrReader(badBool).readBool());
        } finally {
            three.release();
            seven.release();
            badBool.release();
        }
    }

    @Test
    void ddpOpaqueIsInlineWhenNothingWasPlaced() throws XdrException {
        ByteBuf buf = Unpooled.buffer();
        new XdrWriter(buf).writeOpaque(new byte[] {1, 2, 3, 4, 5}).writeInt(42);
        XdrReader in = new XdrReader(buf);
        ByteBuf data = in.readDdpOpaque(100);
        try {
            assertEquals(5, data.readableBytes());
            assertEquals(42, in.readInt());
        } finally {
            data.release();
            buf.release();
        }
    }

    @Test
    void ddpOpaqueTakesPlacedDataAndLeavesNoPadInline() throws XdrException {
        // RFC 8166 §3.4.5: the length word stays inline; data and pad were moved to a chunk.
        ByteBuf inline = Unpooled.buffer().writeInt(5).writeInt(42);
        ByteBuf placedData = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        Deque<ByteBuf> placed = new ArrayDeque<>();
        placed.add(placedData);
        XdrReader in = new XdrReader(inline, placed);
        ByteBuf data = in.readDdpOpaque(100);
        try {
            assertEquals(placedData, data);
            assertEquals(42, in.readInt());
            assertEquals(0, in.pendingPlacedItems());
        } finally {
            data.release();
            inline.release();
        }
    }

    @Test
    void ddpOpaqueWithMismatchedPlacedLengthOrOverBoundIsRefused() {
        ByteBuf inline = Unpooled.buffer().writeInt(6).writeInt(7);
        ByteBuf placedData = Unpooled.wrappedBuffer(new byte[5]);
        Deque<ByteBuf> placed = new ArrayDeque<>();
        placed.add(placedData);
        try {
            XdrReader in = new XdrReader(inline, placed);
            assertThrows(XdrException.class, () -> in.readDdpOpaque(100));
            assertThrows(XdrException.class, () -> in.readDdpOpaque(4));
            assertEquals(1, in.pendingPlacedItems());
        } finally {
            inline.release();
            placedData.release();
        }
    }

    @Test
    void ddpSlotsMatchItemsByPositionAndAnEmptySlotMeansInline() throws XdrException {
        // RFC 8166 §4.3.2: Write chunk i holds DDP item i; a chunk returned empty/unused (zero length) placed
        // nothing, so its item is inline and the next item still meets its own chunk.
        ByteBuf inline = Unpooled.buffer();
        new XdrWriter(inline).writeOpaque(new byte[] {9, 8, 7}) // item 0 inline (empty slot), padded
                .writeInt(5)                                       // item 1 placed: length word only
                .writeOpaque(new byte[] {6, 6})                    // item 2 inline (no slot left)
                .writeInt(42);
        ByteBuf placedData = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        ByteBuf empty = Unpooled.directBuffer(0);
        Deque<ByteBuf> placed = new ArrayDeque<>(List.of(empty, placedData));
        XdrReader in = new XdrReader(inline, placed);
        ByteBuf a = in.readDdpOpaque(100);
        ByteBuf b = in.readDdpOpaque(100);
        ByteBuf c = in.readDdpOpaque(100);
        try {
            assertArrayEquals(new byte[] {9, 8, 7}, ByteBufUtil.getBytes(a));
            assertSame(placedData, b);
            assertArrayEquals(new byte[] {6, 6}, ByteBufUtil.getBytes(c));
            assertEquals(42, in.readInt());
            assertEquals(0, in.pendingPlacedItems());
            assertEquals(0, empty.refCnt(), "the empty slot was released when taken");
        } finally {
            a.release();
            b.release();
            c.release();
            inline.release();
        }
    }

    @Test
    void anEmptySlotWhoseItemIsNotInlineIsRefused() {
        // A responder that returned a chunk unused but left the data out of the inline stream.
        ByteBuf inline = Unpooled.buffer().writeInt(1000).writeInt(7);
        Deque<ByteBuf> placed = new ArrayDeque<>(List.of(Unpooled.EMPTY_BUFFER));
        try {
            XdrReader in = new XdrReader(inline, placed);
            assertThrows(XdrException.class, () -> in.readDdpOpaque(4096));
        } finally {
            inline.release();
        }
    }

    @Test
    void plainOpaqueReadsTakePlacedItemsOfTheDeclaredLength() throws XdrException {
        // Issue 15: code written for TCP (readOpaque, readOpaqueSlice, skipOpaque) reads an RDMA reply unchanged:
        // an inline item of another length stays inline, a DDP item whose data was placed is taken from its slot,
        // leading empty slots (DDP items that came back inline) are dropped on the way.
        ByteBuf inline = Unpooled.buffer();
        new XdrWriter(inline).writeOpaque(new byte[] {9, 8, 7}) // plain, inline
                .writeInt(5)                                       // placed: length word only
                .writeInt(2)                                       // placed: length word only
                .writeInt(3)                                       // placed, skipped
                .writeInt(42);
        ByteBuf empty = Unpooled.directBuffer(0);
        ByteBuf five = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        ByteBuf two = Unpooled.wrappedBuffer(new byte[] {6, 7});
        ByteBuf three = Unpooled.wrappedBuffer(new byte[] {1, 1, 1});
        Deque<ByteBuf> placed = new ArrayDeque<>(List.of(empty, five, two, three));
        XdrReader in = new XdrReader(inline, placed);
        assertEquals(10, in.placedBytes());
        try {
            assertArrayEquals(new byte[] {9, 8, 7}, in.readOpaque(100));
            assertEquals(4, in.pendingPlacedItems(), "a length-3 plain item took no slot");
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, in.readOpaque(100));
            assertEquals(0, five.refCnt(), "the placed buffer was copied and released");
            assertEquals(0, empty.refCnt(), "the empty slot before it was dropped");
            ByteBuf b = in.readOpaqueSlice(100);
            assertSame(two, b, "a slice read hands the placed buffer over");
            b.release();
            in.skipOpaque(100);
            assertEquals(0, three.refCnt());
            assertEquals(42, in.readInt());
            assertEquals(0, in.pendingPlacedItems());
        } finally {
            inline.release();
            for (ByteBuf left : placed) {
                left.release();
            }
        }
    }

    @Test
    void plainOpaqueReadOfAPlacedLengthStillChecksItsBound() {
        ByteBuf inline = Unpooled.buffer().writeInt(5);
        ByteBuf five = Unpooled.wrappedBuffer(new byte[5]);
        Deque<ByteBuf> placed = new ArrayDeque<>(List.of(five));
        try {
            XdrReader in = new XdrReader(inline, placed);
            assertThrows(XdrException.class, () -> in.readOpaque(4));
            assertEquals(1, five.refCnt(), "nothing taken");
        } finally {
            inline.release();
            five.release();
        }
    }

    /**
     * An RDMA responder's call stream is a composite (inline parts around the data its Read chunks pulled, RFC 8166
     * §3.4.5): an opaque lying within one component is that component's memory (e.g. registered memory the reply
     * can be written out of), one that spans components is still read whole.
     */
    @Test
    void anOpaqueWithinOneComponentOfACompositeIsASliceOfThatComponent() throws XdrException {
        ByteBuf head = Unpooled.directBuffer().writeInt(5);
        ByteBuf pulled = Unpooled.directBuffer().writeBytes(new byte[] {1, 2, 3, 4, 5});
        ByteBuf tail = Unpooled.directBuffer().writeZero(3).writeInt(2).writeByte(8);
        ByteBuf second = Unpooled.directBuffer().writeByte(9).writeZero(2);
        ByteBuf stream = Unpooled.compositeBuffer().addComponents(true, head, pulled, tail, second);
        try {
            XdrReader in = new XdrReader(stream);
            ByteBuf data = in.readOpaqueSlice(16); // a plain read of the same item takes the same path
            try {
                assertEquals(5, data.readableBytes());
                assertTrue(data.hasMemoryAddress(), "the component's own memory, not a view through the composite");
                assertEquals(pulled.memoryAddress() + pulled.readerIndex(), data.memoryAddress() + data.readerIndex());
            } finally {
                data.release();
            }
            ByteBuf spanning = in.readDdpOpaque(16);
            try {
                assertArrayEquals(new byte[] {8, 9}, ByteBufUtil.getBytes(spanning));
            } finally {
                spanning.release();
            }
            assertEquals(0, in.readableBytes());
        } finally {
            stream.release();
        }
    }
}
