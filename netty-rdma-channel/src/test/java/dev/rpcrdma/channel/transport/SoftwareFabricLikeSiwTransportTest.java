package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The transport suite over the software fabric modelling Soft-iWARP ({@link SoftwareFabric#likeSiw}: no memory
 * windows, 80 bytes of inline data, 6 SGEs per work request and 1 per Read sink, Read sinks needing remote write, an
 * iWARP transport): the transport's choices driven by the device's capabilities run in {@code mvn verify} as they do
 * on siw0 in the VM stage.
 */
class SoftwareFabricLikeSiwTransportTest extends SoftwareFabricTransportTest {
    @Override
    @BeforeEach
    void startLoop() {
        SoftwareFabric.instance().likeSiw(true);
        super.startLoop();
    }

    @Override
    @AfterEach
    void stopLoop() throws Exception {
        try {
            super.stopLoop();
        } finally {
            SoftwareFabric.instance().likeSiw(false);
        }
    }

    /**
     * Not run here (no {@code @Test} on the override): Netty's leak detector reports a leak site once per JVM, and
     * {@link SoftwareFabricTransportTest} in the same Surefire JVM already reports this very site, so a second run
     * would see nothing. The leak path does not depend on the device's capabilities.
     */
    @Override
    void aLeakedLentReceiveIsReportedByNettysLeakDetector() {
    }
}
