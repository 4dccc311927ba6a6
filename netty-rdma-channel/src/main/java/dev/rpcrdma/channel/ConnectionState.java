package dev.rpcrdma.channel;

/**
 * The lifecycle of one {@link RdmaChannel}, as one explicit state instead of a set of flags. A client goes
 * {@code NEW -> RESOLVING -> CONNECTING -> ESTABLISHED}; an accepted channel {@code NEW -> ACCEPTING ->
 * ESTABLISHED} (or {@code NEW -> REJECTED}); any of them then {@code -> DRAINING -> CLOSED}. {@code DRAINING} is the
 * delayed close (as Netty's io_uring transport delays a close until its outstanding operations completed): the queue
 * pair is in error and every posted work request must come back through the normal completion path (flushed) before
 * the verbs objects and the memory under them are destroyed. Event-loop confined.
 */
enum ConnectionState {
    /** Created; a client not yet connecting, an accepted channel whose request is not answered yet. */
    NEW,
    /** A client resolving the address and route (RDMA-CM). */
    RESOLVING,
    /** A client's connect request is out. */
    CONNECTING,
    /** An accepted channel's accept reply is out. */
    ACCEPTING,
    /** An accepted channel's connect request was rejected. */
    REJECTED,
    /** RDMA_CM_EVENT_ESTABLISHED: the channel is active. */
    ESTABLISHED,
    /** Closing: the queue pair is in error, waiting for the flush of every posted work request. */
    DRAINING,
    /** Every verbs object is destroyed. */
    CLOSED;

    /** The connect request was answered (accepted or rejected): it cannot be answered again. */
    boolean requestAnswered() {
        return this != NEW;
    }

    /** Closing started: nothing new is posted. */
    boolean closing() {
        return this == DRAINING || this == CLOSED;
    }
}
