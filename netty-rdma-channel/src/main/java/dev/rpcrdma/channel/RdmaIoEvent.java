package dev.rpcrdma.channel;

import io.netty.channel.IoEvent;

/** A channel's RDMA-CM event channel became readable: one shared instance (nothing is allocated per wakeup). */
final class RdmaIoEvent implements IoEvent {
    static final RdmaIoEvent CM_EVENTS = new RdmaIoEvent();

    private RdmaIoEvent() {
    }
}
