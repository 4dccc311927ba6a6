package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/** The transport suite's data path over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricTransportTest extends RdmaTransportSuite {
    SoftwareFabricTransportTest() {
        super(TestFabric.SOFTWARE);
    }
}
