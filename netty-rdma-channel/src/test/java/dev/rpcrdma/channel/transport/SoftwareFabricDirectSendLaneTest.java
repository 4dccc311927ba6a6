package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/** The direct send lane over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricDirectSendLaneTest extends DirectSendLaneSuite {
    SoftwareFabricDirectSendLaneTest() {
        super(TestFabric.SOFTWARE);
    }
}
