package dev.rpcrdma.handlers.binding;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * RFC 8267's NFS binding on hand-built messages: NFSv3 READ/READLINK results and WRITE/SYMLINK arguments (§4), NFSv4
 * COMPOUNDs as the Linux client sends them (§6.1, §6.4.1), and XDR that lies (truncated, counts past the end, a READ
 * count larger than its data, an unknown operation before the READ).
 */
class NfsBindingTest {
    private final UpperLayerBinding nfs = UpperLayerBinding.nfs();
    private final int[] items = new int[2 * UpperLayerBinding.MAX_ITEMS];

    /** An accepted SUCCESS reply header with an AUTH_NONE verifier: 24 bytes. */
    private static ByteBuf reply() {
        return Unpooled.buffer().writeInt(7).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
    }

    /** A call header for program 100003 with an AUTH_SYS-sized credential body of 20 bytes. */
    private static ByteBuf call(int version, int procedure) {
        return Unpooled.buffer().writeInt(9).writeInt(0).writeInt(2).writeInt(100003).writeInt(version)
                .writeInt(procedure).writeInt(1).writeInt(20).writeZero(20).writeInt(0).writeInt(0);
    }

    private static ByteBuf opaque(ByteBuf b, int length) {
        b.writeInt(length);
        for (int i = 0; i < length; i++) {
            b.writeByte(i);
        }
        return b.writeZero((4 - length % 4) % 4);
    }

    @Test
    void nfs3ReadResultsDataIsTheItem() throws XdrException {
        ByteBuf m = reply().writeInt(0).writeInt(1).writeZero(84).writeInt(1000).writeInt(1);
        int expected = m.readableBytes() + 4;
        opaque(m, 1000);
        assertEquals(1, nfs.replyItems(100003, 3, 6, m, items));
        assertArrayEquals(new int[] {expected, 1000}, Arrays.copyOf(items, 2));
    }

    @Test
    void aFailedNfs3ReadHasNoItemAndOtherProceduresNone() throws XdrException {
        assertEquals(0, nfs.replyItems(100003, 3, 6, reply().writeInt(70).writeInt(0), items));
        assertEquals(0, nfs.replyItems(100003, 3, 1, reply().writeInt(0), items));
        assertEquals(0, nfs.replyItems(100005, 3, 6, reply(), items), "another program");
    }

    @Test
    void nfs3ReadlinkAndNfs2Read() throws XdrException {
        ByteBuf link = reply().writeInt(0).writeInt(0);
        int at = link.readableBytes() + 4;
        opaque(link, 9);
        assertEquals(1, nfs.replyItems(100003, 3, 5, link, items));
        assertArrayEquals(new int[] {at, 9}, Arrays.copyOf(items, 2));
        ByteBuf v2 = reply().writeInt(0).writeZero(68);
        at = v2.readableBytes() + 4;
        opaque(v2, 8192);
        assertEquals(1, nfs.replyItems(100003, 2, 6, v2, items));
        assertArrayEquals(new int[] {at, 8192}, Arrays.copyOf(items, 2));
    }

    @Test
    void nfs3WriteAndSymlinkArguments() throws XdrException {
        ByteBuf write = call(3, 7);
        opaque(write, 32).writeLong(4096).writeInt(100).writeInt(2);
        int at = write.readableBytes() + 4;
        opaque(write, 100);
        assertEquals(1, nfs.callItems(write, items));
        assertArrayEquals(new int[] {at, 100}, Arrays.copyOf(items, 2));

        ByteBuf symlink = call(3, 10);
        opaque(symlink, 32);
        opaque(symlink, 5);
        symlink.writeInt(1).writeInt(0755).writeInt(0).writeInt(0).writeInt(0).writeInt(2).writeLong(0).writeInt(1);
        at = symlink.readableBytes() + 4;
        opaque(symlink, 11);
        assertEquals(1, nfs.callItems(symlink, items));
        assertArrayEquals(new int[] {at, 11}, Arrays.copyOf(items, 2));
    }

    /** The Linux client's READ COMPOUND: SEQUENCE, PUTFH, READ, and a second READ in the same COMPOUND. */
    @Test
    void nfs4CompoundReadResultsInOrder() throws XdrException {
        ByteBuf m = reply().writeInt(0);
        opaque(m, 0).writeInt(4);
        m.writeInt(53).writeInt(0).writeZero(36);    // SEQUENCE
        m.writeInt(22).writeInt(0);                  // PUTFH
        m.writeInt(25).writeInt(0).writeInt(0);      // READ, eof false
        int first = m.readableBytes() + 4;
        opaque(m, 3000);
        m.writeInt(25).writeInt(0).writeInt(1);
        int second = m.readableBytes() + 4;
        opaque(m, 5);
        assertEquals(2, nfs.replyItems(100003, 4, 1, m, items));
        assertArrayEquals(new int[] {first, 3000, second, 5}, Arrays.copyOf(items, 4));
    }

