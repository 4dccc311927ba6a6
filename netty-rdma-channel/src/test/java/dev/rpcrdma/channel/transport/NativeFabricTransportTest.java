package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.testing.NativeTestDevice;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;

import java.net.InetAddress;
import java.util.Map;

/**
 * The transport suite over the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the address is {@code -Drdma.test.address} (default 192.0.2.1, the VM's dummy0).
 */
@Tag("rdma-device")
class NativeFabricTransportTest extends RdmaTransportSuite {
    /** {@code rdma resource show} before the first test (null without a native fabric). */
    private static Map<String, Integer> baseline;

    @BeforeAll
    static void recordResourceBaseline() {
        if (Fabrics.findNative() != null) {
            baseline = RdmaResources.show();
        }
    }

    /**
     * Issue acceptance: after the suite — every channel closed, every group shut down — the kernel's per-device
     * counts (pd, cq, qp, cm_id, mr, ...) are back where they were before it (a bounded wait for teardown).
     */
    @AfterAll
    static void deviceResourcesAreBackAtTheBaseline() throws InterruptedException {
        if (baseline != null) {
            RdmaResources.assertBackTo(baseline, RdmaResources::show, TIMEOUT);
        }
    }

    @Override
    @BeforeEach
    void startLoop() {
        NativeTestDevice.assumeNativeFabric("the transport suite ran only on the software fabric");
        super.startLoop();
    }

    @Override
    Fabric fabric() {
        return Fabrics.findNative();
    }

    @Override
    Map<String, Integer> resources() {
        return RdmaResources.show();
    }

    @Override
    InetAddress address() {
        return NativeTestDevice.address();
    }
}
