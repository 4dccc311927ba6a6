package dev.rpcrdma.samples.callback;

import dev.rpcrdma.channel.testing.NativeTestDevice;
import dev.rpcrdma.testing.LeakDetectionExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The callback demo on a real RDMA device (Soft-RoCE in the VM stage): one command, both directions. */
@Tag("rdma-device")
@Tag("rdma-device-once") // the demo's command line; the backchannel is rpcrdma-handlers'
@ExtendWith(LeakDetectionExtension.class)
class NativeFabricCallbackDemoTest {
    @Test
    void overRpcRdmaOnTheDevice() throws Exception {
        NativeTestDevice.assumeNativeFabric("the callback demo ran only on the software fabric and TCP");
        String out = CallbackDemoTest.run("--transport", "rdma", "--fabric", "native", "--address",
                NativeTestDevice.address().getHostAddress(), "--seconds", "2");
        System.out.println(out);
        assertTrue(out.contains("native fabric"), out);
        CallbackDemoTest.assertBothDirections(out, 4096 - 28);
    }
}
