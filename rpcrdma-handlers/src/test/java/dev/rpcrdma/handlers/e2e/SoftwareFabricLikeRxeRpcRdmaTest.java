package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.testing.TestFabric;

/**
 * The end-to-end suite over the software fabric behaving like Soft-RoCE for Local Invalidate
 * ({@code SoftwareFabric.likeRxe}): the requester's rxe path (windows deallocated instead of locally invalidated)
 * runs on the host, and a Local Invalidate reaching the device would fail the connection.
 */
class SoftwareFabricLikeRxeRpcRdmaTest extends RpcRdmaEndToEndSuite {
    SoftwareFabricLikeRxeRpcRdmaTest() {
        super(TestFabric.SOFTWARE_LIKE_RXE);
    }
}
