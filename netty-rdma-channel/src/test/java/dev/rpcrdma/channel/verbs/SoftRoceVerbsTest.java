package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.fabric.QpState;
import dev.rpcrdma.channel.fabric.WcFlags;
import dev.rpcrdma.channel.fabric.WcOpcode;
import dev.rpcrdma.channel.fabric.WcStatus;
import dev.rpcrdma.channel.fabric.WrOpcode;
import dev.rpcrdma.channel.unix.Libc;
import static dev.rpcrdma.channel.fabric.AccessFlags.REMOTE_READ;
import static dev.rpcrdma.channel.fabric.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.channel.verbs.Endpoint.Wc;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The bindings against a real device: Soft-RoCE {@code rxe0} at 192.0.2.1 in the test VM (tools/vm). Two RDMA-CM
 * ids in one JVM connect with private data each way; Send/Recv, RDMA WRITE, RDMA READ, a type-2 memory window
 * bound by work request and invalidated by the peer's Send With Invalidate, and invalid-rkey error completions,
 * all checked byte for byte, with completions reaped by polling and through the completion channel. Each
 * scenario runs twice in the same JVM to show that teardown leaves nothing behind. The device's semantics at the
 * fabric SPI (send chains and {@code bad_wr}, reject with private data, keys, flushing, ...) are the fabric contract
 * suite's ({@code dev.rpcrdma.channel.fabric.NativeFabricContractTest}); these tests keep to what the bindings show.
 */
@Tag("rdma-device")
class SoftRoceVerbsTest {
    static InetAddress address;
    static String device;

    @BeforeAll
    static void requireRdma() throws UnknownHostException {
        Rdma.ensureAvailability(); // in the VM this must hold; fail (not skip) otherwise
        address = InetAddress.getByName(System.getenv().getOrDefault("VM_RDMA_ADDR", "192.0.2.1"));
        device = System.getenv().getOrDefault("VM_RDMA_DEVICE", "rxe0");
    }

    @Test
    void deviceIsListedAndSupportsType2MemoryWindows() throws Exception {
        assertTrue(Rdma.isAvailable());
        assertTrue(Verbs.deviceNames().contains(device), "devices: " + Verbs.deviceNames());
        long context = Verbs.openDevice(device);
        try {
            DeviceAttributes attributes = Verbs.queryDevice(context);
            if (attributes.isIwarp()) {
                // iWARP (siw): no memory windows at all (max_mw 0, no MEM_WINDOW capability; RFC 5040 keeps windows
                // optional), one SGE per RDMA Read sink; the transport exposes memory through regions instead.
                assertEquals(0, attributes.maxMw(), attributes.toString());
                assertTrue(!attributes.supportsType2MemoryWindows(), attributes.toString());
                assertTrue(attributes.maxSgeRd() >= 1, attributes.toString());
            } else {
                assertTrue(attributes.supportsType2MemoryWindows(), attributes.toString());
            }
            assertTrue(attributes.maxQpRdAtom() > 0 && attributes.maxSge() >= 2, attributes.toString());
            assertEquals(1, attributes.physPortCnt());
        } finally {
            Verbs.closeDevice(context);
        }
        NativeCallException e = assertThrows(NativeCallException.class, () -> Verbs.openDevice("nosuchdev9"));
        assertEquals("ibv_open_device", e.call());
    }

    @Test
    void cmFailuresNameTheCallAndErrnoText() throws Exception {
        long channel = RdmaCm.createEventChannel();
        long id = RdmaCm.createId(channel, 0, RdmaCmConstants.RDMA_PS_TCP);
        try {
            // TEST-NET-3: no route, so no RDMA device can reach it.
            NativeCallException e = assertThrows(NativeCallException.class, () -> RdmaCm.resolveAddr(id, null,
                    new InetSocketAddress(InetAddress.getByName("203.0.113.7"), 20049), 1000));
            assertEquals("rdma_resolve_addr", e.call());
            assertEquals(101, e.errno(), e.getMessage());
            assertEquals("rdma_resolve_addr failed: Network is unreachable (errno 101)", e.getMessage());
            // TEST-NET-2 is not an address of this host.
            NativeCallException b = assertThrows(NativeCallException.class,
                    () -> RdmaCm.bindAddr(id, new InetSocketAddress(InetAddress.getByName("198.51.100.1"), 0)));
            assertEquals("rdma_bind_addr", b.call());
            assertTrue(b.getMessage().contains(Libc.strerror(b.errno())), b.getMessage());
        } finally {
            RdmaCm.destroyId(id);
            RdmaCm.destroyEventChannel(channel);
        }
    }

