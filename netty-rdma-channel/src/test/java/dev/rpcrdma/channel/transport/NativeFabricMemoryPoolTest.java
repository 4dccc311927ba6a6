package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** The memory pool suite over the native fabric (Soft-RoCE in the VM stage, {@code tools/vm/run-rdma-tests}). */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricMemoryPoolTest extends MemoryPoolSuite {
    NativeFabricMemoryPoolTest() {
        super(TestFabric.NATIVE);
    }
}
