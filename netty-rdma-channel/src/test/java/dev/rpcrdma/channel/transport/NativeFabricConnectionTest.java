package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The connection set-up suite over the native fabric: only in the VM stage ({@code tools/vm/run-rdma-tests}), on the
 * device {@code NativeTestDevice} names; the device's resource counts must be back at their baseline after the class.
 */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricConnectionTest extends RdmaConnectionSuite {
    NativeFabricConnectionTest() {
        super(TestFabric.NATIVE);
    }
}
