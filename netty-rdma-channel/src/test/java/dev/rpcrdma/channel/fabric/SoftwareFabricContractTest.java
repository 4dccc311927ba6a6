package dev.rpcrdma.channel.fabric;

import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetAddress;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The fabric contract suite over the in-process software fabric (runs in {@code mvn verify}): each test gets a fresh
 * isolated fabric on the loopback address, and after it every object the test created (ids, PDs, CQs, QPs, MRs, MWs,
 * channels) has been released — the software counterpart of {@link NativeFabricContractTest}'s
 * {@code rdma resource show} baseline.
 */
class SoftwareFabricContractTest extends FabricContractSuite {
    private SoftwareFabric fabric;

    @BeforeEach
    void newFabric() {
        fabric = SoftwareFabric.newIsolated();
    }

    @AfterEach
    void everythingReleased() {
        Map<String, Integer> live = fabric.resourceCounts();
        live.values().removeIf(v -> v == 0);
        assertEquals(Map.of(), live, "live software fabric objects after the test");
    }

    @Override
    Fabric fabric() {
        return fabric;
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }
}
