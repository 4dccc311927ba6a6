package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.Map;

/** The reliability suite over the in-process software fabric (runs in {@code mvn verify}: a 5 s soak). */
class SoftwareFabricReliabilityTest extends RpcRdmaReliabilitySuite {
    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }

    @Override
    int soakSeconds() {
        return Integer.getInteger("soak.seconds", 5);
    }

    @Override
    Map<String, Integer> resources() {
        return SoftwareFabric.instance().resourceCounts();
    }

    /**
     * The server's close on a device that behaves like rxe ({@link SoftwareFabric#likeRxe}): there a queue pair's
     * destroy waits for the type-2 windows still bound through it (50 s at most). The pending call's windows are
     * deallocated before the client's queue pair is destroyed, so the call fails at once, not after that wait.
     */
    @Test
    void theServerDroppingAConnectionMidRpcOnAnRxeLikeDeviceFailsItsPendingCallsAtOnce() throws Exception {
        SoftwareFabric.instance().likeRxe(true);
        try {
            theServerDroppingAConnectionMidRpcFailsItsPendingCallsAndNotTheOthers();
        } finally {
            SoftwareFabric.instance().likeRxe(false);
        }
    }

    @Override
    boolean failPostSends(int count, boolean sendsOnly) {
        SoftwareFabric.instance().failPostSends(count, sendsOnly);
        return true;
    }
}
