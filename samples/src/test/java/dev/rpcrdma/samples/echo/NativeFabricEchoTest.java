package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.fabric.Fabrics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The echo sample over RPC-over-RDMA on the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the address is {@code -Drdma.test.address} (default 192.0.2.1, the VM's
 * dummy0).
 */
@Tag("rdma-device")
class NativeFabricEchoTest extends EchoRdmaSuite {

    @BeforeEach
    void needsDevice() {
        assumeTrue(Fabrics.findNative() != null,
                "SKIPPED: no native RDMA fabric (libibverbs, librdmacm and an RDMA device); the echo sample ran over"
                        + " RDMA only on the software fabric");
    }

    @Override
    String fabric() {
        return "native";
    }

    @Override
    String address() {
        return System.getProperty("rdma.test.address", "192.0.2.1");
    }

    @Override
    String nothingListeningHint() {
        return "start the server";
    }

    /** Soft-RoCE is bound to dummy0, not to the loopback interface. */
    @Test
    void listeningOnAnAddressWithoutAnRdmaDevice() {
        UserError e = assertThrows(UserError.class,
                () -> EchoServer.start(transport(), List.of("127.0.0.1"), 0, 1).close());
        assertTrue(e.getMessage().contains("no RDMA device has the address 127.0.0.1"), e.getMessage());
    }
}
