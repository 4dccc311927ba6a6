package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.net.InetAddress;

/** The bridge over the in-process software RDMA fabric (runs in {@code mvn verify}). */
class SoftwareFabricOncRpcBridgeTest extends RdmaOncRpcBridgeSuite {
    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }
}
