package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The hand-written-peer suite over the software fabric modelling Soft-iWARP ({@code TestFabric.SOFTWARE_LIKE_SIW}): no
 * memory windows, no remote invalidation, small inline data and SGE counts, Read sinks needing remote write.
 */
class SoftwareFabricLikeSiwRpcRdmaHandWrittenPeerTest extends RpcRdmaHandWrittenPeerSuite {
    SoftwareFabricLikeSiwRpcRdmaHandWrittenPeerTest() {
        super(TestFabric.SOFTWARE_LIKE_SIW);
    }
}
