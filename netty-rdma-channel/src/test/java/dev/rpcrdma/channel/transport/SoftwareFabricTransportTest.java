package dev.rpcrdma.channel.transport;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.net.InetAddress;

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
}
