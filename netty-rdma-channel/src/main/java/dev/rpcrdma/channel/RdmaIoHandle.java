package dev.rpcrdma.channel;

import io.netty.channel.IoHandle;

/**
 * A channel's {@link IoHandle}: the {@link RdmaIoHandler} hands it RDMA-CM events; its completions come through the
 * loop's shared completion queues ({@link EventLoopDevice}).
 */
interface RdmaIoHandle extends IoHandle {

    /** A close started and waits for the device to flush what was posted. */
    boolean draining();

    /**
     * The loop shuts down and runs no timers: a close whose wait for flushes has a deadline finishes it now if it
     * passed (what the channel's timer would do). Loop thread.
     */
    default void checkDrain() {
    }

    /**
     * The loop is terminating and no longer runs tasks: tear down on this (the loop) thread without submitting
     * anything to the executor. Returns true when done; false while the device still owes completions of posted work
     * requests (the loop keeps polling, then calls again). With {@code abandon} (the loop's patience ran out) it
     * finishes now, leaking rather than freeing memory the device may still own. Idempotent.
     */
    boolean terminate(boolean abandon);
}
