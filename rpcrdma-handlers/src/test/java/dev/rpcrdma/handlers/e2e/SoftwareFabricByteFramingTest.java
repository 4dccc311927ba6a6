package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/** The byte framing suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricByteFramingTest extends ByteFramingSuite {
    SoftwareFabricByteFramingTest() {
        super(TestFabric.SOFTWARE);
    }
}
