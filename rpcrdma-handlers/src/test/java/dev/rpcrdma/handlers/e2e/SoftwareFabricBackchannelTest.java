package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/** The backchannel suite over RPC-over-RDMA on the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricBackchannelTest extends RpcRdmaBackchannelSuite {
    SoftwareFabricBackchannelTest() {
        super(TestFabric.SOFTWARE);
    }
}
