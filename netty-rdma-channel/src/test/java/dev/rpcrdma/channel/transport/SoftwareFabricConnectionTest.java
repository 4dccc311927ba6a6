package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/** The connection set-up suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricConnectionTest extends RdmaConnectionSuite {
    SoftwareFabricConnectionTest() {
        super(TestFabric.SOFTWARE);
    }
}
