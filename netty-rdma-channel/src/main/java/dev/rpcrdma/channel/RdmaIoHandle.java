package dev.rpcrdma.channel;

import io.netty.channel.IoHandle;

/** An {@link IoHandle} whose completion queue the {@link RdmaIoHandler} polls in batches. */
interface RdmaIoHandle extends IoHandle {

    /** Polls and processes up to {@code budget} completions; returns how many there were. */
    int pollCompletions(int budget);

    /** Arms completion notification; false if the handle has no completion queue (yet). */
    boolean armCompletions();

    /** A close started and waits for the device to flush what was posted. */
    boolean draining();

    /**
     * The loop is terminating and no longer runs tasks: tear down on this (the loop) thread without submitting
     * anything to the executor. Returns true when done; false while the device still owes completions of posted work
     * requests (the loop keeps polling, then calls again). With {@code abandon} (the loop's patience ran out) it
     * finishes now, leaking rather than freeing memory the device may still own. Idempotent.
     */
    boolean terminate(boolean abandon);
}
