package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcConnectionClosedException;
import dev.rpcrdma.oncrpc.server.RpcServerLimits;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reliability suite (faults, limits, a 40 s soak) over the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the address is {@code -Drdma.test.address} (default 192.0.2.1). The device's
 * resource counts must be back at their baseline after the class.
 */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricReliabilityTest extends RpcRdmaReliabilitySuite {
    NativeFabricReliabilityTest() {
        super(TestFabric.NATIVE);
    }

    /**
     * Issue 30: the server's process is killed ({@code kill -9}) with a call pending: the call fails with
     * {@link RpcConnectionClosedException} within {@value #LOST_PEER_NOTICE_SECONDS} s, and another connection on
     * the same event loop goes on. Nobody calls {@code rdma_disconnect}: the kernel cleans up after the process (its
     * RDMA-CM ids are destroyed when their files close, and destroying a connected id sends the DREQ: Linux 6.1
     * {@code cm_destroy_id}; on iWARP the QP goes to error and its TCP connection closes), which the client's
     * RDMA-CM reports as {@code DISCONNECTED}.
     */
    @Test
    void theServerProcessKilledMidRpcFailsItsPendingCallsAndNotTheOthers() throws Exception {
        startServer(RpcServerLimits.DEFAULT);
        bystander = connect();
        Process peer = LostPeerServer.start(address());
        try (BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(),
                StandardCharsets.US_ASCII))) {
            String listening = line(out, peer);
            assertTrue(listening.startsWith(LostPeerServer.LISTENING), listening);
            int port = Integer.parseInt(listening.substring(LostPeerServer.LISTENING.length()));
            RpcClient victim = connect(new InetSocketAddress(address(), port));
            assertEchoes(victim, 100);
            assertEchoes(victim, 40_000); // chunks: memory windows bound and invalidated
            CompletableFuture<Void> pending = hold(victim, Duration.ofSeconds(TIMEOUT));
            assertEquals(LostPeerServer.HELD, line(out, peer), "the call reached the other process's procedure");
            long start = System.nanoTime();
            peer.destroyForcibly(); // SIGKILL
            assertFailsClosed(pending);
            long noticed = System.nanoTime() - start;
            System.out.printf("the client noticed the server process's death after %d ms%n", noticed / 1_000_000);
            assertTrue(noticed < TimeUnit.SECONDS.toNanos(LOST_PEER_NOTICE_SECONDS),
                    "failed when the server process died, not by the call's timeout");
            assertTrue(peer.waitFor(TIMEOUT, TimeUnit.SECONDS), "the server process ended");
            assertEchoes(bystander, 100);
            assertEchoes(bystander, 40_000);
        } finally {
            peer.destroyForcibly();
            peer.waitFor(TIMEOUT, TimeUnit.SECONDS);
        }
    }

    /** The next line the server process prints, within the test's timeout (its death fails the test). */
    private static String line(BufferedReader out, Process peer) throws Exception {
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).get(TIMEOUT, TimeUnit.SECONDS);
        assertNotNull(line, () -> "the server process ended early (status " + peer.exitValue() + ')');
        return line;
    }
}
