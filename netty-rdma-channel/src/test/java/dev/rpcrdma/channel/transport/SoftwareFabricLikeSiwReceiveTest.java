package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The receive suite over the software fabric modelling Soft-iWARP ({@code TestFabric.SOFTWARE_LIKE_SIW}): the
 * transport's choices driven by the device's capabilities run in {@code mvn verify} as they do on siw0 in the VM
 * stage.
 */
class SoftwareFabricLikeSiwReceiveTest extends RdmaReceiveSuite {
    SoftwareFabricLikeSiwReceiveTest() {
        super(TestFabric.SOFTWARE_LIKE_SIW);
    }

    /**
     * Not run here (no {@code @Test} on the override): Netty's leak detector reports a leak site once per JVM, and
     * {@link SoftwareFabricReceiveTest} in the same Surefire JVM already reports this very site, so a second run
     * would see nothing. The leak path does not depend on the device's capabilities.
     */
    @Override
    void aLeakedLentReceiveIsReportedByNettysLeakDetector() {
    }
}
