package dev.rpcrdma.channel.fabric;

import dev.rpcrdma.channel.transport.RdmaResources;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The fabric contract suite over the native fabric (libibverbs/librdmacm on Soft-RoCE {@code rxe0}): only in the VM
 * stage ({@code tools/vm/run-rdma-tests}); skipped, saying so, on a host without a device. The address is
 * {@code -Drdma.test.address} (default 192.0.2.1, the VM's dummy0). {@code rdma resource show} is recorded before
 * the first test and must be back at that baseline after the last.
 */
@Tag("rdma-device")
class NativeFabricContractTest extends FabricContractSuite {
    /** Seconds teardown may take to show in {@code rdma resource show}. */
    private static final long TEARDOWN_SECONDS = 10;
    /** {@code rdma resource show} before the first test (null without a native fabric). */
    private static Map<String, Integer> baseline;

    @BeforeAll
    static void recordResourceBaseline() {
        if (Fabrics.findNative() != null) {
            baseline = RdmaResources.show();
        }
    }

    /** After the suite the kernel's per-device counts (pd, cq, qp, cm_id, mr, ...) are back at the baseline. */
    @AfterAll
    static void deviceResourcesAreBackAtTheBaseline() throws InterruptedException {
        if (baseline != null) {
            RdmaResources.assertBackTo(baseline, RdmaResources::show, TEARDOWN_SECONDS);
        }
    }

    @BeforeEach
    void requireNativeFabric() {
        assumeTrue(Fabrics.findNative() != null,
                "SKIPPED: no native RDMA fabric on this host (libibverbs, librdmacm and an RDMA device); the fabric"
                        + " contract suite ran only on the software fabric");
    }

    @Override
    Fabric fabric() {
        return Fabrics.findNative();
    }

    @Override
    InetAddress address() {
        try {
            return InetAddress.getByName(System.getProperty("rdma.test.address", "192.0.2.1"));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
