package dev.rpcrdma.oncrpc.xdr;

import io.netty.util.Recycler;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * Pooled objects per thread (messages, headers, payloads, call contexts): a small stack per thread in front of Netty's
 * {@link Recycler}. Public for this library's own packages, not an API: it may change in any release.
 *
 * <p>A message made and released on one thread (an event loop decoding a call, dispatching it and sending its
 * reply) goes back onto that thread's stack and comes off it for the next one: an array push and pop, where the
 * {@link Recycler} claims and releases a handle (its own per-thread pool, a batch, a state change per object). An
 * object released on a thread whose stack is full, e.g. one made on a worker thread and always released on an event
 * loop, is recycled through its {@link Recycler.Handle} (once: it is then out of every stack), which returns it to
 * the pool of the thread that made it, so neither pattern allocates per message. An object taken from a stack keeps
 * the handle it was claimed with: it is claimed once however often it passes through stacks, and recycled once.
 * Threads that do not clean up their {@link FastThreadLocal}s (not Netty's) keep no stack: there every object goes
 * through the {@link Recycler}, as before, so no application thread holds on to this library's objects.
 */
public final class LocalPool<T> {

    /** Objects kept per thread and kind. */
    public static final int CAPACITY = 64;

    private final Recycler<T> recycler;
    private final FastThreadLocal<Stack> stacks = new FastThreadLocal<Stack>() {
        @Override
        protected Stack initialValue() {
            return new Stack();
        }
    };

    public LocalPool(Recycler<T> recycler) {
        this.recycler = recycler;
    }

    /** An object from this thread's stack, else from the recycler. */
    @SuppressWarnings("unchecked")
    public T get() {
        if (!FastThreadLocalThread.currentThreadWillCleanupFastThreadLocals()) {
            return recycler.get();
        }
        Stack s = stacks.get();
        int n = s.size;
        if (n == 0) {
            return recycler.get();
        }
        s.size = --n;
        Object o = s.items[n];
        s.items[n] = null;
        return (T) o;
    }

    /** Keeps {@code o} (claimed with {@code handle}) for this thread's next {@link #get}, or recycles it. */
    public void recycle(T o, Recycler.Handle<T> handle) {
        if (!FastThreadLocalThread.currentThreadWillCleanupFastThreadLocals()) {
            handle.recycle(o);
            return;
        }
        Stack s = stacks.get();
        int n = s.size;
        if (n < CAPACITY) {
            s.items[n] = o;
            s.size = n + 1;
        } else {
            handle.recycle(o);
        }
    }

    private static final class Stack {
        final Object[] items = new Object[CAPACITY];
        int size;
    }
}
