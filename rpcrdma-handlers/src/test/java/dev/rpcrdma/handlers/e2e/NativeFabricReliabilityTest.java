package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.transport.RdmaResources;
import dev.rpcrdma.channel.testing.NativeTestDevice;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.util.Map;

/**
 * The reliability suite (faults, limits, a 40 s soak) over the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the address is {@code -Drdma.test.address} (default 192.0.2.1). The device's
 * resource counts must be back at their baseline after the class.
 */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricReliabilityTest extends RpcRdmaReliabilitySuite {
    @Override
    @BeforeEach
    void startLoop() {
        NativeTestDevice.assumeNativeFabric("RPC-over-RDMA ran only on the software fabric");
        super.startLoop();
    }

    @Override
    Fabric fabric() {
        return Fabrics.findNative();
    }

    @Override
    InetAddress address() {
        return NativeTestDevice.address();
    }

    @Override
    int soakSeconds() {
        return Integer.getInteger("soak.seconds", 40);
    }

    @Override
    Map<String, Integer> resources() {
        return RdmaResources.show();
    }

    @Override
    boolean failPostSends(int count, boolean sendsOnly) {
        return false; // no real means on rxe
    }
}
