package dev.rpcrdma.channel.fabric;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The fabric SPI's contract, run once per fabric by its subclasses: {@link SoftwareFabricContractTest} (the
 * in-process software device, in {@code mvn verify}) and {@link NativeFabricContractTest} (libibverbs/librdmacm on
 * Soft-RoCE {@code rxe0}, {@code @Tag("rdma-device")}, in the VM stage). It holds the software model against the
 * real device at the SPI: memory keys, access rights and bounds, RNR retries, length errors, flushing, queue depths
 * and selective signalling, memory windows and remote invalidation, CM private data, reject, disconnect, completion
 * channel arming, and chains of work requests. Where rxe and the IB specification part ways the test states the
 * contract both fabrics satisfy and says which behaviour each one has; the software model's own internals (CQ
 * overflow, misuse it detects that a real device leaves undefined) are in {@code SoftwareFabricTest}.
 */
@SuppressWarnings("try")
abstract class FabricContractSuite {
    static final int ALL = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ
            | AccessFlags.MW_BIND;
    static final int INFINITE_RNR = 7;

    private final SendWorkRequest wr = new SendWorkRequest();

    /** The fabric under test: the same object for every call within one test. */
    abstract Fabric fabric();

    /** The address servers listen on and clients connect to. */
    abstract InetAddress address();

    FabricHarness.Pair pair(int serverAccess, int clientAccess, int rnrRetry) throws Exception {
        return new FabricHarness.Pair(fabric(), address(), serverAccess, clientAccess, rnrRetry);
    }

