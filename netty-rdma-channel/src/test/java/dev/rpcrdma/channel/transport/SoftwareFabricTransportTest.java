package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.net.InetAddress;
import java.util.Map;

/** The transport suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricTransportTest extends RdmaTransportSuite {
    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }

    @Override
    boolean slowFlushes(long millis) {
        SoftwareFabric.instance().flushDelayMillis(millis);
        return true;
    }

    @Override
    boolean slowQueuePairDestroys(long millis) {
        SoftwareFabric.instance().destroyQpDelayMillis(millis);
        return true;
    }

    @Override
    Map<String, Integer> resources() {
        return SoftwareFabric.instance().resourceCounts();
    }
}
