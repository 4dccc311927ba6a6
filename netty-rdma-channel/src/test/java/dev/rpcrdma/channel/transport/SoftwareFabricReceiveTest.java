package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/** The receive suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricReceiveTest extends RdmaReceiveSuite {
    SoftwareFabricReceiveTest() {
        super(TestFabric.SOFTWARE);
    }
}
