package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/** The memory pool suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricMemoryPoolTest extends MemoryPoolSuite {
    SoftwareFabricMemoryPoolTest() {
        super(TestFabric.SOFTWARE);
    }
}
