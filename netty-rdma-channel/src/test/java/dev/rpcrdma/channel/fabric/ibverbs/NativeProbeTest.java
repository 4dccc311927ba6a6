package dev.rpcrdma.channel.fabric.ibverbs;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link NativeProbe} explains what is missing on hosts with other sysfs/dev roots (moved from RdmaTest). */
class NativeProbeTest {

    private static void assumeHostWithoutRdma() {
        Assumptions.assumeFalse(Files.exists(Path.of("/sys/class/infiniband")),
                "SKIPPED: this host has /sys/class/infiniband (an RDMA-capable kernel); see the rdma-device tests");
    }

    @Test
    void deviceInSysfsButNotUsableIsExplained(@TempDir Path dir) throws Exception {
        assumeHostWithoutRdma();
        Path sys = Files.createDirectories(dir.resolve("sys/class/infiniband/rxe0"));
        Throwable cause = NativeProbe.probe(sys.getParent(), dir.resolve("dev/infiniband"));
        assertNotNull(cause);
        // libibverbs on this kernel cannot list devices (no uverbs): the cause names the device and the module.
        assertTrue(cause.getMessage().contains("rxe0"), cause.getMessage());
        assertTrue(cause.getMessage().contains("ib_uverbs"), cause.getMessage());
    }

    @Test
    void emptySysfsDirectoryIsNoDevice(@TempDir Path dir) throws Exception {
        Path sys = Files.createDirectories(dir.resolve("infiniband"));
        Throwable cause = NativeProbe.probe(sys, dir.resolve("dev"));
        assertTrue(cause.getMessage().startsWith("no RDMA device"), cause.getMessage());
        assertTrue(cause.getMessage().contains("is empty"), cause.getMessage());
    }
}
