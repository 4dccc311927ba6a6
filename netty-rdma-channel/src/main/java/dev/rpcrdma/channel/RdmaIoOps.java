package dev.rpcrdma.channel;

import io.netty.channel.IoOps;

/**
 * What a channel asks its {@link RdmaIoHandler} to watch: an RDMA-CM event-channel fd (completion channels belong to
 * the loop's {@link EventLoopDevice}s, watched by the handler itself).
 */
final class RdmaIoOps implements IoOps {
    static final int CM_EVENTS = 2;

    final boolean add;
    final int kind;
    final int fd;

    private RdmaIoOps(boolean add, int kind, int fd) {
        this.add = add;
        this.kind = kind;
        this.fd = fd;
    }

    static RdmaIoOps watchCmEvents(int fd) {
        return new RdmaIoOps(true, CM_EVENTS, fd);
    }

    static RdmaIoOps unwatch(int fd) {
        return new RdmaIoOps(false, 0, fd);
    }
}
