package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.verbs.RdmaCm;
import dev.rpcrdma.channel.verbs.Verbs;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Finds out whether the native fabric can run on this host: libibverbs and librdmacm load, an RDMA device exists,
 * has a user-space driver and can be opened, and RDMA-CM is usable; otherwise a cause that says what to install or
 * load. The host is probed once, when this class initializes; the result is immutable and safe to read from any
 * thread. {@code dev.rpcrdma.channel.Rdma} reports it through the fabric SPI
 * ({@link NativeFabric#unavailabilityCause()}).
 */
final class NativeProbe {
    private static final Throwable UNAVAILABILITY_CAUSE = probe(
            Path.of("/sys/class/infiniband"), Path.of("/dev/infiniband"));

    private NativeProbe() {
    }

    /** Why the native fabric is unusable here (with what to install or load), or null if it is usable. */
    static Throwable unavailabilityCause() {
        return UNAVAILABILITY_CAUSE;
    }

    /** Throws {@link UnsatisfiedLinkError} with {@link #unavailabilityCause()} as its cause if RDMA is unusable. */
    static void ensureAvailability() {
        if (UNAVAILABILITY_CAUSE != null) {
            throw (Error) new UnsatisfiedLinkError("RDMA is not available: " + UNAVAILABILITY_CAUSE.getMessage())
                    .initCause(UNAVAILABILITY_CAUSE);
        }
    }

    /** The checks, in the order a user would fix them; package-private for tests with other sysfs/dev roots. */
    static Throwable probe(Path sysClassInfiniband, Path devInfiniband) {
        try {
            Throwable cause = Verbs.loadFailure();
            if (cause != null) {
                return cause;
            }
            cause = RdmaCm.loadFailure();
            if (cause != null) {
                return cause;
            }
            String[] sysDevices = sysClassInfiniband.toFile().list();
            if (sysDevices == null || sysDevices.length == 0) {
                return new UnsupportedOperationException("no RDMA device (" + sysClassInfiniband
                        + (sysDevices == null ? " does not exist" : " is empty") + "): for Soft-RoCE load rdma_rxe"
                        + " and run `rdma link add rxe0 type rxe netdev <if>` (needs a kernel built with"
                        + " CONFIG_INFINIBAND and CONFIG_RDMA_RXE)");
            }
            List<String> devices;
            try {
                devices = Verbs.deviceNames();
            } catch (NativeCallException e) {
                return new UnsupportedOperationException("RDMA device(s) " + String.join(", ", sysDevices)
                        + " present but libibverbs cannot list them: load ib_uverbs (" + e.getMessage() + ")", e);
            }
            if (devices.isEmpty()) {
                return new UnsupportedOperationException("RDMA device(s) " + String.join(", ", sysDevices)
                        + " present but libibverbs finds no user-space driver: install the Debian package"
                        + " ibverbs-providers and load ib_uverbs");
            }
            Path rdmaCm = devInfiniband.resolve("rdma_cm");
            if (!Files.exists(rdmaCm)) {
                return new UnsupportedOperationException(rdmaCm + " does not exist: load rdma_ucm");
            }
            File cm = rdmaCm.toFile();
            if (!cm.canRead() || !cm.canWrite()) {
                return new UnsupportedOperationException("no read/write access to " + rdmaCm
                        + " (and /dev/infiniband/uverbs*): run as root or grant the user access (e.g. udev rule)");
            }
            try {
                long context = Verbs.openDevice(devices.get(0));
                Verbs.closeDevice(context);
            } catch (NativeCallException e) {
                return new UnsupportedOperationException("cannot open RDMA device " + devices.get(0)
                        + " (check access to " + devInfiniband + "/uverbs*): " + e.getMessage(), e);
            }
            try {
                RdmaCm.destroyEventChannel(RdmaCm.createEventChannel());
            } catch (NativeCallException e) {
                return new UnsupportedOperationException("cannot use RDMA-CM: " + e.getMessage(), e);
            }
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
