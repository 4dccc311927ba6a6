package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The end-to-end suite over the software fabric modelling Soft-iWARP ({@code SoftwareFabric.likeSiw}): no memory
 * windows (the requester registers a memory region per exposed chunk and deregisters it after the reply), no remote
 * invalidation offered, 80 bytes of inline data, 6 SGEs per work request and 1 per Read sink, and Read sinks that
 * need remote write access (iWARP): the siw code paths run on the host as they do on siw0 in the VM stage.
 */
class SoftwareFabricLikeSiwRpcRdmaTest extends RpcRdmaEndToEndSuite {
    SoftwareFabricLikeSiwRpcRdmaTest() {
        super(TestFabric.SOFTWARE_LIKE_SIW);
    }
}
