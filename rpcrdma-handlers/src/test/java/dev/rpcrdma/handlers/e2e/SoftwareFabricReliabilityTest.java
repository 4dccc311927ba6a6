package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

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

    @Override
    boolean failPostSends(int count, boolean sendsOnly) {
        SoftwareFabric.instance().failPostSends(count, sendsOnly);
        return true;
    }
}
