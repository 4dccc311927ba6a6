package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The echo sample over the software fabric modelling Soft-iWARP ({@code SoftwareFabric.likeSiw}): no memory windows,
 * no remote invalidation reported, 80 bytes of inline data, iWARP's connection setup and rejects (runs in
 * {@code mvn verify}, as {@link NativeFabricEchoTest} does on siw0 in the VM stage).
 */
class SoftwareFabricLikeSiwEchoTest extends EchoRdmaSuite {
    SoftwareFabricLikeSiwEchoTest() {
        super(TestFabric.SOFTWARE_LIKE_SIW);
    }
}
