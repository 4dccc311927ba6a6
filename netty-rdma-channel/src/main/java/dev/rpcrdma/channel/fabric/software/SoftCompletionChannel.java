package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;

import java.io.IOException;
import java.util.ArrayDeque;

/** Completion channel: a queue of signalled CQs plus an eventfd readable while the queue is non-empty. */
final class SoftCompletionChannel implements CompletionChannel {
    private final SoftwareFabric fabric;
    private final EventFd eventFd = new EventFd();
    private final ArrayDeque<SoftCompletionQueue> pending = new ArrayDeque<>();
    private boolean closed;

    SoftCompletionChannel(SoftwareFabric fabric) {
        this.fabric = fabric;
        fabric.count("comp_channel", 1);
    }

    /** Caller holds the fabric lock. */
    void signal(SoftCompletionQueue cq) {
        if (!closed) {
            pending.add(cq);
            eventFd.set();
        }
    }

    @Override
    public int fd() {
        return eventFd.fd();
    }

    @Override
    public CompletionQueue getEvent() {
        synchronized (fabric.lock) {
            SoftCompletionQueue cq = pending.poll();
            if (cq != null) {
                cq.eventsDelivered++;
            }
            if (pending.isEmpty()) {
                eventFd.clear();
            }
            return cq;
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            closed = true;
            fabric.count("comp_channel", -1);
            pending.clear();
        }
        eventFd.close();
    }
}
