package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/** The direct send lane under the drop-in initializers, over the in-process software fabric. */
class SoftwareFabricDirectSendLaneTest extends DirectSendLaneSuite {
    SoftwareFabricDirectSendLaneTest() {
        super(TestFabric.SOFTWARE);
    }
}
