package dev.rpcrdma.channel.fabric;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.NativeTestDevice;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;

/**
 * The fabric contract suite over the native fabric (libibverbs/librdmacm on Soft-RoCE {@code rxe0}): only in the VM
 * stage ({@code tools/vm/run-rdma-tests}); skipped, saying so, on a host without a device. The address is
 * {@code -Drdma.test.address} (default 192.0.2.1, the VM's dummy0). {@code rdma resource show} is recorded before
 * the first test and must be back at that baseline after the last.
 */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricContractTest extends FabricContractSuite {
    @BeforeEach
    void requireNativeFabric() {
        NativeTestDevice.assumeNativeFabric("the fabric contract suite ran only on the software fabric");
    }

    @Override
    Fabric fabric() {
        return Fabrics.findNative();
    }

    @Override
    InetAddress address() {
        return NativeTestDevice.address();
    }
}
