package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The exposed-memory suite over the native fabric: only in the VM stage ({@code tools/vm/run-rdma-tests}); the device's
 * resource counts must be back at their baseline after the class.
 */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricRpcRdmaMemoryTest extends RpcRdmaMemorySuite {
    NativeFabricRpcRdmaMemoryTest() {
        super(TestFabric.NATIVE);
    }
}
