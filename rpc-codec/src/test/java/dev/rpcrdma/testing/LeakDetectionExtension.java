package dev.rpcrdma.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns Netty's leak reports into test failures.
 *
 * <p>Registered through {@code META-INF/services} and JUnit's extension auto-detection (enabled in the parent
 * POM's Surefire configuration), so every test class of every module that has the {@code rpc-codec} test-jar
 * on its test class path is covered. Surefire runs with {@code -Dio.netty.leakDetection.level=paranoid}; after
 * each test class this extension forces collection, lets Netty's detectors see the collected buffers, and fails
 * the class if any leak was reported while it ran.
 */
public final class LeakDetectionExtension implements AfterAllCallback {

    private static final List<String> LEAKS = new ArrayList<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    /** Leaks reported so far and not yet claimed by a test class. */
    public static synchronized List<String> drainLeaks() {
        List<String> copy = new ArrayList<>(LEAKS);
        LEAKS.clear();
        return copy;
    }

    static synchronized void record(String report) {
        LEAKS.add(report);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        List<String> leaks = collectLeaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " ByteBuf/resource leak(s) reported while running "
                    + context.getDisplayName() + ":\n" + String.join("\n----\n", leaks));
        }
    }

    /** Runs GC a few times and triggers the detectors' reference-queue scans; returns what they reported. */
    public static List<String> collectLeaks() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
            // Leak detectors report on the next tracked allocation: allocate and release from both allocators.
            for (int j = 0; j < 4; j++) {
                ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(8);
                a.release();
                ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(8);
                b.release();
                ByteBuf c = PooledByteBufAllocator.DEFAULT.heapBuffer(8);
                c.release();
            }
        }
        return drainLeaks();
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                     long maxActive) {
            return new RecordingDetector<>(resource, samplingInterval);
        }

        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
            return new RecordingDetector<>(resource, samplingInterval);
        }
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            record("LEAK: " + resourceType + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            record("LEAK: " + resourceType + " (untraced)");
            super.reportUntracedLeak(resourceType);
        }
    }
}
