package dev.rpcrdma.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** {@link Rdma} explains why RDMA is unusable on a host without an RDMA device (like these build machines). */
class RdmaTest {

    private static void assumeHostWithoutRdma() {
        Assumptions.assumeFalse(Files.exists(Path.of("/sys/class/infiniband")),
                "SKIPPED: this host has /sys/class/infiniband (an RDMA-capable kernel); see the rdma-device tests");
    }

    @Test
    void unavailableWithNoDeviceCauseOnThisHost() {
        assumeHostWithoutRdma();
        assertFalse(Rdma.isAvailable());
        Throwable cause = Rdma.unavailabilityCause();
        assertNotNull(cause);
        String msg = cause.getMessage();
        assertTrue(msg.startsWith("no RDMA device"), msg);
        assertTrue(msg.contains("rdma link add rxe0 type rxe netdev <if>"), msg);
        assertTrue(msg.contains("rdma_rxe"), msg);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, Rdma::ensureAvailability);
        assertSame(cause, e.getCause());
        assertEquals("RDMA is not available: " + msg, e.getMessage());
        assertEquals(e.getMessage(), Rdma.unavailabilityMessage());
    }
}
