package dev.rpcrdma.channel;

import io.netty.channel.IoEvent;

/** A watched fd became readable: one shared instance per kind (nothing is allocated per wakeup). */
final class RdmaIoEvent implements IoEvent {
    static final RdmaIoEvent CM_EVENTS = new RdmaIoEvent(RdmaIoOps.CM_EVENTS);

    final int kind;

    private RdmaIoEvent(int kind) {
        this.kind = kind;
    }

    static RdmaIoEvent of(int kind) {
        return CM_EVENTS;
    }
}
