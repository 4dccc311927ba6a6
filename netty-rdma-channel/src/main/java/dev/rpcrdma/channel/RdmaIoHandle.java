package dev.rpcrdma.channel;

import io.netty.channel.IoHandle;

/** An {@link IoHandle} whose completion queue the {@link RdmaIoHandler} polls in batches. */
interface RdmaIoHandle extends IoHandle {

    /** Polls and processes up to {@code budget} completions; returns how many there were. */
    int pollCompletions(int budget);

    /** Arms completion notification; false if the handle has no completion queue (yet). */
    boolean armCompletions();

    /**
     * The loop is terminating and no longer runs tasks: release everything now, on this (the loop) thread, without
     * submitting anything to the executor. Idempotent.
     */
    void terminate();
}
