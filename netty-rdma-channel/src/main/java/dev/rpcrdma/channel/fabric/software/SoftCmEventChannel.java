package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmEventType;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.FabricException;

import java.io.IOException;

/** CM event channel: a queue of events plus an eventfd readable while it is non-empty. */
final class SoftCmEventChannel implements CmEventChannel {
    private final SoftwareFabric fabric;
    private final EventFdQueue<CmEvent> events;

    SoftCmEventChannel(SoftwareFabric fabric) {
        this.fabric = fabric;
        events = new EventFdQueue<>(fabric, "event_channel");
    }

    /** Caller holds the fabric lock. */
    void post(CmEvent event) {
        events.add(event);
    }

    @Override
    public int fd() {
        return events.fd();
    }

    @Override
    public CmId createId(Object context) throws IOException {
        synchronized (fabric.lock) {
            if (events.isClosed()) {
                throw new FabricException("rdma_create_id: event channel destroyed", FabricException.EINVAL);
            }
            return new SoftCmId(fabric, this, context);
        }
    }

    @Override
    public CmEvent poll() {
        synchronized (fabric.lock) {
            return events.poll();
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (fabric.lock) {
            if (!events.close()) {
                return;
            }
            // Connect requests nobody retrieved: their ids die with the channel (the kernel rejects them).
            for (CmEvent e = events.poll(); e != null; e = events.poll()) {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    e.id().close();
                }
            }
        }
        events.closeFd();
    }
}