    @RepeatedTest(2)
    void sendRecvWriteReadAndRemoteInvalidationOfAMemoryWindow() throws Exception {
        Random random = new Random(42);
        try (Loopback c = Loopback.connect(address)) {
            Endpoint client = c.client;
            Endpoint server = c.server;
            // Linux 6.1's siw_query_qp never fills in qp_state (0, RESET, in every state; later kernels map it).
            int state = Verbs.queryQpState(client.qp);
            assertTrue(state == QpState.RTS || client.device.isIwarp() && state == 0, "QP state " + state);
            assertEquals(device, Verbs.deviceName(client.context));
            assertEquals(device, Verbs.deviceName(server.context));
            // A non-blocking completion channel reports "no event" instead of blocking.
            Verbs.setNonBlocking(Verbs.compChannelFd(client.compChannel));
            assertEquals(0, Verbs.getCqEvent(client.compChannel));
            long scratch = Verbs.allocateCqEventScratch();
            try {
                assertEquals(0, Verbs.getCqEvent(client.compChannel, scratch), "EAGAIN through the jffi path");
            } finally {
                Verbs.freeCqEventScratch(scratch);
            }

            // Send / Recv: receive reaped through the completion channel, send completion by polling.
            byte[] message = bytes(random, 64);
            server.postRecv(100, 4096, 256);
            client.write(0, message);
            client.postSend(1, WrOpcode.SEND, (w, i) -> w.addSge(i, client.addr(0), 64, client.lkey()));
            assertOk(client.pollOne(), 1, WcOpcode.SEND);
            Wc recv = server.awaitOneByChannel();
            assertOk(recv, 100, WcOpcode.RECV);
            assertTrue(!recv.withInvalidate(), "plain send: " + recv);
            assertEquals(64, recv.byteLen());
            assertEquals(Verbs.qpNum(server.qp), recv.qpNum());
            assertArrayEquals(message, server.read(4096, 64));

            // RDMA WRITE into the server's MR; requester completion through the channel.
            byte[] written = bytes(random, 4096);
            client.write(8192, written);
            client.postSend(2, WrOpcode.RDMA_WRITE, (w, i) -> w.addSge(i, client.addr(8192), 4096, client.lkey())
                    .rdma(i, server.addr(16384), server.rkey()));
            assertOk(client.awaitOneByChannel(), 2, WcOpcode.RDMA_WRITE);
            assertArrayEquals(written, server.read(16384, 4096));

            // RDMA READ from the server's MR, two SGEs on the client side.
            byte[] source = bytes(random, 4096);
            server.write(24576, source);
            byte[] read = new byte[4096];
            if (client.device.maxSgeRd() >= 2) {
                client.postSend(3, WrOpcode.RDMA_READ, (w, i) -> w.addSge(i, client.addr(32768), 1000, client.lkey())
                        .addSge(i, client.addr(36864), 3096, client.lkey())
                        .rdma(i, server.addr(24576), server.rkey()));
                assertOk(client.pollOne(), 3, WcOpcode.RDMA_READ);
                System.arraycopy(client.read(32768, 1000), 0, read, 0, 1000);
                System.arraycopy(client.read(36864, 3096), 0, read, 1000, 3096);
            } else {
                // max_sge_rd 1 (iWARP: a Read Response lands in one tagged buffer, RFC 5040 §4.4; siw ignores any
                // further sink SGE): one SGE.
                client.postSend(3, WrOpcode.RDMA_READ, (w, i) -> w.addSge(i, client.addr(32768), 4096, client.lkey())
                        .rdma(i, server.addr(24576), server.rkey()));
                assertOk(client.pollOne(), 3, WcOpcode.RDMA_READ);
                System.arraycopy(client.read(32768, 4096), 0, read, 0, 4096);
            }
            assertArrayEquals(source, read);

            if (!server.device.supportsType2MemoryWindows()) {
                // No windows (siw): ibv_alloc_mw is refused cleanly, naming itself (rdma-core: EOPNOTSUPP).
                NativeCallException refused = assertThrows(NativeCallException.class, server::allocMw);
                assertEquals("ibv_alloc_mw", refused.call());
                assertEquals(95, refused.errno(), refused.getMessage());
                c.disconnect();
                return;
            }

            // Type-2 memory window over [40960, 45056) of the server's MR, bound by a work request.
            long mw = server.allocMw();
            int windowRkey = Verbs.incRkey(Verbs.mwRkey(mw));
            server.postSend(4, WrOpcode.BIND_MW, (w, i) -> w.bindMw(i, mw, windowRkey, server.mr, server.addr(40960),
                    4096, REMOTE_READ | REMOTE_WRITE));
            assertOk(server.pollOne(), 4, WcOpcode.BIND_MW);
            assertNotEquals(server.rkey(), windowRkey);
            byte[] throughWindow = bytes(random, 4096);
            client.write(8192, throughWindow);
            client.postSend(5, WrOpcode.RDMA_WRITE, (w, i) -> w.addSge(i, client.addr(8192), 4096, client.lkey())
                    .rdma(i, server.addr(40960), windowRkey));
            assertOk(client.pollOne(), 5, WcOpcode.RDMA_WRITE);
            assertArrayEquals(throughWindow, server.read(40960, 4096));

            // Send With Invalidate: the peer invalidates the window's rkey; the receive completion says so.
            byte[] reply = bytes(random, 32);
            client.write(512, reply);
            server.postRecv(101, 4096 + 256, 256);
            client.postSend(6, WrOpcode.SEND_WITH_INV, (w, i) -> w.addSge(i, client.addr(512), 32, client.lkey())
                    .invalidateRkey(i, windowRkey));
            assertOk(client.pollOne(), 6, WcOpcode.SEND);
            Wc invalidated = server.awaitOneByChannel();
            assertOk(invalidated, 101, WcOpcode.RECV);
            assertTrue(invalidated.withInvalidate(), "with invalidate: " + invalidated);
            // rxe sets the kernel's IB_WC_WITH_INVALIDATE (1 << 2), not verbs.h's IBV_WC_WITH_INV (1 << 3).
            int expectedFlag = server.device.isSoftRoce() ? Verbs.SOFT_ROCE_WC_WITH_INV : WcFlags.WITH_INV;
            assertEquals(expectedFlag, invalidated.wcFlags() & (WcFlags.WITH_INV | Verbs.SOFT_ROCE_WC_WITH_INV),
                    invalidated.toString());
            assertEquals(windowRkey, invalidated.invalidatedRkey(), invalidated.toString());
            assertEquals(32, invalidated.byteLen());
            assertArrayEquals(reply, server.read(4096 + 256, 32));

            // The invalidated rkey no longer grants access: remote access error, QP in error, memory untouched.
            byte[] before = server.read(40960, 4096);
            client.write(8192, bytes(random, 4096));
            client.postSend(7, WrOpcode.RDMA_WRITE, (w, i) -> w.addSge(i, client.addr(8192), 4096, client.lkey())
                    .rdma(i, server.addr(40960), windowRkey));
            Wc denied = client.pollOne();
            assertEquals(7, denied.wrId());
            assertEquals(WcStatus.REM_ACCESS_ERR, denied.status(), denied.toString());
            assertEquals(QpState.ERR, Verbs.queryQpState(client.qp));
            assertArrayEquals(before, server.read(40960, 4096));

            c.disconnect();
        }
    }

