package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.testing.TestFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The echo sample over RPC-over-RDMA on the native fabric (libibverbs/librdmacm on Soft-RoCE): only in the VM stage
 * ({@code tools/vm/run-rdma-tests}); the address is {@code -Drdma.test.address} (default 192.0.2.1, the VM's
 * dummy0).
 */
@Tag("rdma-device")
@Tag("rdma-device-once") // the sample's command line; the transport is rpcrdma-handlers' suites'
class NativeFabricEchoTest extends EchoRdmaSuite {
    NativeFabricEchoTest() {
        super(TestFabric.NATIVE);
    }

    /** 192.0.2.55 is in the VM's dummy0 subnet but assigned to nothing: rdma_bind_addr fails (EADDRNOTAVAIL). */
    @Test
    void listeningOnAnAddressNoDeviceHas() {
        UserError e = assertThrows(UserError.class,
                () -> EchoServer.start(transport(), List.of("192.0.2.55"), 0, 1).close());
        assertTrue(e.getMessage().contains("cannot listen on 192.0.2.55:0"), e.getMessage());
        assertTrue(e.getMessage().contains("no RDMA device has the address 192.0.2.55"), e.getMessage());
    }

    /** Soft-RoCE sits on dummy0, not on lo: a loopback destination fails route resolution (ENODEV). */
    @Test
    void connectingToLoopbackSaysItIsOnNoDevice() {
        try (EchoServer server = EchoServer.start(transport(), List.of("0.0.0.0"), 0, 1)) {
            int port = server.localAddresses().get(0).getPort();
            CommandRun r = client("--address", "127.0.0.1", "--port", Integer.toString(port), "--timeout", "10");
            assertEquals(1, r.code, r.out + r.err);
            assertEquals(1, r.err.lines().count(), r.err);
            assertTrue(r.err.contains("cannot connect to 127.0.0.1:" + port + " over rdma (native fabric)"), r.err);
            assertTrue(r.err.contains("127.0.0.1 is a loopback address, which is on no RDMA device"), r.err);
        }
    }

    @Test
    void autoFabricUsesTheDeviceOnItsAddressAndTheSoftwareFabricOnLoopback() {
        CommandRun onDevice = run("--fabric", "auto", "--address", address(), "--embedded-server", "--count", "5");
        assertEquals(0, onDevice.code, onDevice.out + onDevice.err);
        assertTrue(onDevice.out.contains("echo client: rdma (native fabric)"), onDevice.out);
        CommandRun onLoopback = run("--fabric", "auto", "--address", "127.0.0.1", "--embedded-server", "--count", "5");
        assertEquals(0, onLoopback.code, onLoopback.out + onLoopback.err);
        assertTrue(onLoopback.out.contains("echo client: rdma (software fabric, in-process)"), onLoopback.out);
        assertTrue(onLoopback.out.contains("an RDMA device is available but 127.0.0.1 is a loopback address"),
                onLoopback.out);
    }
}
