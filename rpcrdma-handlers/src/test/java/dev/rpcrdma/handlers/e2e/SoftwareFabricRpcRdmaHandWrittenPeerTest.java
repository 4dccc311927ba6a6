package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The hand-written-peer suite over the in-process software fabric (runs in {@code mvn verify}).
 */
class SoftwareFabricRpcRdmaHandWrittenPeerTest extends RpcRdmaHandWrittenPeerSuite {
    SoftwareFabricRpcRdmaHandWrittenPeerTest() {
        super(TestFabric.SOFTWARE);
    }
}
