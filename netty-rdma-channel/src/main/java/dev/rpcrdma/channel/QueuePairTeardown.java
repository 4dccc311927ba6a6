package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.QueuePair;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Destroys queue pairs on a small JVM-wide pool of teardown threads and runs the continuation back on the loop
 * ({@link #runCompleted()}): {@code ibv_destroy_qp} may sleep in the kernel until every reference to the queue pair
 * is dropped (Linux {@code drivers/infiniband/sw/rxe/rxe_pool.c} {@code __rxe_cleanup}), which would stall every
 * connection of the loop; Linux's {@code svc_rdma_free} runs from a workqueue for the same reason.
 */
final class QueuePairTeardown {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(QueuePairTeardown.class);
    /** Destroys that may block at once; more wait in line. */
    private static final int THREADS = 4;
    /** The shared pool while a loop lives, else null. Guarded by {@code QueuePairTeardown.class}. */
    private static ThreadPoolExecutor executor;
    /** Loops alive. Guarded by {@code QueuePairTeardown.class}. */
    private static int loops;

    /** A loop starts: it shares the pool of teardown threads (made for the first). */
    static synchronized void loopStarted() {
        if (loops++ == 0) {
            ThreadPoolExecutor e = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), new DefaultThreadFactory("rdma-qp-teardown", true));
            e.allowCoreThreadTimeOut(true);
            executor = e;
        }
    }

    /**
     * A loop was destroyed. After the last, the pool's threads end once they finished what was handed to them; the
     * caller waits up to a second for that (a destroy that still blocks in the kernel keeps its thread longer).
     */
    static void loopStopped() {
        ThreadPoolExecutor ending;
        synchronized (QueuePairTeardown.class) {
            if (loops == 0) {
                throw new IllegalStateException("more loops stopped than started");
            }
            if (--loops != 0) {
                return;
            }
            ending = executor;
            executor = null;
        }
        ending.shutdown();
        try {
            ending.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static synchronized ThreadPoolExecutor executor() {
        if (executor == null) {
            throw new IllegalStateException("no RDMA event loop is alive");
        }
        return executor;
    }

    /** What the loop does once a queue pair's destroy returned: {@code destroyed} false if it failed. */
    interface Continuation {
        void queuePairDestroyed(boolean destroyed);
    }

    private final RdmaIoHandler handler;
    private final Queue<Runnable> completed = new ConcurrentLinkedQueue<>();
    /** Destroys handed off and whose continuation has not run yet. Loop thread. */
    private int pending;

    QueuePairTeardown(RdmaIoHandler handler) {
        this.handler = handler;
    }

    /** Destroys {@code qp} on a teardown thread; {@code then} runs on the loop afterwards. Loop thread. */
    void destroy(QueuePair qp, Continuation then) {
        pending++;
        executor().execute(() -> {
            boolean destroyed;
            try {
                qp.close();
                destroyed = true;
            } catch (Throwable t) {
                logger.warn("failed to destroy the QP", t);
                destroyed = false;
            }
            boolean outcome = destroyed;
            completed.add(() -> then.queuePairDestroyed(outcome));
            handler.wakeup();
        });
    }

    /** Whether a destroy returned and its continuation waits. Any thread. */
    boolean hasCompleted() {
        return !completed.isEmpty();
    }

    /** Destroys handed off whose continuation has not run. */
    int pending() {
        return pending;
    }

    /** Runs the continuations of the destroys that returned; their number. Loop thread. */
    int runCompleted() {
        if (pending == 0) {
            return 0;
        }
        int n = 0;
        for (Runnable r; (r = completed.poll()) != null; ) {
            pending--;
            n++;
            try {
                r.run();
            } catch (Throwable t) {
                logger.warn("a queue pair teardown continuation failed", t);
            }
        }
        return n;
    }
}
