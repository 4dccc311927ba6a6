package dev.rpcrdma.oncrpc.xdr;

import io.netty.util.Recycler;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * Pooled objects per thread (messages, headers, payloads, call contexts): a small stack per thread in front of
 * Netty's {@link Recycler}, so an object made and released on one thread costs an array push and pop. Public for
 * this library's own packages, not an API: it may change in any release. The package documentation has the rules.
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
