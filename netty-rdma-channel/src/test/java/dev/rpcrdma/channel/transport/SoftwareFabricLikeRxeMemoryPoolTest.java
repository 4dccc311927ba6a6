package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetAddress;
import java.util.Map;

/**
 * The memory pool suite over the software fabric made to behave like Soft-RoCE for Local Invalidate
 * ({@link SoftwareFabric#likeRxe}): the rxe code path (windows closed instead of locally invalidated) runs on the
 * host too, and any Local Invalidate that reached the device would fail.
 */
class SoftwareFabricLikeRxeMemoryPoolTest extends MemoryPoolSuite {
    @Override
    @BeforeEach
    void startLoop() {
        SoftwareFabric.instance().likeRxe(true);
        super.startLoop();
    }

    @Override
    @AfterEach
    void stopLoop() throws Exception {
        try {
            super.stopLoop();
        } finally {
            SoftwareFabric.instance().likeRxe(false);
        }
    }

    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }

    @Override
    Map<String, Integer> resources() {
        return SoftwareFabric.instance().resourceCounts();
    }
}
