package dev.rpcrdma.channel.fabric;

import dev.rpcrdma.channel.Rdma;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class FabricsTest {
    @Test
    void softwareIsSelectedByName() {
        assertSame(SoftwareFabric.instance(), Fabrics.select("software"));
        assertSame(SoftwareFabric.instance(), Fabrics.select(" Software "));
    }

    @Test
    void unknownSelectorsAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Fabrics.select("ib"));
        assertTrue(e.getMessage().contains(Fabrics.PROPERTY));
    }

    @Test
    void withoutADeviceAutoFallsBackToSoftwareAndNativeFailsClearly() {
        assumeFalse(Rdma.isAvailable(), "SKIPPED: an RDMA device is present (this checks the no-device fallback)");
        assertSame(SoftwareFabric.instance(), Fabrics.select("auto"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Fabrics.select("native"));
        assertTrue(e.getMessage().contains("no native RDMA fabric"), e.getMessage());
    }
}
