package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.channel.testing.TestFabric;

/** The bridge over the in-process software RDMA fabric (runs in {@code mvn verify}). */
class SoftwareFabricOncRpcBridgeTest extends RdmaOncRpcBridgeSuite {
    SoftwareFabricOncRpcBridgeTest() {
        super(TestFabric.SOFTWARE);
    }
}
