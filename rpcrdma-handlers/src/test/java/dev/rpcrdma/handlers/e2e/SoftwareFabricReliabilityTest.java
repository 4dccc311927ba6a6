package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.RdmaChannel;
import dev.rpcrdma.channel.RdmaFaults;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import dev.rpcrdma.channel.testing.TestFabric;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcConnectionClosedException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.rpcrdma.handlers.e2e.EchoService.pattern;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reliability suite over the in-process software fabric (runs in {@code mvn verify}: a 5 s soak). */
class SoftwareFabricReliabilityTest extends RpcRdmaReliabilitySuite {
    SoftwareFabricReliabilityTest() {
        super(TestFabric.SOFTWARE);
    }

    /**
     * The server's close on a device that behaves like rxe ({@link SoftwareFabric#likeRxe}): there a queue pair's
     * destroy waits for the type-2 windows still bound through it (50 s at most). The pending call's windows are
     * deallocated before the client's queue pair is destroyed, so the call fails at once, not after that wait.
     */
    @Test
    void theServerDroppingAConnectionMidRpcOnAnRxeLikeDeviceFailsItsPendingCallsAtOnce() throws Exception {
        SoftwareFabric.instance().likeRxe(true);
        try {
            theServerDroppingAConnectionMidRpcFailsItsPendingCallsAndNotTheOthers();
        } finally {
            SoftwareFabric.instance().likeRxe(false);
        }
    }

    /**
     * Issue 30, the silent peer: the server vanishes without a disconnect ({@link RdmaFaults#severConnection}, the
     * software fabric's model of a host that lost power; a process kill on a real device is reported by the kernel's
     * DREQ, {@code NativeFabricReliabilityTest}). Nothing tells the client while it sends nothing; its next call's
     * Send gets no acknowledgement, fails with {@code IBV_WC_RETRY_EXC_ERR} once the queue pair's retries are spent
     * ({@code RETRY_COUNT} + 1 local ACK timeouts), and that breaks the connection: the new call and the pending one
     * fail with {@link RpcConnectionClosedException} within {@value #LOST_PEER_NOTICE_SECONDS} s, and the other
     * connection on the loop goes on.
     */
    @Test
    void aServerThatVanishesIsFoundByTheRetriesOfTheNextSend() throws Exception {
        RpcClient victim = victimBesideABystander();
        assertEchoes(victim, 100);
        assertEchoes(victim, 40_000);
        CompletableFuture<Void> pending = holdOne(victim);
        RdmaFaults.severConnection((RdmaChannel) victim.channel()).sync();
        Thread.sleep(2 * 8 * SoftwareFabric.ACK_TIMEOUT_MILLIS); // two full rounds of retries
        assertFalse(pending.isDone(), "no disconnect reached the client, and it sent nothing");
        assertTrue(victim.channel().isActive());
        long start = System.nanoTime();
        CompletableFuture<byte[]> next = echo(victim, pattern(100, 1));
        assertFailsClosed(next);
        assertFailsClosed(pending);
        long noticed = System.nanoTime() - start;
        System.out.printf("the client noticed the vanished server after %d ms%n", noticed / 1_000_000);
        assertTrue(noticed < TimeUnit.SECONDS.toNanos(LOST_PEER_NOTICE_SECONDS), "found by the Send's retries");
        assertTrue(noticed >= TimeUnit.MILLISECONDS.toNanos(SoftwareFabric.ACK_TIMEOUT_MILLIS),
                "only after an ACK timeout at least");
        assertEchoes(bystander, 100);
        assertEchoes(bystander, 40_000);
    }
}
