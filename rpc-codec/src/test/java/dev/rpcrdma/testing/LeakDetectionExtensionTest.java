package dev.rpcrdma.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** The leak guard itself must be able to fail: leak a buffer on purpose and see it reported. */
class LeakDetectionExtensionTest {

    @Test
    void reportsALeakedBuffer() throws Exception {
        LeakDetectionExtension.drainLeaks();
        leakOne();
        List<String> leaks = List.of();
        for (int i = 0; i < 20 && leaks.isEmpty(); i++) {
            leaks = LeakDetectionExtension.collectLeaks();
        }
        assertFalse(leaks.isEmpty(), "a buffer dropped without release() must be reported as a leak");
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        leaked.writeLong(42);
        // dropped without release(): the detector must notice once it is collected
    }
}
