package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.net.InetAddress;
import java.util.Map;

/** Many idle connections over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricManyConnectionsTest extends ManyConnectionsSuite {
    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }

    @Override
    Map<String, Integer> resources() {
        return SoftwareFabric.instance().resourceCounts();
    }
}
