package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The hand-written-peer suite over the software fabric refusing Local Invalidate ({@code
 * TestFabric.SOFTWARE_LIKE_RXE}): windows are deallocated instead, and a Local Invalidate reaching the device would
 * fail the connection.
 */
class SoftwareFabricLikeRxeRpcRdmaHandWrittenPeerTest extends RpcRdmaHandWrittenPeerSuite {
    SoftwareFabricLikeRxeRpcRdmaHandWrittenPeerTest() {
        super(TestFabric.SOFTWARE_LIKE_RXE);
    }
}
