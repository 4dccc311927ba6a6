package org.apache.hadoop.portmap;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.NativeTestDevice;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;

/** Hadoop's portmap over the native fabric (Soft-RoCE): only in the VM stage. */
@Tag("rdma-device")
@Tag("rdma-device-once") // Hadoop's programs on our stack; the transport is rpcrdma-handlers'
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricHadoopPortmapTest extends HadoopPortmapOverRdmaSuite {
    @Override
    @BeforeEach
    void start() throws Exception {
        NativeTestDevice.assumeNativeFabric("Hadoop's portmap ran only on the software fabric");
        super.start();
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
