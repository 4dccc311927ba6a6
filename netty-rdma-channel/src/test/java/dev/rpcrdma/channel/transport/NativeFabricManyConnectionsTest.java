package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.testing.DeviceResourceBaseline;
import dev.rpcrdma.channel.testing.NativeTestDevice;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.util.Map;

/** Many idle connections over the native fabric (Soft-RoCE): only in the VM stage. */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricManyConnectionsTest extends ManyConnectionsSuite {
    @BeforeEach
    void assumeDevice() {
        NativeTestDevice.assumeNativeFabric("the many-connections test ran only on the software fabric");
    }

    @Override
    Fabric fabric() {
        return Fabrics.findNative();
    }

    @Override
    Map<String, Integer> resources() {
        return RdmaResources.show();
    }

    @Override
    InetAddress address() {
        return NativeTestDevice.address();
    }
}