    /** The Linux client's READLINK COMPOUND: SEQUENCE, PUTFH, READLINK (RFC 8267 §6.1: its linkdata). */
    @Test
    void nfs4CompoundReadlinkResult() throws XdrException {
        ByteBuf m = reply().writeInt(0);
        opaque(m, 0).writeInt(3);
        m.writeInt(53).writeInt(0).writeZero(36);    // SEQUENCE
        m.writeInt(22).writeInt(0);                  // PUTFH
        m.writeInt(27).writeInt(0);                  // READLINK
        int at = m.readableBytes() + 4;
        opaque(m, 13);
        assertEquals(1, nfs.replyItems(100003, 4, 1, m, items));
        assertArrayEquals(new int[] {at, 13}, Arrays.copyOf(items, 2));
    }

    /**
     * RFC 8267 §6.4.1: results pair with Write chunks in operation order. A COMPOUND ends at its first failed
     * operation (RFC 5661 §16.2.3): a failed READ has no item, so only the items before it are located.
     */
    @Test
    void nfs4CompoundEndsAtAFailedRead() throws XdrException {
        ByteBuf m = reply().writeInt(10008);         // NFS4ERR_DELAY, the status of the last operation
        opaque(m, 0).writeInt(3);
        m.writeInt(22).writeInt(0);                  // PUTFH
        m.writeInt(25).writeInt(0).writeInt(0);      // READ
        int first = m.readableBytes() + 4;
        opaque(m, 100);
        m.writeInt(25).writeInt(10008);              // READ, failed: no READ4resok
        assertEquals(1, nfs.replyItems(100003, 4, 1, m, items));
        assertArrayEquals(new int[] {first, 100}, Arrays.copyOf(items, 2));
    }

    /**
     * More READ results than the items array has room for: the first ones are located, the rest stay inline
     * (RFC 8267 §6.4.1: READs past the Write list return their data inline), never an exception; the ones left
     * inline are still checked against the message.
     */
    @Test
    void readResultsPastTheItemsRoomStayInlineButAreStillChecked() throws XdrException {
        int reads = UpperLayerBinding.MAX_ITEMS + 2;
        ByteBuf m = reply().writeInt(0);
        opaque(m, 0).writeInt(reads);
        int[] at = new int[reads];
        for (int i = 0; i < reads; i++) {
            m.writeInt(25).writeInt(0).writeInt(0);
            at[i] = m.readableBytes() + 4;
            opaque(m, 8 + i);
        }
        assertEquals(UpperLayerBinding.MAX_ITEMS, nfs.replyItems(100003, 4, 1, m, items));
        for (int i = 0; i < UpperLayerBinding.MAX_ITEMS; i++) {
            assertEquals(at[i], items[2 * i]);
            assertEquals(8 + i, items[2 * i + 1]);
        }
        ByteBuf lying = m.copy().writerIndex(at[reads - 1] - 4).writeInt(1 << 20).writeZero(12);
        assertThrows(XdrException.class, () -> nfs.replyItems(100003, 4, 1, lying, items),
                "an item left inline whose length runs past the end");
    }

    /** A READ3resok whose count says more than its data holds: the item is the data (its own length), no more. */
    @Test
    void aReadCountLargerThanTheDataLocatesOnlyTheData() throws XdrException {
        ByteBuf m = reply().writeInt(0).writeInt(0).writeInt(1 << 20).writeInt(0);  // count3 1 MiB, eof false
        int at = m.readableBytes() + 4;
        opaque(m, 6);
        assertEquals(1, nfs.replyItems(100003, 3, 6, m, items));
        assertArrayEquals(new int[] {at, 6}, Arrays.copyOf(items, 2));
    }

    @Test
    void nfs2WriteArguments() throws XdrException {
        ByteBuf write = call(2, 8).writeZero(32).writeInt(0).writeInt(4096).writeInt(0); // fhandle, offsets, count
        int at = write.readableBytes() + 4;
        opaque(write, 8192);
        assertEquals(1, nfs.callItems(write, items));
        assertArrayEquals(new int[] {at, 8192}, Arrays.copyOf(items, 2));
    }

