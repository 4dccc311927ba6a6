package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The memory pool suite over the software fabric made to behave like Soft-RoCE for Local Invalidate
 * ({@code SoftwareFabric.likeRxe}): the rxe code path (windows closed instead of locally invalidated) runs on the
 * host too, and any Local Invalidate that reached the device would fail.
 */
class SoftwareFabricLikeRxeMemoryPoolTest extends MemoryPoolSuite {
    SoftwareFabricLikeRxeMemoryPoolTest() {
        super(TestFabric.SOFTWARE_LIKE_RXE);
    }
}
