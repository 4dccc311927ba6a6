package dev.rpcrdma.channel.fabric;

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

/**
 * Test helper over the fabric SPI only: one endpoint (event channel, id, PD, completion channel, CQ, QP, one
 * registered 64 KiB buffer) on any {@link Fabric}; {@link Pair} connects two of them. Waits are bounded by
 * {@link #TIMEOUT_NANOS} (20 s: rxe under TCG waits 655 ms per RNR NAK, and retries exceeded take seconds).
 */
@SuppressWarnings("try")
public final class FabricHarness implements AutoCloseable {
    static final long TIMEOUT_NANOS = 20_000_000_000L;
    public static final int BUFFER_SIZE = 65536;

    public final CmEventChannel events;
    public CmId id;
    public ProtectionDomain pd;
    public CompletionChannel compChannel;
    public CompletionQueue cq;
    public QueuePair qp;
    public final ByteBuf memory = Unpooled.directBuffer(BUFFER_SIZE, BUFFER_SIZE);
    public MemoryRegion mr;
    public CompletionArray wc;
    private final List<AutoCloseable> extra = new ArrayList<>();

    public FabricHarness(Fabric fabric) throws IOException {
        events = fabric.createEventChannel();
        memory.writeZero(BUFFER_SIZE);
    }

    public long address() {
        return memory.memoryAddress();
    }

    /** Creates PD, CQ, QP (16 WRs each way, 4 SGEs, 64 B inline) and registers the buffer with {@code access}. */
    public void setUp(CmId onId, int access) throws IOException {
        id = onId;
        pd = id.device().allocProtectionDomain();
        compChannel = id.device().createCompletionChannel();
        cq = id.device().createCompletionQueue(64, compChannel);
        wc = cq.newCompletionArray(16);
        qp = id.createQueuePair(pd, cq, cq, new QpCapabilities(16, 16, 4, 1, 64));
        mr = pd.registerMemory(address(), memory.capacity(), access);
    }

    /** Closed (first) by {@link #close()}. */
    public void autoClose(AutoCloseable c) {
        extra.add(c);
    }

    /** The next event, which must be of {@code type} (a TIMEWAIT_EXIT of the device's CM is skipped). */
    public CmEvent awaitEvent(int type) throws Exception {
        CmEvent e = awaitAnyEvent();
        assertEquals(CmEventType.name(type), CmEventType.name(e.type()), "unexpected " + e);
        return e;
    }

    public CmEvent awaitAnyEvent() throws Exception {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (System.nanoTime() < deadline) {
            CmEvent e = events.poll();
            if (e != null && e.type() != CmEventType.TIMEWAIT_EXIT) {
                return e;
            }
            if (e == null) {
                Thread.sleep(1);
            }
        }
        return fail("no CM event within " + TIMEOUT_NANOS / 1_000_000_000L + " s");
    }

    /** Events other than TIMEWAIT_EXIT that arrive within {@code millis}. */
    public List<CmEvent> eventsWithin(long millis) throws Exception {
        List<CmEvent> out = new ArrayList<>();
        long deadline = System.nanoTime() + millis * 1_000_000L;
        do {
            CmEvent e = events.poll();
            if (e != null && e.type() != CmEventType.TIMEWAIT_EXIT) {
                out.add(e);
            } else if (e == null) {
                Thread.sleep(1);
            }
        } while (System.nanoTime() < deadline);
        return out;
    }

    /** Polls until {@code n} completions arrived; returns them as {wrId, status, opcode, byteLen, flags, invRkey}. */
    public List<long[]> awaitCompletions(int n) throws Exception {
        List<long[]> out = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (out.size() < n) {
            int k = cq.poll(wc);
            for (int i = 0; i < k; i++) {
                out.add(new long[] {wc.wrId(i), wc.status(i), wc.opcode(i), wc.byteLength(i), wc.flags(i),
                    wc.invalidatedRkey(i)});
            }
            if (k == 0) {
                if (System.nanoTime() > deadline) {
                    fail("only " + out.size() + " of " + n + " completions within "
                            + TIMEOUT_NANOS / 1_000_000_000L + " s");
                }
                Thread.sleep(1);
            }
        }
        return out;
    }

