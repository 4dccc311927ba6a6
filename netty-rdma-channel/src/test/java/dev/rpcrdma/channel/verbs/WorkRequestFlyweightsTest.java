package dev.rpcrdma.channel.verbs;

import static dev.rpcrdma.channel.fabric.AccessFlags.REMOTE_READ;
import static dev.rpcrdma.channel.fabric.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.fabric.WcOpcode;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import com.kenai.jffi.MemoryIO;
import org.junit.jupiter.api.Test;

/**
 * The work-request and work-completion flyweights write and read the right bytes at the right offsets
 * ({@code struct ibv_send_wr}/{@code ibv_sge}/{@code ibv_recv_wr}/{@code ibv_wc} as checked by
 * {@link StructLayoutsTest}), chain work requests through {@code next} and point {@code sg_list} at their own SGEs.
 */
class WorkRequestFlyweightsTest {
    private static final MemoryIO IO = MemoryIO.getInstance();

    @Test
    void sendWorkRequestsAreWrittenInPlaceAndChained() {
        try (SendWorkRequests wrs = new SendWorkRequests(4, 2)) {
            int send = wrs.add(0x1111_2222_3333_4444L, WrOpcode.SEND_WITH_IMM, SendFlags.SIGNALED);
            wrs.addSge(send, 0x7f00_0000_1000L, 100, 0xAABBCCDD).addSge(send, 0x7f00_0000_2000L, 28, 0x01020304);
            wrs.immData(send, 0x01020304);
            int write = wrs.add(2, WrOpcode.RDMA_WRITE, 0);
            wrs.addSge(write, 0x5000, 4096, 7).rdma(write, 0xDEAD_BEEF_0000L, 0x12345678);
            int bind = wrs.add(3, WrOpcode.BIND_MW, SendFlags.SIGNALED);
            wrs.bindMw(bind, 0xA000, 0x00ABCD01, 0xB000, 0xC000, 8192, REMOTE_READ | REMOTE_WRITE);
            int inv = wrs.add(4, WrOpcode.SEND_WITH_INV, 0);
            wrs.invalidateRkey(inv, 0x00ABCD01);

            assertEquals(4, wrs.count());
            long base = wrs.address();
            long w0 = base;
            long w1 = base + 128;
            long w2 = base + 256;
            long w3 = base + 384;
            // wr_id 0, next 8, sg_list 16, num_sge 24, opcode 28, send_flags 32, imm_data 36
            assertEquals(0x1111_2222_3333_4444L, IO.getLong(w0));
            assertEquals(w1, IO.getAddress(w0 + 8));
            assertEquals(wrs.sge(0, 0), IO.getAddress(w0 + 16));
            assertEquals(2, IO.getInt(w0 + 24));
            assertEquals(3, IO.getInt(w0 + 28));
            assertEquals(2, IO.getInt(w0 + 32));
            // imm_data is __be32: bytes 01 02 03 04 in memory
            assertEquals(0x01, IO.getByte(w0 + 36));
            assertEquals(0x04, IO.getByte(w0 + 39));
            // sge: addr 0, length 8, lkey 12 (16 bytes each, contiguous per work request)
            long sge0 = IO.getAddress(w0 + 16);
            assertEquals(0x7f00_0000_1000L, IO.getLong(sge0));
            assertEquals(100, IO.getInt(sge0 + 8));
            assertEquals(0xAABBCCDD, IO.getInt(sge0 + 12));
            assertEquals(0x7f00_0000_2000L, IO.getLong(sge0 + 16));
            assertEquals(28, IO.getInt(sge0 + 24));

            assertEquals(w2, IO.getAddress(w1 + 8));
            assertEquals(WrOpcode.RDMA_WRITE, IO.getInt(w1 + 28));
            assertEquals(0, IO.getInt(w1 + 32));
            assertEquals(0xDEAD_BEEF_0000L, IO.getLong(w1 + 40)); // wr.rdma.remote_addr
            assertEquals(0x12345678, IO.getInt(w1 + 48)); // wr.rdma.rkey
            assertEquals(1, IO.getInt(w1 + 24));

            // bind_mw: mw 80, rkey 88, bind_info.mr 96, addr 104, length 112, mw_access_flags 120
            assertEquals(WrOpcode.BIND_MW, IO.getInt(w2 + 28));
            assertEquals(0, IO.getInt(w2 + 24));
            assertEquals(0xA000, IO.getAddress(w2 + 80));
            assertEquals(0x00ABCD01, IO.getInt(w2 + 88));
            assertEquals(0xB000, IO.getAddress(w2 + 96));
            assertEquals(0xC000, IO.getLong(w2 + 104));
            assertEquals(8192, IO.getLong(w2 + 112));
            assertEquals(REMOTE_READ | REMOTE_WRITE, IO.getInt(w2 + 120));

            assertEquals(w3, IO.getAddress(w2 + 8));
            assertEquals(0x00ABCD01, IO.getInt(w3 + 36)); // invalidate_rkey, host order
            assertEquals(0x00ABCD01, IO.getInt(w3 + 48), "wr.rdma.rkey too: libsiw takes the STag from it");
            assertEquals(0, IO.getAddress(w3 + 8), "last work request ends the chain");

            assertThrows(IllegalStateException.class, () -> wrs.addSge(send, 1, 1, 1), "max 2 SGEs");
            assertThrows(IllegalStateException.class, () -> wrs.add(5, WrOpcode.RDMA_WRITE, 0), "capacity 4");
            assertEquals(3, wrs.indexOf(w3));
            assertEquals(-1, wrs.indexOf(w3 + 1));
        }
    }

