package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.net.InetAddress;

/**
 * The end-to-end suite over the software fabric behaving like Soft-RoCE for Local Invalidate
 * ({@link SoftwareFabric#likeRxe}): the requester's rxe path (windows deallocated instead of locally invalidated)
 * runs on the host, and a Local Invalidate reaching the device would fail the connection.
 */
class SoftwareFabricLikeRxeRpcRdmaTest extends RpcRdmaEndToEndSuite {
    @Override
    @BeforeEach
    void startLoop() {
        SoftwareFabric.instance().likeRxe(true);
        super.startLoop();
    }

    @Override
    @AfterEach
    void stopLoop() throws Exception {
        try {
            super.stopLoop();
        } finally {
            SoftwareFabric.instance().likeRxe(false);
        }
    }

    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }
}