    @Test
    void nfs4UnknownOperationBeforeTheReadIsUnknownAndAfterItHarmless() throws XdrException {
        ByteBuf before = reply().writeInt(0);
        opaque(before, 0).writeInt(2);
        before.writeInt(18).writeInt(0).writeZero(40);   // OPEN: layout not walked
        before.writeInt(25).writeInt(0).writeInt(1);
        opaque(before, 10);
        assertEquals(UpperLayerBinding.UNKNOWN, nfs.replyItems(100003, 4, 1, before, items));

        ByteBuf after = reply().writeInt(0);
        opaque(after, 0).writeInt(2);
        after.writeInt(25).writeInt(0).writeInt(1);
        opaque(after, 10);
        after.writeInt(18).writeInt(0).writeZero(40);
        assertEquals(1, nfs.replyItems(100003, 4, 1, after, items));
    }

    @Test
    void nfs4WriteArguments() throws XdrException {
        ByteBuf m = call(4, 1);
        opaque(m, 0).writeInt(1).writeInt(3);
        m.writeInt(53).writeZero(32);                // SEQUENCE
        m.writeInt(22);                              // PUTFH
        opaque(m, 40);
        m.writeInt(38).writeZero(16).writeLong(0).writeInt(2); // WRITE: stateid, offset, stable
        int at = m.readableBytes() + 4;
        opaque(m, 6000);
        assertEquals(1, nfs.callItems(m, items));
        assertArrayEquals(new int[] {at, 6000}, Arrays.copyOf(items, 2));
    }

    /** Lying XDR: a data length past the end, a truncated attribute, a huge COMPOUND count; never out of bounds. */
    @Test
    void lyingXdrIsAnXdrExceptionNeverAnOutOfBoundsRead() {
        ByteBuf past = reply().writeInt(0).writeInt(0).writeInt(10).writeInt(0).writeInt(1_000_000).writeZero(16);
        assertThrows(XdrException.class, () -> nfs.replyItems(100003, 3, 6, past, items));
        ByteBuf truncated = reply().writeInt(0).writeInt(1).writeZero(40);
        assertThrows(XdrException.class, () -> nfs.replyItems(100003, 3, 6, truncated, items));
        ByteBuf count = reply().writeInt(0).writeInt(0).writeInt(0x7fff_ffff);
        assertThrows(XdrException.class, () -> nfs.replyItems(100003, 4, 1, count, items));
        ByteBuf negative = reply().writeInt(0).writeInt(0).writeInt(0).writeInt(0).writeInt(-4);
        assertThrows(XdrException.class, () -> nfs.replyItems(100003, 3, 6, negative, items));
        ByteBuf shortCall = Unpooled.buffer().writeInt(9).writeInt(0);
        assertThrows(XdrException.class, () -> nfs.callItems(shortCall, items));
    }

    /** The located items make a payload of slices whose inline encoding is the original message. */
    @Test
    void locatedItemsSliceTheMessageWithoutCopying() throws XdrException {
        ByteBuf m = reply().writeInt(0).writeInt(0).writeInt(6).writeInt(1);
        opaque(m, 6);
        byte[] original = new byte[m.readableBytes()];
        m.getBytes(0, original);
        int n = nfs.replyItems(100003, 3, 6, m, items);
        XdrPayload p = XdrPayload.slices(ByteBufAllocator.DEFAULT, m, items, n);
        try {
            assertEquals(1, p.ddpItems().size());
            assertEquals(6, p.ddpItems().get(0).length());
            assertEquals(original.length - 8, p.reducedLength());
            ByteBuf inline = p.toInlineBuffer(ByteBufAllocator.DEFAULT);
            byte[] again = new byte[inline.readableBytes()];
            inline.getBytes(0, again);
            inline.release();
            assertArrayEquals(original, again);
        } finally {
            p.release();
        }
    }

    @Test
    void slicesRefusesItemsThatAreNotInTheMessage() {
        ByteBuf m = Unpooled.buffer().writeInt(5).writeZero(8);
        assertThrows(XdrException.class, () -> XdrPayload.slices(ByteBufAllocator.DEFAULT, m.retain(),
                new int[] {4, 6}, 1), "the length word says 5");
        assertThrows(XdrException.class, () -> XdrPayload.slices(ByteBufAllocator.DEFAULT, m.retain(),
                new int[] {4, 5, 4, 1}, 2), "overlapping");
        assertThrows(XdrException.class, () -> XdrPayload.slices(ByteBufAllocator.DEFAULT, m.retain(),
                new int[] {4, 5}, 2), "more items than pairs");
        assertEquals(1, m.refCnt(), "every refused payload released what it took");
        m.release();
    }
}
