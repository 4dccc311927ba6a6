package dev.rpcrdma.channel;

import io.netty.util.concurrent.Future;

/**
 * Fault injection into live {@link RdmaChannel}s for tests on any fabric (in the test-jar): the queue pair moved to
 * the error state from outside the channel's own close, as a device does on a fatal error (on rxe a real
 * {@code ibv_modify_qp} to {@code IBV_QPS_ERR}: every posted work request is flushed with an error). Runs on the
 * channel's event loop; any thread may call.
 */
public final class RdmaFaults {

    private RdmaFaults() {
    }

    /** Moves {@code channel}'s queue pair to error; the future completes once it was done on the event loop. */
    public static Future<Void> queuePairToError(RdmaChannel channel) {
        return channel.eventLoop().submit(() -> {
            channel.injectQueuePairError();
            return null;
        });
    }
}
