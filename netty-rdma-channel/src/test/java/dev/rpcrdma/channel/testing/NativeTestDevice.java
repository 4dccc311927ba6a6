package dev.rpcrdma.channel.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * The RDMA device the {@code Native*} suites of every module run on in the VM stage ({@code tools/vm/run-rdma-tests}):
 * skips a test where the native fabric is not usable, and names the address on the device,
 * {@code -D}{@value #ADDRESS_PROPERTY}, else {@code $VM_RDMA_ADDR} (the provider's address the VM stage runs the suites
 * on: 192.0.2.1 for rxe0, 198.51.100.1 for siw0), else {@value #DEFAULT_ADDRESS} (the VM's dummy0 under Soft-RoCE).
 * Shared with other modules through this module's test-jar. Stateless; safe from any thread.
 */
public final class NativeTestDevice {
    /** The system property that names the device's address. */
    public static final String ADDRESS_PROPERTY = "rdma.test.address";
    /** The address of the VM's Soft-RoCE device. */
    public static final String DEFAULT_ADDRESS = "192.0.2.1";

    private NativeTestDevice() {
    }

    /**
     * Skips the calling test unless the native fabric is usable here; {@code skipReason} says what ran instead,
     * e.g. "the transport suite ran only on the software fabric".
     */
    public static void assumeNativeFabric(String skipReason) {
        assumeTrue(RdmaFabric.NATIVE.isAvailable(), "SKIPPED: no native RDMA fabric (libibverbs, librdmacm and an"
                + " RDMA device); " + skipReason);
    }

    /** The device's address as given ({@value #ADDRESS_PROPERTY}, else {@code $VM_RDMA_ADDR}). */
    public static String host() {
        String env = System.getenv("VM_RDMA_ADDR");
        return System.getProperty(ADDRESS_PROPERTY, env != null ? env : DEFAULT_ADDRESS);
    }

    /** The device's address, resolved. */
    public static InetAddress address() {
        try {
            return InetAddress.getByName(host());
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Opens the test device in this process the way the first connection does (an id bound to its address reaches
     * the device), then releases the id: the fabric's own per-process objects of that device (on siw, the completion
     * queue that holds its invalid mmap key, {@code NativeFabric}) exist from here on, so a resource baseline taken
     * after this call does not count them. Does nothing without a native fabric.
     */
    public static void openDevice() throws IOException {
        Fabric fabric = Fabrics.findNative();
        if (fabric == null || !RdmaFabric.NATIVE.isAvailable()) {
            return;
        }
        try (CmEventChannel events = fabric.createEventChannel(); CmId id = events.createId("device-probe")) {
            id.bind(new InetSocketAddress(address(), 0));
            id.device();
        }
    }
}
