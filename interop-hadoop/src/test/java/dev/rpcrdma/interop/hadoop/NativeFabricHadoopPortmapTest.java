package dev.rpcrdma.interop.hadoop;

import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** Hadoop's portmap over the native fabric (Soft-RoCE): only in the VM stage. */
@Tag("rdma-device")
@Tag("rdma-device-once") // Hadoop's programs on our stack; the transport is rpcrdma-handlers'
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricHadoopPortmapTest extends HadoopPortmapOverRdmaSuite {
    NativeFabricHadoopPortmapTest() {
        super(TestFabric.NATIVE);
    }
}
