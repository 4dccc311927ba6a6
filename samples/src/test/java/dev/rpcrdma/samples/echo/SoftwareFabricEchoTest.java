package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.testing.TestFabric;

/** The echo sample over RPC-over-RDMA on the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricEchoTest extends EchoRdmaSuite {
    SoftwareFabricEchoTest() {
        super(TestFabric.SOFTWARE);
    }
}
