package dev.rpcrdma.interop.hadoop;

import dev.rpcrdma.channel.testing.TestFabric;

/** Hadoop's portmap over the in-process software RDMA fabric (runs in {@code mvn verify}). */
class SoftwareFabricHadoopPortmapTest extends HadoopPortmapOverRdmaSuite {
    SoftwareFabricHadoopPortmapTest() {
        super(TestFabric.SOFTWARE);
    }
}
