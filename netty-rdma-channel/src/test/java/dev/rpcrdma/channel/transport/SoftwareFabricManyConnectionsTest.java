package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/** Many idle connections over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricManyConnectionsTest extends ManyConnectionsSuite {
    SoftwareFabricManyConnectionsTest() {
        super(TestFabric.SOFTWARE);
    }
}
