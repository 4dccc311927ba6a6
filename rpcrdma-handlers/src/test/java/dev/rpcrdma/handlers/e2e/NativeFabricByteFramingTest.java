package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The byte framing suite over the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the address is {@code -Drdma.test.address} (default 192.0.2.1). The device's
 * resource counts must be back at their baseline after the class.
 */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricByteFramingTest extends ByteFramingSuite {
    NativeFabricByteFramingTest() {
        super(TestFabric.NATIVE);
    }
}
