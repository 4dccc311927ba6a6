package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
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
    void withoutADeviceNativeFailsWithTheCauseAndOnlyAnExplicitChoiceGivesSoftware() {
        assumeFalse(Rdma.isAvailable(), "SKIPPED: an RDMA device is present (this checks the no-device refusal)");
        String why = Rdma.unavailabilityMessage();
        assertTrue(why.startsWith("RDMA is not available: "), why);
        assertFalse(why.contains("\n"), why);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RdmaFabric.select("native"));
        assertNativeRefusal(e);
        e = assertThrows(IllegalStateException.class, () -> new RdmaIoHandlerConfig().fabric(RdmaFabric.NATIVE));
        assertNativeRefusal(e);
        // auto is an explicit choice to accept the software fabric.
        assertSame(RdmaFabric.SOFTWARE, RdmaFabric.select("auto"));
    }

    @Test
    void theDefaultIsNativeAndNeverFallsBackSilently() {
        assumeFalse(Rdma.isAvailable(), "SKIPPED: an RDMA device is present (this checks the no-device refusal)");
        // Surefire selects the software fabric for the whole test JVM; this test needs the property unset.
        String saved = System.clearProperty(RdmaFabric.PROPERTY);
        try {
            assertNativeRefusal(assertThrows(IllegalStateException.class, RdmaFabric::select));
            assertNativeRefusal(assertThrows(IllegalStateException.class,
                    () -> RdmaIoHandler.newFactory(new RdmaIoHandlerConfig())));
            assertNativeRefusal(assertThrows(IllegalStateException.class, () -> RdmaIoHandler.newFactory()));
            System.setProperty(RdmaFabric.PROPERTY, "software");
            assertSame(RdmaFabric.SOFTWARE, RdmaFabric.select());
        } finally {
            if (saved != null) {
                System.setProperty(RdmaFabric.PROPERTY, saved);
            } else {
                System.clearProperty(RdmaFabric.PROPERTY);
            }
        }
    }

    /** One line: the cause and its remedy from {@link Rdma}, then how to choose the software fabric. */
    private static void assertNativeRefusal(IllegalStateException e) {
        String m = e.getMessage();
        assertTrue(m.startsWith(Rdma.unavailabilityMessage()), m);
        assertTrue(m.contains("RdmaIoHandlerConfig.fabric(RdmaFabric.SOFTWARE) or -Ddev.rpcrdma.fabric=software"), m);
        assertFalse(m.contains("\n"), m);
        assertSame(Rdma.unavailabilityCause(), e.getCause());
    }
}
