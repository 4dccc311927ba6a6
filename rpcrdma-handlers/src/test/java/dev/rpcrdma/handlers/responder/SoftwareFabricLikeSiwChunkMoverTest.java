package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.testing.TestFabric;

/** The chunk mover over the software fabric modelling Soft-iWARP: each pull registers its Read sink for remote write. */
class SoftwareFabricLikeSiwChunkMoverTest extends ChunkMoverSuite {
    SoftwareFabricLikeSiwChunkMoverTest() {
        super(TestFabric.SOFTWARE_LIKE_SIW);
    }
}