    @RepeatedTest(2)
    void invalidRkeyGivesAnErrorCompletionAndFlushesTheQueuePair() throws Exception {
        try (Loopback c = Loopback.connect(address)) {
            Endpoint client = c.client;
            Endpoint server = c.server;
            int bogusRkey = server.rkey() + (0x7654 << 8); // no MR or MW with this index
            client.postSend(1, WrOpcode.RDMA_READ, (w, i) -> w.addSge(i, client.addr(0), 128, client.lkey())
                    .rdma(i, server.addr(0), bogusRkey));
            Wc error = client.awaitOneByChannel();
            assertEquals(1, error.wrId());
            if (client.device.isIwarp()) {
                // iWARP: the responder answers the bad STag with a TERMINATE (RFC 5040 §7.4) and closes the stream;
                // siw only logs a TERMINATE it receives, and the close flushes the outstanding Read (siw_sq_flush).
                // Work posted after that is never completed: siw flushes at the state change only.
                assertEquals(WcStatus.WR_FLUSH_ERR, error.status(), error.toString());
                client.postSend(2, WrOpcode.SEND, (w, i) -> w.addSge(i, client.addr(0), 8, client.lkey()));
                List<Wc> late = client.drain(200);
                assertTrue(late.isEmpty(), "work posted in error completed on iWARP: " + late);
                c.migrateServer();
                c.awaitDroppedConnection();
                return;
            }
            assertEquals(WcStatus.REM_ACCESS_ERR, error.status(), error.toString());
            assertEquals(QpState.ERR, Verbs.queryQpState(client.qp));
            // Everything posted to a QP in error is flushed (IBA 10.8.3.3).
            client.postSend(2, WrOpcode.SEND, (w, i) -> w.addSge(i, client.addr(0), 8, client.lkey()));
            Wc flushed = client.pollOne();
            assertEquals(2, flushed.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status(), flushed.toString());
            List<Wc> rest = client.drain(200);
            assertTrue(rest.isEmpty(), "unexpected completions: " + rest);
            // The server's id moves to its own event channel; its DISCONNECTED arrives there.
            c.migrateServer();
            c.disconnect();
        }
    }

