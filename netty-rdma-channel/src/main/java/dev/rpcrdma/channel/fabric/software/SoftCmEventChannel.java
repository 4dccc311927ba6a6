package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmEventType;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.FabricException;

import java.io.IOException;
import java.util.ArrayDeque;

/** CM event channel: a queue of events plus an eventfd readable while it is non-empty. */
final class SoftCmEventChannel implements CmEventChannel {
    private final SoftwareFabric fabric;
    private final EventFd eventFd = new EventFd();
    private final ArrayDeque<CmEvent> events = new ArrayDeque<>();
    private boolean closed;

    SoftCmEventChannel(SoftwareFabric fabric) {
        this.fabric = fabric;
        fabric.count("event_channel", 1);
    }

    /** Caller holds the fabric lock. */
    void post(CmEvent event) {
        if (!closed) {
            events.add(event);
            eventFd.set();
        }
    }

    @Override
    public int fd() {
        return eventFd.fd();
    }

    @Override
    public CmId createId(Object context) throws IOException {
        synchronized (fabric.lock) {
            if (closed) {
                throw new FabricException("rdma_create_id: event channel destroyed", FabricException.EINVAL);
            }
            return new SoftCmId(fabric, this, context);
        }
    }

    @Override
    public CmEvent poll() {
        synchronized (fabric.lock) {
            CmEvent e = events.poll();
            if (events.isEmpty()) {
                eventFd.clear();
            }
            return e;
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            closed = true;
            fabric.count("event_channel", -1);
            // Connect requests nobody retrieved: their ids die with the channel (the kernel rejects them).
            for (CmEvent e : events) {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    e.id().close();
                }
            }
            events.clear();
        }
        eventFd.close();
    }
}
