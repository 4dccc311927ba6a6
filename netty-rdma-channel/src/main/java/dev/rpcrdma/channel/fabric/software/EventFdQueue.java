package dev.rpcrdma.channel.fabric.software;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * The queue behind a software completion or CM event channel: entries in arrival order plus an {@link EventFd}
 * that is readable exactly while the queue is non-empty, so an event loop waits on it as on a device's channel fd.
 * Counts itself as one live {@code kind} resource of its fabric until closed. Guarded by the fabric lock: every
 * method but {@link #fd()} and {@link #closeFd()} is called with it held.
 *
 * @param <E> the entry type (a CM event, a signalled completion queue)
 */
final class EventFdQueue<E> {
    private final SoftwareFabric fabric;
    private final String kind;
    private final EventFd eventFd = new EventFd();
    private final ArrayDeque<E> entries = new ArrayDeque<>();
    private boolean closed;

    EventFdQueue(SoftwareFabric fabric, String kind) {
        this.fabric = fabric;
        this.kind = kind;
        fabric.count(kind, 1);
    }

    int fd() {
        return eventFd.fd();
    }

    boolean isClosed() {
        return closed;
    }

    /** Queues {@code entry} and makes the fd readable; dropped once closed. */
    void add(E entry) {
        if (!closed) {
            entries.add(entry);
            eventFd.set();
        }
    }

    /** The oldest entry, or null; the fd stops being readable when this empties the queue. */
    E poll() {
        E e = entries.poll();
        if (entries.isEmpty()) {
            eventFd.clear();
        }
        return e;
    }

    /**
     * Marks the queue closed and no longer a live resource; returns false if it already was. Later entries are
     * dropped; those still queued stay for {@link #poll()} until {@link #clear()}. The caller then calls
     * {@link #closeFd()} (without the lock).
     */
    boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        fabric.count(kind, -1);
        return true;
    }

    /** Forgets the queued entries (the fd's readability is left as it is: it is about to be closed). */
    void clear() {
        entries.clear();
    }

    /** Closes the eventfd, once, after {@link #close()} returned true. */
    void closeFd() throws IOException {
        eventFd.close();
    }
}
