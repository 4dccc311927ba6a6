package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The bridge over the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the device's resource counts must be back at their baseline after the class.
 */
@Tag("rdma-device")
@Tag("rdma-device-once") // the bridge's plumbing; the transport under it is rpcrdma-handlers' suites'
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricOncRpcBridgeTest extends RdmaOncRpcBridgeSuite {
    NativeFabricOncRpcBridgeTest() {
        super(TestFabric.NATIVE);
    }
}
