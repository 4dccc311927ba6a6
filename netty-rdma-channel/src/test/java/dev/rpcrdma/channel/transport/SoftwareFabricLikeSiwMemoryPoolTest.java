package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetAddress;
import java.util.Map;

/**
 * The memory pool suite over the software fabric modelling Soft-iWARP ({@link SoftwareFabric#likeSiw}): no memory
 * windows, so the window tests check that allocating one fails and that a memory region over exactly the piece gives
 * the same guarantee (the slab's key and a deregistered region's key reach nothing, and on iWARP such an access
 * ends the connection with a TERMINATE), as they do on siw0 in the VM stage.
 */
class SoftwareFabricLikeSiwMemoryPoolTest extends MemoryPoolSuite {
    @Override
    @BeforeEach
    void startLoop() {
        SoftwareFabric.instance().likeSiw(true);
        super.startLoop();
    }

    @Override
    @AfterEach
    void stopLoop() throws Exception {
        try {
            super.stopLoop();
        } finally {
            SoftwareFabric.instance().likeSiw(false);
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
