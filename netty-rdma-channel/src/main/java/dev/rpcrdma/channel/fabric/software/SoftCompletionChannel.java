package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;

import java.io.IOException;

/** Completion channel: a queue of signalled CQs plus an eventfd readable while the queue is non-empty. */
final class SoftCompletionChannel implements CompletionChannel {
    private final SoftwareFabric fabric;
    private final EventFdQueue<SoftCompletionQueue> pending;

    SoftCompletionChannel(SoftwareFabric fabric) {
        this.fabric = fabric;
        pending = new EventFdQueue<>(fabric, "comp_channel");
    }

    /** Caller holds the fabric lock. */
    void signal(SoftCompletionQueue cq) {
        pending.add(cq);
    }

    @Override
    public int fd() {
        return pending.fd();
    }

    @Override
    public CompletionQueue getEvent() {
        synchronized (fabric.lock) {
            SoftCompletionQueue cq = pending.poll();
            if (cq != null) {
                cq.eventsDelivered++;
            }
            return cq;
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (fabric.lock) {
            if (!pending.close()) {
                return;
            }
            pending.clear();
        }
        pending.closeFd();
    }
}
