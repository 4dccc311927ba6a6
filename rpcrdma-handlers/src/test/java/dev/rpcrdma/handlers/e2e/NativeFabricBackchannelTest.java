package dev.rpcrdma.handlers.e2e;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;

import java.net.InetAddress;
import java.net.UnknownHostException;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The backchannel suite over the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the address is {@code -Drdma.test.address} (default 192.0.2.1).
 */
@Tag("rdma-device")
class NativeFabricBackchannelTest extends RpcRdmaBackchannelSuite {
    @Override
    @BeforeEach
    protected void start() throws Exception {
        assumeTrue(Fabrics.findNative() != null,
                "SKIPPED: no native RDMA fabric (service \"native\"); the backchannel ran only on the software fabric");
        super.start();
    }

    @Override
    Fabric fabric() {
        return Fabrics.findNative();
    }

    @Override
    InetAddress address() {
        try {
            return InetAddress.getByName(System.getProperty("rdma.test.address", "192.0.2.1"));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
