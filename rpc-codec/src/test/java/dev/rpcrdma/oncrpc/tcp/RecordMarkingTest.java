package dev.rpcrdma.oncrpc.tcp;

import dev.rpcrdma.oncrpc.RpcStats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RFC 5531 §11 record marking, decoder and encoder. */
class RecordMarkingTest {

    private static ByteBuf fragment(boolean last, int... bytes) {
        ByteBuf b = Unpooled.buffer().writeInt((last ? 0x8000_0000 : 0) | bytes.length);
        for (int v : bytes) {
            b.writeByte(v);
        }
        return b;
    }

    @Test
    void reassemblesAMultiFragmentRecordArrivingByteByByte() {
        RpcStats stats = new RpcStats();
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(100, stats));
        ByteBuf wire = Unpooled.buffer();
        wire.writeBytes(fragment(false, 1, 2, 3)).writeBytes(fragment(false)).writeBytes(fragment(false, 4))
                .writeBytes(fragment(true, 5, 6)).writeBytes(fragment(true, 9));
        while (wire.isReadable()) {
            ch.writeInbound(wire.readRetainedSlice(1));
        }
        wire.release();
        ByteBuf first = ch.readInbound();
        ByteBuf second = ch.readInbound();
        assertEquals(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6}), first);
        assertEquals(Unpooled.wrappedBuffer(new byte[] {9}), second);
        first.release();
        second.release();
        assertFalse(ch.finish());
        assertEquals(0, stats.truncatedRecords());
    }

    @Test
    void manyEmptyAndTinyFragmentsMakeOneRecord() {
        RpcStats stats = new RpcStats();
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(100, stats));
        ByteBuf wire = Unpooled.buffer();
        for (int i = 0; i < 10_000; i++) {
            wire.writeInt(0);
        }
        for (int i = 0; i < 100; i++) {
            wire.writeBytes(fragment(false, i));
        }
        wire.writeBytes(fragment(true));
        ch.writeInbound(wire);
        ByteBuf record = ch.readInbound();
        assertEquals(100, record.readableBytes());
        assertEquals(99, record.getByte(99));
        record.release();
        // One more byte in tiny fragments would exceed the maximum: refused.
        ByteBuf over = Unpooled.buffer();
        for (int i = 0; i < 101; i++) {
            over.writeBytes(fragment(false, i));
        }
        ch.writeInbound(over);
        assertFalse(ch.isOpen());
        assertEquals(1, stats.oversizedRecords());
        ch.finishAndReleaseAll();
    }

    @Test
    void fragmentLongerThanTheMaxRecordClosesBeforeAccumulating() {
        RpcStats stats = new RpcStats();
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(1024, stats));
        // Only the record mark of a 1 GiB fragment: refused from the header alone.
        ch.writeInbound(Unpooled.buffer().writeInt(0x8000_0000 | (1 << 30)));
        assertFalse(ch.isOpen());
        assertEquals(1, stats.oversizedRecords());
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void fragmentsSummingOverTheMaxRecordClose() {
        RpcStats stats = new RpcStats();
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(8, stats));
        ch.writeInbound(fragment(false, 1, 2, 3, 4, 5));
        assertTrue(ch.isOpen());
        ch.writeInbound(fragment(true, 6, 7, 8, 9));
        assertFalse(ch.isOpen());
        assertEquals(1, stats.oversizedRecords());
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void recordTruncatedByCloseIsCountedAndReleased() {
        RpcStats stats = new RpcStats();
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(100, stats));
        ch.writeInbound(fragment(false, 1, 2, 3, 4));
        ByteBuf partial = Unpooled.buffer().writeInt(0x8000_0000 | 10).writeByte(5);
        ch.writeInbound(partial);
        assertFalse(ch.finish());
        assertEquals(1, stats.truncatedRecords());
    }

    @Test
    void encoderCutsRecordsIntoFragmentsOfTheConfiguredSize() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingEncoder(4));
        ch.writeOutbound(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
        ch.writeOutbound(Unpooled.EMPTY_BUFFER);
        ByteBuf out = ch.readOutbound();
        assertEquals(4, out.readInt());
        out.skipBytes(4);
        assertEquals(4, out.readInt());
        out.skipBytes(4);
        assertEquals(0x8000_0000 | 2, out.readInt());
        assertEquals(9, out.readByte());
        assertEquals(10, out.readByte());
        assertFalse(out.isReadable());
        out.release();
        ByteBuf empty = ch.readOutbound();
        assertEquals(0x8000_0000, empty.readInt());
        assertFalse(empty.isReadable());
        empty.release();
        assertFalse(ch.finish());
    }

    @Test
    void encoderWritesASingleFragmentMarkInTheHeadroomWithoutCopying() {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingEncoder(1024));
        ByteBuf msg = Unpooled.buffer(64).writeZero(RecordMarkingEncoder.HEADROOM).writeInt(0x01020304);
        msg.readerIndex(RecordMarkingEncoder.HEADROOM);
        ch.writeOutbound(msg);
        ByteBuf out = ch.readOutbound();
        assertTrue(out == msg, "in place");
        assertEquals(0x8000_0000 | 4, out.readInt());
        assertEquals(0x01020304, out.readInt());
        out.release();
        assertFalse(ch.finish());
    }

    @Test
    void encoderAndDecoderAgreeOnLargeRecords() {
        RpcStats stats = new RpcStats();
        EmbeddedChannel enc = new EmbeddedChannel(new RecordMarkingEncoder(1000));
        EmbeddedChannel dec = new EmbeddedChannel(new RecordMarkingDecoder(100_000, stats));
        ByteBuf msg = Unpooled.buffer();
        for (int i = 0; i < 65_537; i++) {
            msg.writeByte(i * 31);
        }
        enc.writeOutbound(msg.retainedDuplicate());
        ByteBuf wire = enc.readOutbound();
        assertEquals(65_537 + 4 * 66, wire.readableBytes());
        dec.writeInbound(wire);
        ByteBuf record = dec.readInbound();
        assertEquals(msg, record);
        record.release();
        msg.release();
        assertFalse(enc.finish());
        assertFalse(dec.finish());
    }
}
