package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
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

    /**
     * Software fabric only: {@code channel}'s peer vanishes without a word ({@link SoftwareFabric#severConnection}:
     * no disconnect, no acknowledgement any more; the next request that needs the peer fails with
     * {@code IBV_WC_RETRY_EXC_ERR} once its transport retries are spent).
     */
    public static Future<Void> severConnection(RdmaChannel channel) {
        return channel.eventLoop().submit(() -> {
            if (!(channel.fabric instanceof SoftwareFabric)) {
                throw new UnsupportedOperationException("only the software fabric models a vanished peer");
            }
            QueuePair qp = channel.queuePairForFaults();
            if (qp == null) {
                throw new IllegalStateException(channel + " has no queue pair");
            }
            ((SoftwareFabric) channel.fabric).severConnection(qp);
            return null;
        });
    }

    /** Moves {@code channel}'s queue pair to error; the future completes once it was done on the event loop. */
    public static Future<Void> queuePairToError(RdmaChannel channel) {
        return channel.eventLoop().submit(() -> {
            channel.injectQueuePairError();
            return null;
        });
    }
}
