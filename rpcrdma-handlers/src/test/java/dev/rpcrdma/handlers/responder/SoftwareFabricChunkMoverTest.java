package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.testing.TestFabric;

/** The chunk mover over the software fabric. */
class SoftwareFabricChunkMoverTest extends ChunkMoverSuite {
    SoftwareFabricChunkMoverTest() {
        super(TestFabric.SOFTWARE);
    }
}
