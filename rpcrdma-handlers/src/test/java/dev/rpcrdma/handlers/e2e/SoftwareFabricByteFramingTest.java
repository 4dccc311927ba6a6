package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.net.InetAddress;

/** The byte framing suite over the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricByteFramingTest extends ByteFramingSuite {
    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }
}
