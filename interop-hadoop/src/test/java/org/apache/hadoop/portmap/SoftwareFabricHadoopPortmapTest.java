package org.apache.hadoop.portmap;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.net.InetAddress;

/** Hadoop's portmap over the in-process software RDMA fabric (runs in {@code mvn verify}). */
class SoftwareFabricHadoopPortmapTest extends HadoopPortmapOverRdmaSuite {
    @Override
    Fabric fabric() {
        return SoftwareFabric.instance();
    }

    @Override
    InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }
}
