package dev.rpcrdma.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class XdrPayloadTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private static ByteBuf bytes(int n, int seed) {
        ByteBuf b = ALLOC.buffer(n);
        for (int i = 0; i < n; i++) {
            b.writeByte(seed + i);
        }
        return b;
    }

    /** int 7; ddp opaque(5 bytes); int 8; ddp opaque(8 bytes); string "x". */
    private static XdrPayload sample() {
        XdrPayload p = XdrPayload.newPayload(ALLOC);
        p.writer().writeInt(7);
        p.writeDdpOpaque(bytes(5, 10));
        p.writer().writeInt(8);
        p.writeDdpOpaque(bytes(8, 50));
        p.writer().writeString("x");
        return p;
    }

    @Test
    void inlineEncodingIsOrdinaryXdr() {
        XdrPayload p = sample();
        ByteBuf expected = Unpooled.buffer();
        XdrWriter w = new XdrWriter(expected);
        byte[] a = new byte[5];
        byte[] b = new byte[8];
        for (int i = 0; i < 5; i++) {
            a[i] = (byte) (10 + i);
        }
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (50 + i);
        }
        w.writeInt(7).writeOpaque(a).writeInt(8).writeOpaque(b).writeString("x");
        ByteBuf inline = p.toInlineBuffer(ALLOC);
        try {
            assertEquals(expected.readableBytes(), p.inlineLength());
            assertEquals(expected, inline);
        } finally {
            inline.release();
            expected.release();
            p.release();
        }
    }

    @Test
    void itemsKnowTheirXdrPositionAndTheReducedStreamDropsDataAndPad() {
        XdrPayload p = sample();
        try {
            List<DdpItem> items = p.ddpItems();
            assertEquals(2, items.size());
            // int(4) + length word(4) -> data starts at 8.
            assertEquals(8, items.get(0).position());
            assertEquals(5, items.get(0).length());
            assertEquals(3, items.get(0).padLength());
            // 8 + 5 data + 3 pad + int(4) + length word(4) = 24.
            assertEquals(24, items.get(1).position());
            assertEquals(0, items.get(1).padLength());
            // RFC 8166 §3.4.5/§3.4.6: length words stay, data and pad go.
            assertEquals(p.inlineLength() - 8 - 8, p.reducedLength());
            ByteBuf reduced = ALLOC.buffer();
            p.writeReduced(reduced);
            ByteBuf expected = Unpooled.buffer();
            new XdrWriter(expected).writeInt(7).writeInt(5).writeInt(8).writeInt(8).writeString("x");
            assertEquals(expected, reduced);
            reduced.release();
            expected.release();
        } finally {
            p.release();
        }
    }

    @Test
    void itemDataIsZeroCopyAndReleasedWithThePayload() {
        ByteBuf data = bytes(100, 1);
        XdrPayload p = XdrPayload.newPayload(ALLOC);
        p.writeDdpOpaque(data);
        assertSame(data, p.ddpItems().get(0).data());
        assertEquals(1, data.refCnt());
        p.release();
        assertEquals(0, data.refCnt());
    }

    @Test
    void concatShiftsPositionsAndOwnsEverything() {
        XdrPayload head = XdrPayload.newPayload(ALLOC);
        head.writer().writeInt(1).writeInt(2).writeInt(3);
        XdrPayload tail = sample();
        ByteBuf item0 = tail.ddpItems().get(0).data();
        XdrPayload whole = XdrPayload.concat(head, tail);
        try {
            assertEquals(0, head.refCnt());
            assertEquals(0, tail.refCnt());
            assertEquals(12 + 8, whole.ddpItems().get(0).position());
            assertEquals(12 + 24, whole.ddpItems().get(1).position());
            assertEquals(1, item0.refCnt());
            ByteBuf inline = whole.toInlineBuffer(ALLOC);
            assertEquals(3, inline.getInt(8));
            assertEquals(5, inline.getInt(16));
            inline.release();
        } finally {
            whole.release();
        }
        assertEquals(0, item0.refCnt());
    }

    @Test
    void reducedStreamPlusPlacedDataDecodesLikeTheInlineStream() throws XdrException {
        // What an RDMA receiver does: reduced inline stream + placed item data, read through readDdpOpaque.
        XdrPayload p = sample();
        ByteBuf reduced = ALLOC.buffer();
        p.writeReduced(reduced);
        Deque<ByteBuf> placed = new ArrayDeque<>();
        for (DdpItem item : p.ddpItems()) {
            placed.add(item.data().retainedDuplicate());
        }
        XdrReader in = new XdrReader(reduced, placed);
        assertEquals(7, in.readInt());
        ByteBuf a = in.readDdpOpaque(5);
        assertEquals(8, in.readInt());
        ByteBuf b = in.readDdpOpaque(8);
        assertEquals("x", in.readString(1));
        assertEquals(0, in.readableBytes());
        assertArrayEquals(new byte[] {10, 11, 12, 13, 14}, ByteBufUtil.getBytes(a));
        assertEquals(57, b.getByte(7));
        a.release();
        b.release();
        reduced.release();
        p.release();
    }

    @Test
    void theSharedEmptyPayloadIsReadOnlyAndOutlivesAnyRelease() {
        XdrPayload empty = XdrPayload.empty();
        assertSame(empty, XdrPayload.empty());
        assertEquals(0, empty.inlineLength());
        assertFalse(empty.release(), "releasing the shared payload frees nothing");
        empty.retain().release();
        assertEquals(1, empty.refCnt());
        assertThrows(IllegalStateException.class, () -> empty.writer().writeInt(1));
        ByteBuf data = Unpooled.buffer(4).writeInt(7);
        assertThrows(IllegalStateException.class, () -> empty.writeDdpOpaque(data));
        data.release();
        ByteBuf out = Unpooled.buffer();
        empty.writeInline(out);
        assertEquals(0, out.readableBytes());
        out.release();
        XdrPayload head = XdrPayload.newPayload(ByteBufAllocator.DEFAULT);
        head.writer().writeInt(5);
        XdrPayload both = XdrPayload.concat(head, XdrPayload.empty());
        assertEquals(4, both.inlineLength());
        both.release();
        assertEquals(1, empty.refCnt());
    }
}