    @Test
    void aChainOfReceivesIsOnePostAndCompletesInOrder() throws Exception {
        try (Loopback c = Loopback.connect(address)) {
            Endpoint client = c.client;
            Endpoint server = c.server;
            RecvWorkRequests chain = server.recvWrs;
            chain.clear();
            for (int i = 0; i < 3; i++) {
                chain.addSge(chain.add(1 + i), server.addr(256 * i), 256, server.lkey());
            }
            Verbs.postRecv(server.qp, chain);
            for (int i = 0; i < 3; i++) {
                int length = 8 + i;
                client.postSend(10 + i, WrOpcode.SEND, (w, k) -> w.addSge(k, client.addr(0), length, client.lkey()));
                assertOk(client.pollOne(), 10 + i, WcOpcode.SEND);
            }
            for (int i = 0; i < 3; i++) {
                Wc wc = server.pollOne();
                assertOk(wc, 1 + i, WcOpcode.RECV);
                assertEquals(8 + i, wc.byteLen(), wc.toString());
            }
            // A request with more SGEs than the queue pair's max_recv_sge ends a chain; bad_wr names it.
            try (RecvWorkRequests bad = new RecvWorkRequests(3, 64)) {
                bad.addSge(bad.add(4), server.addr(0), 256, server.lkey());
                int b = bad.add(5);
                for (int s = 0; s < 64; s++) {
                    bad.addSge(b, server.addr(0), 4, server.lkey());
                }
                bad.addSge(bad.add(6), server.addr(256), 256, server.lkey());
                assertThrows(NativeCallException.class, () -> Verbs.postRecv(server.qp, bad));
                assertEquals(1, bad.badIndex(), "bad_wr names the rejected request");
            }
            client.postSend(20, WrOpcode.SEND, (w, k) -> w.addSge(k, client.addr(0), 16, client.lkey()));
            assertOk(client.pollOne(), 20, WcOpcode.SEND);
            assertOk(server.pollOne(), 4, WcOpcode.RECV); // the request before the rejected one was posted
            c.disconnect();
        }
    }

    private static void assertOk(Wc wc, long wrId, int opcode) {
        assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
        assertEquals(wrId, wc.wrId(), wc.toString());
        assertEquals(opcode, wc.opcode(), wc.toString());
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
