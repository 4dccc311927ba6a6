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

/** The memory pool suite over the native fabric (Soft-RoCE in the VM stage, {@code tools/vm/run-rdma-tests}). */
@Tag("rdma-device")
@ExtendWith(DeviceResourceBaseline.class)
class NativeFabricMemoryPoolTest extends MemoryPoolSuite {
    @Override
    @BeforeEach
    void startLoop() {
        NativeTestDevice.assumeNativeFabric("the memory pool suite ran only on the software fabric");
        super.startLoop();
    }

    /**
     * On rxe a connection whose responder side failed an access check (the slab-key write) is torn down only after
     * the RDMA-CM gives up on the peer's disconnect, about 51 s later (as in the handlers' reliability suite on rxe,
     * whose bound is 90 s there).
     */
    @Override
    long shutdownSeconds() {
        return 120;
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