    @Test
    void aWorkRequestStartedOverIsRewrittenInPlaceAndStaysChained() {
        try (SendWorkRequests wrs = new SendWorkRequests(4, 2)) {
            int a = wrs.add(1, 0, SendFlags.SIGNALED);
            wrs.opcode(a, WrOpcode.SEND);
            wrs.addSge(a, 0x1000, 8, 5);
            int b = wrs.add(2, 0, SendFlags.SIGNALED);
            wrs.opcode(b, WrOpcode.RDMA_READ);
            wrs.addSge(b, 0x2000, 16, 6).addSge(b, 0x3000, 16, 6).rdma(b, 0xBEEF, 9);
            assertEquals(2, wrs.numSge(b));
            wrs.restart(b, 3);
            long wb = wrs.wr(b);
            assertEquals(3, IO.getLong(wb));
            assertEquals(0, wrs.numSge(b));
            assertEquals(0, wrs.sendFlags(b));
            assertEquals(0, IO.getInt(wb + 28), "opcode");
            assertEquals(0L, IO.getLong(wb + 40), "wr.rdma.remote_addr");
            assertEquals(0, IO.getInt(wb + 48), "wr.rdma.rkey");
            assertEquals(0L, IO.getLong(wb + 8), "next: the last of the chain");
            assertEquals(wb, IO.getAddress(wrs.wr(a) + 8), "still linked from the one before");
            wrs.opcode(b, WrOpcode.SEND);
            wrs.sendFlags(b, SendFlags.SIGNALED | SendFlags.FENCE);
            wrs.addSge(b, 0x4000, 4, 7);
            assertEquals(WrOpcode.SEND, IO.getInt(wb + 28));
            assertEquals(SendFlags.SIGNALED | SendFlags.FENCE, wrs.sendFlags(b));
            assertEquals(1, wrs.numSge(b));
            assertEquals(0x4000, IO.getLong(IO.getAddress(wb + 16)));
            assertEquals(2, wrs.count());
            assertEquals(1, wrs.numSge(a), "the one before untouched");
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.restart(2, 4));
        }
    }

    @Test
    void clearAndReuseRewritesEveryField() {
        try (SendWorkRequests wrs = new SendWorkRequests(2, 1)) {
            int i = wrs.add(1, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED);
            wrs.addSge(i, 0x1000, 10, 1).rdma(i, 0x2000, 99);
            wrs.add(2, WrOpcode.RDMA_WRITE, 0);
            wrs.clear();
            int j = wrs.add(7, WrOpcode.SEND_WITH_INV, 0);
            long wr = wrs.wr(j);
            assertEquals(7, IO.getLong(wr));
            assertEquals(0, IO.getAddress(wr + 8), "stale next cleared");
            assertEquals(0, IO.getInt(wr + 24), "stale num_sge cleared");
            assertEquals(0, IO.getLong(wr + 40), "stale remote_addr cleared");
            assertEquals(0, IO.getInt(wr + 48), "stale rkey cleared");
            assertEquals(1, wrs.count());
            assertThrows(IndexOutOfBoundsException.class, () -> wrs.rdma(1, 0, 0));
        }
    }

    @Test
    void reusedWorkRequestIsZeroedToItsLastWord() {
        try (SendWorkRequests wrs = new SendWorkRequests(1, 1)) {
            int i = wrs.add(1, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED);
            wrs.bindMw(i, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60).immData(i, 5).rdma(i, 0x70, 0x80);
            for (int off = 0; off < IbvLayouts.IbvSendWr.SIZE; off += 8) {
                IO.putLong(wrs.wr(i) + off, -1L);
            }
            wrs.clear();
            int j = wrs.add(9, 0, 0);
            long wr = wrs.wr(j);
            assertEquals(9, IO.getLong(wr));
            assertEquals(wrs.sge(j, 0), IO.getAddress(wr + 16));
            for (int off = 0; off < IbvLayouts.IbvSendWr.SIZE; off += 8) {
                if (off != 0 && off != 16) {
                    assertEquals(0, IO.getLong(wr + off), "word at offset " + off);
                }
            }
        }
        try (RecvWorkRequests wrs = new RecvWorkRequests(1, 1)) {
            int i = wrs.add(3);
            for (int off = 0; off < IbvLayouts.IbvRecvWr.SIZE; off += 8) {
                IO.putLong(wrs.wr(i) + off, -1L);
            }
            wrs.clear();
            long wr = wrs.wr(wrs.add(4));
            assertEquals(4, IO.getLong(wr));
            assertEquals(0, IO.getLong(wr + 8));
            assertEquals(0, IO.getLong(wr + 24));
        }
    }

    @Test
    void recvWorkRequestsAreWrittenInPlaceAndChained() {
        try (RecvWorkRequests wrs = new RecvWorkRequests(3, 1)) {
            for (int k = 0; k < 3; k++) {
                int i = wrs.add(100 + k);
                wrs.addSge(i, 0x9000 + 0x1000L * k, 1024, 0x55);
            }
            long base = wrs.address();
            for (int k = 0; k < 3; k++) {
                long wr = base + 32L * k; // sizeof(struct ibv_recv_wr) == 32
                assertEquals(100 + k, IO.getLong(wr));
                assertEquals(k < 2 ? wr + 32 : 0, IO.getAddress(wr + 8));
                long sge = IO.getAddress(wr + 16);
                assertEquals(wrs.sge(k, 0), sge);
                assertEquals(1, IO.getInt(wr + 24));
                assertEquals(0x9000 + 0x1000L * k, IO.getLong(sge));
                assertEquals(1024, IO.getInt(sge + 8));
                assertEquals(0x55, IO.getInt(sge + 12));
            }
        }
    }

    @Test
    void workCompletionsAreReadInPlaceByIndex() {
        try (WorkCompletions wcs = new WorkCompletions(2)) {
            long wc1 = wcs.address() + 48; // sizeof(struct ibv_wc) == 48
            IO.putLong(wc1, 0xCAFEL);
            IO.putInt(wc1 + 8, WcStatus.REM_ACCESS_ERR);
            IO.putInt(wc1 + 12, WcOpcode.RECV);
            IO.putInt(wc1 + 16, 0x77);
            IO.putInt(wc1 + 20, 512);
            IO.putInt(wc1 + 24, 0x00ABCD01);
            IO.putInt(wc1 + 28, 17);
            IO.putInt(wc1 + 32, 18);
            IO.putInt(wc1 + 36, WcFlags.WITH_INV);
            assertEquals(0xCAFEL, wcs.wrId(1));
            assertEquals(WcStatus.REM_ACCESS_ERR, wcs.status(1));
            assertEquals(WcOpcode.RECV, wcs.opcode(1));
            assertEquals(0x77, wcs.vendorErr(1));
            assertEquals(512, wcs.byteLen(1));
            assertEquals(0x00ABCD01, wcs.invalidatedRkey(1));
            assertEquals(0x01CDAB00, wcs.immData(1), "imm_data is network order");
            assertEquals(17, wcs.qpNum(1));
            assertEquals(18, wcs.srcQp(1));
            assertEquals(WcFlags.WITH_INV, wcs.wcFlags(1));
            assertEquals(0, wcs.wrId(0), "allocated zeroed");
            assertThrows(IndexOutOfBoundsException.class, () -> wcs.status(2));
        }
    }

    @Test
    void withInvalidateUsesTheDevicesFlagBit() {
        try (WorkCompletions standard = new WorkCompletions(1);
             WorkCompletions rxe = new WorkCompletions(1, Verbs.SOFT_ROCE_WC_WITH_INV)) {
            for (WorkCompletions wcs : new WorkCompletions[] {standard, rxe}) {
                IO.putInt(wcs.address() + 12, WcOpcode.RECV);
            }
            IO.putInt(standard.address() + 36, WcFlags.WITH_INV | WcFlags.GRH);
            IO.putInt(rxe.address() + 36, Verbs.SOFT_ROCE_WC_WITH_INV | WcFlags.GRH);
            assertTrue(standard.withInvalidate(0));
            assertTrue(rxe.withInvalidate(0));
            IO.putInt(rxe.address() + 36, WcFlags.WITH_INV);
            assertFalse(rxe.withInvalidate(0), "rxe never sets 1 << 3; only its own bit counts");
            IO.putInt(standard.address() + 12, WcOpcode.SEND);
            assertFalse(standard.withInvalidate(0), "only receives are invalidating");
            assertThrows(IllegalArgumentException.class, () -> new WorkCompletions(1, 0b110));
        }
    }

    @Test
    void incRkeyIncrementsOnlyTheKeyTag() {
        // ibv_inc_rkey (verbs.h): (rkey & ~0xff) | ((rkey + 1) & 0xff)
        assertEquals(0x12345679, Verbs.incRkey(0x12345678));
        assertEquals(0x12345600, Verbs.incRkey(0x123456FF));
        assertEquals(0xFFFFFF00, Verbs.incRkey(0xFFFFFFFF));
    }

    /** {@link WorkRequestBlock} writes both kinds through one set of offsets: their first four fields agree. */
    @Test
    void sendAndReceiveWorkRequestsShareTheirLeadingFields() {
        assertEquals(IbvLayouts.IbvSendWr.WR_ID, IbvLayouts.IbvRecvWr.WR_ID);
        assertEquals(IbvLayouts.IbvSendWr.NEXT, IbvLayouts.IbvRecvWr.NEXT);
        assertEquals(IbvLayouts.IbvSendWr.SG_LIST, IbvLayouts.IbvRecvWr.SG_LIST);
        assertEquals(IbvLayouts.IbvSendWr.NUM_SGE, IbvLayouts.IbvRecvWr.NUM_SGE);
    }
}
