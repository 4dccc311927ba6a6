package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** Many idle connections over the native fabric (Soft-RoCE): only in the VM stage. */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricManyConnectionsTest extends ManyConnectionsSuite {
    NativeFabricManyConnectionsTest() {
        super(TestFabric.NATIVE);
    }
}
