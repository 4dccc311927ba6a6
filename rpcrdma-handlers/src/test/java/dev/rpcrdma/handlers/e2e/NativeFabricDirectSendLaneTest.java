package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The direct send lane under the drop-in initializers over the native fabric: only in the VM stage. */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricDirectSendLaneTest extends DirectSendLaneSuite {
    NativeFabricDirectSendLaneTest() {
        super(TestFabric.NATIVE);
    }
}
