package dev.rpcrdma.channel;

import io.netty.channel.IoEvent;

/** A watched fd became readable. */
final class RdmaIoEvent implements IoEvent {
    final int kind;
    final int fd;

    RdmaIoEvent(int kind, int fd) {
        this.kind = kind;
        this.fd = fd;
    }
}
