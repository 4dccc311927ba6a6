package dev.rpcrdma.channel.testing;

import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.transport.RdmaResources;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.util.Map;

/**
 * A JUnit extension for test classes on a real device: records {@code rdma resource show} (pd, cq, qp, cm_id, mr,
 * ...) before the first test and asserts after the last that the counts are back at that baseline (a bounded wait
 * for teardown), so a suite that leaks a verbs object fails. Does nothing without a native fabric.
 */
public final class DeviceResourceBaseline implements BeforeAllCallback, AfterAllCallback {
    /** Seconds teardown may take to show in {@code rdma resource show}. */
    private static final long TEARDOWN_SECONDS = 10;
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(DeviceResourceBaseline.class);

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        if (Fabrics.findNative() != null) {
            NativeTestDevice.openDevice();
            context.getStore(NS).put("baseline", RdmaResources.show());
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void afterAll(ExtensionContext context) throws InterruptedException {
        Map<String, Integer> baseline = context.getStore(NS).get("baseline", Map.class);
        if (baseline != null) {
            RdmaResources.assertBackTo(baseline, RdmaResources::show, TEARDOWN_SECONDS);
        }
    }
}
