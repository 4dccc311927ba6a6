package dev.rpcrdma.testing;

import io.netty.util.concurrent.FastThreadLocalThread;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a test body on a {@link FastThreadLocalThread}, as Netty's event loops are: Netty 4.2's {@code Recycler}
 * pools objects only on such threads, so reuse of pooled objects can only be observed there. The body's failure is
 * rethrown on the calling thread.
 */
public final class EventLoopThread {

    /** A test body that may throw. */
    public interface Body {
        void run() throws Throwable;
    }

    private EventLoopThread() {
    }

    /** Runs {@code body} on a new FastThreadLocalThread and waits for it; rethrows what it threw. */
    public static void run(Body body) throws Throwable {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new FastThreadLocalThread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
