package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class RdmaFabricTest {
    @Test
    void softwareIsSelectedByName() {
        assertSame(RdmaFabric.SOFTWARE, RdmaFabric.select("software"));
        assertSame(RdmaFabric.SOFTWARE, RdmaFabric.select(" Software "));
        assertSame(SoftwareFabric.instance(), RdmaFabric.SOFTWARE.spi());
        assertSame(SoftwareFabric.instance(), new RdmaIoHandlerConfig().fabric(RdmaFabric.SOFTWARE).fabric());
    }

    @Test
    void unknownSelectorsAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RdmaFabric.select("ib"));
        assertTrue(e.getMessage().contains(RdmaFabric.PROPERTY));
    }

    @Test
    void withoutADeviceAutoFallsBackToSoftwareAndNativeFailsClearly() {
        assumeFalse(Rdma.isAvailable(), "SKIPPED: an RDMA device is present (this checks the no-device fallback)");
        assertSame(RdmaFabric.SOFTWARE, RdmaFabric.select("auto"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RdmaFabric.select("native"));
        assertTrue(e.getMessage().contains("no native RDMA fabric"), e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> new RdmaIoHandlerConfig().fabric(RdmaFabric.NATIVE));
        assertTrue(e.getMessage().contains("no native RDMA fabric"), e.getMessage());
    }
}
