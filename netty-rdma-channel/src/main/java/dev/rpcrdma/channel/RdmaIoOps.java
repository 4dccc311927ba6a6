package dev.rpcrdma.channel;

import io.netty.channel.IoOps;

/**
 * What a channel asks its {@link RdmaIoHandler} to watch: a completion-channel fd (its readiness makes the handler
 * poll the channel's completion queue) or an RDMA-CM event-channel fd.
 */
final class RdmaIoOps implements IoOps {
    static final int COMPLETIONS = 1;
    static final int CM_EVENTS = 2;

    final boolean add;
    final int kind;
    final int fd;

    private RdmaIoOps(boolean add, int kind, int fd) {
        this.add = add;
        this.kind = kind;
        this.fd = fd;
    }

    static RdmaIoOps watchCompletions(int fd) {
        return new RdmaIoOps(true, COMPLETIONS, fd);
    }

    static RdmaIoOps watchCmEvents(int fd) {
        return new RdmaIoOps(true, CM_EVENTS, fd);
    }

    static RdmaIoOps unwatch(int fd) {
        return new RdmaIoOps(false, 0, fd);
    }
}
