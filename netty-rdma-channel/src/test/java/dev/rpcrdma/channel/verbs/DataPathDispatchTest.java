package dev.rpcrdma.channel.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvContext;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvCq;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvQp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data path without a device: a fake provider written in C against the installed verbs.h (compiled with gcc
 * into a shared library) is plugged into a fake {@code ibv_context->ops}. {@link Verbs#postSend},
 * {@link Verbs#postRecv}, {@link Verbs#pollCq} and {@link Verbs#reqNotifyCq} must find it through the QP/CQ's
 * context, pass the flyweights' native chains, and the C code, reading them through the real struct definitions,
 * must see exactly what the flyweights wrote. Provider errors become {@link NativeCallException}s naming the
 * rejected work request. Skips loudly without gcc and the rdma-core headers.
 */
class DataPathDispatchTest {
    private static final MemoryIO IO = MemoryIO.getInstance();

    private static final String PROVIDER = """
            #include <stdio.h>
            #include <infiniband/verbs.h>

            /* qp->qp_context: a char buffer for the description; qp->handle: 1 + index of the WR to reject. */
            int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr) {
                char *out = qp->qp_context;
                int n = 0, i;
                out[0] = 0;
                for (; wr; wr = wr->next, n++) {
                    if (qp->handle == (uint32_t) n + 1) { *bad_wr = wr; return 12; }
                    out += sprintf(out, "wr_id=%llu opcode=%d flags=%u num_sge=%d",
                        (unsigned long long) wr->wr_id, wr->opcode, wr->send_flags, wr->num_sge);
                    for (i = 0; i < wr->num_sge; i++)
                        out += sprintf(out, " sge=%llx:%u:%x", (unsigned long long) wr->sg_list[i].addr,
                            wr->sg_list[i].length, wr->sg_list[i].lkey);
                    if (wr->opcode == IBV_WR_SEND_WITH_IMM)
                        out += sprintf(out, " imm_be=%08x", __builtin_bswap32(wr->imm_data));
                    if (wr->opcode == IBV_WR_SEND_WITH_INV)
                        out += sprintf(out, " inv=%x", wr->invalidate_rkey);
                    if (wr->opcode == IBV_WR_RDMA_READ || wr->opcode == IBV_WR_RDMA_WRITE)
                        out += sprintf(out, " rdma=%llx:%x", (unsigned long long) wr->wr.rdma.remote_addr,
                            wr->wr.rdma.rkey);
                    if (wr->opcode == IBV_WR_BIND_MW)
                        out += sprintf(out, " bind=%llx:%x:%llx:%llx:%llx:%x",
                            (unsigned long long) (uintptr_t) wr->bind_mw.mw, wr->bind_mw.rkey,
                            (unsigned long long) (uintptr_t) wr->bind_mw.bind_info.mr,
                            (unsigned long long) wr->bind_mw.bind_info.addr,
                            (unsigned long long) wr->bind_mw.bind_info.length,
                            wr->bind_mw.bind_info.mw_access_flags);
                    out += sprintf(out, "\\n");
                }
                return 0;
            }

            int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr) {
                char *out = qp->qp_context;
                int n = 0;
                out[0] = 0;
                for (; wr; wr = wr->next, n++) {
                    if (qp->handle == (uint32_t) n + 1) { *bad_wr = wr; return 22; }
                    out += sprintf(out, "wr_id=%llu num_sge=%d sge=%llx:%u:%x\\n", (unsigned long long) wr->wr_id,
                        wr->num_sge, (unsigned long long) wr->sg_list[0].addr, wr->sg_list[0].length,
                        wr->sg_list[0].lkey);
                }
                return 0;
            }

            /* cq->cqe: completions available; cq->handle == 1: fail. */
            int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc) {
                int i, n = cq->cqe < num_entries ? cq->cqe : num_entries;
                if (cq->handle == 1) return -1;
                for (i = 0; i < n; i++) {
                    wc[i].wr_id = 1000 + i;
                    wc[i].status = i == 0 ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR;
                    wc[i].opcode = IBV_WC_RECV;
                    wc[i].byte_len = 100 + i;
                    wc[i].invalidated_rkey = 0xabc00 + i;
                    wc[i].wc_flags = IBV_WC_WITH_INV;
                    wc[i].qp_num = 77;
                }
                cq->cqe -= n;
                return n;
            }

            /* Records solicited_only in *(int *) cq->cq_context; cq->handle == 2: fail with EINVAL. */
            int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only) {
                if (cq->handle == 2) return 22;
                *(int *) cq->cq_context = 100 + solicited_only;
                return 0;
            }
            """;

    private static NativeMemory context;
    private static NativeMemory qp;
    private static NativeMemory cq;
    private static NativeMemory scratch;

    @BeforeAll
    static void loadFakeProvider(@TempDir Path dir) throws Exception {
        String gcc = StructLayoutsTest.findOnPath("gcc");
        if (gcc == null || !Files.exists(Path.of("/usr/include/infiniband/verbs.h"))) {
            String msg = "SKIPPED: data-path dispatch check needs gcc and the rdma-core headers. Run: "
                    + StructLayoutsTest.INSTALL;
            System.err.println("\n**********\n" + msg + "\n**********\n");
            Assumptions.abort(msg);
        }
        Path source = dir.resolve("fake_provider.c");
        Path library = dir.resolve("libfakeprovider.so");
        Files.writeString(source, PROVIDER);
        StructLayoutsTest.run(List.of(gcc, "-Wall", "-Werror", "-shared", "-fPIC", "-o", library.toString(),
                source.toString()));
        Library lib = Library.getCachedInstance(library.toString(), Library.NOW | Library.LOCAL);
        assertTrue(lib != null, "dlopen " + library + ": " + Library.getLastError());

        context = NativeMemory.allocate(512);
        put(IbvContext.OPS_POST_SEND, lib.getSymbolAddress("fake_post_send"));
        put(IbvContext.OPS_POST_RECV, lib.getSymbolAddress("fake_post_recv"));
        put(IbvContext.OPS_POLL_CQ, lib.getSymbolAddress("fake_poll_cq"));
        put(IbvContext.OPS_REQ_NOTIFY_CQ, lib.getSymbolAddress("fake_req_notify_cq"));
        scratch = NativeMemory.allocate(8192);
        qp = NativeMemory.allocate(256);
        IO.putAddress(qp.address() + IbvQp.CONTEXT, context.address());
        IO.putAddress(qp.address() + IbvQp.QP_CONTEXT, scratch.address());
        cq = NativeMemory.allocate(256);
        IO.putAddress(cq.address() + IbvCq.CONTEXT, context.address());
        IO.putAddress(cq.address() + IbvCq.CQ_CONTEXT, scratch.address());
    }

    private static void put(int opsOffset, long function) {
        assertTrue(function != 0, "symbol at ops offset " + opsOffset);
        IO.putAddress(context.address() + opsOffset, function);
    }

    @AfterAll
    static void free() {
        for (NativeMemory m : new NativeMemory[] {context, qp, cq, scratch}) {
            if (m != null) {
                m.close();
            }
        }
    }

    private static String description() {
        byte[] bytes = new byte[4096];
        scratch.get(0, bytes, 0, bytes.length);
        int end = 0;
        while (bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.US_ASCII);
    }

    @Test
    void postSendHandsTheProviderTheChainTheFlyweightWrote() throws Exception {
        IO.putInt(qp.address() + IbvQp.HANDLE, 0);
        try (SendWorkRequests wrs = new SendWorkRequests(4, 2)) {
            int a = wrs.add(11, WrOpcode.SEND_WITH_IMM, SendFlags.SIGNALED);
            wrs.addSge(a, 0x1000, 64, 0x21).addSge(a, 0x2000, 8, 0x22).immData(a, 0xCAFEBABE);
            int b = wrs.add(12, WrOpcode.RDMA_READ, 0);
            wrs.addSge(b, 0x3000, 4096, 0x23).rdma(b, 0x7f0012345000L, 0x1234);
            int c = wrs.add(13, WrOpcode.BIND_MW, SendFlags.SIGNALED);
            wrs.bindMw(c, 0xA0A0, 0x5501, 0xB0B0, 0xC000, 8192, 6);
            int d = wrs.add(14, WrOpcode.SEND_WITH_INV, 0);
            wrs.addSge(d, 0x4000, 16, 0x24).invalidateRkey(d, 0x5501);
            Verbs.postSend(qp.address(), wrs);
        }
        assertEquals("""
                wr_id=11 opcode=3 flags=2 num_sge=2 sge=1000:64:21 sge=2000:8:22 imm_be=cafebabe
                wr_id=12 opcode=4 flags=0 num_sge=1 sge=3000:4096:23 rdma=7f0012345000:1234
                wr_id=13 opcode=8 flags=2 num_sge=0 bind=a0a0:5501:b0b0:c000:2000:6
                wr_id=14 opcode=9 flags=0 num_sge=1 sge=4000:16:24 inv=5501
                """, description());
    }

    @Test
    void rejectedWorkRequestIsNamedWithTheErrno() {
        IO.putInt(qp.address() + IbvQp.HANDLE, 2); // reject the second
        try (SendWorkRequests wrs = new SendWorkRequests(3, 1)) {
            for (int i = 0; i < 3; i++) {
                wrs.addSge(wrs.add(i, WrOpcode.SEND, 0), 0x1000, 1, 1);
            }
            NativeCallException e = assertThrows(NativeCallException.class, () -> Verbs.postSend(qp.address(), wrs));
            assertEquals("ibv_post_send", e.call());
            assertEquals(12, e.errno());
            assertEquals("ibv_post_send failed: Cannot allocate memory (errno 12): work request 1 of 3 rejected",
                    e.getMessage());
        } finally {
            IO.putInt(qp.address() + IbvQp.HANDLE, 0);
        }
    }

    @Test
    void postRecvHandsTheProviderTheChainAndMapsErrors() throws Exception {
        try (RecvWorkRequests wrs = new RecvWorkRequests(2, 1)) {
            wrs.addSge(wrs.add(21), 0x5000, 1024, 0x31);
            wrs.addSge(wrs.add(22), 0x6000, 2048, 0x32);
            Verbs.postRecv(qp.address(), wrs);
            assertEquals("wr_id=21 num_sge=1 sge=5000:1024:31\nwr_id=22 num_sge=1 sge=6000:2048:32\n", description());
            IO.putInt(qp.address() + IbvQp.HANDLE, 1);
            NativeCallException e = assertThrows(NativeCallException.class, () -> Verbs.postRecv(qp.address(), wrs));
            assertEquals("ibv_post_recv failed: Invalid argument (errno 22): work request 0 of 2 rejected",
                    e.getMessage());
        } finally {
            IO.putInt(qp.address() + IbvQp.HANDLE, 0);
        }
    }

    @Test
    void pollCqFillsTheCompletionFlyweight() throws Exception {
        IO.putInt(cq.address() + IbvCq.HANDLE, 0);
        IO.putInt(cq.address() + IbvCq.CQE, 3); // three completions pending
        try (WorkCompletions wcs = new WorkCompletions(2)) {
            assertEquals(2, Verbs.pollCq(cq.address(), wcs));
            assertEquals(1000, wcs.wrId(0));
            assertEquals(WcStatus.SUCCESS, wcs.status(0));
            assertEquals(WcStatus.REM_ACCESS_ERR, wcs.status(1));
            assertEquals(101, wcs.byteLen(1));
            assertEquals(0xabc01, wcs.invalidatedRkey(1));
            assertTrue(wcs.withInvalidate(1));
            assertEquals(77, wcs.qpNum(0));
            assertEquals(1, Verbs.pollCq(cq.address(), wcs));
            assertEquals(0, Verbs.pollCq(cq.address(), wcs));
            IO.putInt(cq.address() + IbvCq.HANDLE, 1);
            NativeCallException e = assertThrows(NativeCallException.class, () -> Verbs.pollCq(cq.address(), wcs));
            assertEquals("ibv_poll_cq", e.call());
        } finally {
            IO.putInt(cq.address() + IbvCq.HANDLE, 0);
        }
    }

    @Test
    void theDataPathAllocatesNothingOnTheJavaHeap() throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported(),
                "SKIPPED: this JVM cannot measure per-thread allocation");
        IO.putInt(qp.address() + IbvQp.HANDLE, 0);
        IO.putInt(cq.address() + IbvCq.HANDLE, 0);
        try (SendWorkRequests sends = new SendWorkRequests(2, 1);
             RecvWorkRequests recvs = new RecvWorkRequests(2, 1);
             WorkCompletions wcs = new WorkCompletions(4)) {
            long sink = 0;
            for (int round = 0; round < 2; round++) { // round 0 warms up (class loading, JIT)
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 20_000; i++) {
                    sends.clear();
                    int w = sends.add(i, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED);
                    sends.addSge(w, 0x1000, 64, 1).rdma(w, 0x2000, 2);
                    Verbs.postSend(qp.address(), sends);
                    recvs.clear();
                    recvs.addSge(recvs.add(i), 0x3000, 64, 1);
                    Verbs.postRecv(qp.address(), recvs);
                    IO.putInt(cq.address() + IbvCq.CQE, 2);
                    int n = Verbs.pollCq(cq.address(), wcs);
                    for (int k = 0; k < n; k++) {
                        sink += wcs.wrId(k) + wcs.status(k) + wcs.byteLen(k);
                    }
                    Verbs.reqNotifyCq(cq.address(), false);
                }
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                if (round == 1) {
                    // Any per-call object would cost >= 16 bytes x 20000; allow a few one-off bytes (JIT, OSR).
                    assertTrue(allocated < 20_000, allocated + " bytes allocated by 20000 post/poll/notify rounds");
                }
            }
            assertTrue(sink > 0);
        }
    }

    @Test
    void reqNotifyCqPassesSolicitedOnlyAndMapsErrors() throws Exception {
        IO.putInt(cq.address() + IbvCq.HANDLE, 0);
        Verbs.reqNotifyCq(cq.address(), true);
        assertEquals(101, IO.getInt(scratch.address()));
        Verbs.reqNotifyCq(cq.address(), false);
        assertEquals(100, IO.getInt(scratch.address()));
        IO.putInt(cq.address() + IbvCq.HANDLE, 2);
        try {
            NativeCallException e = assertThrows(NativeCallException.class,
                    () -> Verbs.reqNotifyCq(cq.address(), false));
            assertEquals("ibv_req_notify_cq failed: Invalid argument (errno 22)", e.getMessage());
        } finally {
            IO.putInt(cq.address() + IbvCq.HANDLE, 0);
        }
    }
}
