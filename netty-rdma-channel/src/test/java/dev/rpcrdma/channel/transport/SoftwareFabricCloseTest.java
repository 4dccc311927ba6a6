package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/** The close suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricCloseTest extends RdmaCloseSuite {
    SoftwareFabricCloseTest() {
        super(TestFabric.SOFTWARE);
    }
}
