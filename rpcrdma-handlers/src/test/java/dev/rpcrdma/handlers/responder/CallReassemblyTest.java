package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Placement of Read chunks in the reduced stream and XDR pad re-insertion (RFC 8166 §3.4.5, §3.4.5.2). */
class CallReassemblyTest {

    static ReadSegment read(int position, int length) {
        return new ReadSegment(position, new RdmaSegment(7, length, 0));
    }

    @Test
    void chunksAreInsertedAtTheirPositionsWithTheirPads() throws Exception {
        // Unreduced stream: [A A A A][len=5][D D D D D p p p][len=2][E E p p][B B B B]
        // Reduced (inline):  [A A A A][len=5][len=2][B B B B]; chunk 1 at position 8, chunk 2 at position 20.
        ByteBuf inline = Unpooled.buffer().writeInt(0xAAAAAAAA).writeInt(5).writeInt(2).writeInt(0xBBBBBBBB);
        RpcRdmaHeader h = RpcRdmaHeader.msg(1, 1, List.of(read(8, 3), read(8, 2), read(20, 2)), List.of(), null);
        CallReassembly plan = CallReassembly.plan(h, inline.readableBytes(), 1 << 20);
        assertEquals(2, plan.inserted.size(), "segments at one position form one chunk");
        assertEquals(7, plan.totalRead);
        ByteBuf d1 = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        ByteBuf d2 = Unpooled.wrappedBuffer(new byte[] {6, 7});
        ByteBuf out = plan.assemble(ByteBufAllocator.DEFAULT, inline, List.of(d1, d2));
        try {
            byte[] got = new byte[out.readableBytes()];
            out.getBytes(out.readerIndex(), got);
            assertArrayEquals(new byte[] {
                (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, 0, 0, 0, 5, 1, 2, 3, 4, 5, 0, 0, 0,
                0, 0, 0, 2, 6, 7, 0, 0, (byte) 0xBB, (byte) 0xBB, (byte) 0xBB, (byte) 0xBB}, got);
        } finally {
            out.release();
        }
    }

    /**
     * Byte framing's layout: the chunks were pulled to their positions in one buffer as long as the message; the
     * inline parts and pads fill the gaps, and the result is that one buffer, the same bytes as {@code assemble}'s.
     */
    @Test
    void inPlaceTheChunksAtTheirPositionsAndTheInlinePartsAroundThemMakeOneBuffer() throws Exception {
        ByteBuf inline = Unpooled.buffer().writeInt(0xAAAAAAAA).writeInt(5).writeInt(2).writeInt(0xBBBBBBBB);
        RpcRdmaHeader h = RpcRdmaHeader.msg(1, 1, List.of(read(8, 3), read(8, 2), read(20, 2)), List.of(), null);
        CallReassembly plan = CallReassembly.plan(h, inline.readableBytes(), 1 << 20);
        assertEquals(28, plan.messageLength(inline.readableBytes()));
        assertEquals(8, plan.streamOffset(0));
        assertEquals(20, plan.streamOffset(1));
        assertArrayEquals(new int[] {8, 20}, plan.streamOffsets());
        ByteBuf target = Unpooled.directBuffer(64);
        for (int i = 0; i < 64; i++) {
            target.setByte(i, 0x5A); // what a recycled pool buffer may hold: none of it may show through
        }
        target.setBytes(8, new byte[] {1, 2, 3, 4, 5});
        target.setBytes(20, new byte[] {6, 7});
        ByteBuf out = plan.assembleInPlace(inline, target);
        try {
            assertEquals(0, inline.refCnt(), "the inline part was released");
            assertSame(target, out);
            assertEquals(1, out.nioBufferCount());
            assertEquals(0, out.readerIndex());
            byte[] got = new byte[out.readableBytes()];
            out.getBytes(0, got);
            assertArrayEquals(new byte[] {
                (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, 0, 0, 0, 5, 1, 2, 3, 4, 5, 0, 0, 0,
                0, 0, 0, 2, 6, 7, 0, 0, (byte) 0xBB, (byte) 0xBB, (byte) 0xBB, (byte) 0xBB}, got);
        } finally {
            out.release();
        }
    }

    @Test
    void chunkAtTheVeryEndIsAccepted() throws Exception {
        RpcRdmaHeader h = RpcRdmaHeader.msg(1, 1, List.of(read(16, 4)), List.of(), null);
        CallReassembly.plan(h, 16, 1 << 20);
    }

    @Test
    void chunkPastTheEndOrOverlappingIsRejected() {
        assertThrows(RpcRdmaHeaderException.class, () -> CallReassembly.plan(
                RpcRdmaHeader.msg(1, 1, List.of(read(20, 4)), List.of(), null), 16, 1 << 20));
        // The second chunk starts inside the first one's data (8 + 12 > 12 in unreduced coordinates).
        assertThrows(RpcRdmaHeaderException.class, () -> CallReassembly.plan(
                RpcRdmaHeader.msg(1, 1, List.of(read(8, 12), read(12, 4)), List.of(), null), 16, 1 << 20));
    }

    @Test
    void longCallWithFurtherChunks() throws Exception {
        RpcRdmaHeader h = RpcRdmaHeader.nomsg(1, 1, List.of(read(0, 12), read(8, 3)), List.of(), null);
        CallReassembly plan = CallReassembly.plan(h, 0, 1 << 20);
        assertEquals(12, plan.positionZero.length());
        assertEquals(1, plan.inserted.size());
        assertEquals(15, plan.totalRead);
    }

    /**
     * A Long Call is as large as its position-zero chunk: a krb5i or krb5p WRITE of 1 MiB from the Linux client
     * (its whole message in one chunk, RFC 8166 §8.2.2) fits a limit of 1 MiB and some, not twice that.
     */
    @Test
    void aLongCallCountsItsPositionZeroChunkOnce() throws Exception {
        int limit = (1 << 20) + 69632;
        CallReassembly plan = CallReassembly.plan(RpcRdmaHeader.nomsg(1, 1, List.of(read(0, 1048832)), List.of(),
                null), 0, limit);
        assertEquals(1048832, plan.totalRead);
        CallReassembly.plan(RpcRdmaHeader.nomsg(1, 1, List.of(read(0, limit)), List.of(), null), 0, limit);
        assertThrows(RpcRdmaHeaderException.class, () -> CallReassembly.plan(RpcRdmaHeader.nomsg(1, 1,
                List.of(read(0, limit + 4)), List.of(), null), 0, limit));
        // With a further chunk inserted into the position-zero chunk's stream: the sum of both, and its pad.
        CallReassembly.plan(RpcRdmaHeader.nomsg(1, 1, List.of(read(0, limit - 8), read(8, 5)), List.of(), null),
                0, limit);
        assertThrows(RpcRdmaHeaderException.class, () -> CallReassembly.plan(RpcRdmaHeader.nomsg(1, 1,
                List.of(read(0, limit - 4), read(8, 5)), List.of(), null), 0, limit));
        // An RDMA_MSG call: the inline part and the chunk.
        CallReassembly.plan(RpcRdmaHeader.msg(1, 1, List.of(read(16, limit - 16)), List.of(), null), 16, limit);
        assertThrows(RpcRdmaHeaderException.class, () -> CallReassembly.plan(RpcRdmaHeader.msg(1, 1,
                List.of(read(16, limit - 12)), List.of(), null), 16, limit));
    }
}
