package dev.rpcrdma.channel.fabric;

import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fabric contract suite over an isolated software fabric that models Soft-iWARP ({@link SoftwareFabric#likeSiw}):
 * the iWARP branch of every test (no RNR retry, a remote error answered by a TERMINATE, unpadded private data, no
 * memory windows, no flush of work posted in error) runs in {@code mvn verify} as it does on siw0 in the VM stage
 * ({@link NativeFabricContractTest}); each test gets a fresh fabric and leaves no object behind.
 */
class SoftwareFabricLikeSiwContractTest extends SoftwareFabricContractTest {
    @Override
    @BeforeEach
    void newFabric() {
        super.newFabric();
        ((SoftwareFabric) fabric()).likeSiw(true);
    }
}
