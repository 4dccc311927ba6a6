package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.NativeTestDevice;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;

/**
 * The bridge over the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the device's resource counts must be back at their baseline after the class.
 */
@Tag("rdma-device")
@Tag("rdma-device-once") // the bridge's plumbing; the transport under it is rpcrdma-handlers' suites'
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricOncRpcBridgeTest extends RdmaOncRpcBridgeSuite {
    @Override
    @BeforeEach
    void startLoop() {
        NativeTestDevice.assumeNativeFabric("the oncrpc4j bridge ran only on the software fabric");
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
}
