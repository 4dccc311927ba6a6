package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The RPC-layer suite over the software fabric refusing Local Invalidate ({@code TestFabric.SOFTWARE_LIKE_RXE}):
 * windows are deallocated instead, and a Local Invalidate reaching the device would fail the connection.
 */
class SoftwareFabricLikeRxeRpcRdmaUpperLayerTest extends RpcRdmaUpperLayerSuite {
    SoftwareFabricLikeRxeRpcRdmaUpperLayerTest() {
        super(TestFabric.SOFTWARE_LIKE_RXE);
    }
}
