package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The memory pool suite over the software fabric modelling Soft-iWARP ({@code SoftwareFabric.likeSiw}): no memory
 * windows, so the window tests check that allocating one fails and that a memory region over exactly the piece gives
 * the same guarantee (the slab's key and a deregistered region's key reach nothing, and on iWARP such an access
 * ends the connection with a TERMINATE), as they do on siw0 in the VM stage.
 */
class SoftwareFabricLikeSiwMemoryPoolTest extends MemoryPoolSuite {
    SoftwareFabricLikeSiwMemoryPoolTest() {
        super(TestFabric.SOFTWARE_LIKE_SIW);
    }
}
