package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.AccessFlags;
import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmEventType;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.ConnectionParameters;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.MemoryRegion;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.fabric.QueuePair;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

@SuppressWarnings("try")
/** Test helper: one endpoint (event channel, id, PD, CQ, QP, one registered 64 KiB buffer). */
final class FabricHarness implements AutoCloseable {
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    final CmEventChannel events;
    CmId id;
    ProtectionDomain pd;
    CompletionChannel compChannel;
    CompletionQueue cq;
    QueuePair qp;
    final ByteBuf memory = Unpooled.directBuffer(65536, 65536);
    MemoryRegion mr;
    CompletionArray wc;
    private final List<AutoCloseable> extra = new ArrayList<>();

    FabricHarness(Fabric fabric) throws IOException {
        events = fabric.createEventChannel();
        memory.writeZero(65536);
    }

    long address() {
        return memory.memoryAddress();
    }

    /** Creates PD, CQ, QP (16 WRs each way, 4 SGEs, 64 B inline) and registers the buffer with {@code access}. */
    void setUp(CmId onId, int access) throws IOException {
        id = onId;
        pd = id.device().allocProtectionDomain();
        compChannel = id.device().createCompletionChannel();
        cq = id.device().createCompletionQueue(64, compChannel);
        wc = cq.newCompletionArray(16);
        qp = id.createQueuePair(pd, cq, cq, new QpCapabilities(16, 16, 4, 1, 64));
        mr = pd.registerMemory(address(), memory.capacity(), access);
    }

    void autoClose(AutoCloseable c) {
        extra.add(c);
    }

    CmEvent awaitEvent(int type) throws Exception {
        CmEvent e = awaitAnyEvent();
        assertEquals(CmEventType.name(type), CmEventType.name(e.type()), "unexpected " + e);
        return e;
    }

    CmEvent awaitAnyEvent() throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            CmEvent e = events.poll();
            if (e != null) {
                return e;
            }
            Thread.sleep(1);
        }
        fail("no CM event within 5 s");
        return null;
    }

    /** Polls until {@code n} completions arrived; returns them as {wrId, status, opcode, byteLen, flags, invRkey}. */
    List<long[]> awaitCompletions(int n) throws Exception {
        List<long[]> out = new ArrayList<>();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (out.size() < n) {
            int k = cq.poll(wc);
            for (int i = 0; i < k; i++) {
                out.add(new long[] {wc.wrId(i), wc.status(i), wc.opcode(i), wc.byteLength(i), wc.flags(i),
                    wc.invalidatedRkey(i)});
            }
            if (k == 0) {
                if (System.nanoTime() > deadline) {
                    fail("only " + out.size() + " of " + n + " completions within 5 s");
                }
                Thread.sleep(1);
            }
        }
        return out;
    }

    /** Asserts no completion arrives within {@code millis}. */
    void assertNoCompletion(long millis) throws Exception {
        Thread.sleep(millis);
        assertEquals(0, cq.poll(wc), "unexpected completion");
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : extra) {
            c.close();
        }
        if (qp != null) {
            qp.close();
        }
        if (mr != null) {
            mr.close();
        }
        if (cq != null) {
            cq.close();
        }
        if (compChannel != null) {
            compChannel.close();
        }
        if (pd != null) {
            pd.close();
        }
        if (id != null) {
            id.close();
        }
        events.close();
        memory.release();
    }

    /** A connected client/server pair on a fresh isolated fabric. */
    @SuppressWarnings("try")
    static final class Pair implements AutoCloseable {
        final SoftwareFabric fabric = SoftwareFabric.newIsolated();
        final FabricHarness server;
        final FabricHarness client;
        private final CmId listenId;
        final byte[] requestPrivateData;
        final byte[] acceptPrivateData;

        Pair(int serverAccess, int clientAccess, int rnrRetry) throws Exception {
            server = new FabricHarness(fabric);
            client = new FabricHarness(fabric);
            listenId = server.events.createId("listener");
            listenId.bind(new InetSocketAddress(LOOPBACK, 20049));
            listenId.listen(8);
            CmId cid = client.events.createId("client");
            cid.resolveAddress(null, new InetSocketAddress(LOOPBACK, 20049), 1000);
            client.awaitEvent(CmEventType.ADDR_RESOLVED);
            cid.resolveRoute(1000);
            client.awaitEvent(CmEventType.ROUTE_RESOLVED);
            client.setUp(cid, clientAccess);
            cid.connect(new ConnectionParameters(new byte[] {1, 2, 3}, 1, 1, 7, rnrRetry));
            CmEvent req = server.awaitEvent(CmEventType.CONNECT_REQUEST);
            requestPrivateData = req.privateData();
            server.setUp(req.id(), serverAccess);
            req.id().accept(new ConnectionParameters(new byte[] {9, 8}, 1, 1, 7, rnrRetry));
            acceptPrivateData = client.awaitEvent(CmEventType.ESTABLISHED).privateData();
            server.awaitEvent(CmEventType.ESTABLISHED);
            assertNotNull(server.qp);
        }

        @Override
        public void close() throws Exception {
            client.close();
            server.close();
            listenId.close();
        }
    }
}