    private static void fill(FabricHarness h, int offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            h.memory.setByte(offset + i, seed + i);
        }
    }

    private static void assertFilled(FabricHarness h, int offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            assertEquals((byte) (seed + i), h.memory.getByte(offset + i), "byte " + i);
        }
    }

    static void assertStatus(int expected, long[] wc) {
        assertEquals(WcStatus.name(expected), WcStatus.name((int) wc[1]), "status of wr " + wc[0]);
    }

    /** The completion's status is one of {@code allowed} (where the fabrics differ, each one's is named). */
    static void assertStatusIn(long[] wc, int... allowed) {
        for (int a : allowed) {
            if (wc[1] == a) {
                return;
            }
        }
        StringBuilder names = new StringBuilder();
        for (int a : allowed) {
            names.append(names.length() == 0 ? "" : " or ").append(WcStatus.name(a));
        }
        fail("status of wr " + wc[0] + ": expected " + names + " but was " + WcStatus.name((int) wc[1]));
    }

    /**
     * Posts with {@code post} (given the index) until the queue refuses with ENOMEM; returns how many were posted.
     * A queue holds at least its granted depth; a device may hold more (rxe rounds each queue up to a power of two
     * minus one and still reports the depth asked for: 16 asked, 31 held), but never without bound.
     */
    static int postUntilFull(int grantedDepth, PostOne post) throws Exception {
        for (int i = 0; i <= 4 * grantedDepth; i++) {
            try {
                post.post(i);
            } catch (FabricException e) {
                assertEquals(FabricException.ENOMEM, e.errno(), "a full queue: " + e);
                assertTrue(i >= grantedDepth, "refused after " + i + " < the granted depth " + grantedDepth);
                return i;
            }
        }
        return fail("a queue of granted depth " + grantedDepth + " took " + (4 * grantedDepth + 1) + " requests");
    }

    /** Whether the pair's device speaks iWARP ({@link VerbsDevice#iwarp()}: siw, the software fabric like siw). */
    static boolean iwarp(FabricHarness.Pair p) {
        return p.client.id.device().iwarp();
    }

    /**
     * iWARP's answer to a responder-side error (a Send without a posted receive, a receive too short, a bad STag):
     * RDMAP has no delivery acknowledgement (RFC 5040 §5), so the requester's Send or Write already completed; the
     * responder sends a TERMINATE (RFC 5040 §7.4, DDP errors RFC 5041 §7.2) and closes the stream: both sides get
     * DISCONNECTED and both queue pairs are in error.
     */
    static void assertTerminated(FabricHarness.Pair p) throws Exception {
        p.client.awaitEvent(CmEventType.DISCONNECTED);
        p.server.awaitEvent(CmEventType.DISCONNECTED);
        assertNotInRts(p.client.qp);
        assertNotInRts(p.server.qp);
    }

    /**
     * The queue pair is no longer usable: in error (IB, the software fabric), or, on siw, whatever its query says:
     * Linux 6.1's {@code siw_query_qp} never fills in {@code qp_state} (reports 0, RESET, in every state; later
     * kernels map it), so the DISCONNECTED events and the completions are what shows the state there.
     */
    static void assertNotInRts(QueuePair qp) throws IOException {
        int state = qp.state();
        assertTrue(state == QpState.ERR || state == QpState.RESET, "QP state " + state);
    }

    /**
     * A device without memory windows ({@link VerbsDevice#memoryWindowsSupported()} false: siw, {@code max_mw} 0) refuses
     * {@code ibv_alloc_mw} cleanly, naming it, with {@code EOPNOTSUPP} (rdma-core's ibv_alloc_mw where the provider
     * has none), and leaves nothing behind.
     */
    static void assertNoWindows(ProtectionDomain pd) {
        FabricException e = assertThrows(FabricException.class, pd::allocMemoryWindow);
        assertEquals(FabricException.EOPNOTSUPP, e.errno(), e.toString());
        assertTrue(e.getMessage().contains("ibv_alloc_mw"), e.getMessage());
    }

    /** Posts request number {@code i}. */
    interface PostOne {
        void post(int i) throws Exception;
    }

    @Test
    void sendLandsInPostedReceiveWithLengthAndPrivateDataIsPadded() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            if (iwarp(p)) {
                // MPA carries the private data with its length (RFC 5044 §7.1; RFC 6581 §5 puts its own IRD/ORD
                // in front, which siw strips): the peer sees exactly what was sent.
                assertArrayEquals(new byte[] {1, 2, 3}, p.requestPrivateData);
                assertArrayEquals(new byte[] {9, 8}, p.acceptPrivateData);
            } else {
                // The IB CM's REQ and REP have fixed private data fields (IBA 12.6.5, 12.6.8): zero padded.
                assertEquals(ConnectionParameters.MAX_CONNECT_PRIVATE_DATA, p.requestPrivateData.length);
                assertEquals(ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA, p.acceptPrivateData.length);
                assertEquals(3, p.requestPrivateData[2]);
                assertEquals(0, p.requestPrivateData[3]);
                assertEquals(8, p.acceptPrivateData[1]);
            }

            p.server.qp.postReceive(77, p.server.address() + 1000, 4096, p.server.mr.lkey());
            fill(p.client, 0, 300, 5);
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 100, p.client.mr.lkey())
                    .addSge(p.client.address() + 100, 200, p.client.mr.lkey()));
            long[] s = p.client.awaitCompletions(1).get(0);
            assertStatus(WcStatus.SUCCESS, s);
            assertEquals(WcOpcode.SEND, s[2]);
            long[] r = p.server.awaitCompletions(1).get(0);
            assertStatus(WcStatus.SUCCESS, r);
            assertEquals(77, r[0]);
            assertEquals(WcOpcode.RECV, r[2]);
            assertEquals(300, r[3]);
            assertFilled(p.server, 1000, 300, 5);

            // Inline: the source may change right after posting; the receiver sees the bytes as posted.
            p.server.qp.postReceive(78, p.server.address(), 4096, p.server.mr.lkey());
            fill(p.client, 0, 64, 40);
            p.client.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).addSge(p.client.address(), 64, 0));
            fill(p.client, 0, 64, 99);
            assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
            assertEquals(64, p.server.awaitCompletions(1).get(0)[3]);
            assertFilled(p.server, 0, 64, 40);
            int maxInline = p.client.qp.capabilities().maxInlineData;
            assertTrue(maxInline >= 64, "granted at least the requested inline size: " + maxInline);
            // Beyond the granted size a post may be refused; IB devices and the software fabric refuse it. siw checks
            // its own limit (SIW_MAX_INLINE, 80 B), not the size granted, so beyond that.
            int beyond = iwarp(p) ? 4096 : maxInline + 1;
            assertThrows(FabricException.class, () -> p.client.qp.postSend(wr.clear().opcode(WrOpcode.SEND)
                    .sendFlags(SendFlags.INLINE).addSge(p.client.address(), beyond, 0)), "inline beyond max");
        }
    }

    @Test
    void rdmaWriteAndReadMoveBytesWithinRkeyBounds() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            fill(p.client, 0, 5000, 1);
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 5000, p.client.mr.lkey())
                    .remote(p.server.address() + 60000, p.server.mr.rkey()));
            assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
            assertFilled(p.server, 60000, 5000, 1);
            p.server.assertNoCompletion(20); // RDMA Write consumes no receive and makes no responder completion

            fill(p.server, 10, 777, 33);
            p.client.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address() + 20000, 777, p.client.mr.lkey())
                    .remote(p.server.address() + 10, p.server.mr.rkey()));
            long[] c = p.client.awaitCompletions(1).get(0);
            assertStatus(WcStatus.SUCCESS, c);
            assertEquals(WcOpcode.RDMA_READ, c[2]);
            assertEquals(777, c[3]);
            assertFilled(p.client, 20000, 777, 33);
        }
    }

    @Test
    void accessViolationsFailWithRemoteAccessErrorAndFlushBothSides() throws Exception {
        // The server region allows remote READ only.
        try (FabricHarness.Pair p = pair(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, ALL,
                INFINITE_RNR)) {
            p.server.qp.postReceive(5, p.server.address(), 1024, p.server.mr.lkey());
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.RDMA_WRITE)
                    .addSge(p.client.address(), 8, p.client.mr.lkey())
                    .remote(p.server.address(), p.server.mr.rkey()));
            p.client.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.SEND)
                    .addSge(p.client.address(), 8, p.client.mr.lkey()));
            if (iwarp(p)) {
                // iWARP: the unsignalled Write completed once sent (no completion); the responder's TERMINATE (bad
                // STag access rights, RFC 5040 §7.4) ends the connection; the Send behind it was either sent (no
                // completion, unsignalled) or flushed, but never delivered.
                long[] r = p.server.awaitCompletions(1).get(0);
                assertEquals(5, r[0]);
                assertStatus(WcStatus.WR_FLUSH_ERR, r);
                assertTerminated(p);
                int n = p.client.cq.poll(p.client.wc);
                for (int i = 0; i < n; i++) {
                    assertEquals(2, p.client.wc.wrId(i), "only the Send can complete, flushed");
                    assertEquals(WcStatus.name(WcStatus.WR_FLUSH_ERR), WcStatus.name(p.client.wc.status(i)));
                }
            } else {
                List<long[]> c = p.client.awaitCompletions(2);
                assertEquals(1, c.get(0)[0]);
                assertStatus(WcStatus.REM_ACCESS_ERR, c.get(0));
                assertEquals(2, c.get(1)[0]);
                assertStatus(WcStatus.WR_FLUSH_ERR, c.get(1)); // flushed although unsignaled
                long[] r = p.server.awaitCompletions(1).get(0);
                assertEquals(5, r[0]);
                assertStatus(WcStatus.WR_FLUSH_ERR, r);
                assertEquals(QpState.ERR, p.client.qp.state());
                assertEquals(QpState.ERR, p.server.qp.state());
            }
        }
        // Out of bounds read, and a wrong key.
        for (int variant = 0; variant < 2; variant++) {
            try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
                long remote = variant == 0 ? p.server.address() + 65536 - 10 : p.server.address();
                int rkey = variant == 0 ? p.server.mr.rkey() : p.server.mr.rkey() + 1;
                p.client.qp.postSend(wr.clear().wrId(9).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                        .addSge(p.client.address(), 11, p.client.mr.lkey()).remote(remote, rkey));
                assertRemoteAccessError(p, p.client.awaitCompletions(1).get(0));
            }
        }
    }

    /**
     * An RDMA Read the responder refuses (bad STag, out of bounds): IB NAKs it, Remote Access Error (IBA 9.7.5.2.4).
     * iWARP answers the Read Request with a TERMINATE (RFC 5040 §7.4) and ends the connection: the software fabric
     * like siw reports the Read as REM_ACCESS_ERR, siw itself flushes it (its TERMINATE handling only logs, and
     * the stream's close flushes the outstanding Read, siw_sq_flush), and both sides get DISCONNECTED.
     */
    static void assertRemoteAccessError(FabricHarness.Pair p, long[] wc) throws Exception {
        if (iwarp(p)) {
            assertStatusIn(wc, WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR);
            assertTerminated(p);
        } else {
            assertStatus(WcStatus.REM_ACCESS_ERR, wc);
        }
    }

    @Test
    void localKeyViolationsFailWithLocalProtectionError() throws Exception {
        // READ into a region without LOCAL_WRITE.
        try (FabricHarness.Pair p = pair(ALL, AccessFlags.REMOTE_READ, INFINITE_RNR)) {
            p.client.qp.postSend(wr.clear().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 16, p.client.mr.lkey())
                    .remote(p.server.address(), p.server.mr.rkey()));
            assertStatus(WcStatus.LOC_PROT_ERR, p.client.awaitCompletions(1).get(0));
        }
        // An lkey of another protection domain.
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            p.server.qp.postReceive(1, p.server.address(), 64, p.server.mr.lkey());
            p.client.qp.postSend(wr.clear().wrId(4).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 16, p.server.mr.lkey()));
            // An invalid L_Key is a local protection error in the IB spec and the software fabric; rxe (6.1) fails
            // the gather with EINVAL, which it reports as LOC_QP_OP_ERR.
            assertStatusIn(p.client.awaitCompletions(1).get(0), WcStatus.LOC_PROT_ERR, WcStatus.LOC_QP_OP_ERR);
        }
    }

    /**
     * A shared receive queue: two queue pairs of one PD share it; each Send consumes the next posted receive,
     * whichever pair it arrives on, and its completion names that pair ({@code qp_num}); posting to such a pair's own
     * receive queue fails; a pair going to error leaves the shared receives posted for the others; with none left a
     * Send meets RNR; the queue cannot be destroyed while pairs use it.
     */
    @Test
    void sharedReceiveQueueFeedsWhicheverQueuePairASendArrivesOnAndRnrWhenEmpty() throws Exception {
        List<AutoCloseable> toClose = new ArrayList<>();
        CmEventChannel events = fabric().createEventChannel();
        FabricHarness c1 = new FabricHarness(fabric());
        FabricHarness c2 = new FabricHarness(fabric());
        ByteBuf memory = Unpooled.directBuffer(4096, 4096).writeZero(4096);
        try {
            toClose.add(events);
            CmId listen = events.createId("listener");
            toClose.add(listen);
            listen.bind(new InetSocketAddress(address(), 0));
            listen.listen(8);
            QueuePair[] qps = new QueuePair[2];
            CmId[] ids = new CmId[2];
            ProtectionDomain pd = null;
            CompletionQueue cq = null;
            SharedReceiveQueue srq = null;
            FabricHarness[] clients = {c1, c2};
            for (int i = 0; i < 2; i++) {
                CmId cid = clients[i].resolve(listen.localAddress(), ALL);
                cid.connect(new ConnectionParameters(new byte[0], 1, 1, 7, 0)); // RNR: no retry
                CmEvent req = awaitEvent(events, CmEventType.CONNECT_REQUEST);
                if (pd == null) {
                    pd = req.id().device().allocProtectionDomain();
                    toClose.add(pd);
                    cq = req.id().device().createCompletionQueue(64, null);
                    toClose.add(cq);
                    srq = pd.createSharedReceiveQueue(8);
                    toClose.add(srq);
                    assertTrue(srq.capacity() >= 8, "granted at least the asked depth: " + srq.capacity());
                }
                ids[i] = req.id();
                toClose.add(ids[i]);
                qps[i] = ids[i].createQueuePair(pd, cq, cq, srq, new QpCapabilities(16, 16, 1, 1, 0));
                toClose.add(qps[i]);
                ids[i].accept(new ConnectionParameters(new byte[0], 1, 1, 7, 0));
                clients[i].awaitEvent(CmEventType.ESTABLISHED);
                awaitEvent(events, CmEventType.ESTABLISHED);
            }
            MemoryRegion mr = pd.registerMemory(memory.memoryAddress(), memory.capacity(), AccessFlags.LOCAL_WRITE);
            // Closed last first: MR, each QP before its id, the SRQ (after its QPs), CQ, PD, listener, channel.
            toClose.add(mr);
            SharedReceiveQueue shared = srq;
            QueuePair qp0 = qps[0];
            assertThrows(IOException.class, () -> qp0.postReceive(9, memory.memoryAddress(), 64, mr.lkey()),
                    "a queue pair with a shared receive queue has no receive queue of its own");
            srq.postReceives(new long[] {100, 101}, new long[] {memory.memoryAddress(),
                memory.memoryAddress() + 1024}, 2, 1024, mr.lkey());

            // The second client's Send takes the first posted receive, on the second pair.
            fill(c2, 0, 5, 20);
            c2.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(c2.address(), 5, c2.mr.lkey()));
            assertStatus(WcStatus.SUCCESS, c2.awaitCompletions(1).get(0));
            long[] r = awaitCompletion(cq);
            assertEquals(100, r[0]);
            assertStatus(WcStatus.SUCCESS, r);
            assertEquals(5, r[3]);
            assertEquals(qps[1].qpNum(), (int) r[6], "the completion names the receiving queue pair");
            for (int i = 0; i < 5; i++) {
                assertEquals((byte) (20 + i), memory.getByte(i));
            }

            // The second pair goes to error: the shared receive it did not consume stays for the first.
            qps[1].modifyToError();
            fill(c1, 0, 7, 50);
            c1.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(c1.address(), 7, c1.mr.lkey()));
            assertStatus(WcStatus.SUCCESS, c1.awaitCompletions(1).get(0));
            r = awaitCompletion(cq);
            assertEquals(101, r[0], "not flushed by the other pair's error: " + WcStatus.name((int) r[1]));
            assertStatus(WcStatus.SUCCESS, r);
            assertEquals(qps[0].qpNum(), (int) r[6]);

            // Empty: the next Send meets RNR (no retry asked); iWARP has no RNR (a Send without a receive is a fatal
            // DDP error, RFC 5041 §7.2): the Send completes once sent and the responder's TERMINATE ends the
            // connection (RFC 5040 §7.4), the client's queue pair in error.
            c1.qp.postSend(wr.clear().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(c1.address(), 7, c1.mr.lkey()));
            if (c1.id.device().iwarp()) {
                assertStatus(WcStatus.SUCCESS, c1.awaitCompletions(1).get(0));
                c1.awaitEvent(CmEventType.DISCONNECTED);
                assertNotInRts(c1.qp);
                assertNotInRts(qps[0]);
            } else {
                assertStatus(WcStatus.RNR_RETRY_EXC_ERR, c1.awaitCompletions(1).get(0));
            }

            assertThrows(IOException.class, shared::close, "destroying an SRQ that queue pairs use");
        } finally {
            Collections.reverse(toClose);
            try {
                FabricHarness.closeAll(toClose);
            } finally {
                FabricHarness.closeAll(List.of(c1, c2, memory::release));
            }
        }
    }

    /** The next CM event of {@code events} (not TIMEWAIT_EXIT), which must be of {@code type}. */
    private static CmEvent awaitEvent(CmEventChannel events, int type) throws Exception {
        long deadline = System.nanoTime() + FabricHarness.TIMEOUT_NANOS;
        while (System.nanoTime() < deadline) {
            CmEvent e = events.poll();
            if (e != null && e.type() != CmEventType.TIMEWAIT_EXIT) {
                assertEquals(CmEventType.name(type), CmEventType.name(e.type()), "unexpected " + e);
                return e;
            }
            Thread.sleep(1);
        }
        return fail("no " + CmEventType.name(type) + " within " + FabricHarness.TIMEOUT_NANOS / 1_000_000_000L
                + " s");
    }

    /** One completion of {@code cq}: {wrId, status, opcode, byteLen, flags, invRkey, qpNum}. */
    private static long[] awaitCompletion(CompletionQueue cq) throws Exception {
        CompletionArray wc = cq.newCompletionArray(1);
        long deadline = System.nanoTime() + FabricHarness.TIMEOUT_NANOS;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                fail("no completion within " + FabricHarness.TIMEOUT_NANOS / 1_000_000_000L + " s");
            }
            Thread.sleep(1);
        }
        return new long[] {wc.wrId(0), wc.status(0), wc.opcode(0), wc.byteLength(0), wc.flags(0),
            wc.invalidatedRkey(0), wc.qpNum(0)};
    }

    @Test
    void sendWithoutPostedReceiveIsRetriedThenFailsWithRnrRetryExceeded() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, 2)) {
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey()));
            if (iwarp(p)) {
                // No RNR on iWARP: a Send without a posted receive is a fatal DDP error ("no buffer available",
                // RFC 5041 §7.2); the Send completed once sent (RFC 5040 §5), the TERMINATE ends the connection.
                assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
                assertTerminated(p);
                assertEquals(List.of(), p.server.awaitCompletionsWithin(20), "nothing was delivered");
                return;
            }
            assertStatus(WcStatus.RNR_RETRY_EXC_ERR, p.client.awaitCompletions(1).get(0));
            assertEquals(QpState.ERR, p.client.qp.state());
        }
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            fill(p.client, 0, 8, 7);
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey()));
            p.client.assertNoCompletion(30); // waiting on RNR NAKs
            p.server.qp.postReceive(1, p.server.address(), 64, p.server.mr.lkey());
            assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
            assertEquals(8, p.server.awaitCompletions(1).get(0)[3]);
            assertFilled(p.server, 0, 8, 7);
        }
    }

    @Test
    void sendLongerThanReceiveBufferIsALengthError() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            p.server.qp.postReceive(1, p.server.address(), 100, p.server.mr.lkey());
            p.server.qp.postReceive(2, p.server.address() + 100, 100, p.server.mr.lkey());
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 101, p.client.mr.lkey()));
            if (iwarp(p)) {
                // iWARP: the Send completed once sent (RFC 5040 §5); the responder's receive fails (a DDP message
                // longer than the buffer, RFC 5041 §7.2: the software fabric says LOC_LEN_ERR, siw its generic error)
                // and its TERMINATE ends the connection; the second receive is flushed.
                assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
                List<long[]> r = p.server.awaitCompletions(2);
                assertEquals(1, r.get(0)[0]);
                assertStatusIn(r.get(0), WcStatus.LOC_LEN_ERR, WcStatus.GENERAL_ERR);
                assertStatus(WcStatus.WR_FLUSH_ERR, r.get(1));
                assertTerminated(p);
                return;
            }
            // The IB spec's NAK is Invalid Request (REM_INV_REQ_ERR, the software fabric); rxe NAKs with Remote
            // Operational Error (REM_OP_ERR).
            assertStatusIn(p.client.awaitCompletions(1).get(0), WcStatus.REM_INV_REQ_ERR, WcStatus.REM_OP_ERR);
            // The responder's receive: LOC_LEN_ERR (the IB spec, the software fabric); rxe (6.1) reports the
            // overflowing copy as a malformed WQE, LOC_QP_OP_ERR (and NAKs with Remote Operational Error).
            List<long[]> r = p.server.awaitCompletions(2);
            assertStatusIn(r.get(0), WcStatus.LOC_LEN_ERR, WcStatus.LOC_QP_OP_ERR);
            assertStatus(WcStatus.WR_FLUSH_ERR, r.get(1));
        }
    }

    @Test
    void aDestroyedQueuePairRefusesPostsWithAnIOException() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            p.client.id.disconnect();
            p.client.qp.close();
            p.client.qp.close(); // a second close is a no-op
            SendWorkRequest send = new SendWorkRequest();
            send.wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey());
            assertThrows(IOException.class, () -> p.client.qp.postSend(send));
            assertThrows(IOException.class, () -> p.client.qp.postSend(new SendWorkRequest[] {send}, 1));
            assertThrows(IOException.class,
                    () -> p.client.qp.postReceive(2, p.client.address(), 64, p.client.mr.lkey()));
            assertThrows(IOException.class, () -> p.client.qp.postReceives(new long[] {3},
                    new long[] {p.client.address()}, 1, 64, p.client.mr.lkey()));
        }
    }

    @Test
    void modifyToErrorFlushesEverythingOutstandingAndLaterPosts() throws Exception {
        // Transport retry count 2: rxe takes 7 as "retry forever" (as for RNR retries; in the IB spec it is 7
        // retries), so a Send towards a dead peer would never complete there.
        try (FabricHarness.Pair p = new FabricHarness.Pair(fabric(), address(), ALL, ALL, 2, INFINITE_RNR)) {
            for (int i = 0; i < 5; i++) {
                p.server.qp.postReceive(100 + i, p.server.address() + i * 64, 64, p.server.mr.lkey());
            }
            p.server.qp.modifyToError();
            List<long[]> r = p.server.awaitCompletions(5);
            for (int i = 0; i < 5; i++) {
                assertEquals(100 + i, r.get(i)[0]);
                assertStatus(WcStatus.WR_FLUSH_ERR, r.get(i));
            }
            if (iwarp(p)) {
                // iWARP: moving a connected QP to error aborts its stream (siw_qp_nextstate_from_rts, drop_conn):
                // both sides get DISCONNECTED and the peer's QP is in error too. Work posted to a QP in error is never
                // completed there (VerbsDevice.flushesWorkPostedInError: siw flushes at the state change only).
                assertFalse(p.server.id.device().flushesWorkPostedInError());
                assertTerminated(p);
                p.server.qp.postReceive(200, p.server.address(), 64, p.server.mr.lkey());
                p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .addSge(p.client.address(), 8, p.client.mr.lkey()));
                assertEquals(List.of(), p.server.awaitCompletionsWithin(100), "a receive posted in error");
                assertEquals(List.of(), p.client.awaitCompletionsWithin(100), "a Send posted in error");
                return;
            }
            assertTrue(p.server.id.device().flushesWorkPostedInError());
            // A receive posted to a queue pair in error never completes successfully. The IB spec flushes it, and so
            // does the software fabric, at once; rxe (6.1) leaves it in the queue: its provider posts receives in
            // user space and the kernel only flushes when its responder runs, which nothing triggers any more.
            p.server.qp.postReceive(200, p.server.address(), 64, p.server.mr.lkey());
            // Sends towards a peer in error exhaust the transport retries.
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND)
                    .addSge(p.client.address(), 8, p.client.mr.lkey()));
            assertStatus(WcStatus.RETRY_EXC_ERR, p.client.awaitCompletions(1).get(0));
            int late = p.server.cq.poll(p.server.wc);
            for (int i = 0; i < late; i++) {
                assertEquals(200, p.server.wc.wrId(i));
                assertEquals(WcStatus.name(WcStatus.WR_FLUSH_ERR), WcStatus.name(p.server.wc.status(i)));
            }
        }
    }

    @Test
    void reusedQueueEntriesCarryOnlyTheirOwnRequest() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            // Five rounds through 16-entry send/receive queues and a 64-entry CQ: every entry is reused, alternating
            // inline and two-SGE requests of different lengths, so a stale field (inline bytes, SGE count, length,
            // wr_id) of an earlier request would show in the bytes or the completions.
            int seq = 0;
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 16; i++) {
                    p.server.qp.postReceive(1000 + seq + i, p.server.address() + i * 256, 256, p.server.mr.lkey());
                }
                for (int i = 0; i < 16; i++) {
                    int n = seq + i;
                    int length = 1 + (n * 37) % 64;
                    int src = 8192 + i * 256;
                    fill(p.client, src, length, n);
                    wr.clear().wrId(n).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED);
                    if (n % 2 == 0) {
                        wr.sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).addSge(p.client.address() + src, length, 0);
                    } else {
                        int first = length / 2;
                        wr.addSge(p.client.address() + src, first, p.client.mr.lkey())
                                .addSge(p.client.address() + src + first, length - first, p.client.mr.lkey());
                    }
                    p.client.qp.postSend(wr);
                }
                List<long[]> sends = p.client.awaitCompletions(16);
                List<long[]> recvs = p.server.awaitCompletions(16);
                for (int i = 0; i < 16; i++) {
                    int n = seq + i;
                    assertStatus(WcStatus.SUCCESS, sends.get(i));
                    assertEquals(n, sends.get(i)[0]);
                    assertStatus(WcStatus.SUCCESS, recvs.get(i));
                    assertEquals(1000 + n, recvs.get(i)[0]);
                    assertEquals(1 + (n * 37) % 64, recvs.get(i)[3], "byte_len of request " + n);
                    assertFilled(p.server, i * 256, 1 + (n * 37) % 64, n);
                }
                seq += 16;
            }
        }
    }

    @Test
    void receiveQueueIsBoundedByItsGrantedDepthAndModifyToErrorFlushesItInOrder() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            // Full after at least the granted depth (16 as asked: exactly that on the software fabric, 31 on rxe).
            int depth = p.server.qp.capabilities().maxRecvWr;
            assertTrue(depth >= 16, "granted at least the requested depth: " + depth);
            int posted = postUntilFull(depth,
                i -> p.server.qp.postReceive(i, p.server.address() + i * 64, 64, p.server.mr.lkey()));
            p.server.qp.modifyToError();
            List<long[]> flushed = p.server.awaitCompletions(posted);
            for (int i = 0; i < posted; i++) {
                assertEquals(i, flushed.get(i)[0]);
                assertStatus(WcStatus.WR_FLUSH_ERR, flushed.get(i));
            }
        }
    }

    @Test
    void aRejectedRequestStopsAChainAndIsNamed() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            p.server.qp.postReceive(1, p.server.address(), 256, p.server.mr.lkey());
            p.server.qp.postReceive(2, p.server.address() + 256, 256, p.server.mr.lkey());
            SendWorkRequest[] chain = {new SendWorkRequest(), new SendWorkRequest(), new SendWorkRequest()};
            chain[0].wrId(10).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey());
            chain[1].wrId(11).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
                    .addSge(p.client.address(), 4096, 0); // beyond max_inline_data
            chain[2].wrId(12).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey());
            PostException e = assertThrows(PostException.class, () -> p.client.qp.postSend(chain, 3));
            assertEquals(1, e.posted());
            assertEquals(10, p.client.awaitCompletions(1).get(0)[0]);
            assertEquals(1, p.server.awaitCompletions(1).get(0)[0]);
            p.client.assertNoCompletion(10);
        }
    }

    @Test
    void theSendChainPostsInOrderStopsAtARejectedRequestAndIsReusable() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            for (int i = 0; i < 3; i++) {
                p.server.qp.postReceive(1 + i, p.server.address() + i * 256, 256, p.server.mr.lkey());
            }
            fill(p.client, 0, 64, 7);
            SendChain chain = p.client.qp.sendChain();
            chain.begin(10, SendFlags.SIGNALED); // an RDMA Write of 16 bytes to the server's offset 1024
            chain.opcode(WrOpcode.RDMA_WRITE);
            chain.addSge(p.client.address(), 16, p.client.mr.lkey());
            chain.remote(p.server.address() + 1024, p.server.mr.rkey());
            chain.begin(11, 0); // begun as an RDMA Read, started over as a signalled Send of 8 bytes
            chain.opcode(WrOpcode.RDMA_READ);
            chain.addSge(p.client.address(), 32, p.client.mr.lkey());
            chain.restart(11, SendFlags.SIGNALED);
            chain.opcode(WrOpcode.SEND);
            chain.addSge(p.client.address() + 16, 8, p.client.mr.lkey());
            assertEquals(1, chain.numSge());
            chain.begin(12, SendFlags.SIGNALED | SendFlags.INLINE); // beyond max_inline_data: rejected
            chain.opcode(WrOpcode.SEND);
            chain.addSge(p.client.address(), 4096, 0);
            assertEquals(SendFlags.SIGNALED | SendFlags.INLINE, chain.sendFlags());
            assertEquals(3, chain.count());
            PostException e = assertThrows(PostException.class, chain::post);
            assertEquals(2, e.posted());
            assertEquals(0, chain.count());
            List<long[]> sends = p.client.awaitCompletions(2);
            assertEquals(10, sends.get(0)[0]);
            assertEquals(11, sends.get(1)[0]);
            assertStatus(WcStatus.SUCCESS, sends.get(1));
            long[] recv = p.server.awaitCompletions(1).get(0);
            assertEquals(1, recv[0]);
            assertEquals(8, recv[3]);
            assertFilled(p.server, 0, 8, 7 + 16);
            assertFilled(p.server, 1024, 16, 7);
            p.client.assertNoCompletion(10);
            chain.begin(13, SendFlags.SIGNALED); // the emptied chain takes the next requests
            chain.opcode(WrOpcode.SEND);
            chain.addSge(p.client.address() + 32, 4, p.client.mr.lkey());
            chain.post();
            long[] send = p.client.awaitCompletions(1).get(0);
            assertEquals(13, send[0]);
            assertStatus(WcStatus.SUCCESS, send);
            recv = p.server.awaitCompletions(1).get(0);
            assertEquals(2, recv[0]);
            assertEquals(4, recv[3]);
            assertFilled(p.server, 256, 4, 7 + 32);
        }
    }

    @Test
    void aChainOfReceivesIsPostedInOrderAndAFullQueueStopsIt() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            long[] ids = {1, 2, 3};
            long[] addresses = {p.server.address(), p.server.address() + 256, p.server.address() + 512};
            p.server.qp.postReceives(ids, addresses, 3, 256, p.server.mr.lkey());
            for (int i = 0; i < 3; i++) {
                p.client.qp.postSend(wr.clear().wrId(10 + i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                        .addSge(p.client.address(), 8 + i, p.client.mr.lkey()));
            }
            List<long[]> got = p.server.awaitCompletions(3);
            for (int i = 0; i < 3; i++) {
                assertEquals(1 + i, got.get(i)[0], "receives complete in chain order");
                assertEquals(8 + i, got.get(i)[3]);
            }
            p.client.awaitCompletions(3);
            // A full receive queue, one receive consumed: a chain of 3 gets one in, and names how many.
            postUntilFull(p.server.qp.capabilities().maxRecvWr,
                i -> p.server.qp.postReceive(100 + i, p.server.address(), 64, p.server.mr.lkey()));
            p.client.qp.postSend(wr.clear().wrId(20).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey()));
            assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
            assertEquals(100, p.server.awaitCompletions(1).get(0)[0]);
            PostException full = assertThrows(PostException.class,
                    () -> p.server.qp.postReceives(ids, addresses, 3, 256, p.server.mr.lkey()));
            assertEquals(1, full.posted());
            assertEquals(FabricException.ENOMEM, ((FabricException) full.getCause()).errno());
        }
    }

    @Test
    void sendQueueDepthCountsUnsignaledRequestsUntilASignaledOneCompletes() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            if (iwarp(p)) {
                // iWARP has no RNR wait to hold Sends in the queue: the first Send without a receive would end the
                // connection (RFC 5041 §7.2), after which siw's flush freed the whole queue and more Sends fitted than
                // the receive queue could take (the ENOMEM of ibv_post_recv seen on siw0). So the receives come first
                // and the Sends complete as they go: the depth holds every request posted at once, and of a run of
                // unsignalled requests only the signalled one completes visibly.
                int depth = Math.min(p.client.qp.capabilities().maxSendWr, p.server.qp.capabilities().maxRecvWr);
                assertTrue(depth >= 16, "granted at least the requested depth: " + p.client.qp.capabilities());
                for (int i = 0; i < depth; i++) {
                    p.server.qp.postReceive(i, p.server.address() + i * 64, 64, p.server.mr.lkey());
                }
                SendWorkRequest[] run = new SendWorkRequest[depth];
                for (int i = 0; i < depth; i++) {
                    run[i] = new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND)
                            .sendFlags(i == depth - 1 ? SendFlags.SIGNALED : 0)
                            .addSge(p.client.address(), 8, p.client.mr.lkey());
                }
                for (int i = 0; i < depth; i += 8) {
                    SendWorkRequest[] chain = java.util.Arrays.copyOfRange(run, i, Math.min(depth, i + 8));
                    p.client.qp.postSend(chain, chain.length);
                }
                List<long[]> c = p.client.awaitCompletions(1);
                assertEquals(depth - 1, c.get(0)[0], "only the signalled request completes visibly");
                assertStatus(WcStatus.SUCCESS, c.get(0));
                assertEquals(depth, p.server.awaitCompletions(depth).size());
                assertEquals(List.of(), p.client.awaitCompletionsWithin(10));
                p.client.qp.postSend(wr.clear().wrId(depth).opcode(WrOpcode.RDMA_WRITE)
                        .sendFlags(SendFlags.SIGNALED).addSge(p.client.address(), 8, p.client.mr.lkey())
                        .remote(p.server.address(), p.server.mr.rkey()));
                assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
                return;
            }
            // No receive is posted yet: the Sends wait on RNR NAKs, so none can complete while the queue fills
            // (request depth-1 is signalled: the last one on the software fabric, whose queue holds exactly the depth;
            // rxe's holds 31 of 16 granted).
            int depth = p.client.qp.capabilities().maxSendWr;
            assertTrue(depth >= 16, "granted at least the requested depth: " + p.client.qp.capabilities());
            int posted = postUntilFull(depth, i -> p.client.qp.postSend(wr.clear().wrId(i).opcode(WrOpcode.SEND)
                    .sendFlags(i == depth - 1 ? SendFlags.SIGNALED : 0)
                    .addSge(p.client.address(), 8, p.client.mr.lkey())));
            for (int i = 0; i < posted; i++) {
                p.server.qp.postReceive(i, p.server.address() + i * 64, 64, p.server.mr.lkey());
            }
            List<long[]> c = p.client.awaitCompletions(1);
            assertEquals(depth - 1, c.get(0)[0], "only the signalled request completes visibly");
            p.client.assertNoCompletion(10);
            p.client.qp.postSend(wr.clear().wrId(posted).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey())
                    .remote(p.server.address(), p.server.mr.rkey()));
            assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
            assertEquals(posted, p.server.awaitCompletions(posted).size());
        }
    }

    @Test
    void memoryWindowIsUsableUntilSendWithInvalidateInvalidatesIt() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            if (!p.server.id.device().memoryWindowsSupported()) {
                assertNoWindows(p.server.pd);
                return;
            }
            MemoryWindow mw = p.server.pd.allocMemoryWindow();
            p.server.autoClose(mw);
            int rkey = mw.nextRkey();
            p.server.qp.postSend(wr.clear().wrId(50).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bind(mw, rkey, p.server.mr, p.server.address() + 4096, 4096,
                            AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ));
            long[] b = p.server.awaitCompletions(1).get(0);
            assertStatus(WcStatus.SUCCESS, b);
            assertEquals(WcOpcode.BIND_MW, b[2]);
            assertEquals(rkey, mw.rkey());
            assertTrue(rkey != p.server.mr.rkey());

            fill(p.client, 0, 4096, 3);
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 4096, p.client.mr.lkey()).remote(p.server.address() + 4096, rkey));
            assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
            assertFilled(p.server, 4096, 4096, 3);

            p.server.qp.postReceive(60, p.server.address() + 20000, 64, p.server.mr.lkey());
            p.client.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 4, p.client.mr.lkey()).invalidateRkey(rkey));
            assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
            long[] r = p.server.awaitCompletions(1).get(0);
            assertStatus(WcStatus.SUCCESS, r);
            assertEquals(WcFlags.WITH_INV, r[4] & WcFlags.WITH_INV);
            assertEquals(rkey, (int) r[5]);

            // The window is invalid now: the same write fails and breaks the connection.
            p.client.qp.postSend(wr.clear().wrId(3).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey()).remote(p.server.address() + 4096, rkey));
            assertStatus(WcStatus.REM_ACCESS_ERR, p.client.awaitCompletions(1).get(0));
        }
    }

    @Test
    void windowRequiresBindAccessAndIsReachableOnlyThroughItsQueuePair() throws Exception {
        try (FabricHarness.Pair p = pair(AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ, ALL,
                INFINITE_RNR)) {
            if (!p.server.id.device().memoryWindowsSupported()) {
                assertNoWindows(p.server.pd);
                return;
            }
            MemoryWindow mw = p.server.pd.allocMemoryWindow();
            p.server.autoClose(mw);
            p.server.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bind(mw, mw.nextRkey(), p.server.mr, p.server.address(), 64, AccessFlags.REMOTE_READ));
            assertStatus(WcStatus.MW_BIND_ERR, p.server.awaitCompletions(1).get(0));
        }
    }

    @Test
    void sendWithInvalidateOfARegionKeyBreaksTheConnection() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            p.server.qp.postReceive(1, p.server.address(), 64, p.server.mr.lkey());
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND_WITH_INV).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 4, p.client.mr.lkey()).invalidateRkey(p.server.mr.rkey()));
            if (iwarp(p)) {
                // iWARP: a Send with Invalidate may name any STag of the receiver's protection domain, a region's
                // included (RFC 5040 §6.3, §7.2: only a foreign PD or a window bound to another QP is an error), and
                // siw's user completions do not report it (VerbsDevice.remoteInvalidationSupported). The Send is
                // delivered; the region's key is dead afterwards.
                assertFalse(p.server.id.device().remoteInvalidationSupported());
                assertStatus(WcStatus.SUCCESS, p.client.awaitCompletions(1).get(0));
                long[] r = p.server.awaitCompletions(1).get(0);
                assertStatus(WcStatus.SUCCESS, r);
                assertEquals(4, r[3]);
                assertEquals(0, r[4] & WcFlags.WITH_INV, "not reported");
                p.client.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                        .addSge(p.client.address(), 8, p.client.mr.lkey())
                        .remote(p.server.address(), p.server.mr.rkey()));
                assertRemoteAccessError(p, p.client.awaitCompletions(1).get(0));
                return;
            }
            // The responder fails the receive and goes to error on both fabrics. The requester: the IB spec NAKs
            // (Invalid Request), as the software fabric does; rxe acknowledges the Send before it tries the
            // invalidation, so the requester's Send succeeds there and its queue pair stays in RTS.
            assertStatusIn(p.client.awaitCompletions(1).get(0), WcStatus.REM_INV_REQ_ERR, WcStatus.SUCCESS);
            assertStatus(WcStatus.REM_INV_REQ_ERR, p.server.awaitCompletions(1).get(0));
            assertEquals(QpState.ERR, p.server.qp.state());
        }
    }

    @Test
    void deregisteredRegionKeysStopWorkingAndBoundRegionsCannotBeDeregistered() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            MemoryRegion second = p.server.pd.registerMemory(p.server.address(), 1024, ALL);
            if (!p.server.id.device().memoryWindowsSupported()) {
                // No windows to bind: a region's key still dies with its deregistration.
                p.server.autoClose(second);
                assertNoWindows(p.server.pd);
                int rkey = second.rkey();
                second.close();
                p.client.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                        .addSge(p.client.address(), 8, p.client.mr.lkey()).remote(p.server.address(), rkey));
                assertRemoteAccessError(p, p.client.awaitCompletions(1).get(0));
                return;
            }
            MemoryWindow mw = p.server.pd.allocMemoryWindow();
            p.server.autoClose(mw);
            p.server.autoClose(second);
            p.server.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.BIND_MW).sendFlags(SendFlags.SIGNALED)
                    .bind(mw, mw.nextRkey(), second, p.server.address(), 64, AccessFlags.REMOTE_READ));
            assertStatus(WcStatus.SUCCESS, p.server.awaitCompletions(1).get(0));
            // IBA 10.6.7.2.6; rxe says EINVAL (the software fabric said EBUSY until it was held against rxe).
            assertEquals(FabricException.EINVAL, assertThrows(FabricException.class, second::close).errno());
            assertEquals(FabricException.EBUSY, assertThrows(FabricException.class, p.server.pd::close).errno());
            mw.close();
            int rkey = second.rkey();
            second.close();
            p.client.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey()).remote(p.server.address(), rkey));
            assertStatus(WcStatus.REM_ACCESS_ERR, p.client.awaitCompletions(1).get(0));
        }
    }

    @Test
    void completionChannelSignalsOnlyArmedQueues() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            p.client.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey())
                    .remote(p.server.address(), p.server.mr.rkey()));
            p.client.awaitCompletions(1);
            assertNull(p.client.compChannel.getEvent(), "not armed: no event");
            p.client.cq.requestNotify(false);
            p.client.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .addSge(p.client.address(), 8, p.client.mr.lkey())
                    .remote(p.server.address(), p.server.mr.rkey()));
            long deadline = System.nanoTime() + 5_000_000_000L;
            Object cq = null;
            while (cq == null && System.nanoTime() < deadline) {
                cq = p.client.compChannel.getEvent();
                Thread.sleep(1);
            }
            assertNotNull(cq);
            assertEquals(p.client.cq, cq);
            // Closing the CQ now would be misuse: libibverbs' ibv_destroy_cq waits for the ack forever (the software
            // fabric refuses it with EBUSY: SoftwareFabricTest).
            p.client.cq.ackEvents(1);
            p.client.awaitCompletions(1);
        }
    }

    @Test
    void privateDataIsBoundedAndRejectCarriesIt() throws Exception {
        try (FabricHarness server = new FabricHarness(fabric());
             FabricHarness client = new FabricHarness(fabric())) {
            CmId listen = server.events.createId(null);
            server.autoClose(listen);
            listen.bind(new InetSocketAddress(address(), 0));
            listen.listen(1);
            CmId cid = client.resolve(listen.localAddress(), ALL);
            FabricException tooLong = assertThrows(FabricException.class,
                    () -> cid.connect(new ConnectionParameters(new byte[57], 1, 1, 7, 7)));
            assertEquals(FabricException.EINVAL, tooLong.errno());
            byte[] rfc8797 = {(byte) 0xf6, (byte) 0xab, 0x17, (byte) 0xe9, 1, 0, 7, 7};
            cid.connect(new ConnectionParameters(rfc8797, 1, 1, 7, 7));
            CmEvent req = server.awaitEvent(CmEventType.CONNECT_REQUEST);
            assertArrayEquals(rfc8797, java.util.Arrays.copyOf(req.privateData(), 8));
            assertThrows(FabricException.class, () -> req.id().reject(new byte[149]));
            req.id().reject(new byte[] {42});
            CmEvent rej = client.awaitEvent(CmEventType.REJECTED);
            if (cid.device().iwarp()) {
                // An MPA reply with the Reject bit (RFC 5044 §7.1.1) and the private data as sent; siw reports it as a
                // connect reply with -ECONNRESET (siw_proc_mpareply), RDMA-CM as REJECTED with that status.
                assertEquals(-FabricException.ECONNRESET, rej.status());
                assertArrayEquals(new byte[] {42}, rej.privateData());
            } else {
                // IB CM REJ, reason 28 "consumer defined" (IBA 12.6.7), its private data field zero padded.
                assertEquals(CmEventType.REJECT_CONSUMER_DEFINED, rej.status());
                assertEquals(ConnectionParameters.MAX_REJECT_PRIVATE_DATA, rej.privateData().length);
                assertEquals(42, rej.privateData()[0]);
            }
            req.id().close();
        }
    }

    @Test
    void connectingWhereNobodyListensIsRejectedAndListenPortsAreExclusive() throws Exception {
        try (FabricHarness a = new FabricHarness(fabric()); FabricHarness b = new FabricHarness(fabric())) {
            CmId cid = a.resolve(new InetSocketAddress(address(), 1), ALL);
            if (cid.device().iwarp()) {
                // iWARP runs over TCP (RFC 5044 §7): the port answers with a RST. siw of Linux 6.1 connects TCP inside
                // rdma_connect (siw_connect), which fails with ECONNREFUSED; later kernels connect asynchronously and
                // report REJECTED with -ECONNREFUSED (cma_iw_handler).
                try {
                    cid.connect(new ConnectionParameters(null, 1, 1, 7, 7));
                    assertEquals(-FabricException.ECONNREFUSED, a.awaitEvent(CmEventType.REJECTED).status());
                } catch (FabricException e) {
                    assertEquals(FabricException.ECONNREFUSED, e.errno(), e.toString());
                }
            } else {
                // IB CM REJ reason 8, invalid service ID (IBA 12.6.7.2).
                cid.connect(new ConnectionParameters(null, 1, 1, 7, 7));
                assertEquals(CmEventType.REJECT_INVALID_SERVICE_ID, a.awaitEvent(CmEventType.REJECTED).status());
            }

            CmId l1 = b.events.createId(null);
            CmId l2 = b.events.createId(null);
            b.autoClose(l1);
            b.autoClose(l2);
            l1.bind(new InetSocketAddress(address(), 0));
            l1.listen(1);
            int port = l1.localAddress().getPort();
            // As the kernel's rdma_cm checks it at rdma_bind_addr (the software fabric checked only at rdma_listen,
            // and said EADDRINUSE for both, until it was held against rxe): the wildcard address on a bound port
            // is EADDRNOTAVAIL, the same address EADDRINUSE.
            assertEquals(FabricException.EADDRNOTAVAIL, assertThrows(FabricException.class,
                    () -> l2.bind(new InetSocketAddress("0.0.0.0", port))).errno());
            CmId l3 = b.events.createId(null);
            b.autoClose(l3);
            assertEquals(FabricException.EADDRINUSE, assertThrows(FabricException.class,
                    () -> l3.bind(new InetSocketAddress(address(), port))).errno());
        }
    }

    @Test
    void disconnectNotifiesBothSidesOnceAndFlushes() throws Exception {
        try (FabricHarness.Pair p = pair(ALL, ALL, INFINITE_RNR)) {
            p.server.qp.postReceive(1, p.server.address(), 64, p.server.mr.lkey());
            p.client.qp.postReceive(2, p.client.address(), 64, p.client.mr.lkey());
            // The side that disconnects first flushes at once; on IB/RoCE its DISCONNECTED comes when the peer
            // answers (its rdma_disconnect sends the DREP) or the DREQ times out, so wait for it after that.
            p.client.id.disconnect();
            assertStatus(WcStatus.WR_FLUSH_ERR, p.client.awaitCompletions(1).get(0));
            p.server.awaitEvent(CmEventType.DISCONNECTED);
            p.server.id.disconnect();
            p.client.awaitEvent(CmEventType.DISCONNECTED);
            assertStatus(WcStatus.WR_FLUSH_ERR, p.server.awaitCompletions(1).get(0));
            assertEquals(List.of(), p.server.eventsWithin(20), "one DISCONNECTED per side");
            assertEquals(List.of(), p.client.eventsWithin(20), "one DISCONNECTED per side");
            assertTrue(PlatformDependent.hasUnsafe());
        }
    }
}
