package dev.rpcrdma.handlers.header;

import dev.rpcrdma.handlers.header.RpcRdmaHeaderException.Action;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RpcRdmaHeaderCodecTest {

    private static final int XID = 0x12345678;
    private final RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder();

    private static RdmaSegment seg(int handle, int length, long offset) {
        return new RdmaSegment(handle, length, offset);
    }

    private RpcRdmaHeader roundTrip(RpcRdmaHeader header, byte[] trailer) throws Exception {
        ByteBuf buf = Unpooled.buffer();
        try {
            RpcRdmaHeaderEncoder.encode(header, buf);
            assertEquals(header.encodedLength(), buf.readableBytes(), "encodedLength() matches the bytes written");
            buf.writeBytes(trailer);
            RpcRdmaHeader decoded = decoder.decode(buf);
            assertEquals(trailer.length, buf.readableBytes(), "reader index left at the RPC message");
            return decoded;
        } finally {
            buf.release();
        }
    }

    @Test
    void inlineMessageIs28BytesAndRoundTrips() throws Exception {
        RpcRdmaHeader h = RpcRdmaHeader.msg(XID, 32);
        assertEquals(28, h.encodedLength());
        RpcRdmaHeader d = roundTrip(h, new byte[] {1, 2, 3, 4});
        assertEquals(XID, d.xid());
        assertEquals(1, d.version());
        assertEquals(32, d.credits());
        assertEquals(RdmaProcedure.RDMA_MSG, d.procedure());
        assertTrue(d.readList().isEmpty());
        assertTrue(d.writeList().isEmpty());
        assertNull(d.replyChunk());
    }

    @Test
    void allListsRoundTripTogether() throws Exception {
        List<ReadSegment> reads = List.of(
                new ReadSegment(8, seg(0x11, 4096, 0x1000)),
                new ReadSegment(8, seg(0x12, 100, 0x9000)),
                new ReadSegment(200, seg(0x13, 16, 0xffff_0000_0000L)));
        List<WriteChunk> writes = List.of(WriteChunk.of(seg(0x21, 65536, 0x2000)),
                WriteChunk.of(seg(0x22, 10, 0), seg(0x23, 20, 8)));
        WriteChunk reply = WriteChunk.of(seg(0x31, 8192, 0x3000));
        RpcRdmaHeader d = roundTrip(RpcRdmaHeader.msg(XID, 1, reads, writes, reply), new byte[0]);
        assertEquals(reads, d.readList());
        assertEquals(writes, d.writeList());
        assertEquals(reply, d.replyChunk());
        assertEquals(4096 + 100 + 16, d.readListLength());
    }

    @Test
    void longCallNomsgRoundTrips() throws Exception {
        RpcRdmaHeader d = roundTrip(RpcRdmaHeader.nomsg(XID, 8,
                List.of(new ReadSegment(0, seg(7, 300_000, 0))), List.of(), null), new byte[0]);
        assertEquals(RdmaProcedure.RDMA_NOMSG, d.procedure());
        assertEquals(0, d.readList().get(0).position());
    }

    @Test
    void errorsRoundTrip() throws Exception {
        RpcRdmaHeader vers = roundTrip(RpcRdmaHeader.errVers(XID, 1, 5, 1, 1), new byte[0]);
        assertEquals(RdmaErrorCode.ERR_VERS, vers.errorCode());
        assertEquals(1, vers.lowVersion());
        assertEquals(1, vers.highVersion());
        RpcRdmaHeader chunk = roundTrip(RpcRdmaHeader.errChunk(XID, 5), new byte[0]);
        assertEquals(20, RpcRdmaHeader.errChunk(XID, 5).encodedLength());
        assertEquals(RdmaErrorCode.ERR_CHUNK, chunk.errorCode());
        assertEquals(XID, chunk.xid());
    }

    // ---- bad input: every case must name the RFC's answer -------------------------------------------------

    private RpcRdmaHeaderException reject(Consumer<ByteBuf> writer) {
        ByteBuf buf = Unpooled.buffer();
        try {
            writer.accept(buf);
            return assertThrows(RpcRdmaHeaderException.class, () -> decoder.decode(buf));
        } finally {
            buf.release();
        }
    }

    private static void fixed(ByteBuf b, int vers, int proc) {
        b.writeInt(XID).writeInt(vers).writeInt(16).writeInt(proc);
    }

    @Test
    void truncatedHeaderIsDiscarded() {
        RpcRdmaHeaderException e = reject(b -> b.writeInt(XID).writeInt(1).writeInt(1));
        assertEquals(Action.DISCARD, e.action());
        e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(0).writeInt(0); // 24 bytes: no reply-chunk discriminant
        });
        assertEquals(Action.DISCARD, e.action());
    }

    @Test
    void badVersionGetsErrVersEchoingTheVersion() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 2, 0);
            b.writeInt(0).writeInt(0).writeInt(0);
        });
        assertEquals(Action.ERR_VERS, e.action());
        assertEquals(XID, e.xid());
        RpcRdmaHeader reply = e.errorReply(4);
        assertEquals(2, reply.version());
        assertEquals(1, reply.lowVersion());
        assertEquals(1, reply.highVersion());
    }

    @Test
    void rdmaErrorIsDecodedWhateverVersionItRepeats() throws Exception {
        ByteBuf buf = Unpooled.buffer();
        try {
            fixed(buf, 2, 4);
            buf.writeInt(1).writeInt(1).writeInt(1); // ERR_VERS 1..1 answering a version-2 request
            RpcRdmaHeader d = decoder.decode(buf);
            assertEquals(RdmaErrorCode.ERR_VERS, d.errorCode());
            assertEquals(2, d.version());
            assertEquals(XID, d.xid());
        } finally {
            buf.release();
        }
    }

    @Test
    void unknownAndRetiredProceduresGetErrChunk() {
        for (int proc : new int[] {2, 3, 5, -1}) {
            RpcRdmaHeaderException e = reject(b -> {
                fixed(b, 1, proc);
                b.writeInt(0).writeInt(0).writeInt(0);
            });
            assertEquals(Action.ERR_CHUNK, e.action(), "proc " + proc);
            assertEquals(RdmaErrorCode.ERR_CHUNK, e.errorReply(1).errorCode());
        }
    }

    @Test
    void readListPastTheBufferGetsErrChunk() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(1).writeInt(0).writeInt(7).writeInt(100); // segment cut short
            b.writeInt(0);
        });
        assertEquals(Action.ERR_CHUNK, e.action());
    }

    @Test
    void misalignedReadPositionGetsErrChunk() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(1).writeInt(6).writeInt(7).writeInt(100).writeLong(0);
            b.writeInt(0).writeInt(0).writeInt(0);
        });
        assertEquals(Action.ERR_CHUNK, e.action());
    }

    @Test
    void overlappingReadChunksGetErrChunk() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(1).writeInt(64).writeInt(7).writeInt(100).writeLong(0);
            b.writeInt(1).writeInt(32).writeInt(8).writeInt(100).writeLong(0);
            b.writeInt(0).writeInt(0).writeInt(0);
        });
        assertEquals(Action.ERR_CHUNK, e.action());
    }

    @Test
    void zeroSegmentWriteChunkIsAnEmptyWriteChunkButAZeroSegmentReplyChunkGetsErrChunk() throws Exception {
        // RFC 8166 §3.4.6 / §4.3.2.3: an empty Write chunk (segment count 0) asks for its result item inline.
        ByteBuf ok = Unpooled.buffer();
        try {
            fixed(ok, 1, 0);
            ok.writeInt(0);
            ok.writeInt(1).writeInt(0);                                        // write chunk 0: empty
            ok.writeInt(1).writeInt(1).writeInt(7).writeInt(100).writeLong(64); // write chunk 1: one segment
            ok.writeInt(0).writeInt(0);
            RpcRdmaHeader h = decoder.decode(ok);
            assertEquals(2, h.writeList().size());
            assertEquals(0, h.writeList().get(0).segments().size());
            assertEquals(0, h.writeList().get(0).totalLength());
            assertEquals(100, h.writeList().get(1).totalLength());
            // It encodes back to the same bytes.
            ByteBuf again = Unpooled.buffer();
            RpcRdmaHeaderEncoder.encode(h, again);
            assertEquals(ok.readerIndex(0), again);
            again.release();
        } finally {
            ok.release();
        }
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(0).writeInt(0);
            b.writeInt(1).writeInt(0); // reply chunk with segcount 0: nowhere to write a reply
        });
        assertEquals(Action.ERR_CHUNK, e.action());
    }

    @Test
    void hugeSegmentCountIsRejectedBeforeAllocation() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(0);
            b.writeInt(0);
            b.writeInt(1).writeInt(0x7fff_ffff); // reply chunk claiming 2^31-1 segments
        });
        assertEquals(Action.ERR_CHUNK, e.action());
        e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(0);
            b.writeInt(1).writeInt(40); // within the bound but not in the buffer
            b.writeInt(0);
        });
        assertEquals(Action.ERR_CHUNK, e.action());
    }

    @Test
    void oversizedSegmentsAndTotalLengthOverflowGetErrChunk() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(0);
            b.writeInt(1).writeInt(1).writeInt(1).writeInt(0xffff_ffff).writeLong(0); // 4 GiB - 1 segment
            b.writeInt(0).writeInt(0);
        });
        assertEquals(Action.ERR_CHUNK, e.action());
        // Three segments of 0x8000_0000: wraps in 32 bits, not in 64.
        RpcRdmaDecoderLimitsHolder.check(decoderWithHugeLimit(), b -> {
            fixed(b, 1, 0);
            b.writeInt(0).writeInt(0);
            b.writeInt(1).writeInt(3);
            for (int i = 0; i < 3; i++) {
                b.writeInt(1).writeInt(0x8000_0000).writeLong(0);
            }
        });
    }

    private static RpcRdmaHeaderDecoder decoderWithHugeLimit() {
        return new RpcRdmaHeaderDecoder(new RpcRdmaLimits(64, 8, 64, 0x1_0000_0000L));
    }

    /** Small helper so the overflow case runs against a decoder whose chunk limit is 4 GiB. */
    private static final class RpcRdmaDecoderLimitsHolder {
        static void check(RpcRdmaHeaderDecoder d, Consumer<ByteBuf> writer) {
            ByteBuf buf = Unpooled.buffer();
            try {
                writer.accept(buf);
                RpcRdmaHeaderException e = assertThrows(RpcRdmaHeaderException.class, () -> d.decode(buf));
                assertEquals(Action.ERR_CHUNK, e.action());
                assertTrue(e.getMessage().contains("6442450944"), e.getMessage());
            } finally {
                buf.release();
            }
        }
    }

    @Test
    void tooManyWriteChunksAndReadSegmentsGetErrChunk() {
        RpcRdmaHeaderDecoder strict = new RpcRdmaHeaderDecoder(new RpcRdmaLimits(2, 1, 4, 1 << 20));
        ByteBuf buf = Unpooled.buffer();
        try {
            fixed(buf, 1, 0);
            buf.writeInt(0);
            for (int i = 0; i < 2; i++) {
                buf.writeInt(1).writeInt(1).writeInt(1).writeInt(8).writeLong(0);
            }
            buf.writeInt(0).writeInt(0);
            assertEquals(Action.ERR_CHUNK, assertThrows(RpcRdmaHeaderException.class,
                    () -> strict.decode(buf)).action());
            buf.clear();
            fixed(buf, 1, 0);
            for (int i = 0; i < 3; i++) {
                buf.writeInt(1).writeInt(0).writeInt(1).writeInt(8).writeLong(0);
            }
            buf.writeInt(0).writeInt(0).writeInt(0);
            assertEquals(Action.ERR_CHUNK, assertThrows(RpcRdmaHeaderException.class,
                    () -> strict.decode(buf)).action());
        } finally {
            buf.release();
        }
    }

    @Test
    void badDiscriminantGetsErrChunk() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 0);
            b.writeInt(2).writeInt(0).writeInt(0);
        });
        assertEquals(Action.ERR_CHUNK, e.action());
    }

    @Test
    void nomsgWithoutChunksGetsErrChunk() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 1);
            b.writeInt(0).writeInt(0).writeInt(0);
        });
        assertEquals(Action.ERR_CHUNK, e.action());
    }

    @Test
    void unknownErrorCodeIsRejected() {
        RpcRdmaHeaderException e = reject(b -> {
            fixed(b, 1, 4);
            b.writeInt(9);
        });
        assertEquals(Action.ERR_CHUNK, e.action());
    }

    /** The plain header's encoder writes exactly the seven words of RFC 8166 §4.1, whatever their sign. */
    @Test
    void encodePlainMsgWritesTheSevenWords() throws Exception {
        int[][] cases = {{7, 32}, {-1, -1}, {0x80000001, 0x7fffffff}, {0, 0}};
        for (int[] c : cases) {
            ByteBuf b = Unpooled.buffer();
            RpcRdmaHeaderEncoder.encodePlainMsg(c[0], c[1], b);
            assertEquals(RpcRdmaHeader.MIN_MSG_LENGTH, b.readableBytes());
            int[] expected = {c[0], RpcRdmaHeader.VERSION_1, c[1], RdmaProcedure.RDMA_MSG.intValue(), 0, 0, 0};
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], b.getInt(4 * i), "word " + i + " of " + java.util.Arrays.toString(c));
            }
            assertTrue(RpcRdmaHeaderDecoder.isPlainMsg(b));
            RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(b);
            assertEquals(c[0], h.xid());
            assertEquals(c[1], h.credits());
            b.release();
        }
    }

    /** The fast path's test agrees with the full decoder: whatever it accepts decodes to a plain RDMA_MSG. */
    @Test
    void isPlainMsgAcceptsOnlyWhatDecodesAsAPlainRdmaMsg() throws Exception {
        int[][] headers = {
            {7, 1, 32, 0, 0, 0, 0},                // plain: accepted
            {7, 1, 0, 0, 0, 0, 0},                 // credits are the caller's to check, as with decode
            {7, 2, 32, 0, 0, 0, 0},                // ERR_VERS
            {7, 1, 32, 1, 0, 0, 0},                // RDMA_NOMSG
            {7, 1, 32, 2, 0, 0, 0},                // RDMA_MSGP
            {7, 1, 32, 4, 1, 1, 1},                // RDMA_ERROR
            {7, 1, 32, 9, 0, 0, 0},                // unknown procedure
            {7, 1, 32, 0, 2, 0, 0},                // bad discriminant
            {7, 1, 32, 0, 0, 0, 1},                // a (truncated) Reply chunk
            {7, 1, 32, 0, 0, 1, 0},                // a Write list
            {7, 1, 32, 0, 1, 0, 0},                // a Read list
            {7, 1 | 1 << 31, 32, 0, 0, 0, 0},      // the version's high bit (the fast path reads words in pairs)
            {7, 1, 32, 1 << 31, 0, 0, 0},          // the procedure's high bit
            {7, 1, 32, 0, 0, 0},                   // 24 bytes
        };
        for (int[] words : headers) {
            ByteBuf b = Unpooled.buffer();
            b.writeInt(0xdeadbeef).skipBytes(4); // a reader index other than 0
            for (int w : words) {
                b.writeInt(w);
            }
            b.writeInt(7).writeInt(1); // an RPC message follows
            int start = b.readerIndex();
            boolean plain = RpcRdmaHeaderDecoder.isPlainMsg(b);
            assertEquals(start, b.readerIndex(), "the test reads nothing");
            assertEquals(words.length == 7 && words[1] == 1 && words[3] == 0 && words[4] == 0 && words[5] == 0
                    && words[6] == 0, plain, java.util.Arrays.toString(words));
            if (plain) {
                assertEquals(7, RpcRdmaHeaderDecoder.plainXid(b));
                assertEquals(words[2], RpcRdmaHeaderDecoder.plainCredits(b));
                RpcRdmaHeader h = new RpcRdmaHeaderDecoder().decode(b);
                assertEquals(RdmaProcedure.RDMA_MSG, h.procedure());
                assertEquals(7, h.xid());
                assertEquals(words[2], h.credits());
                assertTrue(!h.hasChunks());
                assertEquals(start + RpcRdmaHeader.MIN_MSG_LENGTH, b.readerIndex());
            }
            b.release();
        }
    }
}