    /** The completions ({wrId, status, ...} as {@link #awaitCompletions}) that arrive within {@code millis}. */
    public List<long[]> awaitCompletionsWithin(long millis) throws Exception {
        List<long[]> out = new ArrayList<>();
        long deadline = System.nanoTime() + millis * 1_000_000L;
        do {
            int k = cq.poll(wc);
            for (int i = 0; i < k; i++) {
                out.add(new long[] {wc.wrId(i), wc.status(i), wc.opcode(i), wc.byteLength(i), wc.flags(i),
                    wc.invalidatedRkey(i)});
            }
            if (k == 0) {
                Thread.sleep(1);
            }
        } while (System.nanoTime() < deadline);
        return out;
    }

    /** Asserts no completion arrives within {@code millis}. */
    public void assertNoCompletion(long millis) throws Exception {
        Thread.sleep(millis);
        int n = cq.poll(wc);
        assertEquals(0, n, n == 0 ? "" : "unexpected completion of wr " + wc.wrId(0) + ": "
                + WcStatus.name(wc.status(0)));
    }

    /**
     * Destroys everything in dependency order; every object is closed even when an earlier one fails (the first
     * failure is thrown, the rest suppressed), and the buffer is always released.
     */
    @Override
    public void close() throws Exception {
        List<AutoCloseable> all = new ArrayList<>(extra);
        all.add(qp);
        all.add(mr);
        all.add(cq);
        all.add(compChannel);
        all.add(pd);
        all.add(id);
        all.add(events);
        all.add(memory::release);
        closeAll(all);
    }

    static void closeAll(List<AutoCloseable> all) throws Exception {
        Exception first = null;
        for (AutoCloseable c : all) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Client side resolved (address and route) towards {@code to}, its verbs objects set up with {@code access}. */
    public CmId resolve(InetSocketAddress to, int access) throws Exception {
        CmId cid = events.createId("client");
        cid.resolveAddress(null, to, 2000);
        awaitEvent(CmEventType.ADDR_RESOLVED);
        cid.resolveRoute(2000);
        awaitEvent(CmEventType.ROUTE_RESOLVED);
        setUp(cid, access);
        return cid;
    }

    /** A connected client/server pair: the server listens on an ephemeral port of {@code address}. */
    @SuppressWarnings("try")
    public static final class Pair implements AutoCloseable {
        public final FabricHarness server;
        public final FabricHarness client;
        private final CmId listenId;
        public final byte[] requestPrivateData;
        public final byte[] acceptPrivateData;

        public Pair(Fabric fabric, InetAddress address, int serverAccess, int clientAccess, int rnrRetry)
                throws Exception {
            this(fabric, address, serverAccess, clientAccess, 7, rnrRetry);
        }

        /** With transport retry count {@code retry} and RNR retry count {@code rnrRetry} on both sides. */
        public Pair(Fabric fabric, InetAddress address, int serverAccess, int clientAccess, int retry, int rnrRetry)
                throws Exception {
            server = new FabricHarness(fabric);
            client = new FabricHarness(fabric);
            boolean ok = false;
            CmId listen = null;
            try {
                listen = server.events.createId("listener");
                listen.bind(new InetSocketAddress(address, 0));
                listen.listen(8);
                CmId cid = client.resolve(listen.localAddress(), clientAccess);
                cid.connect(new ConnectionParameters(new byte[] {1, 2, 3}, 1, 1, retry, rnrRetry));
                CmEvent req = server.awaitEvent(CmEventType.CONNECT_REQUEST);
                requestPrivateData = req.privateData();
                server.setUp(req.id(), serverAccess);
                req.id().accept(new ConnectionParameters(new byte[] {9, 8}, 1, 1, retry, rnrRetry));
                acceptPrivateData = client.awaitEvent(CmEventType.ESTABLISHED).privateData();
                server.awaitEvent(CmEventType.ESTABLISHED);
                assertNotNull(server.qp);
                ok = true;
            } finally {
                listenId = listen;
                if (!ok) {
                    close();
                }
            }
        }

        /**
         * Disconnects both sides (best effort: either may be in error or disconnected already), then destroys the
         * client, the listener and the server; the listener before the server's event channel it lives on.
         */
        @Override
        public void close() throws Exception {
            for (FabricHarness h : List.of(client, server)) {
                if (h.id != null && h.qp != null) {
                    try {
                        h.id.disconnect();
                    } catch (IOException ignored) {
                        // not connected (any more)
                    }
                }
            }
            List<AutoCloseable> all = new ArrayList<>();
            all.add(client);
            all.add(listenId);
            all.add(server);
            closeAll(all);
        }
    }
}
