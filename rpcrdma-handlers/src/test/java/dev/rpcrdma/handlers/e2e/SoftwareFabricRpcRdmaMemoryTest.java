package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The exposed-memory suite over the in-process software fabric (runs in {@code mvn verify}).
 */
class SoftwareFabricRpcRdmaMemoryTest extends RpcRdmaMemorySuite {
    SoftwareFabricRpcRdmaMemoryTest() {
        super(TestFabric.SOFTWARE);
    }
}
