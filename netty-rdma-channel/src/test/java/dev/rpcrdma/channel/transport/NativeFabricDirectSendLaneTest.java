package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The direct send lane over the native fabric: only in the VM stage ({@code tools/vm/run-rdma-tests}). */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricDirectSendLaneTest extends DirectSendLaneSuite {
    NativeFabricDirectSendLaneTest() {
        super(TestFabric.NATIVE);
    }
}
