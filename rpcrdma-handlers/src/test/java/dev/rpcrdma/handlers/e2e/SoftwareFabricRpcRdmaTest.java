package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.net.InetAddress;

/** The end-to-end suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricRpcRdmaTest extends RpcRdmaEndToEndSuite {
    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }
}
