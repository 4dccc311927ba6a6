package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The RPC-layer suite over the in-process software fabric (runs in {@code mvn verify}).
 */
class SoftwareFabricRpcRdmaUpperLayerTest extends RpcRdmaUpperLayerSuite {
    SoftwareFabricRpcRdmaUpperLayerTest() {
        super(TestFabric.SOFTWARE);
    }
}
