package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/** The end-to-end suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricRpcRdmaTest extends RpcRdmaEndToEndSuite {
    SoftwareFabricRpcRdmaTest() {
        super(TestFabric.SOFTWARE);
    }
}
