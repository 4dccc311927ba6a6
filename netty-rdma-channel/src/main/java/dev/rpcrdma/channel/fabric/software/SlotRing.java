package dev.rpcrdma.channel.fabric.software;

import java.util.function.Supplier;

/**
 * A FIFO of reusable entries with a hard limit: the ring of a work queue or completion queue, as a device keeps it.
 * {@link #claimTail()} hands out the entry at the tail for the caller to fill; {@link #poll()} retires the head
 * entry, which stays valid (and may be read) until the next {@link #claimTail()}. Entries are created when the ring
 * first reaches them and the array grows (doubling, up to the limit) only while the queue is deeper than ever before,
 * so a queue in steady state allocates nothing. Not thread-safe: callers hold the fabric lock.
 */
final class SlotRing<T> {
    private static final int INITIAL = 16;

    private final int limit;
    private final Supplier<T> factory;
    private Object[] slots;
    private int head;
    private int size;

    SlotRing(int limit, Supplier<T> factory) {
        this.limit = limit;
        this.factory = factory;
        slots = new Object[INITIAL];
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean isFull() {
        return size >= limit;
    }

    /** The entry at the tail, now part of the queue; the caller fills it. Only when not {@link #isFull()}. */
    @SuppressWarnings("unchecked")
    T claimTail() {
        if (size >= limit) {
            throw new IllegalStateException("ring full (" + limit + ')');
        }
        if (size == slots.length) {
            grow();
        }
        int i = (head + size) & (slots.length - 1);
        Object e = slots[i];
        if (e == null) {
            slots[i] = e = factory.get();
        }
        size++;
        return (T) e;
    }

    /** The head entry, or null when empty. */
    @SuppressWarnings("unchecked")
    T peek() {
        return size == 0 ? null : (T) slots[head];
    }

    /** Retires and returns the head entry (null when empty); it stays readable until the next claim. */
    @SuppressWarnings("unchecked")
    T poll() {
        if (size == 0) {
            return null;
        }
        T e = (T) slots[head];
        head = (head + 1) & (slots.length - 1);
        size--;
        return e;
    }

    /** Empties the queue (the entries are kept for reuse). */
    void clear() {
        head = 0;
        size = 0;
    }

    private void grow() {
        // Called only when every slot is queued. Power-of-two lengths (index masking); the limit bounds the number
        // of queued entries, not the array length.
        Object[] bigger = new Object[slots.length << 1];
        for (int k = 0; k < size; k++) {
            bigger[k] = slots[(head + k) & (slots.length - 1)];
        }
        slots = bigger;
        head = 0;
    }
}
