package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaChannelOption;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.requester.RpcRdmaRequester;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.rpcrdma.handlers.e2e.EchoService.FILL;
import static dev.rpcrdma.handlers.e2e.EchoService.PROG;
import static dev.rpcrdma.handlers.e2e.EchoService.VERS;
import static dev.rpcrdma.handlers.e2e.EchoService.pattern;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The memory a call exposes, end to end: remote and local invalidation, windows bound again rather than allocated per
 * call, exhausted memory pools that make calls wait.
 */
abstract class RpcRdmaMemorySuite extends RpcRdmaFixture {
    RpcRdmaMemorySuite(TestFabric testFabric) {
        super(testFabric);
    }

    @Test
    void remoteInvalidationWhenBothPeersSetR() throws Exception {
        start();
        assertArrayEquals(pattern(50000, 50000), get(fill(FILL, 50000, hints(50000, 0))));
        if (!((RdmaChannel) client.channel()).remoteInvalidationSupported()) {
            // siw: the requester withdrew R, so the responder invalidates nothing remotely; the region is deregistered.
            assertTrue(!requester().thresholds().remoteInvalidation());
            assertEquals(0, serverStats.remoteInvalidations());
            assertEquals(0, clientStats.remoteInvalidations());
            assertEquals(1, clientStats.localInvalidations());
            return;
        }
        assertEquals(1, serverStats.remoteInvalidations());
        assertEquals(1, clientStats.remoteInvalidations());
        assertEquals(0, clientStats.localInvalidations());
    }

    @Test
    void localInvalidationWhenEitherPeerClearsR() throws Exception {
        start(RpcRdmaConfig.DEFAULT, RpcRdmaConfig.DEFAULT.withRemoteInvalidation(false));
        get(client.callNull(PROG, VERS));
        assertTrue(!requester().thresholds().remoteInvalidation());
        assertArrayEquals(pattern(50000, 50000), get(fill(FILL, 50000, hints(50000, 0))));
        assertEquals(0, serverStats.remoteInvalidations());
        assertEquals(0, clientStats.remoteInvalidations());
        assertEquals(1, clientStats.localInvalidations());
    }

    /**
     * Windows are bound again instead of allocated per RPC: after Send With Invalidate (the responder's), and after a
     * Local Invalidate where the device takes it. On Soft-RoCE (and the software fabric behaving like it), where
     * local invalidation deallocates, every exposure allocates a fresh window (also after remote invalidation, for
     * now: see CallExposure).
     */
    @Test
    void windowsAreBoundAgainRatherThanAllocatedPerRpc() throws Exception {
        start();
        boolean localInvalidate = ((RdmaChannel) client.channel()).localInvalidateSupported();
        if (!((RdmaChannel) client.channel()).memoryWindowsSupported()) {
            // No windows (siw): a region registered per exposed chunk, deregistered after each reply, none allocated.
            for (int i = 0; i < 10; i++) {
                assertArrayEquals(pattern(50000, 50000), get(fill(FILL, 50000, hints(50000, 0))));
                byte[] data = pattern(40000, i);
                assertArrayEquals(data, get(echo(data, hints(40000, 0))));
            }
            assertEquals(0, clientStats.windowAllocations());
            assertEquals(0, clientStats.remoteInvalidations());
            assertEquals(30, clientStats.localInvalidations(), "every exposed region deregistered");
            return;
        }
        for (int i = 0; i < 10; i++) {
            assertArrayEquals(pattern(50000, 50000), get(fill(FILL, 50000, hints(50000, 0))));
        }
        assertEquals(10, clientStats.remoteInvalidations());
        assertEquals(1, clientStats.windowAllocations(), "one window, invalidated remotely and bound again");
        for (int i = 0; i < 10; i++) {
            byte[] data = pattern(40000, i);
            assertArrayEquals(data, get(echo(data, hints(40000, 0)))); // two keys: no remote invalidation
        }
        assertEquals(20, clientStats.localInvalidations());
        assertEquals(localInvalidate ? 2 : 20, clientStats.windowAllocations(),
                localInvalidate ? "LOCAL_INV leaves both windows ready to bind again"
                        : "Soft-RoCE: each locally invalidated window was deallocated and a fresh one allocated");
    }

    /**
     * A connection whose registered memory pool cannot hold every call's chunks at once makes calls wait for memory
     * (RpcRdmaRequester back-pressure) instead of failing them: eight 100 KB ECHOs with a 1 MiB Reply chunk each
     * (2 MiB pieces) queued together against a 6 MiB pool all complete byte-exact, the pool never registers more
     * than its limit, and every chunk buffer goes back.
     */
    @Test
    void anExhaustedMemoryPoolMakesCallsWaitAndNoneFails() throws Exception {
        clientOptions = b -> b.option(RdmaChannelOption.MEMORY_POOL_SLAB_SIZE, 1 << 20)
                .option(RdmaChannelOption.MEMORY_POOL_MAX_BYTES, 6L << 20);
        start();
        List<CompletableFuture<byte[]>> futures = onClientLoop(() -> {
            List<CompletableFuture<byte[]>> l = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                l.add(echo(pattern(100000, i), hints(100000, 0)));
            }
            return l;
        });
        for (int i = 0; i < 8; i++) {
            assertArrayEquals(pattern(100000, i), get(futures.get(i)), "call " + i);
        }
        assertTrue(clientStats.memoryWaits() > 0, "calls waited for registered memory");
        dev.rpcrdma.channel.RdmaMemoryPool pool = ((RdmaChannel) client.channel()).memoryPool();
        assertTrue(pool.registeredBytes() <= 6L << 20, "registered " + pool.registeredBytes());
        dev.rpcrdma.testing.Await.until(() -> pool.usedBytes() == 0, "every chunk buffer went back to the pool");
    }

    /**
     * A responder whose registered memory pool holds two 128 KiB pieces (one call's Read-chunk sink and its reply)
     * serves sixteen 100 KB ECHOs sent together: pulls wait for memory instead of failing, a reply that finds the
     * pool taken by pulls registers its own region rather than waiting (so pulls holding all memory cannot block the
     * replies that would free it), and every call completes byte-exact.
     */
    @Test
    void aResponderWithAnExhaustedPoolServesCallsInTurnAndNoneFails() throws Exception {
        start(RpcRdmaConfig.DEFAULT, RpcRdmaConfig.DEFAULT, sb -> sb
                .childOption(RdmaChannelOption.MEMORY_POOL_SLAB_SIZE, 256 << 10)
                .childOption(RdmaChannelOption.MEMORY_POOL_MAX_BYTES, 256L << 10));
        List<CompletableFuture<byte[]>> futures = onClientLoop(() -> {
            List<CompletableFuture<byte[]>> l = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                l.add(echo(pattern(100000, i), hints(100000, 0)));
            }
            return l;
        });
        for (int i = 0; i < 16; i++) {
            assertArrayEquals(pattern(100000, i), get(futures.get(i)), "call " + i);
        }
        assertTrue(serverStats.memoryWaits() > 0, "the responder ran out of pool memory and waited");
        assertEquals(16, serverStats.readChunks());
    }

    @Test
    void twoKeysMeanNoRemoteInvalidation() throws Exception {
        start();
        // A call with a Read chunk (remote read key) and a Write chunk (remote write key).
        byte[] data = pattern(40000, 7);
        assertArrayEquals(data, get(echo(data, hints(40000, 0))));
        assertEquals(0, serverStats.remoteInvalidations());
        assertEquals(2, clientStats.localInvalidations());
    }
}
