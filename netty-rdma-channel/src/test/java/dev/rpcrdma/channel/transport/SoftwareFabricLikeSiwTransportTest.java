package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The transport suite's data path over the software fabric modelling Soft-iWARP ({@code TestFabric.SOFTWARE_LIKE_SIW}):
 * the transport's choices driven by the device's capabilities run in {@code mvn verify} as they do on siw0 in the VM
 * stage.
 */
class SoftwareFabricLikeSiwTransportTest extends RdmaTransportSuite {
    SoftwareFabricLikeSiwTransportTest() {
        super(TestFabric.SOFTWARE_LIKE_SIW);
    }
}
