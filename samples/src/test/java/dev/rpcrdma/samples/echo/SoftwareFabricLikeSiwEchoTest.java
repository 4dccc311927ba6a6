package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The echo sample over the software fabric modelling Soft-iWARP ({@link SoftwareFabric#likeSiw}): no memory windows,
 * no remote invalidation reported, 80 bytes of inline data, iWARP's connection setup and rejects (runs in
 * {@code mvn verify}, as {@link NativeFabricEchoTest} does on siw0 in the VM stage).
 */
class SoftwareFabricLikeSiwEchoTest extends SoftwareFabricEchoTest {
    @BeforeEach
    void likeSiw() {
        SoftwareFabric.instance().likeSiw(true);
    }

    @AfterEach
    void likeRxe() {
        SoftwareFabric.instance().likeSiw(false);
    }

    @Override
    boolean deviceReportsRemoteInvalidation() {
        return false;
    }
}
