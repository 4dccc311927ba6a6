package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetAddress;

/**
 * The end-to-end suite over the software fabric modelling Soft-iWARP ({@link SoftwareFabric#likeSiw}): no memory
 * windows (the requester registers a memory region per exposed chunk and deregisters it after the reply), no remote
 * invalidation offered, 80 bytes of inline data, 6 SGEs per work request and 1 per Read sink, and Read sinks that
 * need remote write access (iWARP): the siw code paths run on the host as they do on siw0 in the VM stage.
 */
class SoftwareFabricLikeSiwRpcRdmaTest extends RpcRdmaEndToEndSuite {
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
}
