package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.net.InetAddress;

/** The backchannel suite over RPC-over-RDMA on the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricBackchannelTest extends RpcRdmaBackchannelSuite {
    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }
}
